"""tracedat6 — where the sections of a trace.dat of file version 6 (what
`trace-cmd record --file-version 6` writes) are, and the records of its
ring-buffer pages, for the tests' tools that rewrite one
(tests/integration/add-tsc2nsec.py, tests/data/as-old-kernel.py)."""
import struct
import sys


class V6:
    """The file's layout, read from buf (a bytearray), positions in it:
    e             struct's byte order ('<' or '>')
    long_size     the recording kernel's long, in bytes
    page_size     a ring-buffer page
    formats       [(system, pos, size)] of every event's format text
    cpus          CPUs of the data
    options       where the first option begins (after "options  \\0")
    buffer_refs   where each BUFFER option keeps its data's offset
    kind          b"flyrecord\\0" or b"latency  \\0"
    data          what follows kind: flyrecord's offset and size per CPU
    """

    def __init__(self, buf, name):
        self.buf, self.p = buf, 0
        if buf[3:10] != b"tracing" or buf[10:12] != b"6\0":
            sys.exit("%s: not a version 6 trace.dat" % name)
        self.e = ">" if buf[12] else "<"
        self.long_size = buf[13]
        self.page_size = struct.unpack_from(self.e + "I", buf, 14)[0]
        self.p = 18
        for tag in (b"header_page", b"header_event"):
            if self._cstr() != tag:
                sys.exit("%s: no %s" % (name, tag.decode()))
            self._skip("Q")
        for _ in range(self._num("I")):             # ftrace formats
            self._skip("Q")
        self.formats = []
        for _ in range(self._num("I")):             # systems
            system = self._cstr().decode()
            for _ in range(self._num("I")):
                size = self._num("Q")
                self.formats.append((system, self.p, size))
                self.p += size
        self._skip("I")                              # kallsyms
        self._skip("I")                              # printk
        self._skip("Q")                              # saved cmdlines
        self.cpus = self._num("I")
        if bytes(buf[self.p:self.p + 10]) != b"options  \0":
            sys.exit("%s: no options section" % name)
        self.p += 10
        self.options = self.p
        self.buffer_refs = []
        while True:
            oid, size = struct.unpack_from(self.e + "HI", buf, self.p)
            if oid == 0:
                self.p += 2
                break
            if oid == 3:                             # BUFFER: offset, name
                self.buffer_refs.append(self.p + 6)
            self.p += 6 + size
        self.kind = bytes(buf[self.p:self.p + 10])
        self.data = self.p + 10

    def _num(self, fmt):
        v = struct.unpack_from(self.e + fmt, self.buf, self.p)[0]
        self.p += struct.calcsize(fmt)
        return v

    def _skip(self, fmt):
        n = self._num(fmt)
        self.p += n

    def _cstr(self):
        end = self.buf.index(0, self.p)
        s = bytes(self.buf[self.p:end])
        self.p = end + 1
        return s

    def format_of(self, name):
        """(pos, size, text) of the event `name`'s format."""
        for _, pos, size in self.formats:
            text = bytes(self.buf[pos:pos + size]).decode()
            if text.startswith("name: %s\n" % name):
                return pos, size, text
        return None

    def pages(self):
        """(cpu, position) of every ring-buffer page: the top buffer's,
        then each instance's (BUFFER options)."""
        if self.kind != b"flyrecord\0":
            sys.exit("no flyrecord section")
        tables = [self.data]
        for r in self.buffer_refs:
            t = struct.unpack_from(self.e + "Q", self.buf, r)[0]
            tables.append(t + 10 if self.buf[t:t + 10] == b"flyrecord\0" else t)
        for t in tables:
            for cpu in range(self.cpus):
                off, size = struct.unpack_from(self.e + "QQ", self.buf, t + 16 * cpu)
                for page in range(off, off + size, self.page_size):
                    yield cpu, page

    def records(self, page):
        """(ts, pos) of every event record of the page at `page`: its
        time (the page's, with the deltas and time extends before it)
        and where its data begins."""
        buf, e = self.buf, self.e
        ts = struct.unpack_from(e + "Q", buf, page)[0]
        commit = int.from_bytes(buf[page + 8:page + 8 + self.long_size],
                                "little" if e == "<" else "big")
        data = page + 8 + self.long_size
        end = data + (commit & 0xfffff)
        if end > page + self.page_size:
            sys.exit("page at %d: commit %d past its end" % (page, commit))
        p = data
        while p < end:
            head = struct.unpack_from(e + "I", buf, p)[0]
            kind, delta = head & 31, head >> 5
            if kind == 29:                                 # padding
                if delta == 0:
                    break
                p += 4 + struct.unpack_from(e + "I", buf, p + 4)[0]
                continue
            if kind == 30:                                 # time extend
                ts += delta + (struct.unpack_from(e + "I", buf, p + 4)[0] << 27)
                p += 8
                continue
            if kind == 31:                                 # absolute stamp
                ts = delta + (struct.unpack_from(e + "I", buf, p + 4)[0] << 27)
                p += 8
                continue
            ts += delta
            if kind == 0:
                length = struct.unpack_from(e + "I", buf, p + 4)[0] - 4
                rec, size = p + 8, 8 + length
            else:
                rec, size = p + 4, 4 + 4 * kind
            yield ts, rec
            p += size
