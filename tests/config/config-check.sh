#!/usr/bin/env bash
# config-check.sh - settings without a live capture (no root needed):
# `commd check-config [FILE] [OPTIONS]` and the order defaults < file <
# environment < command line, the errors (file:line, the variable, the
# option, with what is accepted), --help and --version, and the shipped
# systemd/commd.conf (every option commented out at its default: with
# every line uncommented the settings are the defaults).
set -uo pipefail
: "${COMMD:?COMMD not set}" "${SRCDIR:?SRCDIR not set}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commd-config-check.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
FAILURES=0 CHECKS=0
# The caller's COMMD_* must not leak in (COMMD is the binary, not an option).
for v in DB SOCKET INSTANCE BUFFER_KB EVENTS CLOCK STACKS COMMIT_MS MAX_DB_MB MAX_AGE LOG_LEVEL \
	 CLICKHOUSE HOST_NAME CLICKHOUSE_INTERVAL_S CLICKHOUSE_USER CLICKHOUSE_PASSWORD_FILE \
	 QUERY_TIMEOUT_MS QUERY_MAX_CONNS QUERY_MAX_RESULT_MB QUERY_MAX_MEM_MB CONFIG; do
	unset "COMMD_$v"
done

fail() {
	FAILURES=$((FAILURES + 1))
	printf 'FAIL %s\n    expected: %s\n    got:      %s\n' "$1" "$2" "$3" >&2
}
check_eq() { CHECKS=$((CHECKS + 1)); [ "$2" = "$3" ] || fail "$1" "$2" "$3"; }
# run ARGS...: OUT, ERR, RC of commd ARGS.
run() {
	RC=0
	"$COMMD" "$@" > "$TMP/out" 2> "$TMP/err" < /dev/null || RC=$?
	OUT=$(cat "$TMP/out") ERR=$(cat "$TMP/err")
}
setting() { sed -n "s/^$1 = //p" <<< "$OUT"; }

# --- --help, --version -------------------------------------------------------
run --help
check_eq "--help: exit" 0 "$RC"
for v in COMMD_DB COMMD_SOCKET COMMD_INSTANCE COMMD_BUFFER_KB COMMD_EVENTS COMMD_COMMIT_MS \
	 COMMD_MAX_DB_MB COMMD_MAX_AGE COMMD_LOG_LEVEL check-config --max-age; do
	check_eq "--help mentions $v" yes "$(grep -q -- "$v" <<< "$OUT" && echo yes || echo no)"
done
for sub in migrate clickhouse-schema; do
	run $sub --help
	check_eq "$sub --help: exit 0, its usage on stdout" "0 yes" \
		"$RC $(grep -q "^usage: commd $sub" <<< "$OUT" && echo yes || echo no)"
done
run --version
check_eq "--version: exit" 0 "$RC"
check_eq "--version: one line 'commd X.Y.Z'" yes "$(grep -Eqx 'commd [0-9]+\.[0-9]+\.[0-9]+' <<< "$OUT" && echo yes || echo no)"

# --- a good file -----------------------------------------------------------------
conf=$TMP/commd.conf
cat > "$conf" << 'EOF2'
# a comment
db = /tmp/from-file.db

commit-ms = 200     # trailing comment
max_age = 15m
max-db-mb = 64
EOF2
run check-config "$conf"
check_eq "check-config good file: exit" 0 "$RC"
check_eq "check-config good file: stderr" "" "$ERR"
check_eq "check-config: db from the file" /tmp/from-file.db "$(setting db)"
check_eq "check-config: commit-ms from the file" 200 "$(setting commit-ms)"
check_eq "check-config: max-age from the file" 15m "$(setting max-age)"
check_eq "check-config: max-db-mb from the file" 64 "$(setting max-db-mb)"
check_eq "check-config: instance default" commd "$(setting instance)"
check_eq "check-config: clock default" local "$(setting clock)"
check_eq "check-config: prints every option" 20 "$(grep -c ' = ' <<< "$OUT")"
check_eq "check-config: clickhouse default (none)" "" "$(setting clickhouse)"

check_eq "check-config: stacks default" no "$(setting stacks)"

# --- precedence ----------------------------------------------------------------------
RC=0
OUT=$(COMMD_COMMIT_MS=300 COMMD_INSTANCE=from-env COMMD_MAX_AGE=1h "$COMMD" check-config "$conf" 2>&1) || RC=$?
check_eq "environment: exit" 0 "$RC"
check_eq "environment over file (commit-ms)" 300 "$(setting commit-ms)"
check_eq "environment over file (max-age)" 1h "$(setting max-age)"
check_eq "environment over default (instance)" from-env "$(setting instance)"
check_eq "file kept where the environment says nothing (db)" /tmp/from-file.db "$(setting db)"
RC=0
OUT=$(COMMD_COMMIT_MS=300 COMMD_MAX_AGE=1h "$COMMD" check-config "$conf" --commit-ms 400 --max-age=30s --db /tmp/cli.db 2>&1) || RC=$?
check_eq "command line: exit" 0 "$RC"
check_eq "command line over environment (commit-ms)" 400 "$(setting commit-ms)"
check_eq "command line over environment (max-age)" 30s "$(setting max-age)"
check_eq "command line over file (db)" /tmp/cli.db "$(setting db)"
RC=0
OUT=$(COMMD_CONFIG=$conf "$COMMD" check-config --commit-ms 500 2>&1) || RC=$?
check_eq "COMMD_CONFIG names the file: exit" 0 "$RC"
check_eq "COMMD_CONFIG names the file (db)" /tmp/from-file.db "$(setting db)"
check_eq "COMMD_CONFIG + command line (commit-ms)" 500 "$(setting commit-ms)"

# --stacks alone is yes; --stacks=no, the file and the environment
RC=0
OUT=$("$COMMD" check-config "$conf" --stacks 2>&1) || RC=$?
check_eq "check-config --stacks: yes" "0 yes" "$RC $(setting stacks)"
RC=0
OUT=$(COMMD_STACKS=yes "$COMMD" check-config "$conf" --stacks=no 2>&1) || RC=$?
check_eq "check-config COMMD_STACKS=yes --stacks=no: no (the command line wins)" "0 no" "$RC $(setting stacks)"
# FILE after an option that takes no value from the next argument
# (--stacks's is optional, --foreground has none) is still FILE
RC=0
OUT=$("$COMMD" check-config --stacks "$conf" 2>&1) || RC=$?
check_eq "check-config --stacks FILE: FILE read, stacks yes" "0 /tmp/from-file.db yes" \
	"$RC $(setting db) $(setting stacks)"
RC=0
OUT=$("$COMMD" check-config --foreground --commit-ms 250 "$conf" 2>&1) || RC=$?
check_eq "check-config --foreground --commit-ms N FILE: FILE read" "0 /tmp/from-file.db 250" \
	"$RC $(setting db) $(setting commit-ms)"
RC=0
OUT=$("$COMMD" check-config --clickhouse-interval-s 7 "$conf" 2>&1) || RC=$?
check_eq "check-config --clickhouse-interval-s N FILE" "0 /tmp/from-file.db 7" \
	"$RC $(setting db) $(setting clickhouse-interval-s)"

# --- errors --------------------------------------------------------------------------------
# bad FILE_TEXT EXPECTED_LINE_PATTERN: check-config of a file with it.
n=0
bad() {
	n=$((n + 1))
	printf '%b' "$1" > "$TMP/bad$n.conf"
	run check-config "$TMP/bad$n.conf"
	check_eq "bad file $n: exit" 1 "$RC"
	check_eq "bad file $n: one line on stderr" 1 "$(grep -c '' <<< "$ERR")"
	check_eq "bad file $n: the error" yes "$(grep -Eq -- "$2" <<< "$ERR" && echo yes || echo no)"
	[ -z "$(cat "$TMP/out")" ] || fail "bad file $n: nothing on stdout" "" "$(cat "$TMP/out")"
	[ "${VERBOSE:-0}" = 1 ] && echo "bad file $n: $ERR"
	return 0
}
bad 'db = /x\n\n\n\n\n\ncommit_ms = abc\n' "^commd: $TMP/bad1.conf:7: commit_ms: expected 1\.\.3600000 \(milliseconds\), got 'abc'$"
bad 'max-age = 5 minutes\n' ":1: max-age: expected 0 \(keep everything\) or N\[s\|m\|h\|d\] up to 3650d, got '5 minutes'$"
bad '# x\nbuffer-kb = 2\n' ":2: buffer-kb: expected 4\.\.16777216 \(KiB per CPU\) or auto, got '2'$"
bad 'clock = Mono Raw\n' ":1: clock: expected a trace clock name \(local, mono, global, \.\.\.\), got 'Mono Raw'$"
bad 'stacks = maybe\n' ":1: stacks: expected yes or no, got 'maybe'$"
bad 'max-db-mb = -1\n' ":1: max-db-mb: expected 0\.\.1073741824 .*got '-1'$"
bad 'instance = ../etc\n' ":1: instance: expected an instance name .*got '\.\./etc'$"
bad 'log-level = loud\n' ":1: log-level: expected error, warning, notice, info or debug, got 'loud'$"
bad '\n\ncolour = blue\n' ":3: unknown option 'colour' \(known: db, instance, .*, clickhouse-interval-s, .*, query-max-mem-mb\)$"
bad 'commit-ms 200\n' ":1: expected 'name = value', got 'commit-ms 200'$"
bad 'db =\n' ":1: db: expected a file path, got ''$"

run check-config "$TMP/none.conf"
check_eq "a missing file: exit" 1 "$RC"
check_eq "a missing file: the error" "commd: $TMP/none.conf: No such file or directory" "$ERR"

RC=0
ERR=$(COMMD_COMMIT_MS=fast "$COMMD" check-config "$conf" 2>&1 > /dev/null) || RC=$?
check_eq "bad environment: exit" 1 "$RC"
check_eq "bad environment: names the variable" \
	"commd: COMMD_COMMIT_MS (environment): commit-ms: expected 1..3600000 (milliseconds), got 'fast'" "$ERR"
RC=0
ERR=$(COMMD_MAX_AGE=3 "$COMMD" check-config "$conf" --max-age 10y 2>&1 > /dev/null) || RC=$?
check_eq "bad option: exit" 1 "$RC"
check_eq "bad option: names it" \
	"commd: --max-age: expected 0 (keep everything) or N[s|m|h|d] up to 3650d, got '10y'" "$ERR"

# The daemon itself refuses bad settings before anything else (exit 2, no
# root needed to see it).
RC=0
ERR=$(COMMD_BUFFER_KB=0 "$COMMD" --foreground --config "$conf" 2>&1) || RC=$?
check_eq "commd with a bad environment value: exit 2" 2 "$RC"
check_eq "commd with a bad environment value: the error" \
	"commd: COMMD_BUFFER_KB (environment): buffer-kb: expected 4..16777216 (KiB per CPU) or auto, got '0'" "$ERR"
RC=0
ERR=$("$COMMD" --foreground --config "$TMP/bad1.conf" 2>&1) || RC=$?
check_eq "commd with a bad file: exit 2" 2 "$RC"
check_eq "commd with a bad file: file:line" yes "$(grep -q "bad1.conf:7: commit_ms" <<< "$ERR" && echo yes || echo no)"

# --- the shipped commd.conf ------------------------------------------------------------------
shipped=$SRCDIR/systemd/commd.conf
run check-config "$shipped"
check_eq "shipped commd.conf: valid" 0 "$RC"
defaults=$OUT
sed 's/^#\([a-z_-]* =\)/\1/' "$shipped" > "$TMP/uncommented.conf"
check_eq "shipped commd.conf: every option is there, commented out" \
	"$(tail -n +2 <<< "$defaults" | cut -d' ' -f1 | sort)" \
	"$(grep '^[a-z]' "$TMP/uncommented.conf" | cut -d' ' -f1 | sort)"
run check-config "$TMP/uncommented.conf"
check_eq "shipped commd.conf uncommented: valid" 0 "$RC"
check_eq "shipped commd.conf uncommented: the settings are the defaults" \
	"$(tail -n +2 <<< "$defaults")" "$(tail -n +2 <<< "$OUT")"

# --- the file read safely (issue 21 point 6) ----------------------------------------------
# check_refused NAME FILE PATTERN: check-config FILE fails within 5 s
# (no hang on a FIFO or /dev/zero) with one line matching PATTERN.
check_refused() {
	RC=0
	timeout -s KILL 5 "$COMMD" check-config "$2" > "$TMP/out" 2> "$TMP/err" < /dev/null || RC=$?
	ERR=$(cat "$TMP/err")
	check_eq "$1: exit 1 (not a hang)" 1 "$RC"
	check_eq "$1: says why" yes "$(grep -Eq -- "$3" <<< "$ERR" && echo yes || echo "no: $ERR")"
}
mkfifo "$TMP/fifo"
check_refused "a FIFO" "$TMP/fifo" "not a regular file"
check_refused "/dev/zero" /dev/zero "not a regular file"
printf 'commit-ms = 500\nmax-age = 1h\0garbage\n' > "$TMP/nul.conf"
check_refused "a NUL byte" "$TMP/nul.conf" "nul.conf:2: a NUL byte"
head -c 1100000 /dev/zero | tr '\0' '#' > "$TMP/big.conf"
check_refused "a file over 1 MiB" "$TMP/big.conf" "larger than 1048576 bytes"
printf 'commit-ms = 500\n' > "$TMP/open.conf"
chmod 0666 "$TMP/open.conf"
check_refused "a file others can write" "$TMP/open.conf" "other users can write it \\(mode 0666\\)"
if [ "$(id -u)" = 0 ]; then
	chmod 0644 "$TMP/open.conf"
	chown 65534 "$TMP/open.conf"
	check_refused "a file another user owns" "$TMP/open.conf" "owned by uid 65534, not root"
fi
run check-config /dev/null
check_eq "/dev/null: no settings, valid" 0 "$RC"

# --- shipping to ClickHouse: the URL anywhere, the credentials never on the
# command line -----------------------------------------------------------------
cat > "$TMP/ch.conf" << 'EOF2'
clickhouse = http://127.0.0.1:8123/?database=commd
clickhouse-user = writer
clickhouse-password-file = /etc/commd/ch.password
clickhouse-interval-s = 10
host-name = web-017
EOF2
run check-config "$TMP/ch.conf"
check_eq "check-config clickhouse file: exit" 0 "$RC"
check_eq "check-config: clickhouse from the file" "http://127.0.0.1:8123/?database=commd" "$(setting clickhouse)"
check_eq "check-config: clickhouse-user from the file" writer "$(setting clickhouse-user)"
check_eq "check-config: clickhouse-interval-s from the file" 10 "$(setting clickhouse-interval-s)"
check_eq "check-config: host-name from the file" web-017 "$(setting host-name)"
run check-config "$TMP/ch.conf" --clickhouse-user someone
check_true "check-config: --clickhouse-user on the command line is refused" "exit != 0, unknown option" \
	"$RC: $ERR" grep -q "unknown option" <<< "$ERR"
printf 'clickhouse = ftp://x/\n' > "$TMP/ch-bad.conf"
run check-config "$TMP/ch-bad.conf"
check_true "check-config: a clickhouse URL that is not http:// is refused" "exit != 0" "$RC" test "$RC" != 0
printf "host-name = a'b\n" > "$TMP/ch-bad.conf"
run check-config "$TMP/ch-bad.conf"
check_true "check-config: a host-name with a quote is refused" "exit != 0" "$RC" test "$RC" != 0

if [ "$FAILURES" -gt 0 ]; then
	echo "config-check: $FAILURES of $CHECKS checks FAILED" >&2
	exit 1
fi
echo "config-check: all $CHECKS checks passed"
