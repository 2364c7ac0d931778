#!/bin/bash
# commq export --chrome-json: the file is JSON the Perfetto UI and
# chrome://tracing read (chrome-json.py checks its structure), and it
# round-trips: as many complete events as the sched table has slices of
# tasks, the same time per comm to the ns, a loss instant per lost_events
# record, a thread_name per task; on each task's own track a state slice
# per thread_state row, a wakeup flow (waker to wakee) per wakeup between
# tasks, a "renamed" instant per new name; for a --from/--to window too (the part
# of each slice inside it, as `commq top`).  Names with quotes,
# backslashes, control bytes and invalid UTF-8 are escaped; --sql, stdout
# and the socket; failures (an unwritable path, a write error, a failed
# query) exit non-zero with a clear message and leave no file behind.
set -euo pipefail
# shellcheck source=tests/reports/lib.sh
source "$(dirname "$0")/lib.sh"
need python3 python3
CHECK=$(dirname "$0")/chrome-json.py
import sched-v7
import sched-drops
import sched-rename

# check_export NAME JSON DB [LO HI] — the structure of JSON, and its
# figures against DB's over the window [LO, HI) (default: everything).
check_export() {
	local name=$1 json=$2 db=$3 lo=${4:-0} hi=${5:-9223372036854775807}
	local in="pid <> 0 and ts < $hi and ts + dur > $lo"
	if ! python3 "$CHECK" "$json" "$T/sums" "$lo" "$hi" >"$T/summary" \
		2>"$T/check.err"; then
		fail "$name: $(head -n 5 "$T/check.err")"
		return
	fi
	summary() { sed -n "s/^$1 //p" "$T/summary"; }
	expect_eq "$name: one X event per slice of a task" \
		"$(ref "$db" "select count(*) from sched where $in")" "$(summary slices)"
	expect_eq "$name: slices with a loss inside" \
		"$(ref "$db" "select count(*) from sched where $in and lost")" \
		"$(summary lost_slices)"
	ref "$db" "select comm, sum(min(ts + dur, $hi) - max(ts, $lo)) from sched
		where $in group by comm" | LC_ALL=C sort >"$T/expected-sums"
	LC_ALL=C sort "$T/sums" >"$T/got-sums"
	expect_same "$name: time per comm (ns)" "$T/expected-sums" "$T/got-sums"
	expect_eq "$name: a loss instant per lost_events record" \
		"$(ref "$db" "select count(*) from lost_events where ts >= $lo and ts < $hi")" \
		"$(summary losses)"
	expect_eq "$name: global losses (no CPU)" \
		"$(ref "$db" "select count(*) from lost_events
			where cpu is null and ts >= $lo and ts < $hi")" \
		"$(summary global_losses)"
	expect_eq "$name: a thread_name per task alive in the window" \
		"$(ref "$db" "select count(distinct pid) from comm_history
			where pid <> 0 and comm is not null and start_ts < $hi
			  and (end_ts is null or end_ts > $lo)")" "$(summary tasks)"
	expect_eq "$name: a state slice per thread_state row of a task in the window" \
		"$(ref "$db" "select count(*) from thread_state where pid <> 0 and dur > 0
			and ts < $hi and ts + dur > $lo")" "$(summary states)"
	expect_eq "$name: a wakeup flow per wakeup between tasks beginning in the window" \
		"$(ref "$db" "select count(*) from wakeup_latency where pid > 0 and waker_pid > 0
			and ts >= $lo and ts < $hi")" "$(summary flows)"
	expect_eq "$name: a renamed instant per name a task took in the window" \
		"$(ref "$db" "select count(*) from comm_history r where r.pid <> 0 and r.comm is not null
			and r.start_ts >= $lo and r.start_ts < $hi and exists (select 1 from comm_history p
			where p.pid = r.pid and p.life = r.life and p.start_ts < r.start_ts)")" "$(summary renames)"
	expect_eq "$name: CPU tracks" \
		"$(ref "$db" "select group_concat(cpu, ' ') from (
			select distinct cpu from sched where $in union
			select cpu from lost_events where cpu is not null
			  and ts >= $lo and ts < $hi order by cpu)")" "$(summary cpus)"
}

for fixture in sched-v7 sched-drops sched-rename; do
	commq_ok "export $fixture" --db "$T/$fixture.db" export \
		--chrome-json "$T/$fixture.json"
	check_export "export $fixture" "$T/$fixture.json" "$T/$fixture.db"
	ls "$T/$fixture.json".* >/dev/null 2>&1 && fail "export $fixture: temp file left"
done
grep -q '"lost":true' "$T/sched-drops.json" ||
	fail "export sched-drops: no slice marked lost"
# nothing idle
grep -q '"tid":0,' "$T/sched-v7.json" && fail "export: an idle slice was exported"
# each slice's end state also as the kernel's letters: state_name's
commq_ok "export states" --db "$T/sched-v7.db" -list -separator , \
	"select distinct end_state, state_name(end_state) from sched
	 where pid <> 0 and end_state is not null order by 1"
expect_eq "export: end states as letters (state_name)" "$(cat "$T/got")" \
	"$(grep -o '"end_state":[0-9]*,"state":"[^"]*"' "$T/sched-v7.json" |
	   sed 's/"end_state":\([0-9]*\),"state":"\(.*\)"/\1,\2/' | sort -t, -k1,1n -u)"

# a window, relative and absolute: the same file
base=$(ref "$T/sched-drops.db" "select min(start_ts) from capture")
lo=$((base + 15000000)) hi=$((base + 45000000))
commq_ok "export window" --db "$T/sched-drops.db" export --from +15ms --to +45ms \
	--chrome-json "$T/window.json"
check_export "export window" "$T/window.json" "$T/sched-drops.db" "$lo" "$hi"
commq_ok "export window abs" --db "$T/sched-drops.db" export --from "${lo}ns" \
	--to "${hi}ns" --chrome-json "$T/window-abs.json"
expect_same "export window: '+' and absolute" "$T/window.json" "$T/window-abs.json"
grep -q "\"from_ns\":$lo,\"to_ns\":$hi," "$T/window.json" ||
	fail "export window: otherData does not give the window"
ref "$T/sched-drops.db" "select count(*) from sched where pid <> 0 and ts < $lo
	and ts + dur > $lo" | grep -qv '^0$' ||
	fail "export window: no slice crosses --from (the test would not see clipping)"

# stdout, and the socket: the same bytes
commq_ok "export stdout" --db "$T/sched-v7.db" export --chrome-json -
expect_same "export --chrome-json -" "$T/sched-v7.json" "$T/got"
start_fake_server "$T/sched-drops.db"
commq_ok "export socket" --socket "$SOCK" export --chrome-json "$T/socket.json"
expect_same "export socket same as file" "$T/sched-drops.json" "$T/socket.json"

# --sql: seven statements, needing no database, that sqlite3 runs; the
# slices statement gives as many rows as the file has X events
COMMD_SOCKET=$T/no-such-socket commq_ok "export --sql" --sql export --from +15ms
cp "$T/got" "$T/export.sql"
expect_eq "export --sql: statements" 7 "$(grep -c ';$' "$T/export.sql")"
ref -csv "$T/sched-drops.db" <"$T/export.sql" >"$T/rows" 2>"$T/sqlite.err" ||
	fail "export --sql: sqlite3 refused it: $(cat "$T/sqlite.err")"
expect_eq "export --sql: the window first" "$lo" "$(head -n 1 "$T/rows" | cut -d, -f1)"
commq_ok "export --sql order" export --sql --chrome-json x.json --from +15ms
expect_same "export --sql anywhere" "$T/export.sql" "$T/got"

# hostile names: a quote, a backslash, control bytes, a byte that is not
# UTF-8 (\u00XX of the byte, common/json.h), a NUL inside, and multi-byte
# UTF-8 kept as it is; and a loss on no known CPU (a global instant)
cp "$T/sched-rename.db" "$T/hostile.db"
ref "$T/hostile.db" "update comm_history set comm = 'a\"b\\c' || char(1) || char(10) ||
	cast(x'ff' as text) || 'é' || char(9) || '</script>' where comm = 'sleep';
	update comm_history set comm = cast(x'6e0075c3' as text) where comm = 'last';
	insert into lost_events (cpu, ts, count) values (null, (select min(ts) + 1000 from sched), 7);"
ref "$T/hostile.db" "select count(*) from sched where comm glob 'a\"b*'" | grep -qv '^0$' ||
	fail "hostile: the fixture has no slices of 'sleep' to rename"
commq_ok "export hostile" --db "$T/hostile.db" export --chrome-json "$T/hostile.json"
rm -f "$T/sums" "$T/summary"
python3 "$CHECK" "$T/hostile.json" "$T/sums" >"$T/summary" 2>"$T/check.err" ||
	fail "export hostile: $(head -n 5 "$T/check.err")"
grep -qF '"name":"a\"b\\c\u0001\n\u00ffé\t</script>"' "$T/hostile.json" ||
	fail "export hostile: not escaped as expected: $(grep -o '"name":"a[^,]*' \
		"$T/hostile.json" | head -n 1)"
grep -qF '"name":"n\u0000u\u00c3"' "$T/hostile.json" ||
	fail "export hostile: NUL or a cut sequence not escaped: $(grep -o \
		'"name":"n[^,]*' "$T/hostile.json" | head -n 1)"
python3 - "$T/hostile.json" >"$T/decoded" <<'EOF' || fail "export hostile: json.load: $(cat "$T/decoded")"
import json, sys
names = {e["name"] for e in json.load(open(sys.argv[1], encoding="utf-8"))["traceEvents"]
         if e["ph"] == "X"}
want = 'a"b\\c\x01\n\u00ff\u00e9\t</script>'
print("ok" if want in names and "n\x00u\u00c3" in names else "missing: %r" % sorted(names))
EOF
expect_eq "export hostile: names decode" ok "$(cat "$T/decoded")"
expect_eq "export hostile: slices" \
	"$(ref "$T/hostile.db" "select count(*) from sched where pid <> 0")" \
	"$(sed -n 's/^slices //p' "$T/summary")"
expect_eq "export hostile: total time" \
	"$(ref "$T/hostile.db" "select sum(dur) from sched where pid <> 0")" \
	"$(awk -F'|' '{ s += $NF } END { print s }' "$T/sums")"
expect_eq "export hostile: the global loss" 1 "$(sed -n 's/^global_losses //p' "$T/summary")"

# failures: a clear message, exit 1, no file and no temp file left; an
# existing file is replaced only by a complete export
: >"$T/plain-file"
expect_failure "export under a file" 1 "$T/plain-file/out.json: Not a directory" \
	--db "$T/sched-v7.db" export --chrome-json "$T/plain-file/out.json"
expect_failure "export no dir" 1 "No such file or directory" \
	--db "$T/sched-v7.db" export --chrome-json "$T/no/such/dir.json"
[[ -e $T/no ]] && fail "export no dir: something was created"
# a write that fails half-way (the file size limit: EFBIG, as a full disk
# gives ENOSPC)
rc=0
(trap '' XFSZ; ulimit -f 16; exec timeout 60 "$COMMQ" --db "$T/sched-drops.db" \
	export --chrome-json "$T/big.json") >"$T/out" 2>"$T/err" </dev/null || rc=$?
expect_eq "export write error: exit status" 1 "$rc"
grep -qF "$T/big.json: File too large" "$T/err" ||
	fail "export write error: expected 'File too large', got [$(cat "$T/err")]"
ls "$T"/big.json* >/dev/null 2>&1 && fail "export write error: a file was left"
# a full disk on stdout
if [[ -w /dev/full ]]; then
	rc=0
	timeout 60 "$COMMQ" --db "$T/sched-v7.db" export --chrome-json - \
		>/dev/full 2>"$T/err" </dev/null || rc=$?
	expect_eq "export to a full stdout: exit status" 1 "$rc"
	grep -q "No space left on device" "$T/err" ||
		fail "export to a full stdout: got [$(cat "$T/err")]"
fi
# a query that fails keeps the old file
cp "$T/sched-v7.json" "$T/keep.json"
ref "$T/broken.db" "create table capture (id integer primary key, source text);"
expect_failure "export without tables" 1 "no such" \
	--db "$T/broken.db" export --chrome-json "$T/keep.json"
cmp -s "$T/keep.json" "$T/sched-v7.json" || fail "export: a failed export touched the file"
ls "$T"/keep.json.* >/dev/null 2>&1 && fail "export: a failed export left a temp file"

# usage
expect_failure "export without a file" 2 "needs --chrome-json FILE" \
	--db "$T/sched-v7.db" export
expect_failure "--chrome-json is export's" 2 "--chrome-json is for 'commq export'" \
	--sql top --chrome-json x.json
expect_failure "-o is not export's" 2 "-o and --width are for 'commq timeline'" \
	--sql export -o x.json
"$COMMQ" --help >"$T/help"
grep -qF -- "export --chrome-json FILE [--from T] [--to T]" "$T/help" ||
	fail "--help does not show export"

finish
