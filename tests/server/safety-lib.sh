# safety-lib.sh - helpers of the server safety tests (issue 5 point 5),
# sourced after lib.sh (which stays as it is).

# start_ready_at N SOCKET [ARGS...]: start_ready with the socket at
# SOCKET (its directory left for commd to make); sets what start_ready
# sets, SOCK included.
start_ready_at() {
	local n=$1 sock=$2 i
	shift 2
	start_commd "$n" --socket "$sock" "$@"
	SOCK=$sock
	for ((i = 0; i < 600; i++)); do
		grep -q '^commd: capturing into ' "$ERR" 2> /dev/null && break
		_alive "$COMMD_PID" || break
		sleep 0.05
	done
	grep -q '^commd: capturing into ' "$ERR" 2> /dev/null ||
		abort "commd (instance $(inst "$n")) becomes ready within 30 s" \
			"'commd: capturing into ...' on stderr" "stderr: $(head -c 2000 "$ERR")"
	[ -S "$SOCK" ] || abort "socket $SOCK after start" "a socket file" "$(ls -l "$SOCK" 2>&1)"
	SERVE_PID=$(wait_serve "$DB" 5)
	[ -n "$SERVE_PID" ] || abort "one query server after start" "one process" "'$(serve_pid "$DB")'"
}

# rising WHAT N0: capture committed rows after N0 (the newest sched_switch ts
# grows within 10 s): ingestion goes on during an attack.
rising() {
	local what=$1 n0=$2 i n
	for ((i = 0; i < 50; i++)); do
		n=$(switches)
		[ "$n" -gt "$n0" ] && break
		small_load > /dev/null 2>&1
	done
	check_true "$what: ingestion goes on (sched_switch rows grow)" "> $n0" "$n" [ "$n" -gt "$n0" ]
}

# rss PID: VmRSS in kB.
rss() {
	proc_field "$1" VmRSS | awk '{print $1}'
}

# no_sanitizer_reports WHAT: nothing from ASan/UBSan/LSan in commd's
# stderr (the query server writes there); meaningful in a -DCOMMD_SANITIZE
# build, harmless in others.
no_sanitizer_reports() {
	check_true "$1: no sanitizer report in commd's stderr" "none" \
		"$(grep -m 3 -E 'Sanitizer|runtime error' "$ERR" | head -c 600)" \
		eval '! grep -qE "Sanitizer|runtime error" "$ERR"'
}
