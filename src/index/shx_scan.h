/*
 * shx_scan.h: the state of an index scan, and the parts that work on it.
 *
 * Calls run one way.  The access-method callbacks (shx_scan.cpp) read the
 * query and start either an exact KNN search (shx_knn.cpp) or a radius
 * search (shx_radius.cpp), streamed or collected; both read leaf pages
 * through a walk over sorted key ranges (shx_walk.cpp), which hands each
 * page's entries near the query to its caller and knows nothing else of the
 * scan.  Found rows are ordered by shx_scan_order.cpp.
 */
#ifndef SHX_SCAN_H
#define SHX_SCAN_H

#include "shx.h"

#include "hamming.hpp"

extern "C" {
#include "access/itup.h"
#include "access/relscan.h"
#include "access/visibilitymap.h"
#include "utils/memutils.h"
}

/*
 * Takes the n entries of one leaf page that passed a walk's filter (one call
 * per key range on the page, not per entry).  part is the partition walked,
 * whose rotation the keys are in.
 */
typedef void (*ShxWalkVisit)(void *arg, int part, ShxNearEntry *near, int n);

/*
 * A walk over the sorted, disjoint key ranges [lo[i], hi[i]] of one
 * partition, one leaf page per step.  A range starts at the directory's hint,
 * or at the page where the previous range ended when that page reaches this
 * range (every page left of it ends below the previous range, so it is the
 * first page with hi >= the new start).  Between steps it holds only a pin on
 * a directory page, so a scan can return rows while it walks.
 */
typedef struct ShxRangeWalk {
    /* set by shx_walk_init, for every walk of a scan */
    const ShxState *st;      /* the index's partitions and directory */
    Snapshot snapshot;       /* the scan's: predicate locks on the leaves read (SERIALIZABLE) */
    ShxNearEntry *near;      /* room for one page's entries that pass the filter */
    ShxWalkVisit visit;      /* takes those entries */
    void *visit_arg;         /* visit's context */
    /* set by shx_walk_begin, for one walk */
    uint64 filter_q;         /* the page filter: entries within filter_cap of filter_q */
    int filter_cap;
    int part;                /* the partition walked */
    const uint64 *lo, *hi;   /* its key ranges */
    int64 n, r;              /* ranges, and the one being read */
    BlockNumber blk;         /* next page; InvalidBlockNumber: start range r */
    BlockNumber from;        /* page whose right link led to blk */
    uint64 from_hi;          /* that page's hi */
    bool have;               /* a page was read: last_blk, last_hi */
    BlockNumber last_blk;    /* the last page read */
    uint64 last_hi;          /* its hi */
    Buffer dir;              /* pinned directory page */
    int steps;               /* pages moved right toward range r's start */
    int64 prefetched;        /* ranges whose first leaf was prefetched */
} ShxRangeWalk;

/* The whole key space, one range: a walk that reads a partition whole. */
extern const uint64 shx_whole_lo, shx_whole_hi;

void shx_walk_init(ShxRangeWalk *w, const ShxState *st, Snapshot snapshot, ShxNearEntry *near, ShxWalkVisit visit,
                   void *visit_arg);
void shx_walk_begin(ShxRangeWalk *w, int part, const uint64 *lo, const uint64 *hi, int64 n, uint64 filter_q,
                    int filter_cap);
/* Reads the next leaf page of the walk, handing its entries to visit; false once the walk is done. */
bool shx_walk_step(Relation index, ShxRangeWalk *w);
/* Lets go of the walk's directory pin; the walk is done. */
void shx_walk_end(ShxRangeWalk *w);
/* The leaf pages of one partition, about. */
double shx_leaf_pages_per_part(Relation index, const ShxState *st);
/* The key ranges of partition p holding the block values at distance dmin..dmax from q's block. */
int64 shx_probe_ranges(const ShxState *st, uint64 q, int p, int dmin, int dmax, uint64 **lo, uint64 **hi);
/* Prefetches the leaf holding q's own block value in each of the first nparts partitions. */
void shx_prefetch_own_blocks(Relation index, const ShxState *st, uint64 q, int nparts);

/* What the scan looks for (shx_rescan). */
typedef struct ShxScanQuery {
    bool nomatch;            /* a NULL key argument: nothing matches */
    int nkeys;               /* search keys */
    uint64 *kq;              /* per key: query */
    int *kr;                 /* per key: radius */
    bool has_order;          /* ORDER BY fp <-> order_q */
    bool order_null;         /* order_q is NULL: every distance is NULL */
    uint64 order_q;          /* the first ORDER BY query */
    /*
     * ORDER BY fp <-> q1, fp <-> q2, ...: the keys after the first, which
     * order the rows that tie on the ones before (shx_sort_hits).
     */
    int nthen;               /* how many */
    uint64 *then_q;          /* their queries */
    bool *then_null;         /* which are NULL */
} ShxScanQuery;

/* A found row. */
typedef struct ShxHit {
    ItemPointerData tid;     /* its heap tid (a HOT chain's root) */
    uint8 dist;              /* its distance to the first ORDER BY query, else to the first key's query (0: none) */
    bool heap_check;         /* index-only scan: its heap page was not all-visible when the entry was read */
    uint64 fp;               /* its fingerprint */
} ShxHit;

/* A growing array of found rows (shx_scan_append_hit). */
typedef struct ShxHitArray {
    ShxHit *rows;            /* in the scan's memory context */
    int64 n;                 /* rows held */
    int64 cap;               /* rows allocated */
} ShxHitArray;

/* The rows a radius search found, and the bitmap a bitmap scan fills instead. */
typedef struct ShxScanHits {
    ShxHitArray found;       /* matches not yet returned (a page's when streaming, else all) */
    int64 next;              /* the next of them to return */
    TIDBitmap *tbm;          /* amgetbitmap: matches go straight into it */
    int64 ntids;             /* tids added to tbm */
} ShxScanHits;

/* A radius search (shx_radius.cpp): the probes of each partition, or partition 0 whole. */
typedef struct ShxRadiusSearch {
    uint64 filter_q;         /* the page filter: entries within filter_r of filter_q (the most selective key) */
    int filter_r;
    int probe_r;             /* probes of radius_probe_level(probe_r, ...); -1: a whole-partition read */
    bool stream;             /* amgettuple without order: return each page's matches as it is read */
    int part, nparts;        /* next partition to walk, and how many are walked */
    bool walking;            /* the scan's walk is under way */
} ShxRadiusSearch;

/* An exact KNN search (shx_knn.cpp): probes level by level, then partition 0 read whole. */
typedef struct ShxKnnSearch {
    bool on;                 /* the scan is a KNN search */
    int bound;               /* every row within bound has been found */
    int level;               /* next per-block level to probe */
    int part;                /* next partition to probe at that level */
    bool full;               /* switched to reading partition 0 whole */
    int full_lo, full_hi;    /* a full read collects distances in (full_lo, full_hi] */
    int full_reach;          /* the first full read collects at least to here (uniform_radius_holding) */
    bool walking;            /* the scan's walk is a probe or full read in progress */
    int walk_bound;          /* the bound once that walk is done */
    uint64 *walk_lo, *walk_hi; /* the probe ranges it walks (NULL for a full read) */
    int max_level;           /* last probe level cheaper than a full read */
    int cap;                 /* probes keep rows within cap (see knn_expand) */
    int cap_max;             /* complete radius of max_level, where probes give way to full reads */
    bool redo;               /* walking the levels done again, for rows in (redo_from, cap] */
    int redo_from;           /* the cap of the first pass */
    int resume_level, resume_part; /* the probe where the redo began, and where the scan goes on after it */
    int cur_d;               /* distance being returned */
    int limit_d;             /* no row beyond this distance can match the keys */
    ShxHitArray at[65];      /* pending rows by distance */
    int64 taken[65];         /* rows of at[d] returned */
} ShxKnnSearch;

/* An index-only scan with an MVCC snapshot checks rows in the heap: see shx_needs_heap_check. */
typedef struct ShxScanHeapCheck {
    bool on;                 /* the scan checks */
    Relation heap;           /* the table */
    Buffer vmbuf;            /* pinned visibility map page */
    IndexFetchTableData *fetch; /* visible_in_heap(): made on first use, kept until endscan */
    TupleTableSlot *slot;    /* its slot */
} ShxScanHeapCheck;

/* No search key: the rows with a NULL fingerprint come after the indexed ones (shx_nulls.cpp). */
typedef struct ShxScanNulls {
    bool read;               /* tids holds them */
    ItemPointerData *tids;   /* their tids */
    int64 n, next;           /* how many, and the next to return */
} ShxScanNulls;

typedef struct ShxScanOpaque {
    ShxState st;             /* the index's state when the scan began */
    MemoryContext cxt;       /* reset at rescan */
    ShxNearEntry *near;      /* one page's entries that pass a walk's filter */
    bool started;            /* the first gettuple or getbitmap has run */
    ShxScanQuery query;      /* what it looks for */
    ShxScanHits hits;        /* radius search: found rows */
    ShxRadiusSearch radius;  /* radius search */
    ShxKnnSearch knn;        /* KNN search */
    ShxRangeWalk walk;       /* the leaf walk of either */
    ShxScanHeapCheck heap_check; /* index-only scans */
    ShxScanNulls nulls;      /* rows with a NULL fingerprint */
    IndexTuple last_itup;    /* the tuple handed to an index-only scan */
} ShxScanOpaque;

/* Does fp satisfy every scan key?  Sets *dist to the distance used for ordering. */
static inline bool shx_scan_matches(const ShxScanQuery *q, uint64 fp, int *dist) {
    int d0 = 0;
    if (q->nkeys > 0) {
        d0 = simhash::hamming_distance(fp, q->kq[0]);
        if (d0 > q->kr[0]) return false;
        for (int i = 1; i < q->nkeys; i++)
            if (simhash::hamming_distance(fp, q->kq[i]) > q->kr[i]) return false;
    }
    if (q->has_order && !q->order_null) *dist = simhash::hamming_distance(fp, q->order_q);
    else *dist = d0;
    return true;
}

/*
 * Index-only scans.  Matches are returned after their leaf page is let go,
 * so VACUUM may meanwhile remove a dead row's entries and heap tuple and
 * mark its heap page all-visible; the executor, seeing the page all-visible,
 * would then return the row without visiting the heap (it used to: a cursor
 * over an index-only scan returned rows deleted before it began).  nbtree
 * prevents this by holding a pin on the leaf while returning its rows, which
 * VACUUM's cleanup lock waits for; a KNN scan returns rows from thousands of
 * pages in distance order and cannot hold them all.  Instead the visibility
 * map is read while the leaf is still locked: VACUUM cannot remove the entry
 * before the lock is released, nor mark the row's page all-visible before it
 * has removed the entry, so a page all-visible now holds only rows every
 * snapshot sees, and the other rows are checked in the heap with the scan's
 * snapshot before they are returned.
 */
static inline bool shx_needs_heap_check(ShxScanHeapCheck *hc, ItemPointer tid) {
    return hc->on && !VM_ALL_VISIBLE(hc->heap, ItemPointerGetBlockNumber(tid), &hc->vmbuf);
}

/* Appends a match to a growing array (the radius hits, or a KNN distance's bucket). */
static inline void shx_scan_append_hit(ShxScanOpaque *so, ShxHitArray *arr, int64 first_cap, ItemPointer tid,
                                       uint64 fp, int dist) {
    if (arr->n == arr->cap) {
        arr->cap = arr->cap ? arr->cap * 2 : first_cap;
        MemoryContext old = MemoryContextSwitchTo(so->cxt);
        arr->rows = arr->rows ? (ShxHit *) repalloc_huge(arr->rows, sizeof(ShxHit) * arr->cap)
                              : (ShxHit *) palloc(sizeof(ShxHit) * arr->cap);
        MemoryContextSwitchTo(old);
    }
    ShxHit *h = &arr->rows[arr->n++];
    h->tid = *tid;
    h->fp = fp;
    h->dist = (uint8) dist;
    h->heap_check = shx_needs_heap_check(&so->heap_check, tid);
}

/* radius search (shx_radius.cpp) */
void shx_radius_begin(IndexScanDesc scan, ShxScanOpaque *so);
/* every match: into the bitmap, or into so->hits for a sort */
void shx_radius_collect(IndexScanDesc scan, ShxScanOpaque *so);
/* the next match, streaming or from those collected; NULL once there is none */
ShxHit *shx_radius_next(Relation index, ShxScanOpaque *so);

/* KNN search (shx_knn.cpp) */
/* plans an ordered scan's probe levels; whether the incremental KNN search serves its keys */
bool shx_knn_plan(IndexScanDesc scan, ShxScanOpaque *so);
void shx_knn_begin(IndexScanDesc scan, ShxScanOpaque *so);
/* the next row in distance order; NULL once there is none */
ShxHit *shx_knn_next(Relation index, ShxScanOpaque *so);

/* the order of found rows: by distance, then by the later ORDER BY keys, then by tid (shx_scan_order.cpp) */
void shx_sort_hits(const ShxScanQuery *q, ShxHit *hits, int64 n);

#endif
