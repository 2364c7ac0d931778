# Sourced by bench scripts that need a big trace: big_trace prints the path
# of a trace.dat of at least 10 million sched/task events, recorded once
# with trace-cmd (into a private instance, never the global buffer) and
# kept in /var/cache/commd-bench (delete it to record anew). Needs
# scripts/tracing-guard.sh sourced first ($instance, restore_tracing).
big_trace() {
	local dir=/var/cache/commd-bench f=/var/cache/commd-bench/big.dat
	if [ ! -s "$f" ]; then
		mkdir -p "$dir"
		echo "recording $f (perf bench sched messaging -g 20 -l 1000, 9 times) ..." >&2
		trace-cmd record -q -d --no-filter -B "$instance" -b 65536 -e sched -e task \
			-o "$f.tmp" sh -c 'for i in 1 2 3 4 5 6 7 8 9; do
				perf bench sched messaging -g 20 -l 1000 > /dev/null; done' \
			> "$dir/record.log" 2>&1
		mv "$f.tmp" "$f"
		restore_tracing
	fi
	echo "$f"
}

# The awk that counts sched_switch lines per prev_comm in the text of
# `trace-cmd report` ("prev_comm:prev_pid [prio] STATE ==> ..."; a comm may
# hold anything, so the anchor is the last ":pid [prio]" before " ==> ").
report_counts_awk='
/ sched_switch: / {
	r = $0; sub(/.* sched_switch: +/, "", r)
	i = index(r, " ==> "); if (!i) next
	a = substr(r, 1, i - 1)
	if (!match(a, /:[0-9]+ \[[-0-9]+\]( [^ ]*)?$/)) next
	n[substr(a, 1, RSTART - 1)]++
}
END { for (c in n) print c "|" n[c] }'
