/*
 * shx_walk.cpp: the leaf walk of a scan.  A walk reads the leaf pages that
 * hold a partition's sorted key ranges, one page per step, and hands the
 * entries of each page within its filter to its caller (the radius or KNN
 * search), which decides what they are; and the key ranges a probe walks.
 */
#include "shx_scan.h"

#include "mih_probe.hpp"

extern "C" {
#include "miscadmin.h"
#include "storage/predicate.h"
}

/* How many ranges ahead a walk prefetches the leaf each starts on (shx_prefetch_walk_start). */
#define SHX_WALK_PREFETCH_AHEAD 6

const uint64 shx_whole_lo = 0, shx_whole_hi = PG_UINT64_MAX;

void shx_walk_init(ShxRangeWalk *w, const ShxState *st, Snapshot snapshot, ShxNearEntry *near, ShxWalkVisit visit,
                   void *visit_arg) {
    w->st = st;
    w->snapshot = snapshot;
    w->near = near;
    w->visit = visit;
    w->visit_arg = visit_arg;
}

void shx_walk_begin(ShxRangeWalk *w, int part, const uint64 *lo, const uint64 *hi, int64 n, uint64 filter_q,
                    int filter_cap) {
    *w = ShxRangeWalk{w->st, w->snapshot, w->near, w->visit, w->visit_arg, filter_q, filter_cap, part, lo, hi, n,
                      /* r */ 0, /* blk */ InvalidBlockNumber, /* from */ InvalidBlockNumber, /* from_hi */ 0,
                      /* have */ false, /* last_blk */ InvalidBlockNumber, /* last_hi */ 0, /* dir */ InvalidBuffer,
                      /* steps */ 0, /* prefetched */ 0};
}

void shx_walk_end(ShxRangeWalk *w) {
    if (BufferIsValid(w->dir)) ReleaseBuffer(w->dir);
    w->dir = InvalidBuffer;
    w->r = w->n;
}

/* Hands the entries of leaf page blkno with keys in [lo, hi] that pass the walk's filter to its caller. */
static inline void visit_page(Relation index, const ShxRangeWalk *w, Page page, BlockNumber blkno, uint64 lo,
                              uint64 hi) {
    uint64 qkey = simhash::rotl64(w->filter_q, w->st->rot[w->part]);
    int n = shx_leaf_near_entries(page, lo, hi, qkey, w->filter_cap, w->near);
    if (n < 0) shx_report_bad_packed_region(index, blkno);
    w->visit(w->visit_arg, w->part, w->near, n);
}

bool shx_walk_step(Relation index, ShxRangeWalk *w) {
    while (w->r < w->n) {
        uint64 a = w->lo[w->r], b = w->hi[w->r];
        if (w->blk == InvalidBlockNumber) {
            /* the leaves a few ranges on, so that their first lines arrive while this one is read */
            const ShxState *st = shx_get_state(index);
            for (int64 ahead = Min(w->n, w->r + SHX_WALK_PREFETCH_AHEAD); w->prefetched < ahead; w->prefetched++)
                if (w->prefetched > w->r) shx_prefetch_walk_start(index, st, w->part, w->lo[w->prefetched]);
            w->blk = (w->have && w->last_hi >= a) ? w->last_blk : shx_dir_lookup(index, w->st, w->part, a, &w->dir);
            w->from = InvalidBlockNumber;
            w->steps = 0;
        }
        for (;;) {
            Buffer buf = shx_read_page(index, w->blk);
            LockBuffer(buf, BUFFER_LOCK_SHARE);
            Page page = BufferGetPage(buf);
            shx_check_page(index, page, w->blk, SHX_LEAF);
            if (w->from != InvalidBlockNumber) shx_check_right_step(index, page, w->from, w->from_hi, w->blk);
            ShxPageOpaque *op = ShxPageGetOpaque(page);
            BlockNumber right = op->right;
            uint64 phi = op->hi;
            w->from = w->blk;
            w->from_hi = phi;
            if (w->steps > 0) shx_hint_passed(index, w->part, a, op, w->blk, w->steps);
            if (phi < a && right != InvalidBlockNumber) {
                w->steps++;
                w->blk = shx_next_leaf_past(op, w->blk);
                shx_hint_leaving(index, w->part, a, op, w->blk);
                UnlockReleaseBuffer(buf);
                CHECK_FOR_INTERRUPTS();
                continue;
            }
            /*
             * Every further range that starts on this page is read from it
             * now: neighbouring block values (a probe's low-bit flips) often
             * share a page, and reading it once per range cost a buffer
             * access each.
             */
            bool clean = (op->flags & SHX_HI_CLEAN) != 0;
            /*
             * Under SERIALIZABLE, a lock on each page read for a range, as
             * nbtree locks the leaves it reads: an insert of a key in the
             * range lands on one of them (the first page whose hi reaches
             * the key, or its right sibling for a key equal to a hi shared
             * with it, which the walk reads too) or on a page split from one,
             * which inherits the lock (split_leaf), and conflicts there.  A
             * lock on the whole index made every concurrent writer of the
             * table conflict with every reader.  Pages passed on
             * the way to a range hold none of its keys and take no lock.
             */
            PredicateLockPage(index, w->blk, w->snapshot);
            for (;;) {
                visit_page(index, w, page, w->blk, a, b);
                /* keys up to b may go on to the right, unless this page ends cleanly at b */
                if ((phi < b || (phi == b && !clean)) && right != InvalidBlockNumber) {
                    w->blk = right; /* range r goes on to the right */
                    break;
                }
                w->blk = InvalidBlockNumber;
                if (++w->r == w->n || w->lo[w->r] > phi) break;
                a = w->lo[w->r];
                b = w->hi[w->r];
            }
            UnlockReleaseBuffer(buf);
            w->have = true;
            w->last_hi = phi;
            w->last_blk = w->from;
            CHECK_FOR_INTERRUPTS();
            return true;
        }
    }
    shx_walk_end(w);
    return false;
}

double shx_leaf_pages_per_part(Relation index, const ShxState *st) {
    BlockNumber n = RelationGetNumberOfBlocks(index);
    double dir = (double) st->nparts * ((SHX_DIR_SLOTS + st->dir_slots_per_page - 1) / st->dir_slots_per_page);
    return Max(1.0, ((double) n - 1 - dir) / st->nparts);
}

static int cmp_u64(const void *a, const void *b) {
    uint64 x = *(const uint64 *) a, y = *(const uint64 *) b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

/*
 * The key ranges of partition p holding the block values at distance
 * dmin..dmax from q's block, sorted, in *lo and *hi (allocated in the current
 * memory context); returns how many.
 */
int64 shx_probe_ranges(const ShxState *st, uint64 q, int p, int dmin, int dmax, uint64 **lo, uint64 **hi) {
    int w = st->width[p];
    uint64 total = 0;
    for (int d = dmin; d <= dmax && d <= w; d++) total += simhash::binomial_saturated(w, d);
    *lo = *hi = NULL;
    if (total == 0) return 0;
    uint64 *vals = (uint64 *) MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * total);
    uint64 n = 0;
    uint64 qkey = simhash::rotl64(q, st->rot[p]);
    uint64 qblock = w >= 64 ? qkey : qkey >> (64 - w);
    for (int d = dmin; d <= dmax && d <= w; d++) n += simhash::values_at_distance(qblock, w, d, vals + n, total - n);
    qsort(vals, n, sizeof(uint64), cmp_u64);
    *lo = (uint64 *) MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * n);
    *hi = (uint64 *) MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * n);
    for (uint64 i = 0; i < n; i++) simhash::block_key_range(vals[i], w, &(*lo)[i], &(*hi)[i]);
    pfree(vals);
    return (int64) n;
}

/*
 * Asks for the first lines of the leaf holding q's own block value in each
 * of the first nparts partitions.  A radius-3 search at blocks = 4 probes
 * exactly those, one partition after another, and each probe's first touch
 * of its leaf waited for memory (the index's largest share of such a query
 * in perf); asked for together, the waits overlap.  KNN starts with the same
 * probes (level 0).
 */
void shx_prefetch_own_blocks(Relation index, const ShxState *st, uint64 q, int nparts) {
    const ShxState *cached = shx_get_state(index);
    for (int p = 0; p < nparts; p++) shx_prefetch_walk_start(index, cached, p, simhash::rotl64(q, st->rot[p]));
}
