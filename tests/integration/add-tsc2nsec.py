#!/usr/bin/env python3
"""add-tsc2nsec.py IN OUT MULT SHIFT OFFSET: a copy of the v6 trace.dat IN
with a TSC2NSEC option (what `trace-cmd record --tsc2nsec` saves: mult,
shift, offset) added first in its options. The bytes from the new option to
the first page-aligned data move up into the zero padding before it, so
every offset into the data stays true; offsets into the moved part (a
BUFFER option's) are moved with it."""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from tracedat6 import V6  # noqa: E402

src, dst, mult, shift, offset = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
b = bytearray(open(src, 'rb').read())
f = V6(b, src)
e, page, insert_at = f.e, f.page_size, f.options
refs = list(f.buffer_refs)			# where an offset is stored
p = f.data
if f.kind == b'flyrecord\0':
    for c in range(f.cpus):
        refs.append(p + 16 * c)
    p += 16 * f.cpus
opt = struct.pack(e + 'HIiiQ', 14, 16, mult, shift, offset)
n = len(opt)
# The moved part ends where the first page-aligned data starts.
end = (p + page - 1) // page * page
if end - p < n or any(b[end - n:end]):
    sys.exit('no %d bytes of padding before offset %d' % (n, end))
for r in refs:
    v = struct.unpack_from(e + 'Q', b, r)[0]
    if insert_at <= v < end:
        struct.pack_into(e + 'Q', b, r, v + n)
out = b[:insert_at] + opt + b[insert_at:end - n] + b[end:]
open(dst, 'wb').write(out)
