/* memtemp.h — a VFS whose temporary files live in memory.
 *
 * The query server's connections must not write a byte to disk: a sort
 * or a join may spill gigabytes. PRAGMA temp_store = MEMORY does that,
 * but then SQLite's sorter allocates every sorted record on its own
 * (it packs them into page-sized blocks only when it may spill to a
 * file): 5 ms of a 36 ms report on a 1 s window went to malloc and free.
 *
 * This VFS keeps the default temp_store, so that the sorter packs its
 * records, and serves each file SQLite would make on disk for temporary
 * data (a temp database, a sorter's or statement's journal, a transient
 * table) from memory allocated with sqlite3_malloc, which the server
 * counts against the query's cap. Every other file (the database, its
 * WAL and shared memory) is the default VFS's own. */
#ifndef COMMD_MEMTEMP_H
#define COMMD_MEMTEMP_H

/* The VFS's name, for sqlite3_open_v2. */
#define MEMTEMP_VFS "commd-memtemp"

/* Registers it (not as the default). Returns an SQLite result code. */
int memtemp_register(void);

#endif
