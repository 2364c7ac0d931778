#!/usr/bin/env python3
"""add-tsc2nsec.py IN OUT MULT SHIFT OFFSET: a copy of the v6 trace.dat IN
with a TSC2NSEC option (what `trace-cmd record --tsc2nsec` saves: mult,
shift, offset) added first in its options. The bytes from the new option to
the first page-aligned data move up into the zero padding before it, so
every offset into the data stays true; offsets into the moved part (a
BUFFER option's) are moved with it."""
import struct, sys

src, dst, mult, shift, offset = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
b = bytearray(open(src, 'rb').read())
if b[3:10] != b'tracing' or b[10:12] != b'6\0':
    sys.exit('%s: not a version 6 trace.dat' % src)
e = '>' if b[12] else '<'
page = struct.unpack_from(e + 'I', b, 14)[0]
p = 18

def skip(fmt):
    global p
    n = num(fmt)
    p += n

def num(fmt):
    global p
    v = struct.unpack_from(e + fmt, b, p)[0]
    p += struct.calcsize(fmt)
    return v

def cstr():
    global p
    end = b.index(0, p)
    s = bytes(b[p:end])
    p = end + 1
    return s

for tag in (b'header_page', b'header_event'):
    if cstr() != tag:
        sys.exit('no %s' % tag.decode())
    skip('Q')
for _ in range(num('I')):			# ftrace formats
    skip('Q')
for _ in range(num('I')):			# systems
    cstr()
    for _ in range(num('I')):
        skip('Q')
skip('I')					# kallsyms
skip('I')					# printk
skip('Q')					# saved cmdlines
cpus = num('I')
if bytes(b[p:p + 10]) != b'options  \0':
    sys.exit('no options section')
p += 10
insert_at = p
refs = []					# where an offset is stored
while True:
    oid, size = struct.unpack_from(e + 'HI', b, p)
    if oid == 0:
        p += 2
        break
    if oid == 3:				# BUFFER: offset, name
        refs.append(p + 6)
    p += 6 + size
kind = bytes(b[p:p + 10])
p += 10
if kind == b'flyrecord\0':
    for c in range(cpus):
        refs.append(p + 16 * c)
    p += 16 * cpus
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
