/*
 * shx_scan.cpp: amgettuple / amgetbitmap for radius conditions (=, %,
 * %<= (q, r)) and exact KNN (ORDER BY fp <-> q).  See shx.h for the
 * algorithm.  Matches are verified exactly in the index (the key holds the
 * whole fingerprint), each row counted in the first partition whose probes
 * reach it.  An unordered index scan returns each leaf page's matches as it
 * reads the page; a bitmap scan adds them to the bitmap; KNN collects level
 * by level; a radius scan ordered by distance to another point collects
 * every match and sorts.
 */
#include "shx.h"

#include "hamming.hpp"
#include "mih_probe.hpp"

extern "C" {
#include "access/itup.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "access/visibilitymap.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/tidbitmap.h"
#include "pgstat.h"
#include "storage/predicate.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
}

namespace {

/*
 * A walk over the sorted, disjoint key ranges [lo[i], hi[i]] of one
 * partition, one leaf page per step.  A range starts at the directory's hint,
 * or at the page where the previous range ended when that page reaches this
 * range (every page left of it ends below the previous range, so it is the
 * first page with hi >= the new start).  Between steps it holds only a pin on
 * a directory page, so a scan can return rows while it walks.
 */
struct RangeWalk {
    int part;
    const uint64 *lo, *hi;
    int64 n, r;              /* ranges, and the one being read */
    BlockNumber blk;         /* next page; InvalidBlockNumber: start range r */
    BlockNumber from;        /* page whose right link led to blk */
    uint64 from_hi;
    bool have;               /* a page was read: last_blk, last_hi */
    BlockNumber last_blk;
    uint64 last_hi;
    Buffer dir;              /* pinned directory page */
    int steps;               /* pages moved right toward range r's start */
    int64 prefetched;        /* ranges whose first leaf was prefetched */
};

/* How many ranges ahead a walk prefetches the leaf each starts on (shx_prefetch_walk_start). */
#define SHX_WALK_PREFETCH_AHEAD 6

struct ShxScanOpaque {
    ShxState st;
    MemoryContext cxt;       /* reset at rescan */
    bool started;
    bool nomatch;            /* a NULL key argument: nothing matches */
    int nkeys;
    uint64 *kq;              /* per key: query */
    int *kr;                 /* per key: radius */
    bool has_order;
    bool order_null;
    uint64 order_q;
    /*
     * ORDER BY fp <-> q1, fp <-> q2, ...: the keys after the first, which
     * order the rows that tie on the ones before (see sort_ties).
     */
    int nthen;
    uint64 *then_q;
    bool *then_null;
    /* results */
    ShxHit *hits;
    int64 nhits;
    int64 maxhits;
    int64 next;
    /* KNN */
    bool knn;
    int bound;               /* every row within bound has been found */
    int level;               /* next per-block level to probe */
    int part;                /* next partition to probe at that level */
    bool full;               /* KNN switched to reading partition 0 whole */
    int full_lo, full_hi;    /* KNN full read: collect distances in (full_lo, full_hi] */
    int full_reach;          /* KNN: the first full read collects at least to here (uniform_radius_holding) */
    bool knn_walking;        /* KNN: so->walk is a probe or full read in progress */
    int walk_bound;          /* KNN: the bound once that walk is done */
    uint64 *walk_lo, *walk_hi; /* KNN: the probe ranges it walks (NULL for a full read) */
    int max_level;           /* KNN: last probe level cheaper than a full read */
    int cap;                 /* KNN: probes keep rows within cap (see knn_expand) */
    int cap_max;             /* KNN: complete radius of max_level, where probes give way to full reads */
    bool redo;               /* KNN: walking the levels done again, for rows in (redo_from, cap] */
    int redo_from;           /* KNN: the cap of the first pass */
    int resume_level, resume_part; /* KNN: the probe where the redo began, and where the scan goes on after it */
    int cur_d;               /* KNN: distance being returned */
    int limit_d;             /* KNN: no row beyond this distance can match the keys */
    ShxHit *bucket[65];      /* KNN: pending rows by distance */
    int64 bn[65], bcap[65], bpos[65];
    IndexTuple last_itup;
    /* the page filter: entries within filter_r of filter_q (radius search) */
    uint64 filter_q;
    int filter_r;
    int probe_r;             /* radius search by probes of radius_probe_level(probe_r, ...); -1: a whole-partition read */
    TIDBitmap *tbm;          /* amgetbitmap: matches go straight into it */
    int64 ntids;
    /* radius search as a stream (radius_begin / radius_step) */
    bool stream;             /* amgettuple without order: return each page's matches as it is read */
    int stream_part, stream_nparts;
    bool walk_active;
    RangeWalk walk;
    ShxNearEntry *near;      /* one page's entries that pass it */
    /* index-only scan with an MVCC snapshot: see needs_heap_check() */
    bool check_visibility;
    Relation heap;
    Snapshot snapshot;       /* the scan's: predicate locks on the leaves read (SERIALIZABLE) */
    Buffer vmbuf;            /* pinned visibility map page */
    IndexFetchTableData *heap_fetch; /* visible_in_heap(): made on first use, kept until endscan */
    TupleTableSlot *heap_slot;
    /* no search key (nkeys == 0): the rows with a NULL fingerprint come last (shx_nulls.cpp) */
    bool nulls_read;
    ItemPointerData *null_tids;
    int64 n_null, next_null;
};

/* The order of rows tied on the first ORDER BY key: by the later keys' distances (a NULL query: all equal). */
int cmp_then(const ShxScanOpaque *so, const ShxHit *x, const ShxHit *y) {
    for (int k = 0; k < so->nthen; k++) {
        if (so->then_null[k]) continue;
        int dx = simhash::hamming_distance(x->fp, so->then_q[k]), dy = simhash::hamming_distance(y->fp, so->then_q[k]);
        if (dx != dy) return dx < dy ? -1 : 1;
    }
    return 0;
}

int cmp_hit_dist(const void *a, const void *b, void *arg) {
    const ShxHit *x = (const ShxHit *) a, *y = (const ShxHit *) b;
    const ShxScanOpaque *so = (const ShxScanOpaque *) arg;
    /* a NULL first query gives every row the distance NULL: only the later keys order them */
    if (!so->order_null && x->dist != y->dist) return x->dist < y->dist ? -1 : 1;
    if (int c = cmp_then(so, x, y)) return c;
    return ItemPointerCompare((ItemPointer) &x->tid, (ItemPointer) &y->tid);
}

/*
 * Rows at one distance from the first ORDER BY query, all of them found,
 * put in the order of the later keys.  The planner hands an index every
 * ordering operator of ORDER BY fp <-> q1, fp <-> q2 and trusts the order
 * of all of them (the rows came back ordered by the first
 * alone, so a LIMIT returned the wrong ones).
 */
void sort_ties(ShxScanOpaque *so, ShxHit *hits, int64 n) {
    if (n <= 1) return;
    qsort_interruptible(hits, n, sizeof(ShxHit), cmp_hit_dist, so);
}
int cmp_u64(const void *a, const void *b) {
    uint64 x = *(const uint64 *) a, y = *(const uint64 *) b;
    return x < y ? -1 : (x > y ? 1 : 0);
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
inline bool needs_heap_check(ShxScanOpaque *so, ItemPointer tid) {
    return so->check_visibility && !VM_ALL_VISIBLE(so->heap, ItemPointerGetBlockNumber(tid), &so->vmbuf);
}

/* Appends a match to a growing array (the radius hits, or a KNN distance's bucket). */
void append_hit(ShxScanOpaque *so, ShxHit **arr, int64 *n, int64 *cap, int64 first_cap, ItemPointer tid, uint64 fp,
                int dist) {
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : first_cap;
        MemoryContext old = MemoryContextSwitchTo(so->cxt);
        *arr = *arr ? (ShxHit *) repalloc_huge(*arr, sizeof(ShxHit) * *cap) : (ShxHit *) palloc(sizeof(ShxHit) * *cap);
        MemoryContextSwitchTo(old);
    }
    ShxHit *h = &(*arr)[(*n)++];
    h->tid = *tid;
    h->fp = fp;
    h->dist = (uint8) dist;
    h->heap_check = needs_heap_check(so, tid);
}

void add_hit(ShxScanOpaque *so, ItemPointer tid, uint64 fp, int dist) {
    append_hit(so, &so->hits, &so->nhits, &so->maxhits, 256, tid, fp, dist);
}

/* Does fp satisfy every scan key?  Sets *dist to the distance used for ordering. */
inline bool matches(const ShxScanOpaque *so, uint64 fp, int *dist) {
    int d0 = 0;
    if (so->nkeys > 0) {
        d0 = simhash::hamming_distance(fp, so->kq[0]);
        if (d0 > so->kr[0]) return false;
        for (int i = 1; i < so->nkeys; i++)
            if (simhash::hamming_distance(fp, so->kq[i]) > so->kr[i]) return false;
    }
    if (so->has_order && !so->order_null) *dist = simhash::hamming_distance(fp, so->order_q);
    else *dist = d0;
    return true;
}

void knn_add(ShxScanOpaque *so, ItemPointer tid, uint64 fp, int dist) {
    append_hit(so, &so->bucket[dist], &so->bn[dist], &so->bcap[dist], 64, tid, fp, dist);
}

/* KNN: did a probe before the current one (so->level, so->part) reach fp? */
inline bool reached_by_earlier_probe(const ShxScanOpaque *so, uint64 fp) {
    simhash::ProbeStep first = simhash::first_probe_step(fp ^ so->order_q, so->st.mask, so->st.nparts);
    return simhash::probe_step_before(first, so->level, so->part);
}

/*
 * Checks the entries of a leaf page with keys in [lo, hi], adding matches.
 * The page filter passes the entries near the query: within the radius of
 * the most selective key, or for KNN within the distance the scan is
 * collecting.  KNN tells rows it has already collected from new ones by
 * where the probes first reach them (simhash::first_probe_step): a row turns
 * up once in every partition, and only its first probe counts.
 */
SHX_POPCNT_CLONES
void scan_page(Relation index, ShxScanOpaque *so, Page page, BlockNumber blkno, int part, uint64 lo, uint64 hi) {
    int rot = so->st.rot[part];
    uint64 q = so->knn ? so->order_q : so->filter_q;
    int cap = so->knn ? (so->full ? so->full_hi : so->cap) : so->filter_r;
    int n = shx_leaf_near_entries(page, lo, hi, simhash::rotl64(q, rot), cap, so->near);
    if (n < 0) shx_report_bad_packed_region(index, blkno);
    for (int i = 0; i < n; i++) {
        uint64 fp = simhash::rotr64(so->near[i].key, rot);
        int dist;
        if (!matches(so, fp, &dist)) continue;
        ItemPointer tid = &so->near[i].tid;
        if (!so->knn) {
            /* a row is reached in every partition where its block is close enough; take it in the first */
            if (so->probe_r >= 0 &&
                simhash::reached_in_earlier_partition(fp ^ so->filter_q, so->st.mask, part, so->probe_r, so->st.nparts))
                continue;
            if (so->tbm != NULL) {
                tbm_add_tuples(so->tbm, tid, 1, false);
                so->ntids++;
            } else {
                add_hit(so, tid, fp, dist);
            }
            continue;
        }
        if (so->full) {
            /*
             * Partition 0 holds each row once.  A read collects the distances
             * in a window (full_lo, bound]; the first read also takes the rows
             * at the current distance that the probes did not collect (those
             * within cap that an earlier probe reached).
             */
            if (dist > so->full_hi || dist < so->cur_d || (dist <= so->full_lo && dist != so->cur_d)) continue;
            if (dist <= so->full_lo && dist <= so->cap && reached_by_earlier_probe(so, fp)) continue;
        } else if (reached_by_earlier_probe(so, fp)) {
            continue; /* collected when an earlier probe reached it */
        } else if (so->redo && dist <= so->redo_from) {
            continue; /* the first pass collected it, and it has been returned (the redo starts past its cap) */
        }
        knn_add(so, tid, fp, dist);
    }
}

void walk_begin(RangeWalk *w, int part, const uint64 *lo, const uint64 *hi, int64 n) {
    *w = RangeWalk{part, lo, hi, n, /* r */ 0, /* blk */ InvalidBlockNumber, /* from */ InvalidBlockNumber,
                   /* from_hi */ 0, /* have */ false, /* last_blk */ InvalidBlockNumber, /* last_hi */ 0,
                   /* dir */ InvalidBuffer, /* steps */ 0, /* prefetched */ 0};
}

void walk_end(RangeWalk *w) {
    if (BufferIsValid(w->dir)) ReleaseBuffer(w->dir);
    w->dir = InvalidBuffer;
    w->r = w->n;
}

/* Scans the next leaf page of the walk (scan_page); false once the walk is done. */
bool walk_step(Relation index, ShxScanOpaque *so, RangeWalk *w) {
    while (w->r < w->n) {
        uint64 a = w->lo[w->r], b = w->hi[w->r];
        if (w->blk == InvalidBlockNumber) {
            /* the leaves a few ranges on, so that their first lines arrive while this one is read */
            const ShxState *st = shx_get_state(index);
            for (int64 ahead = Min(w->n, w->r + SHX_WALK_PREFETCH_AHEAD); w->prefetched < ahead; w->prefetched++)
                if (w->prefetched > w->r) shx_prefetch_walk_start(index, st, w->part, w->lo[w->prefetched]);
            w->blk = (w->have && w->last_hi >= a) ? w->last_blk : shx_dir_lookup(index, &so->st, w->part, a, &w->dir);
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
            PredicateLockPage(index, w->blk, so->snapshot);
            for (;;) {
                scan_page(index, so, page, w->blk, w->part, a, b);
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
    walk_end(w);
    return false;
}

double leaf_pages_per_part(Relation index, const ShxState *st) {
    BlockNumber n = RelationGetNumberOfBlocks(index);
    double dir = (double) st->nparts * ((SHX_DIR_SLOTS + st->dir_slots_per_page - 1) / st->dir_slots_per_page);
    return Max(1.0, ((double) n - 1 - dir) / st->nparts);
}

/*
 * The key ranges of partition p holding the block values at distance
 * dmin..dmax from q's block, sorted, in *lo and *hi (allocated in the current
 * memory context); returns how many.
 */
int64 probe_ranges(const ShxScanOpaque *so, uint64 q, int p, int dmin, int dmax, uint64 **lo, uint64 **hi) {
    int w = so->st.width[p];
    uint64 total = 0;
    for (int d = dmin; d <= dmax && d <= w; d++) total += simhash::binomial_saturated(w, d);
    *lo = *hi = NULL;
    if (total == 0) return 0;
    uint64 *vals = (uint64 *) MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * total);
    uint64 n = 0;
    uint64 qkey = simhash::rotl64(q, so->st.rot[p]);
    uint64 qblock = w >= 64 ? qkey : qkey >> (64 - w);
    for (int d = dmin; d <= dmax && d <= w; d++) n += simhash::values_at_distance(qblock, w, d, vals + n, total - n);
    qsort(vals, n, sizeof(uint64), cmp_u64);
    *lo = (uint64 *) MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * n);
    *hi = (uint64 *) MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * n);
    for (uint64 i = 0; i < n; i++) simhash::block_key_range(vals[i], w, &(*lo)[i], &(*hi)[i]);
    pfree(vals);
    return (int64) n;
}

const uint64 kWholeLo = 0, kWholeHi = PG_UINT64_MAX;

/*
 * Asks for the first lines of the leaf holding q's own block value in each
 * of the first nparts partitions.  A radius-3 search at blocks = 4 probes
 * exactly those, one partition after another, and each probe's first touch
 * of its leaf waited for memory (the index's largest share of such a query
 * in perf); asked for together, the waits overlap.  KNN starts with the same
 * probes (level 0).
 */
void prefetch_own_blocks(Relation index, const ShxScanOpaque *so, uint64 q, int nparts) {
    const ShxState *st = shx_get_state(index);
    for (int p = 0; p < nparts; p++) shx_prefetch_walk_start(index, st, p, simhash::rotl64(q, so->st.rot[p]));
}

/*
 * Radius search, as a stream: the probes of each partition in turn (or
 * partition 0 read whole when they would cost more), one leaf page per
 * step, each page's matches in so->hits.
 */
void radius_begin(Relation index, ShxScanOpaque *so) {
    so->filter_q = 0;
    so->filter_r = 64;
    so->probe_r = -1;
    so->stream_part = 0;
    so->stream_nparts = 1; /* partition 0 whole */
    so->walk_active = false;
    if (so->nkeys == 0) return;
    int best = 0;
    for (int i = 1; i < so->nkeys; i++)
        if (so->kr[i] < so->kr[best]) best = i;
    so->filter_q = so->kq[best];
    so->filter_r = so->kr[best];
    /*
     * The refined pigeonhole: fp = q and radius 0 probe one partition,
     * radius r < blocks r + 1 of them, each at its block value alone (every
     * partition used to be probed, at floor(r / blocks) bits).
     */
    int r = so->kr[best], probed;
    double pages = leaf_pages_per_part(index, &so->st);
    double cost = simhash::radius_probe_cost(r, so->st.nparts, so->st.width, pages, &probed);
    if (cost <= pages) {
        so->probe_r = r;
        so->stream_nparts = probed;
        prefetch_own_blocks(index, so, so->filter_q, probed);
    }
}

/* Reads the next leaf page of the radius search; false when it is done. */
bool radius_step(Relation index, ShxScanOpaque *so) {
    for (;;) {
        if (so->walk_active) {
            if (walk_step(index, so, &so->walk)) return true;
            so->walk_active = false;
        }
        if (so->stream_part >= so->stream_nparts) return false;
        int p = so->stream_part++;
        if (so->probe_r < 0) {
            walk_begin(&so->walk, 0, &kWholeLo, &kWholeHi, 1);
        } else {
            uint64 *lo, *hi;
            MemoryContext old = MemoryContextSwitchTo(so->cxt);
            int64 n;
            if (so->filter_r == 0) {
                /* only the key itself can match: no need to read the rest of its block value's range */
                lo = (uint64 *) palloc(sizeof(uint64));
                hi = (uint64 *) palloc(sizeof(uint64));
                *lo = *hi = simhash::rotl64(so->filter_q, so->st.rot[p]);
                n = 1;
            } else {
                n = probe_ranges(so, so->filter_q, p, 0, simhash::radius_probe_level(so->probe_r, so->st.nparts, p),
                                 &lo, &hi);
            }
            MemoryContextSwitchTo(old);
            walk_begin(&so->walk, p, lo, hi, n);
        }
        so->walk_active = true;
    }
}

/* Collects every row matching the scan keys (bitmap scans; ordered scans that sort). */
void radius_search(Relation index, ShxScanOpaque *so) {
    radius_begin(index, so);
    while (radius_step(index, so)) {
    }
}

/*
 * KNN: starts the walk of the next level in the next partition, or of
 * partition 0 whole once a level costs more than that.  Going one partition
 * at a time lets the scan stop part way through a level: the k nearest of a
 * query with no near-duplicate lie 13-15 bits away at 10M rows, which the
 * first partitions of level 3 already prove
 * (complete_radius_after_partial_level).  The walk then goes one leaf page
 * per knn_step, so rows can be returned while it is under way (next_hit).
 */
/* KNN: the bound a walk of level t in partition p proves (a level t >= the block's width sees every row). */
int probe_walk_bound(const ShxScanOpaque *so, int t, int p) {
    return t >= so->st.width[p] ? 64 : simhash::complete_radius_after_partial_level(so->st.nparts, t, p + 1);
}

void knn_expand(Relation index, ShxScanOpaque *so) {
    so->walk_lo = so->walk_hi = NULL;
    /*
     * Probes keep the rows within cap they reach first, so the bound may not
     * pass cap.  The first pass keeps rows within the complete radius that
     * holds simhash.knn_first_pass_rows (100) rows of uniform data (simhash::
     * knn_first_pass_level; 15 bits at 10M rows, where the 10 nearest of any
     * query lie), not the last probe level's (19 bits): a scan for the k
     * nearest then does not collect, one by one, the thousands of rows 16
     * to 19 bits away (a sixth of such a query's time).  A scan that needs
     * more walks the levels done again, keeping only the rows between the
     * old cap and the complete radius of the level it goes on to, before it
     * goes on: the redo costs what those levels cost, a third of the next
     * level's cost or less.
     */
    if (!so->full && !so->redo && so->level <= so->max_level && so->cap < so->cap_max) {
        int t = so->level;
        if (probe_walk_bound(so, t, so->part) > so->cap) {
            so->redo = true;
            so->redo_from = so->cap;
            so->cap = Min(so->cap_max, simhash::complete_radius_after_level(so->st.nparts, t));
            so->resume_level = so->level;
            so->resume_part = so->part;
            so->level = 0;
            so->part = 0;
        }
    }
    int t = so->level;
    if (so->full || t > so->max_level) {
        /*
         * Read partition 0 whole, keeping only a window of distances so memory
         * stays proportional to what is returned; a further window needs a
         * further read, but k nearest rows rarely need more than one.  The
         * first window reaches at least the radius that holds the first
         * pass's rows of uniform data: in a small index the probes stop at a
         * small radius (7 bits at 100k rows), and 8 bits more held none of a
         * random point's 10 nearest, so a second read took half the table.
         */
        if (!so->full) {
            for (int d = so->cur_d + 1; d <= 64; d++) so->bn[d] = so->bpos[d] = 0;
            so->full_lo = Max(so->bound, so->cur_d);
            so->full_hi = Min(64, Max(so->full_lo + 8, so->full_reach));
            so->full = true;
        } else {
            so->full_lo = so->bound;
            so->full_hi = Min(64, so->bound + 16);
        }
        so->walk_bound = so->full_hi;
        walk_begin(&so->walk, 0, &kWholeLo, &kWholeHi, 1);
    } else {
        int p = so->part;
        so->walk_bound = so->redo ? so->bound /* proven in the first pass */ : probe_walk_bound(so, t, p);
        int64 n = probe_ranges(so, so->order_q, p, t, t, &so->walk_lo, &so->walk_hi);
        walk_begin(&so->walk, p, so->walk_lo, so->walk_hi, n);
    }
    so->knn_walking = true;
}

/* KNN: reads the next leaf page of the walk knn_expand began; at its end, the bound it proves holds. */
void knn_step(Relation index, ShxScanOpaque *so) {
    if (walk_step(index, so, &so->walk)) return;
    so->knn_walking = false;
    if (so->walk_lo != NULL) {
        pfree(so->walk_lo);
        pfree(so->walk_hi);
        so->walk_lo = so->walk_hi = NULL;
    }
    so->bound = Max(so->bound, so->walk_bound);
    if (!so->full && ++so->part == so->st.nparts) {
        so->part = 0;
        so->level++;
    }
    if (so->redo && so->level == so->resume_level && so->part == so->resume_part) so->redo = false;
}

/* Hands one row to the executor: its tid, distance (ORDER BY) and fingerprint (index-only scans). */
bool return_row(IndexScanDesc scan, ShxScanOpaque *so, ItemPointerData tid, bool recheck, int dist, bool dist_null,
                uint64 fp, bool fp_null) {
    scan->xs_heaptid = tid;
    scan->xs_recheck = recheck;
    if (scan->numberOfOrderBys > 0) {
        scan->xs_orderbyvals[0] = Int32GetDatum(dist);
        scan->xs_orderbynulls[0] = dist_null;
        for (int k = 0; k < so->nthen; k++) {
            bool null = fp_null || so->then_null[k];
            scan->xs_orderbyvals[k + 1] = Int32GetDatum(null ? 0 : simhash::hamming_distance(fp, so->then_q[k]));
            scan->xs_orderbynulls[k + 1] = null;
        }
        scan->xs_recheckorderby = false;
    }
    if (scan->xs_want_itup) {
        Datum v = SimhashGetDatum(fp);
        if (so->last_itup) pfree(so->last_itup);
        MemoryContext old = MemoryContextSwitchTo(so->cxt);
        so->last_itup = index_form_tuple(RelationGetDescr(scan->indexRelation), &v, &fp_null);
        MemoryContextSwitchTo(old);
        scan->xs_itup = so->last_itup;
        scan->xs_itupdesc = RelationGetDescr(scan->indexRelation);
    }
    return true;
}

void read_null_rows(IndexScanDesc scan, ShxScanOpaque *so) {
    if (so->nulls_read) return;
    so->nulls_read = true;
    so->n_null = shx_collect_null_rows(scan, so->cxt, &so->null_tids);
}

/* After the last indexed row of a scan with no search key: the NULL rows. */
bool next_null_row(IndexScanDesc scan, ShxScanOpaque *so) {
    if (so->nkeys > 0) return false; /* no condition matches NULL */
    read_null_rows(scan, so);
    if (so->next_null >= so->n_null) return false;
    /* NULL <-> q is NULL: last in ascending order */
    return return_row(scan, so, so->null_tids[so->next_null++], false, 0, true, 0, true);
}

/*
 * Whether the ORDER BY keys order anything.  A NULL query makes every
 * distance NULL, so "ORDER BY fp <-> NULL" (a generic plan's parameter, a
 * row of a LATERAL join without a fingerprint) ties every row: the scan
 * streams its matches as an unordered one does, instead of collecting the
 * whole index first to sort it (64 MB and a second at 3M rows
 * for LIMIT 3).
 */
bool order_matters(const ShxScanOpaque *so) {
    if (!so->order_null) return true;
    for (int k = 0; k < so->nthen; k++)
        if (!so->then_null[k]) return true;
    return false;
}

void start_scan(IndexScanDesc scan) {
    ShxScanOpaque *so = (ShxScanOpaque *) scan->opaque;
    so->started = true;
    /* pg_stat_user_indexes.idx_scan, as nbtree counts each scan it starts (it stayed 0) */
    pgstat_count_index_scan(scan->indexRelation);
    if (so->nomatch) return;
    so->heap = scan->heapRelation;
    so->snapshot = scan->xs_snapshot;
    so->check_visibility = scan->xs_want_itup && so->tbm == NULL && scan->xs_snapshot != NULL &&
                           IsMVCCSnapshot(scan->xs_snapshot) && so->heap != NULL;
    MemoryContext old = MemoryContextSwitchTo(so->cxt);
    bool ordered = so->has_order && !so->order_null;
    if (ordered) {
        /* probe levels while each costs less than reading a partition whole */
        double pages = leaf_pages_per_part(scan->indexRelation, &so->st);
        so->max_level = -1;
        for (int t = 0; t <= 64; t++) {
            double cost = 0;
            for (int p = 0; p < so->st.nparts; p++)
                cost += (double) simhash::binomial_saturated(so->st.width[p], t) *
                        simhash::probe_cost_pages(so->st.width[p], pages);
            if (cost == 0 || cost > pages) break;
            so->max_level = t;
        }
        so->cap_max = so->max_level >= 0 ? simhash::complete_radius_after_level(so->st.nparts, so->max_level) : -1;
        /* rows indexed: as of the last VACUUM, ANALYZE or build, else from the leaf pages (~650 entries each,
         * at 9 bytes and three quarters full) */
        double rows = scan->indexRelation->rd_rel->reltuples;
        if (rows < 0) rows = pages * (SHX_LEAF_SPACE / 9) * 0.75;
        int first = simhash::knn_first_pass_level(so->st.nparts, so->max_level, rows, shx_knn_first_pass_rows);
        so->cap = first >= 0 ? simhash::complete_radius_after_level(so->st.nparts, first) : so->cap_max;
        so->full_reach = simhash::uniform_radius_holding(rows, shx_knn_first_pass_rows);
        so->redo = false;
    }
    /*
     * A radius key around the ordering query itself ("WHERE fp % q ORDER BY
     * fp <-> q LIMIT k") caps the distances that can match, so the
     * incremental KNN search can stop once its bound reaches the radius,
     * often after level 0 when q has near-duplicates.  That pays while the
     * probe levels alone cover the radius (cap); beyond, and for keys around
     * other points, the scan collects every match in one pass and sorts.
     */
    so->limit_d = 64;
    if (ordered)
        for (int i = 0; i < so->nkeys; i++)
            if (so->kq[i] == so->order_q) so->limit_d = Min(so->limit_d, so->kr[i]);
    if (ordered && (so->nkeys == 0 || so->limit_d <= so->cap_max)) {
        so->knn = true;
        prefetch_own_blocks(scan->indexRelation, so, so->order_q, so->st.nparts);
        so->bound = -1;
        so->level = 0;
        so->part = 0;
        so->cur_d = 0;
        so->full = false;
        so->knn_walking = false;
    } else if ((so->has_order && order_matters(so)) || so->tbm != NULL) {
        /* every match first: to sort them by distance, or into the bitmap as they come */
        radius_search(scan->indexRelation, so);
        /* interruptible: a large radius over millions of rows sorts for a noticeable time */
        if (so->has_order && so->nhits > 1) {
            qsort_interruptible(so->hits, so->nhits, sizeof(ShxHit), cmp_hit_dist, so);
        }
    } else {
        /*
         * An unordered index scan reads leaf pages as rows are asked for, so
         * "LIMIT 1" or an EXISTS stops at the first match and memory holds
         * one page's matches.
         */
        so->stream = true;
        radius_begin(scan->indexRelation, so);
    }
    MemoryContextSwitchTo(old);
}

/*
 * Whether the scan's snapshot sees the row whose HOT chain starts at tid.
 * tid is a copy on purpose: the fetch moves it to the chain's visible member,
 * and the executor must be given the root, where its own heap visit starts.
 * One fetch descriptor and slot serve every check of the scan.
 */
bool visible_in_heap(IndexScanDesc scan, ShxScanOpaque *so, ItemPointerData tid) {
    if (so->heap_fetch == NULL) {
        MemoryContext old = MemoryContextSwitchTo(GetMemoryChunkContext(so));
        so->heap_fetch = table_index_fetch_begin(so->heap);
        so->heap_slot = table_slot_create(so->heap, NULL);
        MemoryContextSwitchTo(old);
    }
    bool call_again = false, all_dead = false;
    bool found = table_index_fetch_tuple(so->heap_fetch, &tid, scan->xs_snapshot, so->heap_slot, &call_again,
                                         &all_dead);
    ExecClearTuple(so->heap_slot);
    return found;
}

/* The next match to return, or NULL once there is none. */
ShxHit *next_hit(IndexScanDesc scan, ShxScanOpaque *so) {
    ShxHit *h = NULL;
    if (so->knn) {
        for (;;) {
            /*
             * Every row within bound has been found, so while a walk is under
             * way the rows it finds at bound + 1 are the nearest any row can
             * be: they are returned as they come (ties among them in any
             * order), so "LIMIT 1" next to a fingerprint stored a million
             * times reads one page, not the whole run.
             */
            int ready = so->knn_walking && so->nthen == 0 ? so->bound + 1 : so->bound;
            while (so->cur_d <= ready && so->cur_d <= so->limit_d) {
                int d = so->cur_d;
                if (so->bpos[d] < so->bn[d]) {
                    /* with later ORDER BY keys the rows at d are all found (ready): order them first */
                    if (so->bpos[d] == 0 && so->nthen > 0) sort_ties(so, so->bucket[d], so->bn[d]);
                    h = &so->bucket[d][so->bpos[d]++];
                    break;
                }
                if (d > so->bound) break; /* the walk may still find rows at d */
                /* no row at d can turn up any more */
                if (so->bucket[d] != NULL) pfree(so->bucket[d]);
                so->bucket[d] = NULL;
                so->bn[d] = so->bcap[d] = so->bpos[d] = 0;
                so->cur_d++;
            }
            if (h != NULL || so->cur_d > so->limit_d || (so->bound >= 64 && !so->knn_walking)) break;
            MemoryContext old = MemoryContextSwitchTo(so->cxt);
            if (so->knn_walking) knn_step(scan->indexRelation, so);
            else knn_expand(scan->indexRelation, so);
            MemoryContextSwitchTo(old);
        }
    } else {
        while (so->next >= so->nhits) {
            if (!so->stream) break;
            so->nhits = so->next = 0;
            if (!radius_step(scan->indexRelation, so)) {
                so->stream = false;
                break;
            }
        }
        if (so->next < so->nhits) h = &so->hits[so->next++];
    }
    return h;
}

}  // namespace

IndexScanDesc shx_beginscan(Relation r, int nkeys, int norderbys) {
    IndexScanDesc scan = RelationGetIndexScan(r, nkeys, norderbys);
    ShxScanOpaque *so = (ShxScanOpaque *) palloc0(sizeof(ShxScanOpaque));
    so->st = *shx_get_state(r);
    so->cxt = AllocSetContextCreate(CurrentMemoryContext, "simhash scan", ALLOCSET_DEFAULT_SIZES);
    so->near = (ShxNearEntry *) palloc(sizeof(ShxNearEntry) * SHX_MAX_LEAF_ENTRIES);
    scan->opaque = so;
    if (norderbys > 0) {
        scan->xs_orderbyvals = (Datum *) palloc0(sizeof(Datum) * norderbys);
        scan->xs_orderbynulls = (bool *) palloc(sizeof(bool) * norderbys);
        memset(scan->xs_orderbynulls, true, sizeof(bool) * norderbys);
    }
    return scan;
}

void shx_rescan(IndexScanDesc scan, ScanKey scankey, int nscankeys, ScanKey orderbys, int norderbys) {
    ShxScanOpaque *so = (ShxScanOpaque *) scan->opaque;
    if (scankey && scan->numberOfKeys > 0) memmove(scan->keyData, scankey, scan->numberOfKeys * sizeof(ScanKeyData));
    if (orderbys && scan->numberOfOrderBys > 0)
        memmove(scan->orderByData, orderbys, scan->numberOfOrderBys * sizeof(ScanKeyData));
    if (so->walk_active || so->knn_walking) walk_end(&so->walk); /* its directory pin */
    so->walk_active = false;
    so->knn_walking = false;
    so->stream = false;
    MemoryContextReset(so->cxt);
    so->hits = NULL;
    so->nhits = so->maxhits = so->next = 0;
    so->knn = false;
    so->full = false;
    memset(so->bucket, 0, sizeof(so->bucket));
    memset(so->bn, 0, sizeof(so->bn));
    memset(so->bcap, 0, sizeof(so->bcap));
    memset(so->bpos, 0, sizeof(so->bpos));
    so->started = false;
    so->nomatch = false;
    so->tbm = NULL;
    so->ntids = 0;
    so->last_itup = NULL;
    so->nkeys = scan->numberOfKeys;
    so->nulls_read = false;
    so->null_tids = NULL;
    so->n_null = so->next_null = 0;
    so->kq = (uint64 *) MemoryContextAlloc(so->cxt, sizeof(uint64) * Max(1, so->nkeys));
    so->kr = (int *) MemoryContextAlloc(so->cxt, sizeof(int) * Max(1, so->nkeys));
    for (int i = 0; i < so->nkeys; i++) {
        ScanKey sk = &scan->keyData[i];
        if (sk->sk_flags & SK_ISNULL) {
            so->nomatch = true;
            continue;
        }
        switch (sk->sk_strategy) {
            case SHX_STRATEGY_EQUAL:
                so->kq[i] = DatumGetSimhash(sk->sk_argument);
                so->kr[i] = 0;
                break;
            case SHX_STRATEGY_SIMILAR:
                so->kq[i] = DatumGetSimhash(sk->sk_argument);
                so->kr[i] = simhash_threshold;
                break;
            case SHX_STRATEGY_WITHIN: {
                HeapTupleHeader th = DatumGetHeapTupleHeader(sk->sk_argument);
                bool qnull, rnull;
                Datum q = GetAttributeByNum(th, 1, &qnull);
                Datum r = GetAttributeByNum(th, 2, &rnull);
                if (qnull || rnull) {
                    so->nomatch = true;
                    break;
                }
                int32 radius = DatumGetInt32(r);
                if (radius < 0 || radius > 64)
                    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                                    errmsg("simhash radius %d is out of range", radius),
                                    errhint("The radius must be between 0 and 64.")));
                so->kq[i] = DatumGetSimhash(q);
                so->kr[i] = radius;
                break;
            }
            default:
                elog(ERROR, "simhash index: unexpected strategy %d", sk->sk_strategy);
        }
    }
    so->has_order = scan->numberOfOrderBys > 0;
    so->order_null = false;
    if (so->has_order) {
        ScanKey ob = &scan->orderByData[0];
        if (ob->sk_flags & SK_ISNULL) so->order_null = true;
        else so->order_q = DatumGetSimhash(ob->sk_argument);
    }
    so->nthen = Max(scan->numberOfOrderBys - 1, 0);
    so->then_q = (uint64 *) MemoryContextAlloc(so->cxt, sizeof(uint64) * Max(1, so->nthen));
    so->then_null = (bool *) MemoryContextAlloc(so->cxt, sizeof(bool) * Max(1, so->nthen));
    for (int k = 0; k < so->nthen; k++) {
        ScanKey ob = &scan->orderByData[k + 1];
        so->then_null[k] = (ob->sk_flags & SK_ISNULL) != 0;
        so->then_q[k] = so->then_null[k] ? 0 : DatumGetSimhash(ob->sk_argument);
    }
}

bool shx_gettuple(IndexScanDesc scan, ScanDirection dir) {
    ShxScanOpaque *so = (ShxScanOpaque *) scan->opaque;
    /*
     * Matches are collected before they are returned, so by the time a tid
     * is returned VACUUM may have removed its row and the heap slot may hold
     * a new, unrelated row.  An MVCC snapshot cannot see that row.  Other
     * snapshots (the dirty snapshot with which an exclusion constraint looks
     * for conflicts) can, so for them the executor rechecks the condition on
     * the row it fetched; no row present before the scan began is missed,
     * since entries only ever move right, where the scan follows them.
     */
    bool mvcc = scan->xs_snapshot != NULL && IsMVCCSnapshot(scan->xs_snapshot);
    if (!mvcc && scan->numberOfOrderBys > 0)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("simhash index: ordered scans require an MVCC snapshot")));
    if (!so->started) start_scan(scan);
    for (;;) {
        ShxHit *h = next_hit(scan, so);
        if (h == NULL) return next_null_row(scan, so);
        if (h->heap_check && !visible_in_heap(scan, so, h->tid)) {
            CHECK_FOR_INTERRUPTS();
            continue; /* a row this snapshot does not see (see needs_heap_check) */
        }
        return return_row(scan, so, h->tid, !mvcc, h->dist, so->order_null, h->fp, false);
    }
}

int64 shx_getbitmap(IndexScanDesc scan, TIDBitmap *tbm) {
    ShxScanOpaque *so = (ShxScanOpaque *) scan->opaque;
    if (!so->started) {
        /* matches go into the bitmap as pages are read: memory stays within its work_mem */
        so->has_order = false;
        so->tbm = tbm;
        start_scan(scan);
        so->tbm = NULL;
        if (so->nkeys == 0) {
            read_null_rows(scan, so);
            /* tbm_add_tuples takes an int count: 2^31 NULL rows would wrap it */
            for (int64 done = 0; done < so->n_null; done += PG_INT32_MAX)
                tbm_add_tuples(tbm, so->null_tids + done, (int) Min(so->n_null - done, (int64) PG_INT32_MAX), false);
            so->ntids += so->n_null;
        }
    }
    return so->ntids;
}

void shx_endscan(IndexScanDesc scan) {
    ShxScanOpaque *so = (ShxScanOpaque *) scan->opaque;
    if (so->walk_active || so->knn_walking) walk_end(&so->walk);
    if (BufferIsValid(so->vmbuf)) ReleaseBuffer(so->vmbuf);
    if (so->heap_fetch != NULL) {
        table_index_fetch_end(so->heap_fetch);
        ExecDropSingleTupleTableSlot(so->heap_slot);
    }
    MemoryContextDelete(so->cxt);
    pfree(so->near);
    pfree(so);
    scan->opaque = NULL;
}
