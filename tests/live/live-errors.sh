#!/usr/bin/env bash
# live-errors.sh - commd's start-up errors. Each one is ONE line on stderr
# and a non-zero exit (2 for a bad option value), and leaves no tracefs
# instance behind:
#
#  - not root (setpriv to nobody/nogroup);
#  - a database that cannot be written: a path under a regular file
#    (/etc/passwd/x.db), in sysfs (/sys/kernel/x.db), under /proc, a
#    directory, and an existing file that is not a database (which must be
#    left as it was, never rebuilt);
#  - an event that does not exist (--events sched:no_such_event);
#  - a trace clock the kernel does not offer (--clock no_such_clock);
#  - an instance in use by a running commd: the second fails with "busy",
#    the first keeps capturing (its instance still on, its database still
#    growing) and stops cleanly;
#  - the same database twice (other instances): the second fails, creates
#    no instance; the first stops cleanly;
#  - the same socket twice (other databases and instances): the second
#    fails, the first still answers on it;
#  - bad option values (--commit-ms 0 / abc, --buffer-kb abc / 0, --clock 'x y',
#    --instance ../x / . / ''): exit 2.
#
# Needs root and tracefs (FAILS without them), and setpriv.
. "$(dirname "$0")/lib.sh"

need_live
command -v setpriv > /dev/null || abort "setpriv (util-linux)" "in PATH" "missing"

# expect_error WHAT EXPECTED_RC INSTANCE COMMAND...: runs COMMAND to its
# exit; checks the status (EXPECTED_RC, or "nonzero"), one line on stderr,
# and INSTANCE absent afterwards.
N=0
expect_error() {
	local what=$1 want=$2 in=$3 err lines
	shift 3
	N=$((N + 1))
	err=$TMP/err-$N
	run_commd_fg "$err" "$@"
	if [ "$want" = nonzero ]; then
		check_true "$what: exit status" "non-zero" "$RUN_RC" \
			grep -Eqx '[1-9][0-9]*' <<< "$RUN_RC"
	else
		check_eq "$what: exit status" "$want" "$RUN_RC"
	fi
	lines=$(grep -c '' "$err" || true)
	check_eq "$what: lines on stderr (one error line)" "1" "$lines"
	if [ "$LAST_OK" = 0 ] || [ "${VERBOSE:-0}" = 1 ]; then
		sed 's/^/    stderr: /' "$err" | head -20 >&2
	fi
	check_eq "$what: stderr line" "non-empty" "$([ -n "$(head -1 "$err")" ] && echo non-empty || echo empty)"
	check_eq "$what: instance $in afterwards" absent "$(instance_state "$in")"
	log "$what: exit $RUN_RC: $(head -1 "$err")"
	ERR_LINE=$(head -1 "$err")
}

# --- not root ----------------------------------------------------------------
in=$(inst nr)
expect_error "not root (setpriv nobody:nogroup)" nonzero "$in" \
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
	"$COMMD" --foreground --db /tmp/$INST_PREFIX-nobody.db --instance "$in" --socket "$TMP/s"
check_true "not root: the error says why" "a line mentioning root" "$ERR_LINE" \
	grep -qi 'root' <<< "$ERR_LINE"
rm -f /tmp/$INST_PREFIX-nobody.db /tmp/$INST_PREFIX-nobody.db.lock

# --- database not writable ---------------------------------------------------
for db in /etc/passwd/commd-test.db /sys/kernel/$INST_PREFIX.db /proc/$INST_PREFIX/x.db "$TMP/a-directory"; do
	[ "$db" = "$TMP/a-directory" ] && mkdir "$db"
	in=$(inst db$N)
	expect_error "database $db" nonzero "$in" \
		"$COMMD" --foreground --db "$db" --instance "$in" --socket "$TMP/s"
done
db=$TMP/not-a-database.db
printf 'this is not an SQLite database, and commd must leave it alone\n%.0s' $(seq 200) > "$db"
cp "$db" "$TMP/not-a-database.orig"
in=$(inst db$N)
expect_error "database $db (a text file)" nonzero "$in" \
	"$COMMD" --foreground --db "$db" --instance "$in" --socket "$TMP/s"
check_eq "database $db (a text file): left unchanged" same \
	"$(cmp -s "$db" "$TMP/not-a-database.orig" && echo same || echo changed)"

# --- an unknown event ----------------------------------------------------------
in=$(inst ev)
expect_error "--events sched:no_such_event" nonzero "$in" \
	"$COMMD" --foreground --db "$TMP/ev.db" --instance "$in" --socket "$TMP/s" \
	--events sched:no_such_event

# --- a trace clock the kernel does not offer -------------------------------------
in=$(inst clk)
expect_error "--clock no_such_clock" nonzero "$in" \
	"$COMMD" --foreground --db "$TMP/clk.db" --instance "$in" --socket "$TMP/s" \
	--clock no_such_clock
check_true "--clock no_such_clock: the error lists the clocks offered" \
	"a line with 'not offered' and 'local'" "$ERR_LINE" \
	grep -q "not offered.*local" <<< "$ERR_LINE"

# --- bad option values -----------------------------------------------------------
in=$(inst opt)
expect_error "--commit-ms 0" 2 "$in" \
	"$COMMD" --foreground --db "$TMP/o.db" --instance "$in" --socket "$TMP/s" --commit-ms 0
expect_error "--commit-ms abc" 2 "$in" \
	"$COMMD" --foreground --db "$TMP/o.db" --instance "$in" --socket "$TMP/s" --commit-ms abc
expect_error "--buffer-kb abc" 2 "$in" \
	"$COMMD" --foreground --db "$TMP/o.db" --instance "$in" --socket "$TMP/s" --buffer-kb abc
expect_error "--buffer-kb 0" 2 "$in" \
	"$COMMD" --foreground --db "$TMP/o.db" --instance "$in" --socket "$TMP/s" --buffer-kb 0
expect_error "--clock 'x y'" 2 "$in" \
	"$COMMD" --foreground --db "$TMP/o.db" --instance "$in" --socket "$TMP/s" --clock 'x y'
for bad in ../x . ''; do
	expect_error "--instance '$bad'" 2 "$in" \
		"$COMMD" --foreground --db "$TMP/o.db" --socket "$TMP/s" --instance "$bad"
done
check_eq "--instance ../x: $T/x afterwards" absent "$([ -e "$T/x" ] && echo present || echo absent)"
files=$(ls "$TMP"/o.db* 2> /dev/null | tr '\n' ' ' || true)
check_eq "bad option values: files created for --db $TMP/o.db" "none" "${files:-none}"

# --- instance busy ---------------------------------------------------------------
need_perf
busy=$(inst busy)
start_ready "instance busy: first commd" "$TMP/busy-a.err" "$TMP/busy-a.db" "$busy"
apid=$COMMD_PID
sleep 1.2	# one commit
before=$(q "$TMP/busy-a.db" "SELECT count(*) FROM ev_sched_switch")
expect_error "instance busy: second commd on instance $busy (other database)" nonzero "__none__" \
	"$COMMD" --foreground --db "$TMP/busy-b.db" --instance "$busy" --socket "$TMP/s-b"
check_true "instance busy: the second's error says busy" "a line containing 'busy'" "$ERR_LINE" \
	grep -q 'busy' <<< "$ERR_LINE"
check_eq "instance busy: first commd still running" running "$(_alive "$apid" && echo running || echo gone)"
check_eq "instance busy: instance $busy still there" present "$(instance_state "$busy")"
check_eq "instance busy: $busy/tracing_on (the first commd's capture) after the second's attempt" \
	1 "$(cat "$T/instances/$busy/tracing_on" 2> /dev/null || echo missing)"
marker=$(sleeper_copy busy-mark-$((RANDOM % 100)))
"$marker" 0.01
perf_messaging "instance busy" -g 2 -l 100
stop_commd "$apid" TERM
check_eq "instance busy: first commd's exit status after SIGTERM" 0 "$STOP_RC"
[ "$LAST_OK" = 1 ] || sed 's/^/    stderr: /' "$TMP/busy-a.err" >&2
check_eq "instance busy: instance $busy after the first stopped" absent "$(instance_state "$busy")"
check_integrity "instance busy: first commd's database" "$TMP/busy-a.db"
after=$(q "$TMP/busy-a.db" "SELECT count(*) FROM ev_sched_switch")
check_true "instance busy: first commd's sched_switch rows grew after the second's attempt" \
	"more than $before" "$after" [ "$after" -gt "$before" ]
got=$(q "$TMP/busy-a.db" "SELECT count(*) FROM sched_process_exec WHERE filename = '$marker'")
check_eq "instance busy: first commd stored the exec of $marker, run after the second's attempt" 1 "$got"
check_eq "instance busy: first commd's stats events vs kernel_read_events" \
	"$(stat "$TMP/busy-a.db" kernel_read_events)" "$(stat "$TMP/busy-a.db" events)"

# --- the same database twice -------------------------------------------------------
in1=$(inst same1)
in2=$(inst same2)
start_ready "same database: first commd" "$TMP/same-a.err" "$TMP/same.db" "$in1"
apid=$COMMD_PID
expect_error "same database: second commd (instance $in2)" nonzero "$in2" \
	"$COMMD" --foreground --db "$TMP/same.db" --instance "$in2" --socket "$TMP/s-c"
check_eq "same database: first commd still running" running "$(_alive "$apid" && echo running || echo gone)"
check_eq "same database: the first's instance $in1/tracing_on" \
	1 "$(cat "$T/instances/$in1/tracing_on" 2> /dev/null || echo missing)"
perf_messaging "same database" -g 2 -l 100
stop_commd "$apid" TERM
check_eq "same database: first commd's exit status after SIGTERM" 0 "$STOP_RC"
check_eq "same database: instance $in1 after the first stopped" absent "$(instance_state "$in1")"
check_integrity "same database" "$TMP/same.db"
check_eq "same database: capture rows" 1 "$(q "$TMP/same.db" "SELECT count(*) FROM capture")"
check_eq "same database: stats events vs kernel_read_events" \
	"$(stat "$TMP/same.db" kernel_read_events)" "$(stat "$TMP/same.db" events)"

# --- the same socket twice ---------------------------------------------------------
# (a live server answers it for the two seconds the second waits for a
# dying one to let go: the second fails, the first still answers)
in1=$(inst sock1)
in2=$(inst sock2)
start_ready "same socket: first commd" "$TMP/sock-a.err" "$TMP/sock-a.db" "$in1"
apid=$COMMD_PID
t0=$(date +%s%N)
expect_error "same socket: second commd (instance $in2, its own database)" nonzero "$in2" \
	"$COMMD" --foreground --db "$TMP/sock-b.db" --instance "$in2" --socket "$TMP/$in1.sock"
check_true "same socket: the error says so" "another commd is serving" "$ERR_LINE" \
	grep -q 'another commd is serving this socket' <<< "$ERR_LINE"
log "same socket: the second gave up after $(( ($(date +%s%N) - t0) / 1000000 )) ms"
check_eq "same socket: the first still answers on it" 1 \
	"$("$COMMQ" --socket "$TMP/$in1.sock" -noheader "select 1" 2>&1)"
stop_commd "$apid" TERM
check_eq "same socket: first commd's exit status after SIGTERM" 0 "$STOP_RC"
finish
