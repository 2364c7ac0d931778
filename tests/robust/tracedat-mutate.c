/* tracedat-mutate.c — deterministic mutants of a trace.dat, for
 * mutate-tracedat.sh.
 *
 *   tracedat-mutate IN OUT SEED INDEX   writes mutant INDEX of IN to OUT
 *                                       and prints what it did, one line
 *   tracedat-mutate --fields IN         lists the size/count/offset
 *                                       fields found in IN
 *
 * The same SEED and INDEX give the same mutant. Kinds of mutation, by
 * INDEX % 6: bit flips at random offsets; a truncation; two 4 KiB blocks
 * swapped; a 4 KiB block copied over another; a 4 KiB block inserted
 * again after itself; a huge (or zero, or off-by-some) value written into
 * one of the file's size, count or offset fields.
 *
 * The fields are found by walking the layout trace-cmd documents in
 * trace-cmd.dat.v6(5) and trace-cmd.dat.v7(5): v6 is one header after
 * another (header_page/header_event sizes, ftrace and event format counts
 * and sizes, kallsyms/printk/cmdlines sizes, the CPU count, options, each
 * CPU's data offset and size); v7 is an options section, whose offset is
 * in the header, pointing at the other sections (each with a 16-byte
 * header: id, flags, string id, size, then compressed and uncompressed
 * sizes when compressed) and, through BUFFER options, at each CPU's data.
 * Compressed sections are not looked into. Little-endian files only (the
 * fixtures are). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct field {
	size_t off;
	int width;		/* 2, 4 or 8 bytes */
	const char *what;
};

static struct field fields[4096];
static int nfields;
static const uint8_t *buf;
static size_t len;

static void add(size_t off, int width, const char *what)
{
	if (nfields < (int)(sizeof(fields) / sizeof(fields[0])) && off + (size_t)width <= len)
		fields[nfields++] = (struct field){ off, width, what };
}

static uint64_t get(size_t off, int width)
{
	uint64_t v = 0;

	if (off + (size_t)width > len)
		return UINT64_MAX;
	for (int i = width - 1; i >= 0; i--)
		v = v << 8 | buf[off + (size_t)i];
	return v;
}

static void put(uint8_t *b, size_t off, int width, uint64_t v)
{
	for (int i = 0; i < width; i++, v >>= 8)
		b[off + (size_t)i] = (uint8_t)v;
}

/* A NUL-terminated string at *off: skipped; 0 when it runs off the end. */
static int skip_str(size_t *off)
{
	const uint8_t *nul = *off < len ? memchr(buf + *off, 0, len - *off) : NULL;

	if (!nul)
		return 0;
	*off = (size_t)(nul - buf) + 1;
	return 1;
}

/* u64 size + data; 0 when it does not fit. */
static int sized64(size_t *off, const char *what)
{
	uint64_t n = get(*off, 8);

	add(*off, 8, what);
	if (n > len - *off - 8)
		return 0;
	*off += 8 + n;
	return 1;
}

static int sized32(size_t *off, const char *what)
{
	uint64_t n = get(*off, 4);

	add(*off, 4, what);
	if (n > len - *off - 4)
		return 0;
	*off += 4 + n;
	return 1;
}

static void walk_v6(size_t off)
{
	uint64_t n, cpus;

	off += 12;			/* "header_page\0" */
	if (!sized64(&off, "header_page size"))
		return;
	off += 13;			/* "header_event\0" */
	if (!sized64(&off, "header_event size"))
		return;
	n = get(off, 4);
	add(off, 4, "ftrace format count");
	off += 4;
	for (uint64_t i = 0; i < n; i++)
		if (!sized64(&off, "ftrace format size"))
			return;
	n = get(off, 4);
	add(off, 4, "event system count");
	off += 4;
	for (uint64_t s = 0; s < n; s++) {
		uint64_t m;

		if (!skip_str(&off))
			return;
		m = get(off, 4);
		add(off, 4, "event format count");
		off += 4;
		for (uint64_t i = 0; i < m; i++)
			if (!sized64(&off, "event format size"))
				return;
	}
	if (!sized32(&off, "kallsyms size") || !sized32(&off, "printk size") ||
	    !sized64(&off, "cmdlines size"))
		return;
	cpus = get(off, 4);
	add(off, 4, "cpu count");
	off += 4;
	if (off + 10 > len)
		return;
	if (!memcmp(buf + off, "options  ", 10)) {
		off += 10;
		while (off + 2 <= len && get(off, 2)) {
			uint64_t size = get(off + 2, 4);

			add(off + 2, 4, "option size");
			if (get(off, 2) == 3)		/* BUFFER: u64 offset, name */
				add(off + 6, 8, "buffer instance offset");
			off += 6 + size;
		}
		off += 2;
	}
	if (off + 10 > len || memcmp(buf + off, "flyrecord", 10))
		return;
	off += 10;
	for (uint64_t c = 0; c < cpus && off + 16 <= len; c++, off += 16) {
		add(off, 8, "cpu data offset");
		add(off + 8, 8, "cpu data size");
	}
}

/* A section header, and when compressed the compression header after it
 * (trace data has its own: chunks at each CPU's offset). */
static void section_header(size_t off, const char *what, int flyrecord)
{
	if (off + 16 > len)
		return;
	add(off + 2, 2, "section flags");
	add(off + 8, 8, what);
	if ((get(off + 2, 2) & 1) && !flyrecord) {
		add(off + 16, 4, "compressed size");
		add(off + 20, 4, "uncompressed size");
	}
}

static void walk_v7(size_t off)
{
	size_t opt;
	int sections = 0;

	if (!skip_str(&off) || !skip_str(&off))	/* compression name, version */
		return;
	add(off, 8, "first options offset");
	opt = (size_t)get(off, 8);
	while (opt && opt + 16 <= len && sections++ < 64) {
		size_t o, end;

		section_header(opt, "options section size", 0);
		if (get(opt + 2, 2) & 1)
			return;			/* compressed: not looked into */
		o = opt + 16;
		end = o + (size_t)get(opt + 8, 8);
		if (end > len)
			end = len;
		opt = 0;
		while (o + 6 <= end) {
			uint64_t id = get(o, 2), size = get(o + 2, 4);
			size_t d = o + 6;

			add(o + 2, 4, "option size");
			if (id == 0) {			/* DONE: next options */
				add(d, 8, "next options offset");
				opt = (size_t)get(d, 8);
				break;
			}
			if (id >= 16 && id <= 22 && size == 8) {
				add(d, 8, "section offset");
				section_header((size_t)get(d, 8), "section size", 0);
			}
			if (id == 3 && d + 8 <= end) {	/* BUFFER */
				size_t p = d + 8;
				uint64_t cpus;

				size_t sec = (size_t)get(d, 8);
				int chunks = sec + 4 <= len && (get(sec + 2, 2) & 1);

				add(d, 8, "flyrecord section offset");
				section_header(sec, "flyrecord section size", 1);
				if (skip_str(&p) && skip_str(&p) && p + 8 <= end) {
					add(p, 4, "buffer page size");
					cpus = get(p + 4, 4);
					add(p + 4, 4, "buffer cpu count");
					p += 8;
					for (uint64_t c = 0; c < cpus && p + 20 <= end; c++, p += 20) {
						size_t at = (size_t)get(p + 4, 8);

						add(p + 4, 8, "cpu data offset");
						add(p + 12, 8, "cpu data size");
						if (chunks) {
							add(at, 4, "chunk count");
							add(at + 4, 4, "chunk compressed size");
							add(at + 8, 4, "chunk uncompressed size");
						}
					}
				}
			}
			o = d + size;
		}
	}
}

static void find_fields(void)
{
	static const uint8_t magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

	nfields = 0;
	if (len < 18 || memcmp(buf, magic, sizeof(magic)) || buf[12] != 0)
		return;
	add(14, 4, "page size");
	if (buf[10] == '6')
		walk_v6(18);
	else if (buf[10] == '7')
		walk_v7(18);
}

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static size_t below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static uint8_t *load(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long size;

	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "tracedat-mutate: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	b = malloc((size_t)size + 8192);
	if (!b || fread(b, 1, (size_t)size, f) != (size_t)size) {
		fprintf(stderr, "tracedat-mutate: %s: cannot read\n", path);
		exit(2);
	}
	fclose(f);
	*n = (size_t)size;
	return b;
}

int main(int argc, char **argv)
{
	uint8_t *b, block[4096];
	size_t n, a, c;
	FILE *out;

	if (argc == 3 && !strcmp(argv[1], "--fields")) {
		buf = load(argv[2], &len);
		find_fields();
		for (int i = 0; i < nfields; i++)
			printf("%8zu  u%-2d %-24s %llu\n", fields[i].off, fields[i].width * 8,
			       fields[i].what,
			       (unsigned long long)get(fields[i].off, fields[i].width));
		return 0;
	}
	if (argc != 5) {
		fprintf(stderr, "usage: tracedat-mutate IN OUT SEED INDEX | --fields IN\n");
		return 2;
	}
	b = load(argv[1], &n);
	buf = b;
	len = n;
	find_fields();
	rng = strtoull(argv[3], NULL, 0) * 0x9e3779b97f4a7c15ull +
	      strtoull(argv[4], NULL, 0) + 1;
	for (int i = 0; i < 4; i++)
		rnd();
	switch (strtoul(argv[4], NULL, 0) % 6) {
	case 0: {
		int flips = 1 + (int)below(8);

		printf("%d bit flip(s) at", flips);
		for (int i = 0; i < flips; i++) {
			a = below(n);
			b[a] ^= (uint8_t)(1u << below(8));
			printf(" %zu", a);
		}
		printf("\n");
		break;
	}
	case 1:
		a = below(n);
		printf("truncated to %zu of %zu bytes\n", a, n);
		n = a;
		break;
	case 2:
		if (n < 2 * 4096)
			goto field;
		a = below(n / 4096) * 4096;
		c = below(n / 4096) * 4096;
		memcpy(block, b + a, 4096);
		memmove(b + a, b + c, 4096);
		memcpy(b + c, block, 4096);
		printf("4 KiB blocks at %zu and %zu swapped\n", a, c);
		break;
	case 3:
		if (n < 2 * 4096)
			goto field;
		a = below(n / 4096) * 4096;
		c = below(n / 4096) * 4096;
		memmove(b + c, b + a, 4096);
		printf("4 KiB block at %zu copied over %zu\n", a, c);
		break;
	case 4:
		if (n < 4096)
			goto field;
		a = below(n / 4096) * 4096;
		memmove(b + a + 4096, b + a, n - a);
		n += 4096;
		printf("4 KiB block at %zu duplicated in place\n", a);
		break;
	default:
	field:
		if (!nfields) {
			a = below(n);
			b[a] = 0xff;
			printf("no size field found: byte %zu set to 0xff\n", a);
			break;
		} else {
			static const uint64_t huge[] = {
				0, 1, 0x7fffffffull, 0xffffffffull, 0x80000000ull,
				0x7fffffffffffffffull, 0xffffffffffffffffull,
				0x100000000ull, 1ull << 40,
			};
			const struct field *f = &fields[below((size_t)nfields)];
			uint64_t old = get(f->off, f->width), v;

			switch (below(4)) {
			case 0:  v = (uint64_t)len + 1 + below(4096); break;
			case 1:  v = old * 2 + 1; break;
			case 2:  v = old ? old - 1 - below(old) : 1; break;
			default: v = huge[below(sizeof(huge) / sizeof(huge[0]))]; break;
			}
			put(b, f->off, f->width, v);
			printf("%s at %zu: %llu -> %llu (u%d)\n", f->what, f->off,
			       (unsigned long long)old,
			       (unsigned long long)(f->width == 8 ? v :
				       v & ((1ull << (f->width * 8)) - 1)), f->width * 8);
		}
		break;
	}
	out = fopen(argv[2], "wb");
	if (!out || fwrite(b, 1, n, out) != n || fclose(out)) {
		fprintf(stderr, "tracedat-mutate: %s: %s\n", argv[2], strerror(errno));
		return 2;
	}
	free(b);
	return 0;
}
