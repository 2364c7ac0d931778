#!/usr/bin/python3
"""pty-type.py TIMEOUT INPUT-FILE CMD [ARG...]

Runs CMD on a new terminal and types the bytes of INPUT-FILE into it, a
line at a time (a ^D ends a line too), each once CMD's prompt ("commq> "
or "   ...> ") is on the screen again. The line editor puts the terminal
in raw mode before it prints its prompt and back in cooked mode when it
returns a line, so what is typed between a line's end and the next
prompt meets the terminal's own line discipline: it is echoed by it, and
a ^D there is its end of file, which never reaches the editor (commq then
waits for input for ever). Typing everything at once, as script(1) with a
pipe on its input does, lost that race whenever commq was slow to come
back to its prompt (under AddressSanitizer on a loaded machine).

The screen goes to stdout. The exit status is CMD's, or 124 when it has
not exited after TIMEOUT seconds (it is killed then). A prompt's text in
CMD's own output counts as a prompt too (the next line goes early: no
harm but for a ^D)."""
import os
import pty
import select
import signal
import sys
import time

PROMPTS = (b"commq> ", b"   ...> ")


def lines(data):
    out, cur = [], bytearray()
    for b in data:
        cur.append(b)
        if b in (0x0A, 0x04):
            out.append(bytes(cur))
            cur = bytearray()
    if cur:
        out.append(bytes(cur))
    return out


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: pty-type.py TIMEOUT INPUT-FILE CMD [ARG...]")
    timeout = float(sys.argv[1])
    with open(sys.argv[2], "rb") as f:
        todo = lines(f.read())
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execvp(sys.argv[3], sys.argv[3:])
        except OSError as e:
            sys.stderr.write("pty-type.py: %s: %s\n" % (sys.argv[3], e.strerror))
        os._exit(127)
    screen = bytearray()
    seen = 0  # where the next prompt is looked for
    deadline = time.monotonic() + timeout
    status = None
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            status = 124
            break
        ready, _, _ = select.select([fd], [], [], min(left, 0.1))
        if ready:
            try:
                buf = os.read(fd, 65536)
            except OSError:  # EIO: every holder of the terminal closed it
                buf = b""
            if not buf:
                break
            screen += buf
            sys.stdout.buffer.write(buf)
        if todo and any(p in screen[seen:] for p in PROMPTS):
            seen = len(screen)
            os.write(fd, todo.pop(0))
    while status is None:  # the terminal closed: CMD's exit, by the deadline
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = os.waitstatus_to_exitcode(st)
            if status < 0:
                status = 128 - status
        elif time.monotonic() >= deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            status = 124
        else:
            time.sleep(0.05)
    sys.stdout.flush()
    os.close(fd)
    sys.exit(status)


if __name__ == "__main__":
    main()
