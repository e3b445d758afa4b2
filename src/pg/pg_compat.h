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

#endif
