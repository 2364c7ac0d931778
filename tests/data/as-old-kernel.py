#!/usr/bin/env python3
"""as-old-kernel.py IN.dat OUT.dat [4.4|4.9] — a trace.dat (file version 6,
as `trace-cmd record --file-version 6` writes it) rewritten as a kernel of
4.2-4.7 (4.4) or 4.8-4.13 (4.9, the default) would have recorded it:
sched_switch's print format is the one those kernels gave, and every
prev_state is given in their numbering.

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


MARKS = {"4.4": 2048, "4.9": 4096}

# today's value -> the old kernel's (a value with other bits is refused;
# 256, the preempted mark, is the kernel's mark)
MAP = {0: 0, 1: 1, 2: 2, 4: 4, 8: 8, 16: 64, 32: 64, 64: 512, 128: 1026}


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[3:] and sys.argv[3] not in MARKS:
        sys.exit("usage: as-old-kernel.py IN.dat OUT.dat [4.4|4.9]")
    mark = MARKS[sys.argv[3] if len(sys.argv) == 4 else "4.9"]
    states = {**MAP, 256: mark}
    buf = bytearray(open(sys.argv[1], "rb").read())
    f = V6(buf, sys.argv[1])
    if f.e != "<":
        sys.exit("not little-endian")
    switch_id = None
    for _, pos, size in f.formats:
        text = bytes(buf[pos:pos + size]).decode()
        if not text.startswith("name: sched_switch\n"):
            continue
        switch_id = int(text.split("\nID: ")[1].split("\n")[0])
        head, _, _ = text.partition("print fmt: ")
        new = head + print_fmt(mark)
        if "field:long prev_state;\toffset:32;\tsize:8;" not in head:
            sys.exit("sched_switch's prev_state is not a long at 32")
        if len(new) + 1 > size:
            sys.exit("the old format is longer than the file's")
        new += " " * (size - len(new) - 1) + "\n"
        buf[pos:pos + size] = new.encode()
    if switch_id is None:
        sys.exit("no sched_switch format")
    if f.kind != b"flyrecord\0":
        sys.exit("no flyrecord section")
    # each buffer's offset and size per CPU: the top one's, an instance's
    # (its option points at them, or at a "flyrecord\0" before them)
    tables = [f.data]
    for r in f.buffer_refs:
        t = struct.unpack_from("<Q", buf, r)[0]
        tables.append(t + 10 if buf[t:t + 10] == b"flyrecord\0" else t)
    cpus, page_size, long_size = f.cpus, f.page_size, f.long_size

    seen = 0
    for t in tables:
        for cpu in range(cpus):
            off, size = struct.unpack("<QQ", buf[t + 16 * cpu:t + 16 * cpu + 16])
            for page in range(off, off + size, page_size):
                seen += patch_page(buf, page, page_size, long_size, switch_id,
                                   states)
    open(sys.argv[2], "wb").write(buf)
    print("%d sched_switch records rewritten" % seen)


def patch_page(buf, page, page_size, long_size, switch_id, states):
    """Every sched_switch record of one ring-buffer page."""
    commit = int.from_bytes(buf[page + 8:page + 8 + long_size], "little")
    data = page + 8 + long_size
    end = data + (commit & 0xfffff)
    if end > page + page_size:
        sys.exit("page at %d: commit %d past its end" % (page, commit))
    p, n = data, 0
    while p < end:
        head = struct.unpack("<I", buf[p:p + 4])[0]
        kind, delta = head & 31, head >> 5
        if kind == 29:                                     # padding
            if delta == 0:
                break
            p += 4 + struct.unpack("<I", buf[p + 4:p + 8])[0]
            continue
        if kind in (30, 31):                               # time extend, stamp
            p += 8
            continue
        if kind == 0:
            length = struct.unpack("<I", buf[p + 4:p + 8])[0] - 4
            rec, size = p + 8, 8 + length
        else:
            rec, size = p + 4, 4 + 4 * kind
        if struct.unpack("<H", buf[rec:rec + 2])[0] == switch_id:
            state = struct.unpack("<q", buf[rec + 32:rec + 40])[0]
            if state not in states:
                sys.exit("prev_state %d: no old kernel's value for it" % state)
            buf[rec + 32:rec + 40] = struct.pack("<q", states[state])
            n += 1
        p += size
    return n


if __name__ == "__main__":
    main()
