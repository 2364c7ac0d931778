"""import-json.py DAT DB: the JSON fields of the events without a table
of their own (`events`) against `trace-cmd report -t` of the same file,
record by record in time order (helper of import-json.sh).

Prints one line per mismatch ("MISMATCH ...") and, last, "CHECKED N".
Compared:
  print           the text after the address: the kernel's buf[] (declared
                  without a size) to the record's end, one trailing
                  newline aside (trace-cmd drops it)
  kernel_stack    caller[]: the "=> ADDRESS" lines that follow the record
  signal_generate comm (a UTF-8 name here)
Strings go through JSON as commd writes them: valid UTF-8 as it is, any
other byte b as \\u00XX, so the report's bytes are turned into the
expected text with the same rule (an independent UTF-8 decoder, Python's,
decides what is valid).
"""
import json
import re
import sqlite3
import subprocess
import sys

dat, db = sys.argv[1], sys.argv[2]


def text(b):
    """The string commd's JSON should hold for these bytes."""
    s = b.decode("utf-8", errors="surrogateescape")
    return "".join(chr(ord(c) - 0xDC00) if 0xDC80 <= ord(c) <= 0xDCFF else c
                   for c in s)


out = subprocess.run(["trace-cmd", "report", "-t", "-i", dat],
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                     check=True).stdout
line_re = re.compile(rb"^(?:\S+: )?.*?-\d+ +\[\d+\] *(\d+)\.(\d+): (\w+): +(.*)$")
want = []			# (ts, name, value)
for line in out.split(b"\n"):
    m = line_re.match(line)
    if m:
        ts = int(m.group(1)) * 10**9 + int(m.group(2).ljust(9, b"0"))
        name, rest = m.group(3).decode(), m.group(4)
        if name == "print":
            want.append([ts, name, text(re.sub(rb"^\S+: ", b"", rest, count=1))])
        elif name == "kernel_stack":
            want.append([ts, name, []])
        elif name == "signal_generate":
            want.append([ts, name, text(re.search(rb"comm=(.*) pid=", rest).group(1))])
    elif line.startswith(b"=> ") and want and want[-1][1] == "kernel_stack":
        want[-1][2].append(int(line[3:].split()[0], 16))

con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
got = []
for ts, name, fields in con.execute(
        "select ts, name, fields from events where name in "
        "('print', 'kernel_stack', 'signal_generate') order by ts, cpu, fields"):
    f = json.loads(fields)
    if name == "print":
        v = f["buf"]
        got.append([ts, name, v[:-1] if v is not None and v.endswith("\n") else v])
    elif name == "kernel_stack":
        got.append([ts, name, f["caller"]])
    else:
        got.append([ts, name, f["comm"]])

if len(want) != len(got):
    print(f"MISMATCH records: trace-cmd report {len(want)}, events rows {len(got)}")
for w, g in zip(want, got):
    if w != g:
        print(f"MISMATCH at ts {w[0]} {w[1]}: trace-cmd report {w[2]!r:.300}, "
              f"commd ts {g[0]} {g[1]} {g[2]!r:.300}")
print(f"CHECKED {len(want)}")
