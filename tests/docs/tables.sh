#!/usr/bin/env bash
# tables.sh - every table, view, column and SQL function a database offers
# is documented in man/commd-tables.5 (issue 15 point 7), and nothing
# documented there is missing from the database: a new column or function
# fails this test until it is described.
#
# The database is a fresh import (the same schema as a live capture's,
# every migration applied); the functions are those a commq connection
# has and the sqlite3 shell's has not. The page is parsed as it is
# written: a ".SS NAME" per table or view, a ".TP" then ".B COLUMN" (or
# ".BR A , B ...") per column, ".BI NAME (ARGS)" per function.
set -euo pipefail
: "${COMMD:?}" "${TESTDATA:?}" "${SRCDIR:?}"
COMMQ=${COMMQ:-$(dirname "$COMMD")/commq}
T=$(mktemp -d /tmp/commd-doc-tables.XXXXXX)
trap 'rm -rf "$T"' EXIT
page=$SRCDIR/man/commd-tables.5
fails=0
fail() { printf 'FAIL %s\n' "$*" >&2; fails=$((fails + 1)); }

command -v sqlite3 > /dev/null || { fail "sqlite3 shell in PATH"; exit 1; }
command -v python3 > /dev/null || { fail "python3 in PATH"; exit 1; }
"$COMMD" import "$TESTDATA/sched-v7.dat" -o "$T/db" --no-progress 2> "$T/err" ||
	{ fail "commd import: $(cat "$T/err")"; exit 1; }

# The database's side: "name col col ..." per table or view.
for t in $(sqlite3 -readonly "$T/db" "select name from sqlite_master
	where type in ('table', 'view') and name not like 'sqlite\\_%' escape '\\'
	and name not like 'ev\\_%' escape '\\' and name not like 'dv\\_%' escape '\\'
	order by name"); do
	printf '%s %s\n' "$t" "$(sqlite3 -readonly "$T/db" \
		"select group_concat(name, ' ') from pragma_table_info('$t')")"
done > "$T/schema"
# The functions commd adds.
"$COMMQ" --db "$T/db" -q -list -noheader \
	"select distinct name from pragma_function_list order by name" > "$T/commq.fn"
sqlite3 -readonly "$T/db" "select distinct name from pragma_function_list order by name" > "$T/sqlite.fn"
comm -23 "$T/commq.fn" "$T/sqlite.fn" > "$T/functions"
[ -s "$T/functions" ] || fail "no function of commd's found (comm_at, wall, ...)"

python3 - "$page" "$T/schema" "$T/functions" > "$T/report" <<'PY' || true
import re, shlex, sys
page, schema, functions = sys.argv[1:4]
lines = open(page, encoding="utf-8").read().splitlines()
documented, funcs, cur, section, after_tp = {}, set(), None, "", False
for l in lines:
    if l.startswith(".SH "):
        section, cur = l[4:].strip(), None
    elif l.startswith(".SS "):
        cur = l[4:].strip()
        if cur in documented:
            print("twice: %s" % cur)
        documented[cur] = set()
    elif l == ".TP":
        after_tp = True
        continue
    elif after_tp and section == "FUNCTIONS" and l.startswith(".BI "):
        funcs.add(shlex.split(l[4:])[0])
    elif after_tp and cur and (l.startswith(".B ") or l.startswith(".BR ")):
        for tok in shlex.split(l.split(" ", 1)[1]):
            if re.fullmatch(r"[a-z_][a-z0-9_]*", tok):
                documented[cur].add(tok)
    after_tp = False
bad = 0
for l in open(schema):
    name, *cols = l.split()
    if name not in documented:
        print("undocumented table or view: %s (columns %s)" % (name, " ".join(cols))); bad += 1
        continue
    for c in cols:
        if c not in documented[name]:
            print("undocumented column: %s.%s" % (name, c)); bad += 1
    for c in sorted(documented[name] - set(cols)):
        print("documented but not in the database: %s.%s" % (name, c)); bad += 1
    del documented[name]
for name in sorted(documented):
    print("documented but not in the database: %s" % name); bad += 1
have = {l.strip() for l in open(functions) if l.strip()}
for f in sorted(have - funcs):
    print("undocumented SQL function: %s()" % f); bad += 1
for f in sorted(funcs - have):
    print("documented but not registered: %s()" % f); bad += 1
print("checked %d tables and views, %d functions" % (sum(1 for _ in open(schema)), len(have)))
sys.exit(1 if bad else 0)
PY
{ grep -v '^checked ' "$T/report" || true; } | while read -r l; do printf 'FAIL %s\n' "$l" >&2; done
[ "$(grep -vc '^checked ' "$T/report" || true)" = 0 ] || fails=$((fails + 1))
grep -q '^checked ' "$T/report" || fail "the page's check did not run: $(cat "$T/report")"
# The other pages send the reader there, and the page is installed.
grep -qF 'commd\-tables (5)' "$SRCDIR/man/commq.1" || fail "commq.1 does not refer to commd-tables(5)"
grep -qF 'commd\-tables (5)' "$SRCDIR/man/commd.8" || fail "commd.8 does not refer to commd-tables(5)"
grep -q 'man/commd-tables.5' "$SRCDIR/cmake/install.cmake" || fail "commd-tables.5 is not installed"
# The page renders without warnings.
if command -v man > /dev/null; then
	w=$(man --warnings -l "$page" 2>&1 > /dev/null || true)
	[ -z "$w" ] || fail "man --warnings: $w"
fi
printf 'doc-tables: %s\n' "$(grep '^checked ' "$T/report")"
[ "$fails" = 0 ] || { printf 'doc-tables: %d failure(s)\n' "$fails" >&2; exit 1; }
echo "doc-tables: all checks passed"
