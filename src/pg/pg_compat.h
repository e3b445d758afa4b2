/*
 * pg_compat.h: every difference between the PostgreSQL majors simhash
 * builds on, and nothing else.
 *
 * The extension is built and tested on PostgreSQL 15, 16, 17 and 18 (README,
 * "Supported PostgreSQL versions").  Code elsewhere never tests
 * PG_VERSION_NUM: it uses the names below, which mean the same thing on
 * every supported major.  Included right after postgres.h (simhash_datum.h
 * does it), so the macros expand where their headers are included.
 */
#ifndef SIMHASH_PG_COMPAT_H
#define SIMHASH_PG_COMPAT_H

#if PG_VERSION_NUM < 150000
#error "simhash needs PostgreSQL 15 or later"
#endif

/* 16 moved VARSIZE, SET_VARSIZE, VARDATA and the other varlena macros here */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/*
 * A relation's physical file: RelFileNode until 15, RelFileLocator from 16.
 * compat_rel_file(rel) is the value ReadRecentBuffer takes;
 * compat_smgr_file(srel) the pointer log_newpage takes.
 */
#if PG_VERSION_NUM >= 160000
#define compat_rel_file(rel) ((rel)->rd_locator)
#define compat_smgr_file(srel) (&(srel)->smgr_rlocator.locator)
#else
#define compat_rel_file(rel) ((rel)->rd_node)
#define compat_smgr_file(srel) (&(srel)->smgr_rnode.node)
#endif

/* 18 tells vacuum_delay_point whether ANALYZE calls it (commands/vacuum.h) */
#if PG_VERSION_NUM >= 180000
#define compat_vacuum_delay_point() vacuum_delay_point(false)
#else
#define compat_vacuum_delay_point() vacuum_delay_point()
#endif

/*
 * 19 types LockBuffer's mode as enum BufferLockMode, to which C++ does not
 * convert an int: compat_lock_buffer takes a mode kept in an int (the index
 * carries the lock a caller asked for in one) on every major.
 */
#if PG_VERSION_NUM >= 190000
#define compat_lock_buffer(buf, mode) LockBuffer((buf), (BufferLockMode) (mode))
#else
#define compat_lock_buffer(buf, mode) LockBuffer((buf), (mode))
#endif

/* 19 gives table_index_fetch_begin scan options (access/tableam.h) */
#if PG_VERSION_NUM >= 190000
#define compat_table_index_fetch_begin(rel) table_index_fetch_begin((rel), SO_NONE)
#else
#define compat_table_index_fetch_begin(rel) table_index_fetch_begin(rel)
#endif

/*
 * 19 requires TupleDescFinalize on a tuple descriptor built by hand before
 * any use (it fills the offsets tuple deforming relies on; without it the
 * backend crashes): before 19 there is nothing to do.
 */
#if PG_VERSION_NUM >= 190000
#define compat_tuple_desc_finalize(desc) TupleDescFinalize(desc)
#else
#define compat_tuple_desc_finalize(desc) ((void) (desc))
#endif

/* 19 renamed PageSetChecksumInplace to PageSetChecksum (storage/bufpage.h) */
#if PG_VERSION_NUM >= 190000
#define compat_page_set_checksum(page, blkno) PageSetChecksum((page), (blkno))
#else
#define compat_page_set_checksum(page, blkno) PageSetChecksumInplace((page), (blkno))
#endif

#endif
