#!/usr/bin/env bash
# server-resets.sh - clients that connect and go away mid-result, many
# times, leak nothing (issue 5 point 5; docs/server-safety.md):
#
#  1. a warm-up round (40 clients) first, then the baseline: the query
#     server's open fds and VmRSS;
#  2. 200 clients, 20 at a time, each asks for a ~200 MB answer and goes
#     away after part of it: after 0 bytes, in the middle of a frame, after
#     several frames, with SO_LINGER 0, before the answer even starts;
#     capture keeps committing meanwhile;
#  3. afterwards its fd count is back to the baseline, its VmRSS within
#     32 MiB of it (an ASan build's quarantine made 16 MiB); 200 more: the fd
#     count back again, VmRSS up by less than 32 MiB; the server answers at
#     once, is the same process, and is idle (no thread left spinning on a
#     dead connection);
#  4. SIGTERM stops it cleanly and commd's stderr holds no sanitizer
#     report: run in a -DCOMMD_SANITIZE=ON build (ASAN_OPTIONS=
#     detect_leaks=1:abort_on_error=1), LeakSanitizer checks the query
#     server at its exit.
#
# Needs root and tracefs (FAILS without them).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/safety-lib.sh"

need_live
# An ASan build keeps freed memory in its quarantine (256 MiB by default):
# the first rounds fill it, and how far the second still grows then
# depends on how the allocator's size classes were reached (39 MiB of 200
# clients in 2 of 3 runs, the build before this change too). A small one
# (its own setting, kept for this test's commd and query server) fills in
# the warm-up, and the second round's growth is the server's own again.
deps=$(ldd "$COMMD" 2> /dev/null || true)
if grep -q libasan <<< "$deps"; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"
fi
start_ready 1
serve=$SERVE_PID
small_load
huge="with recursive c(x) as (select 1 union all select x + 1 from c limit 2000000) select x, printf('%080d', x) from c"

# round TAG N: N clients, 20 at a time, each going away its own way.
round() {
	local tag=$1 n=$2 i pids=() how
	for ((i = 1; i <= n; i++)); do
		case $((i % 5)) in
		0) how=(recv:0) ;;			# the answer not yet read at all
		1) how=(recv:100003) ;;			# in the middle of a frame
		2) how=(recv:700000 linger0) ;;		# several frames, SO_LINGER 0
		3) how=(sleep:0.2) ;;			# a full socket buffer, unread
		4) how=() ;;				# gone at once, the query queued
		esac
		"$RAWCLIENT" "$SOCK" "q:0:60000:$huge" "${how[@]}" > "$TMP/$tag-$i.out" 2>&1 &
		pids+=($!)
		HELPER_PIDS+=($!)
		if [ $((i % 20)) = 0 ]; then
			wait "${pids[@]}" || true
			pids=()
		fi
	done
	# (never a bare wait: it would wait for commd too)
	[ "${#pids[@]}" = 0 ] || wait "${pids[@]}" || true
}

# settled: waits (20 s) until the server's fd count is at most $1; echoes it.
settled() {
	local i f
	for ((i = 0; i < 100; i++)); do
		f=$(fd_count "$serve")
		[ "$f" -le "$1" ] && break
		sleep 0.2
	done
	echo "$f"
}

# --- 1. warm-up and the baseline -------------------------------------------------
round warm 40
sleep 1
sq "select 1" -list -noheader
check_eq "after the warm-up: a query" "0 1" "$SQ_RC $SQ_OUT"
fds0=$(fd_count "$serve")
rss0=$(rss "$serve")
log "baseline after 40 warm-up clients: $fds0 fds, VmRSS $rss0 kB, $(find "/proc/$serve/task" -mindepth 1 -maxdepth 1 | wc -l) threads"

# --- 2. 200 clients that go away mid-result ---------------------------------------
n0=$(switches)
t0=$(now_ms)
round reset 200
log "200 clients in $(( $(now_ms) - t0 )) ms"
check_eq "every client connected and sent its query" 0 "$(grep -l 'rawclient: connect' "$TMP"/reset-*.out 2> /dev/null | wc -l)"
partial=$(grep -h '^RECV ' "$TMP"/reset-*.out | awk '$2 > 0' | wc -l)
check_true "the clients that read part of an answer got some of it" ">= 60 of 80" "$partial" [ "$partial" -ge 60 ]
rising "during the 200 resets" "$n0"

# --- 3. nothing left behind --------------------------------------------------------
fds1=$(settled "$fds0")
rss1=$(rss "$serve")
log "after 200 resets: $fds1 fds, VmRSS $rss1 kB, $(find "/proc/$serve/task" -mindepth 1 -maxdepth 1 | wc -l) threads"
check_eq "the query server's open fds are back to the baseline" "$fds0" "$fds1"
# (in an ASan build too: its quarantine is 16 MiB here, above; the check
# there is also LeakSanitizer's at the end)
check_true "the query server's VmRSS is near the baseline" "< $rss0 + 32768 kB" "$rss1 kB" [ "$rss1" -lt $((rss0 + 32768)) ]
n0=$(switches)
round again 200
fds2=$(settled "$fds0")
rss2=$(rss "$serve")
log "after 200 more: $fds2 fds, VmRSS $rss2 kB"
check_eq "after 200 more: the open fds are back to the baseline" "$fds0" "$fds2"
check_true "after 200 more: VmRSS grew by less than 32 MiB over the first 200" "< $rss1 + 32768 kB" "$rss2 kB" \
	[ "$rss2" -lt $((rss1 + 32768)) ]
rising "during the 200 more" "$n0"
sq "select 6 * 7" -list -noheader
check_eq "after the resets: a query" "0 42" "$SQ_RC $SQ_OUT"
check_true "after the resets: answered in < 2 s" "< 2000 ms" "$SQ_MS ms" [ "$SQ_MS" -lt 2000 ]
check_eq "the same query server process throughout" "$serve" "$(serve_pid "$DB")"
ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2> /dev/null; }
c0=$(ticks "$serve")
sleep 2
c1=$(ticks "$serve")
hz=$(getconf CLK_TCK)
check_true "after the resets: the query server is idle" "< 0.3 s of CPU in 2 s" \
	"$(( (c1 - c0) * 1000 / hz )) ms of CPU in 2 s" [ $((c1 - c0)) -lt $((hz * 3 / 10)) ]

# --- 4. a clean stop -----------------------------------------------------------------
stop_commd "$COMMD_PID" TERM 60
check_eq "SIGTERM: exit status" 0 "$STOP_RC"
no_sanitizer_reports "after 440 resets and the stop"
finish
