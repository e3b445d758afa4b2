/*
 * shx_batch.h: every pair of rows within a radius, read off a simhash index
 * without probing it once per row (shx_pair_walk.cpp), and the two SQL
 * functions built on it: simhash_pairs (shx_pairs.cpp) and
 * simhash_clusters (shx_clusters.cpp).
 */
#ifndef SHX_BATCH_H
#define SHX_BATCH_H

#include "shx.h"

extern "C" {
#include "access/relscan.h"
#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "utils/snapshot.h"
}

/*
 * Takes one pair of visible rows, a < b (packed tids of the row versions the
 * statement's snapshot sees).  copy_edge: a is the first visible copy of b's
 * fingerprint and b a later copy (only in ShxPairWalk.leaders_only mode).
 * May ereport; must hold no object with a destructor.
 */
typedef void (*ShxPairSink)(void *arg, uint64 a, uint64 b, int dist, bool copy_edge);

/* One block value's entries of a partition (a run), grouped by identical key. */
typedef struct ShxRun {
    simhash::KeyTid *e; /* entries sorted by key, then tid */
    uint64 *vis;        /* per entry: visible row's packed tid, 0 = not visible, SHX_VIS_UNKNOWN = not asked yet */
    int64 n, cap;
    int64 *gstart;      /* start of each group of one key (ngroups + 1 values, the last = n) */
    uint64 *gkey;       /* each group's key */
    uint64 *gleader;    /* each group's smallest visible tid, 0 = none, SHX_VIS_UNKNOWN = not asked yet */
    int64 ngroups, gcap;
} ShxRun;

#define SHX_VIS_UNKNOWN UINT64CONST(1) /* no packed tid is 1: offsets start at 1 */

/* The walk over every partition of one index (shx_pair_walk). */
typedef struct ShxPairWalk {
    Relation heap;
    Relation index;
    ShxState st;
    int radius;          /* 0..64 */
    bool leaders_only;   /* copies of one fingerprint: one copy_edge each to the first copy, not every pair */
    Snapshot snapshot;   /* the statement's: which rows exist */
    ShxPairSink sink;
    void *sink_arg;
    /* visibility, 2 bits per heap line pointer of the pages the heap had at the start (unknown, no, yes, moved) */
    uint8 *vis_bits;
    BlockNumber vis_blocks;
    IndexFetchTableData *fetch;
    TupleTableSlot *slot;
    /* runs of the partition being walked: the current one, and a neighbouring one read by a probe */
    ShxRun run, other;
    simhash::KeyTid *page; /* one leaf's entries */
    /* counters, for the DEBUG1 progress lines and the tests */
    int64 entries;       /* index entries read */
    int64 compared;      /* fingerprint pairs compared */
    int64 pairs;         /* pairs given to the sink */
    int64 heap_fetches;  /* visibility checks that read the heap */
} ShxPairWalk;

/*
 * Opens index (AccessShareLock on it and its table), checks that it is a
 * valid simhash index the caller may read the table through, and reads
 * radius (NULL: simhash.threshold; ERROR outside 0..64).  caller is the SQL
 * function (fcinfo->flinfo->fn_oid), for messages.
 */
void shx_pair_walk_open(ShxPairWalk *w, Oid indexoid, bool radius_null, int32 radius, Oid caller);
/*
 * The start of both SQL functions, (index regclass, radius integer, ...)
 * returning a materialized set: sets up the result's tuplestore and opens
 * the walk; NULL (no rows to return) when the index argument is NULL.
 */
ReturnSetInfo *shx_pair_walk_begin_srf(FunctionCallInfo fcinfo, ShxPairWalk *w);
/* Gives every pair of visible rows within the radius to the sink, once. */
void shx_pair_walk_run(ShxPairWalk *w);
void shx_pair_walk_close(ShxPairWalk *w);

extern "C" {
PGDLLEXPORT Datum simhash_pairs(PG_FUNCTION_ARGS);
PGDLLEXPORT Datum simhash_clusters(PG_FUNCTION_ARGS);
}

#endif
