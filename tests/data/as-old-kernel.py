#!/usr/bin/env python3
"""as-old-kernel.py IN.dat OUT.dat [4.4|4.9|5.15] — a trace.dat (file
version 6, as `trace-cmd record --file-version 6` writes it) rewritten as
a kernel of 4.2-4.7 (4.4) or 4.8-4.13 (4.9, the default) would have
recorded it: sched_switch's print format is the one those kernels gave,
and every prev_state is given in their numbering. Or as 5.8-5.17 (5.15)
would have: the same format and numbering, but a switch-out into a sleep
that a waker on another CPU raced (its sched_waking while the task ran,
its sched_wakeup after the switch) shows R: those kernels read the state
at the tracepoint, after the waker had set it to TASK_WAKING.

Kernels since 4.14 report a task's state through TASK_REPORT: S 1, D 2,
T 4, t 8, X 16, Z 32, P 64, I 128, and 256 (TASK_REPORT_MAX) for a task
preempted while running. 4.2-4.13 gave the raw task state: S 1, D 2, T 4,
t 8, EXIT_ZOMBIE 16, EXIT_DEAD 32, TASK_DEAD 64 (a task's last switch-out:
its state is TASK_DEAD, whatever exit_state says), TASK_WAKEKILL 128,
TASK_WAKING 256, TASK_PARKED 512, TASK_NOLOAD 1024 (4.9: TASK_NEW 2048),
and TASK_STATE_MAX for a preempted task: 2048 on 4.4, 4096 on 4.9; a
kernel thread's idle wait (TASK_IDLE) was D|N, 1026.

The same events, the same times, the same names: what commd derives from
the files must be the same, except the raw states it keeps
(sched_switch.prev_state, sched.end_state), which map one to one.
"""
import os
import re
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from tracedat6 import V6  # noqa: E402

def print_fmt(mark):
    """sched_switch's print format with the preempted mark `mark`."""
    return ('print fmt: "prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> '
            'next_comm=%s next_pid=%d next_prio=%d", REC->prev_comm, REC->prev_pid, '
            'REC->prev_prio, REC->prev_state & ({0}-1) ? __print_flags(REC->prev_state '
            '& ({0}-1), "|", {{ 1, "S"}} , {{ 2, "D" }}, {{ 4, "T" }}, {{ 8, "t" }}, '
            '{{ 16, "Z" }}, {{ 32, "X" }}, {{ 64, "x" }}, {{ 128, "K" }}, {{ 256, "W" }}, '
            '{{ 512, "P" }}, {{ 1024, "N" }}) : "R", REC->prev_state & {0} ? "+" : "", '
            'REC->next_comm, REC->next_pid, REC->next_prio').format(mark)


MARKS = {"4.4": 2048, "4.9": 4096, "5.15": None}

# today's value -> the old kernel's (a value with other bits is refused;
# 256, the preempted mark, is the kernel's mark)
MAP = {0: 0, 1: 1, 2: 2, 4: 4, 8: 8, 16: 64, 32: 64, 64: 512, 128: 1026}


def fields(text, names):
    """The offsets of the format's fields `names`."""
    out = []
    for n in names:
        m = re.search(r"field:[^;]*[ *]%s(\[\d+\])?;\toffset:(\d+);" % n, text)
        if not m:
            sys.exit("no field %s" % n)
        out.append(int(m.group(2)))
    return out


def racing(f, switch_id):
    """The switch-outs a kernel of 5.8-5.17 may show as R: in S or D,
    after a waking of the task whose sched_wakeup comes after the
    switch-out, with no other waking or switch-in between (the waker set
    TASK_WAKING before the tracepoint read the state). The positions of
    their records."""
    waking = f.format_of("sched_waking")
    wakeup = f.format_of("sched_wakeup")
    if not waking or not wakeup:
        sys.exit("no sched_waking or sched_wakeup format")
    ids = {int(t.split("\nID: ")[1].split("\n")[0]): k
           for k, (_, _, t) in (("waking", waking), ("wakeup", wakeup))}
    sw = fields(f.format_of("sched_switch")[2], ("prev_pid", "prev_state", "next_pid"))
    wk = fields(waking[2], ("pid",))[0]
    wu = fields(wakeup[2], ("pid",))[0]
    ev = []
    for _, page in f.pages():
        for ts, rec in f.records(page):
            i = struct.unpack_from("<H", f.buf, rec)[0]
            if i == switch_id:
                prev, state, nxt = (struct.unpack_from("<i", f.buf, rec + sw[0])[0],
                                    struct.unpack_from("<q", f.buf, rec + sw[1])[0],
                                    struct.unpack_from("<i", f.buf, rec + sw[2])[0])
                ev.append((ts, 0, "out", prev, state, rec))
                ev.append((ts, 1, "in", nxt, 0, rec))
            elif ids.get(i) == "waking":
                ev.append((ts, 2, "waking", struct.unpack_from("<i", f.buf, rec + wk)[0], 0, rec))
            elif ids.get(i) == "wakeup":
                ev.append((ts, 2, "wakeup", struct.unpack_from("<i", f.buf, rec + wu)[0], 0, rec))
    ev.sort(key=lambda x: (x[0], x[1]))
    woke, out, race = {}, {}, set()
    for ts, _, k, pid, state, rec in ev:
        if pid <= 0:
            continue
        if k == "in":
            woke[pid] = None
            out.pop(pid, None)
        elif k == "waking":
            # a waking after the switch-out is a wakeup of its own
            woke[pid], out[pid] = ts, None
        elif k == "out":
            # a waking still waiting for its sched_wakeup
            out[pid] = rec if state in (1, 2) and woke.get(pid) is not None else None
            woke[pid] = None
        elif k == "wakeup":
            if out.get(pid) is not None:
                race.add(out[pid])
            woke[pid] = out[pid] = None
    return race


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[3:] and sys.argv[3] not in MARKS:
        sys.exit("usage: as-old-kernel.py IN.dat OUT.dat [4.4|4.9|5.15]")
    kernel = sys.argv[3] if len(sys.argv) == 4 else "4.9"
    buf = bytearray(open(sys.argv[1], "rb").read())
    f = V6(buf, sys.argv[1])
    if f.e != "<":
        sys.exit("not little-endian")
    found = f.format_of("sched_switch")
    if found is None:
        sys.exit("no sched_switch format")
    pos, size, text = found
    switch_id = int(text.split("\nID: ")[1].split("\n")[0])
    head, _, _ = text.partition("print fmt: ")
    if "field:long prev_state;\toffset:32;\tsize:8;" not in head:
        sys.exit("sched_switch's prev_state is not a long at 32")
    if kernel == "5.15":
        # today's numbering and format; the racing switch-outs in R
        race = racing(f, switch_id)
        for rec in race:
            buf[rec + 32:rec + 40] = struct.pack("<q", 0)
        open(sys.argv[2], "wb").write(buf)
        print("%d sched_switch records rewritten" % len(race))
        return
    mark = MARKS[kernel]
    states = {**MAP, 256: mark}
    new = head + print_fmt(mark)
    if len(new) + 1 > size:
        sys.exit("the old format is longer than the file's")
    new += " " * (size - len(new) - 1) + "\n"
    buf[pos:pos + size] = new.encode()
    seen = 0
    for _, page in f.pages():
        for _, rec in f.records(page):
            if struct.unpack_from("<H", buf, rec)[0] != switch_id:
                continue
            state = struct.unpack_from("<q", buf, rec + 32)[0]
            if state not in states:
                sys.exit("prev_state %d: no old kernel's value for it" % state)
            buf[rec + 32:rec + 40] = struct.pack("<q", states[state])
            seen += 1
    open(sys.argv[2], "wb").write(buf)
    print("%d sched_switch records rewritten" % seen)


if __name__ == "__main__":
    main()
