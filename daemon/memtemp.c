/* memtemp.c — see memtemp.h. */
#include "memtemp.h"

#include <string.h>

#include <sqlite3.h>

/* ---- a temporary file in memory ---- */

/* Its bytes in chunks of CHUNK: growing it moves nothing (a sorter's
 * temporary file grows to hundreds of MB a write at a time; one block
 * grown by realloc was copied and faulted in anew at each step, 0.7 s of
 * a 3.2 s GROUP BY over thread_state). A chunk is allocated when the file
 * first reaches it, zeroed where nothing is written yet. */
#define CHUNK_SHIFT 18
#define CHUNK ((sqlite3_int64)1 << CHUNK_SHIFT)

struct memfile {
	sqlite3_file base;
	unsigned char **chunk;
	sqlite3_int64 nchunk;		/* slots in chunk[] */
	sqlite3_int64 size;
};

/* Frees the chunks that lie wholly at or past byte n (all of them for 0):
 * the one byte n falls inside is kept. */
static void mem_free_from(struct memfile *m, sqlite3_int64 n)
{
	for (sqlite3_int64 i = (n + CHUNK - 1) >> CHUNK_SHIFT; i < m->nchunk; i++) {
		sqlite3_free(m->chunk[i]);
		m->chunk[i] = NULL;
	}
}

static int mem_close(sqlite3_file *f)
{
	struct memfile *m = (struct memfile *)f;

	mem_free_from(m, 0);
	sqlite3_free(m->chunk);
	m->chunk = NULL;
	m->nchunk = m->size = 0;
	return SQLITE_OK;
}

/* Copies amt bytes at off out of the file (to buf) or into it (from
 * src); every chunk they touch exists. */
static void mem_copy(struct memfile *m, unsigned char *buf, const unsigned char *src,
		     sqlite3_int64 amt, sqlite3_int64 off)
{
	while (amt > 0) {
		sqlite3_int64 at = off & (CHUNK - 1), n = CHUNK - at;
		unsigned char *c = m->chunk[off >> CHUNK_SHIFT] + at;

		if (n > amt)
			n = amt;
		if (src) {
			memcpy(c, src, (size_t)n);
			src += n;
		} else {
			memcpy(buf, c, (size_t)n);
			buf += n;
		}
		off += n;
		amt -= n;
	}
}

/* Reading past the end gives zeros and SQLITE_IOERR_SHORT_READ, as a
 * file does. */
static int mem_read(sqlite3_file *f, void *buf, int amt, sqlite3_int64 off)
{
	struct memfile *m = (struct memfile *)f;
	sqlite3_int64 have = off < m->size ? m->size - off : 0;

	if (have >= amt) {
		mem_copy(m, buf, NULL, amt, off);
		return SQLITE_OK;
	}
	if (have > 0)
		mem_copy(m, buf, NULL, have, off);
	memset((unsigned char *)buf + have, 0, (size_t)(amt - have));
	return SQLITE_IOERR_SHORT_READ;
}

/* The file grows to n bytes, the new ones before keep zero (as a file
 * reads them); from keep on the caller writes them. */
static int mem_grow(struct memfile *m, sqlite3_int64 n, sqlite3_int64 keep)
{
	sqlite3_int64 need = (n + CHUNK - 1) >> CHUNK_SHIFT;
	sqlite3_int64 first = m->size >> CHUNK_SHIFT;

	if (n <= m->size)
		return SQLITE_OK;
	if (need > m->nchunk) {
		sqlite3_int64 slots = m->nchunk ? m->nchunk * 2 : 16;
		unsigned char **p;

		if (slots < need)
			slots = need;
		p = sqlite3_realloc64(m->chunk, (sqlite3_uint64)slots * sizeof(*p));
		if (!p)
			return SQLITE_IOERR_NOMEM;
		memset(p + m->nchunk, 0, (size_t)(slots - m->nchunk) * sizeof(*p));
		m->chunk = p;
		m->nchunk = slots;
	}
	if (!(m->size & (CHUNK - 1)))
		first--;	/* (it ends at a chunk's start) */
	for (sqlite3_int64 i = first + 1; i < need; i++)
		if (!(m->chunk[i] = sqlite3_malloc64((sqlite3_uint64)CHUNK))) {
			mem_free_from(m, m->size);
			return SQLITE_IOERR_NOMEM;
		}
	/* zeros from the old end to keep */
	for (sqlite3_int64 at = m->size; at < keep && at < n; ) {
		sqlite3_int64 o = at & (CHUNK - 1), len = CHUNK - o;

		if (len > keep - at)
			len = keep - at;
		memset(m->chunk[at >> CHUNK_SHIFT] + o, 0, (size_t)len);
		at += len;
	}
	m->size = n;
	return SQLITE_OK;
}

static int mem_write(sqlite3_file *f, const void *buf, int amt,
		     sqlite3_int64 off)
{
	struct memfile *m = (struct memfile *)f;
	int rc;

	if (off < 0 || amt < 0)
		return SQLITE_IOERR_WRITE;
	if ((rc = mem_grow(m, off + amt, off)) != SQLITE_OK)
		return rc;
	mem_copy(m, NULL, buf, amt, off);
	return SQLITE_OK;
}

static int mem_truncate(sqlite3_file *f, sqlite3_int64 n)
{
	struct memfile *m = (struct memfile *)f;

	if (n < 0)
		return SQLITE_IOERR_TRUNCATE;
	if (n > m->size)
		return mem_grow(m, n, n);
	mem_free_from(m, n);
	m->size = n;
	return SQLITE_OK;
}

static int mem_sync(sqlite3_file *f, int flags)
{
	(void)f;
	(void)flags;
	return SQLITE_OK;
}

static int mem_size(sqlite3_file *f, sqlite3_int64 *out)
{
	*out = ((struct memfile *)f)->size;
	return SQLITE_OK;
}

/* One connection's temporary file: nobody else to lock against. */
static int mem_lock(sqlite3_file *f, int level)
{
	(void)f;
	(void)level;
	return SQLITE_OK;
}

static int mem_reserved(sqlite3_file *f, int *out)
{
	(void)f;
	*out = 0;
	return SQLITE_OK;
}

static int mem_control(sqlite3_file *f, int op, void *arg)
{
	(void)f;
	(void)op;
	(void)arg;
	return SQLITE_NOTFOUND;
}

static int mem_sector(sqlite3_file *f)
{
	(void)f;
	return 4096;
}

static int mem_device(sqlite3_file *f)
{
	(void)f;
	return 0;
}

static const sqlite3_io_methods mem_io = {
	.iVersion = 1,
	.xClose = mem_close,
	.xRead = mem_read,
	.xWrite = mem_write,
	.xTruncate = mem_truncate,
	.xSync = mem_sync,
	.xFileSize = mem_size,
	.xLock = mem_lock,
	.xUnlock = mem_lock,
	.xCheckReservedLock = mem_reserved,
	.xFileControl = mem_control,
	.xSectorSize = mem_sector,
	.xDeviceCharacteristics = mem_device,
};

/* ---- the VFS: temporary files here, the rest to the default ---- */

static sqlite3_vfs memtemp_vfs;

#define BASE ((sqlite3_vfs *)memtemp_vfs.pAppData)

static int vfs_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f,
		    int flags, int *out)
{
	(void)vfs;
	/* What SQLite opens for temporary data: no name (it would pick
	 * one in a temporary directory), or one of these kinds. */
	if (!name || (flags & (SQLITE_OPEN_TEMP_DB | SQLITE_OPEN_TEMP_JOURNAL |
			       SQLITE_OPEN_TRANSIENT_DB |
			       SQLITE_OPEN_SUBJOURNAL))) {
		struct memfile *m = (struct memfile *)f;

		memset(m, 0, sizeof(*m));
		m->base.pMethods = &mem_io;
		if (out)
			*out = flags;
		return SQLITE_OK;
	}
	return BASE->xOpen(BASE, name, f, flags, out);
}

static int vfs_delete(sqlite3_vfs *vfs, const char *name, int sync)
{
	(void)vfs;
	return BASE->xDelete(BASE, name, sync);
}

static int vfs_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
	(void)vfs;
	return BASE->xAccess(BASE, name, flags, out);
}

static int vfs_fullpath(sqlite3_vfs *vfs, const char *name, int n, char *out)
{
	(void)vfs;
	return BASE->xFullPathname(BASE, name, n, out);
}

static void *vfs_dlopen(sqlite3_vfs *vfs, const char *name)
{
	(void)vfs;
	return BASE->xDlOpen(BASE, name);
}

static void vfs_dlerror(sqlite3_vfs *vfs, int n, char *msg)
{
	(void)vfs;
	BASE->xDlError(BASE, n, msg);
}

static void (*vfs_dlsym(sqlite3_vfs *vfs, void *h, const char *sym))(void)
{
	(void)vfs;
	return BASE->xDlSym(BASE, h, sym);
}

static void vfs_dlclose(sqlite3_vfs *vfs, void *h)
{
	(void)vfs;
	BASE->xDlClose(BASE, h);
}

static int vfs_random(sqlite3_vfs *vfs, int n, char *out)
{
	(void)vfs;
	return BASE->xRandomness(BASE, n, out);
}

static int vfs_sleep(sqlite3_vfs *vfs, int us)
{
	(void)vfs;
	return BASE->xSleep(BASE, us);
}

static int vfs_time(sqlite3_vfs *vfs, double *out)
{
	(void)vfs;
	return BASE->xCurrentTime(BASE, out);
}

static int vfs_lasterror(sqlite3_vfs *vfs, int n, char *msg)
{
	(void)vfs;
	return BASE->xGetLastError ? BASE->xGetLastError(BASE, n, msg) : 0;
}

static int vfs_time64(sqlite3_vfs *vfs, sqlite3_int64 *out)
{
	double d;
	int rc;

	(void)vfs;
	if (BASE->iVersion >= 2 && BASE->xCurrentTimeInt64)
		return BASE->xCurrentTimeInt64(BASE, out);
	rc = BASE->xCurrentTime(BASE, &d);
	*out = (sqlite3_int64)(d * 86400000.0);
	return rc;
}

int memtemp_register(void)
{
	sqlite3_vfs *base;

	if (sqlite3_vfs_find(MEMTEMP_VFS))
		return SQLITE_OK;
	base = sqlite3_vfs_find(NULL);
	if (!base)
		return SQLITE_ERROR;
	memtemp_vfs = (sqlite3_vfs){
		.iVersion = 2,
		.szOsFile = base->szOsFile > (int)sizeof(struct memfile) ?
			    base->szOsFile : (int)sizeof(struct memfile),
		.mxPathname = base->mxPathname,
		.zName = MEMTEMP_VFS,
		.pAppData = base,
		.xOpen = vfs_open,
		.xDelete = vfs_delete,
		.xAccess = vfs_access,
		.xFullPathname = vfs_fullpath,
		.xDlOpen = vfs_dlopen,
		.xDlError = vfs_dlerror,
		.xDlSym = vfs_dlsym,
		.xDlClose = vfs_dlclose,
		.xRandomness = vfs_random,
		.xSleep = vfs_sleep,
		.xCurrentTime = vfs_time,
		.xGetLastError = vfs_lasterror,
		.xCurrentTimeInt64 = vfs_time64,
	};
	return sqlite3_vfs_register(&memtemp_vfs, 0);
}
