#!/usr/bin/python3
"""fleet-compare.py DB HOST BOOT CH_HTTP_PORT [DATABASE]

Compares what one host's commd stored (its SQLite file DB) with what the
ClickHouse cluster holds for it (host HOST, boot BOOT, read with FINAL
through the Distributed tables of the server at CH_HTTP_PORT), table by
table: the rows' values byte for byte (ClickHouse's TabSeparated answer
unescaped; SQLite's values as stored), as sorted lists, so that a row
missing, a row twice or a byte changed is a difference.  Prints one line
per table ("TABLE rows N sha256 H" with the digest of the sorted rows) and
"FAIL ..." for each table that differs.  Exit 0 when none does.
"""
import hashlib
import sqlite3
import sys
import urllib.parse
import urllib.request

db, host, boot, port = sys.argv[1:5]
database = sys.argv[5] if len(sys.argv) > 5 else "commd"

TIMED = ["sched_switch", "sched_wakeup", "sched_wakeup_new", "sched_waking",
         "sched_process_fork", "sched_process_exec", "sched_process_exit",
         "sched_process_free", "sched_migrate_task", "sched_stat_runtime",
         "task_newtask", "task_rename", "events", "sched", "wakeup_latency",
         "lost_events"]
OTHER = ["comm_history", "capture", "stats"]


def ch(sql):
    url = "http://127.0.0.1:%s/?database=%s&query=%s" % (
        port, database, urllib.parse.quote(sql))
    with urllib.request.urlopen(urllib.request.Request(url, data=b""), timeout=60) as r:
        return r.read()


UNESC = {ord("t"): b"\t", ord("n"): b"\n", ord("r"): b"\r", ord("0"): b"\0",
         ord("\\"): b"\\", ord("'"): b"'", ord("b"): b"\b", ord("f"): b"\f"}


def unescape(field):
    if field == b"\\N":
        return None
    if b"\\" not in field:
        return field
    out, i = bytearray(), 0
    while i < len(field):
        c = field[i]
        if c == 0x5C and i + 1 < len(field):
            out += UNESC.get(field[i + 1], bytes([field[i + 1]]))
            i += 2
        else:
            out.append(c)
            i += 1
    return bytes(out)


def order(row):
    """Sorts rows whose values may be None."""
    return tuple((0, b"") if v is None else (1, v) for v in row)


def norm(v):
    """A value as bytes (None stays None): SQLite's int/text/blob."""
    if v is None:
        return None
    if isinstance(v, bytes):
        return v
    if isinstance(v, str):
        return v.encode("utf-8", "surrogateescape")
    if isinstance(v, float):
        return repr(v).encode()
    return str(v).encode()


con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
con.text_factory = bytes
failed = 0
for table in TIMED + OTHER:
    cols = [r[1].decode() if isinstance(r[1], bytes) else r[1]
            for r in con.execute("SELECT * FROM pragma_table_info(?)", (table,))]
    cols = [c for c in cols if c not in ("host", "boot")]
    # a loss's from_ts stays local (schema 031; the shipper leaves it out)
    if table == "lost_events":
        cols = [c for c in cols if c != "from_ts"]
    where = ""
    if table == "capture":
        where = " WHERE boot = '%s'" % boot
    elif table == "stats":
        where = " WHERE capture IS NULL OR capture IN (SELECT id FROM capture WHERE boot = '%s')" % boot
    want = sorted((tuple(norm(v) for v in row) for row in
                   con.execute("SELECT %s FROM \"%s\"%s" % (", ".join('"%s"' % c for c in cols),
                                                           table, where))), key=order)
    # stats and capture keys: NULL is shipped as -1 (a key cannot be NULL)
    if table == "stats":
        want = sorted((tuple(b"-1" if (v is None and cols[i] in ("capture", "cpu")) else v
                             for i, v in enumerate(r)) for r in want), key=order)
    body = ch("SELECT %s FROM %s FINAL WHERE host = '%s' AND boot = '%s' FORMAT TabSeparated"
              % (", ".join(cols), table, host, boot))
    got = sorted((tuple(unescape(f) for f in line.split(b"\t"))
                  for line in body.split(b"\n") if line), key=order)
    digest = hashlib.sha256(repr(want).encode()).hexdigest()[:16]
    print("%s rows %d sha256 %s" % (table, len(want), digest))
    if want != got:
        failed += 1
        gs, ws = set(got), set(want)
        missing = [r for r in want if r not in gs][:3]
        extra = [r for r in got if r not in ws][:3]
        print("FAIL %s: SQLite %d rows, ClickHouse %d; missing %r; extra %r"
              % (table, len(want), len(got), missing, extra))
sys.exit(1 if failed else 0)
