# shellcheck shell=bash
# Sourced by bench scripts that time queries through a running daemon:
# serve DB SOCK LOG [OPTION...] starts commd on DB with its query socket
# at SOCK (stderr to LOG) and returns once it answers; commd_pid is its
# pid (the caller stops it). It captures only exec (and the task events
# it always adds) meanwhile, into its own instance, so the imported
# tables stay as they are; no retention (--max-db-mb 0). Needs $top.
serve() {
	local db=$1 sock=$2 log=$3
	shift 3
	"$top/build/commd" --foreground --db "$db" --socket "$sock" --max-db-mb 0 "$@" \
		--instance "commd-bench-$$" --events sched:sched_process_exec 2> "$log" &
	commd_pid=$!
	until grep -q "capturing into" "$log"; do
		kill -0 "$commd_pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
		sleep 0.1
	done
	until "$top/build/commq" --socket "$sock" "select 1" > /dev/null 2>&1; do sleep 0.1; done
}
