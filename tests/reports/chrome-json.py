#!/usr/bin/env python3
"""chrome-json.py FILE SUMS [LO HI] — checks the structure of a `commq export
--chrome-json` file (client/export.h has the layout) and summarises it, for
export.sh to compare with figures the sqlite3 shell computes.

Structure: a JSON object whose traceEvents is a list of objects, each with
ph, ts, pid and tid; X events with a name and dur >= 0, ts and dur whole
ns (at most three decimals of µs); the CPU tracks named "CPU N" in a
process "CPUs"; every task of a slice named by a thread_name event; with
LO and HI (ns), every slice and loss inside the window [LO, HI).  Any
problem is printed as "FAIL ..." on stderr, and the exit status is 1.

Also the tasks' own tracks (process = thread group, thread = task): X
events of category "state" named by the state, each task's never
overlapping; wakeup flows, an "s" on the waker's track and an "f" (bp "e")
on the wakee's, one of each per id, the f not before the s; "renamed"
instants with the new comm in args.

Prints on stdout, one "key value" a line: slices, lost_slices, losses,
global_losses, tasks (thread_name events of tasks), processes, cpus (the
CPUs with a track, space-separated), states, flows, renames; and writes to SUMS, sorted by comm,
"comm|ns" lines: the time of each comm's slices, in ns, exactly (the
file's decimals are read as decimals, never as binary floats).
"""
import collections
import decimal
import json
import sys

CPUS_PID = 4194304

errors = []


def fail(msg):
    if len(errors) < 20:
        print("FAIL " + msg, file=sys.stderr)
    errors.append(msg)


def ns(value, what):
    """A µs value as whole ns; fails when it is not a number or keeps
    more than ns."""
    if isinstance(value, bool) or not isinstance(value, (int, decimal.Decimal)):
        fail("%s is not a number: %r" % (what, value))
        return 0
    v = decimal.Decimal(value) * 1000
    if v != v.to_integral_value():
        fail("%s is not whole ns: %r" % (what, value))
    return int(v)


def main():
    path, sums_path = sys.argv[1], sys.argv[2]
    lo, hi = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else (0, 2**63 - 1)
    with open(path, "rb") as f:
        raw = f.read()
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as e:
        fail("not UTF-8: %s" % e)
    doc = json.loads(raw, parse_float=decimal.Decimal)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail("no traceEvents list")
        return
    if doc.get("otherData", {}).get("exporter") != "commq export":
        fail("otherData does not name the exporter")

    sums = collections.Counter()
    counts = collections.Counter()
    cpu_names = {}          # tid -> name
    cpu_sort = {}
    thread_names = {}       # (pid, tid) -> name
    process_names = {}
    used_cpu_tids = set()
    slice_tasks = set()
    state_spans = collections.defaultdict(list)   # tid -> [(ts, end)]
    flow_s, flow_f = {}, {}
    for i, e in enumerate(doc["traceEvents"]):
        where = "event %d" % i
        if not isinstance(e, dict):
            fail("%s is not an object" % where)
            continue
        for key in ("ph", "ts", "pid", "tid"):
            if key not in e:
                fail("%s has no %s: %r" % (where, key, e))
        if not all(isinstance(e.get(k), int) and not isinstance(e.get(k), bool)
                   for k in ("pid", "tid")):
            fail("%s: pid and tid are not integers: %r" % (where, e))
            continue
        ts = ns(e.get("ts"), where + " ts")
        ph = e.get("ph")
        args = e.get("args", {})
        if ph == "M":
            name = e.get("name")
            if name in ("thread_name", "process_name"):
                if not isinstance(args.get("name"), str) or not args["name"]:
                    fail("%s: %s without a name: %r" % (where, name, e))
                    continue
                if name == "process_name":
                    process_names[e["pid"]] = args["name"]
                elif e["pid"] == CPUS_PID:
                    cpu_names[e["tid"]] = args["name"]
                else:
                    thread_names[(e["pid"], e["tid"])] = args["name"]
            elif name == "thread_sort_index" and e["pid"] == CPUS_PID:
                cpu_sort[e["tid"]] = args.get("sort_index")
            elif name != "process_sort_index":
                fail("%s: unknown metadata %r" % (where, name))
        elif ph == "X" and e.get("cat") == "state":
            dur = ns(e.get("dur"), where + " dur")
            if e.get("name") not in ("running", "runnable", "sleeping", "uninterruptible",
                                     "idle", "stopped", "traced", "parked", "new") and \
                    not str(e.get("name")).startswith("state "):
                fail("%s: a state slice named %r" % (where, e.get("name")))
            if dur <= 0 or ts < lo or ts + dur > hi:
                fail("%s: empty, or outside the window [%d, %d): %r" % (where, lo, hi, e))
            if e["pid"] == CPUS_PID or "comm" not in args:
                fail("%s: a state slice off its task's track, or without comm: %r" % (where, e))
            state_spans[e["tid"]].append((ts, ts + dur))
            counts["states"] += 1
        elif ph in ("s", "f"):
            if e.get("cat") != "wakeup" or not isinstance(e.get("id"), int):
                fail("%s: unexpected flow event: %r" % (where, e))
                continue
            if ph == "f" and e.get("bp") != "e":
                fail("%s: a flow end not bound to its enclosing slice: %r" % (where, e))
            side = flow_s if ph == "s" else flow_f
            if e["id"] in side:
                fail("%s: flow id %d twice" % (where, e["id"]))
            side[e["id"]] = ts
        elif ph == "X":
            if not isinstance(e.get("name"), str):
                fail("%s: X without a name: %r" % (where, e))
                continue
            dur = ns(e.get("dur"), where + " dur")
            if dur < 0 or ts < 0:
                fail("%s: negative ts or dur: %r" % (where, e))
            if ts < lo or ts + dur > hi:
                fail("%s: outside the window [%d, %d): %r" % (where, lo, hi, e))
            for key in ("cpu", "pid", "tid", "prio", "end_state"):
                if key not in args:
                    fail("%s: no args.%s: %r" % (where, key, e))
            if e["pid"] != CPUS_PID or e["tid"] != CPUS_PID + 1 + args.get("cpu", -1):
                fail("%s: not on its CPU's track: %r" % (where, e))
            used_cpu_tids.add(e["tid"])
            slice_tasks.add((args.get("pid"), args.get("tid")))
            sums[e["name"]] += dur
            counts["slices"] += 1
            if args.get("lost") is True:
                counts["lost_slices"] += 1
        elif ph == "i" and e.get("cat") == "comm":
            if e.get("name") != "renamed" or not isinstance(args.get("comm"), str) or \
                    e["pid"] == CPUS_PID or ts < lo or ts >= hi:
                fail("%s: unexpected rename: %r" % (where, e))
            counts["renames"] += 1
        elif ph == "i":
            if e.get("name") != "events lost" or e.get("s") not in ("t", "g"):
                fail("%s: unexpected instant: %r" % (where, e))
            counts["losses"] += 1
            if ts < lo or ts >= hi:
                fail("%s: outside the window [%d, %d): %r" % (where, lo, hi, e))
            if e.get("s") == "g":
                counts["global_losses"] += 1
                if args.get("cpu") is not None:
                    fail("%s: a global loss with a CPU: %r" % (where, e))
            else:
                if e["tid"] != CPUS_PID + 1 + args.get("cpu", -1):
                    fail("%s: loss not on its CPU's track: %r" % (where, e))
                used_cpu_tids.add(e["tid"])
        else:
            fail("%s: unexpected ph %r" % (where, ph))

    if process_names.get(CPUS_PID) != "CPUs":
        fail("no process \"CPUs\"")
    for tid in sorted(used_cpu_tids):
        cpu = tid - CPUS_PID - 1
        if cpu_names.get(tid) != "CPU %d" % cpu:
            fail("the track of CPU %d is named %r" % (cpu, cpu_names.get(tid)))
        if cpu_sort.get(tid) != cpu:
            fail("the track of CPU %d sorts as %r" % (cpu, cpu_sort.get(tid)))
    named = {tid for (_, tid) in thread_names}
    for pid, tid in sorted(slice_tasks, key=str):
        if tid not in named:
            fail("task %r (process %r) has slices but no thread_name" % (tid, pid))
    for tid, spans in state_spans.items():
        spans.sort()
        for (a, b), (c, _) in zip(spans, spans[1:]):
            if c < b:
                fail("task %d: state slices overlap at %d" % (tid, c))
                break
    if set(flow_s) != set(flow_f):
        fail("flows without both ends: %r" % sorted(set(flow_s) ^ set(flow_f))[:5])
    for i in flow_s:
        if i in flow_f and flow_f[i] < flow_s[i]:
            fail("flow %d ends before it starts" % i)
    print("states %d" % counts["states"])
    print("flows %d" % len(flow_s))
    print("renames %d" % counts["renames"])
    print("slices %d" % counts["slices"])
    print("lost_slices %d" % counts["lost_slices"])
    print("losses %d" % counts["losses"])
    print("global_losses %d" % counts["global_losses"])
    print("tasks %d" % len(thread_names))
    print("processes %d" % (len(process_names) - 1))
    print("cpus %s" % " ".join(str(t - CPUS_PID - 1) for t in sorted(used_cpu_tids)))
    with open(sums_path, "w", encoding="utf-8", errors="surrogateescape") as f:
        for comm in sorted(sums):
            f.write("%s|%d\n" % (comm, sums[comm]))


main()
sys.exit(1 if errors else 0)
