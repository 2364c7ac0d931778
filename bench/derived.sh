#!/usr/bin/env bash
# The derived tables (sched, wakeup_latency) on a database of at least 10
# million events: what storing them costs at ingest (`commd import` of the
# same trace.dat with and without them: --no-derived, which still derives
# them, as the names need it), and how long
# `commq top` and `commq latency` take on the result. hyperfine, one run.
#   bench/derived.sh [RUNS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-3}
"$top/scripts/setup" "$top/build"
. "$top/scripts/tracing-guard.sh"
. "$top/bench/bigtrace.sh"
work=$(mktemp -d /tmp/commd-derived.XXXXXX)
trap 'rm -rf "$work"; restore_tracing' EXIT
command -v hyperfine > /dev/null || { echo "hyperfine is missing (scripts/setup installs it)" >&2; exit 1; }

dat=$(big_trace)
commd=$top/build/commd
commq=$top/build/commq
hyperfine -w 1 -r "$runs" -N --export-json "$work/import.json" \
	-n "import" "$commd import --no-progress --force $dat -o $work/with.db" \
	-n "import --no-derived" "$commd import --no-progress --force --no-derived $dat -o $work/without.db" > /dev/null
db=$work/with.db
q() { sqlite3 "$db" "$1"; }
echo "trace: $dat, $(q "select value from stats where name = 'events'") events;" \
	"sched $(q "select count(*) from sched") slices, wakeup_latency $(q "select count(*) from wakeup_latency") rows"
echo "database: $(du -h "$work/with.db" | cut -f1) with the derived tables, $(du -h "$work/without.db" | cut -f1) without"

hyperfine -w 1 -r "$runs" -N --export-json "$work/reports.json" \
	-n "commq top" "$commq --db $db top" \
	-n "commq top --by process" "$commq --db $db top --by process" \
	-n "commq latency" "$commq --db $db latency" > /dev/null
python3 - "$work/import.json" "$work/reports.json" <<'PY'
import json, statistics, sys
res = {}
for f in sys.argv[1:]:
    for x in json.load(open(f))["results"]:
        res[x["command"]] = x["times"]
med = {k: statistics.median(v) for k, v in res.items()}
for k, v in med.items():
    print(f"{k:24s} median {v:7.3f} s  (runs: {', '.join(f'{t:.3f}' for t in res[k])})")
w, wo = med["import"], med["import --no-derived"]
print(f"derived tables stored at ingest: +{w - wo:.3f} s, {(w / wo - 1) * 100:+.1f}% of the import")
PY
echo
echo "== commq top (first lines)"
"$commq" --db "$db" top 2>/dev/null | head -8
echo "== commq latency (summary)"
"$commq" --db "$db" latency 2>/dev/null | tail -6
