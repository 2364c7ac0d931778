#!/usr/bin/env bash
# A full disk pauses ingestion, keeps serving queries, and resumes: the
# database lives on a 1 MiB tmpfs that fills up under load; commd must say
# it paused, keep answering commq, and once the tmpfs is grown write again
# without losing or duplicating anything it had read (events == the
# kernel's read events at the end; integrity ok).
. "$(dirname "$0")/lib.sh"
need_live
need_perf

mnt=$(mktemp -d /tmp/commd-fulldisk-mnt.XXXXXX)	# outside $TMP: unmounted after it goes
mount -t tmpfs -o size=1M,mode=0755 tmpfs "$mnt" || abort "mounting a small tmpfs" "mount succeeds" "failed"
# commd first (the lib's cleanup hook kills it), then the tmpfs: a hook
# after the lib's (lazily: a query server may still hold files there).
CLEANUP_HOOKS+=('umount -l "$mnt" 2>/dev/null || true; rmdir "$mnt" 2>/dev/null || true')

in=$(inst full)
err=$TMP/full.err
start_ready "full disk" "$err" "$mnt/c.db" "$in" --commit-ms 200
perf_messaging "load to fill the disk" -g 4 -l 300

paused=0
for _ in $(seq 100); do
	grep -q "ingestion paused" "$err" && { paused=1; break; }
	sleep 0.1
done
check_eq "commd says it paused when the disk is full" 1 "$paused"
check_eq "commd still running while paused" yes "$(_alive "$COMMD_PID" && echo yes || echo no)"
got=$("$COMMQ" --socket "$TMP/$in.sock" -noheader "select 42" 2>&1) || true
check_eq "queries are served while paused" 42 "$got"

mount -o remount,size=64M "$mnt"
resumed=0
for _ in $(seq 100); do
	grep -q "ingestion resumed" "$err" && { resumed=1; break; }
	sleep 0.1
done
check_eq "commd resumes once there is room" 1 "$resumed"
perf_messaging "load after resuming" -g 2 -l 50
sleep 0.5

stop_commd "$COMMD_PID" TERM
check_eq "exit status after SIGTERM" 0 "$STOP_RC"
check_integrity "after the full disk" "$mnt/c.db"
events=$(stat "$mnt/c.db" events)
read_ev=$(stat "$mnt/c.db" kernel_read_events)
check_eq "stored events == the kernel's read events (nothing read was lost)" "$read_ev" "$events"
check_eq "stored events == rows in the event tables" "$events" "$(event_rows "$mnt/c.db")"
dups=$(q "$mnt/c.db" "select count(*) from (select ts, cpu from ev_sched_switch group by ts, cpu having count(*) > 1)")
check_eq "no sched_switch stored twice" 0 "$dups"
finish
