/*
 * shx_pair_walk.cpp: every pair of rows within radius r, read off a simhash
 * index by walking each partition's chain once, with no probe per row.
 *
 * Partition p's entries are sorted by its key, block p in the top bits, so
 * the fingerprints of one block value b sit together (a run).  With
 * r = nparts * t + a, two fingerprints within r differ in at most
 * L_p = simhash::radius_probe_level(r, nparts, p) bits of block p in some
 * partition p (the radius search's pigeonhole, shx.h).  So the walk reads
 * each partition's runs in order and compares every pair inside a run, and,
 * when L_p >= 1, every pair between a run b and each non-empty run b' > b
 * within L_p bits of it, which it reads by a probe.  A pair is given out
 * only in the first partition whose test it passes (its own bits tell
 * which, simhash::reached_in_earlier_partition), so each unordered pair
 * comes out exactly once.  At the default radius 3 with 4 blocks every L_p
 * is 0: four sequential reads of the index, nothing else.
 *
 * Copies of one fingerprint are consecutive in a run (their keys are equal)
 * and form a group: groups are compared once per pair of groups, not once
 * per pair of rows, and copies pair with each other only in partition 0,
 * where every pair of copies is first found.  Under leaders_only
 * (simhash_clusters) a group is represented by its first visible copy
 * and the other copies are linked to it alone, so a fingerprint stored
 * 30,000 times costs 29,999 edges instead of 450 million pairs.
 *
 * MVCC: an index entry does not say whether its row exists for the
 * statement's snapshot, so each row of a pair within the radius is looked up
 * in the heap (table_index_fetch_tuple with the snapshot, which also
 * follows a HOT chain to the version the snapshot sees, whose tid is what
 * the user's ctid shows), once: a 2-bit state per heap line pointer
 * remembers the answer.  Only rows that have a neighbour are looked up, so
 * a table of unique rows costs no heap visit at all.
 *
 * Concurrency: each leaf page is copied under a share lock and released,
 * as simhash_index_check walks a chain.  A split after the copy moves only
 * entries already copied to a new page the walk does not visit (it follows
 * the right link it read); rows inserted meanwhile are invisible to the
 * snapshot anyway.
 *
 * Memory: one leaf's entries, the current run and one neighbouring run,
 * the non-empty block values of a partition when L_p >= 1, and the 2-bit
 * visibility map (73 bytes per heap page: 4 MB at 10M rows).  A run is as
 * long as the rows sharing one block value; a block value shared by many
 * different fingerprints costs comparisons quadratic in that run
 * (simhash_index_stats shows the largest run).
 *
 * Interrupts are checked between pages, runs and every few thousand
 * comparisons; a DEBUG1 line reports each partition as it is done.
 */
#include "shx_batch.h"

#include "hamming.hpp"
#include "mih_probe.hpp"

extern "C" {
#include "access/htup_details.h"
#include "access/table.h"
#include "funcapi.h"
#include "access/tableam.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
}

namespace {

/* comparisons between interrupt checks */
#define SHX_COMPARE_CHUNK 4096

enum VisState { VIS_UNKNOWN = 0, VIS_NO = 1, VIS_SAME = 2, VIS_MOVED = 3 };

/* The packed tid of the version of row tid the snapshot sees, or 0. */
uint64 fetch_visible(ShxPairWalk *w, uint64 tid) {
    uint64 slotno = 0;
    bool cached = false;
    BlockNumber blk = (BlockNumber) (tid >> 16);
    OffsetNumber off = (OffsetNumber) (tid & 0xffff);
    if (blk < w->vis_blocks && off >= 1 && off <= MaxHeapTuplesPerPage) {
        cached = true;
        slotno = (uint64) blk * MaxHeapTuplesPerPage + (off - 1);
        int s = (w->vis_bits[slotno >> 2] >> ((slotno & 3) * 2)) & 3;
        if (s == VIS_NO) return 0;
        if (s == VIS_SAME) return tid;
    }
    ItemPointerData t;
    shx_unpack_tid(tid, &t);
    bool call_again = false, all_dead = false;
    w->heap_fetches++;
    bool found = table_index_fetch_tuple(w->fetch, &t, w->snapshot, w->slot, &call_again, &all_dead);
    uint64 v = found ? shx_pack_tid(&w->slot->tts_tid) : 0;
    ExecClearTuple(w->slot);
    if (cached) {
        int s = v == 0 ? VIS_NO : v == tid ? VIS_SAME : VIS_MOVED;
        w->vis_bits[slotno >> 2] |= (uint8) (s << ((slotno & 3) * 2));
    }
    return v;
}

void run_reserve(ShxRun *r, int64 n) {
    if (n <= r->cap) return;
    int64 cap = Max(n, r->cap * 2);
    Size bytes = sizeof(simhash::KeyTid) * cap;
    r->e = (simhash::KeyTid *) (r->e ? repalloc_huge(r->e, bytes) : MemoryContextAllocHuge(CurrentMemoryContext, bytes));
    r->vis = (uint64 *) (r->vis ? repalloc_huge(r->vis, sizeof(uint64) * cap)
                                : MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * cap));
    r->cap = cap;
}

void run_add(ShxRun *r, uint64 key, uint64 tid) {
    run_reserve(r, r->n + 1);
    r->e[r->n].key = key;
    r->e[r->n].tid = tid;
    r->n++;
}

/* Are a[0..n) in key, tid order?  Usually (a leaf's packed region is); a linear check is cheaper than a sort. */
bool key_tids_sorted(const simhash::KeyTid *a, int64 n) {
    for (int64 i = 1; i < n; i++)
        if (a[i].key < a[i - 1].key || (a[i].key == a[i - 1].key && a[i].tid < a[i - 1].tid)) return false;
    return true;
}

/* Sorts a run's entries (a leaf's appended tail is unsorted) and finds its groups of one key. */
void run_finish(ShxRun *r) {
    if (!key_tids_sorted(r->e, r->n)) simhash::sort_key_tids(r->e, (uint64) r->n);
    r->ngroups = 0;
    for (int64 i = 0; i < r->n; i++) {
        r->vis[i] = SHX_VIS_UNKNOWN;
        if (i > 0 && r->e[i].key == r->e[i - 1].key) continue;
        if (r->ngroups + 2 > r->gcap) {
            int64 cap = Max(r->ngroups + 2, r->gcap * 2);
            r->gstart = (int64 *) (r->gstart ? repalloc_huge(r->gstart, sizeof(int64) * cap)
                                             : MemoryContextAllocHuge(CurrentMemoryContext, sizeof(int64) * cap));
            r->gkey = (uint64 *) (r->gkey ? repalloc_huge(r->gkey, sizeof(uint64) * cap)
                                          : MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * cap));
            r->gleader = (uint64 *) (r->gleader ? repalloc_huge(r->gleader, sizeof(uint64) * cap)
                                                : MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * cap));
            r->gcap = cap;
        }
        r->gstart[r->ngroups] = i;
        r->gkey[r->ngroups] = r->e[i].key;
        r->gleader[r->ngroups] = SHX_VIS_UNKNOWN;
        r->ngroups++;
    }
    if (r->gcap > 0) r->gstart[r->ngroups] = r->n;
}

uint64 entry_visible(ShxPairWalk *w, ShxRun *r, int64 i) {
    if (r->vis[i] == SHX_VIS_UNKNOWN) r->vis[i] = fetch_visible(w, r->e[i].tid);
    return r->vis[i];
}

/* Group g's smallest visible tid (its leader), 0 when no copy is visible. */
uint64 group_leader(ShxPairWalk *w, ShxRun *r, int64 g) {
    if (r->gleader[g] != SHX_VIS_UNKNOWN) return r->gleader[g];
    uint64 best = 0;
    for (int64 i = r->gstart[g]; i < r->gstart[g + 1]; i++) {
        uint64 v = entry_visible(w, r, i);
        if (v != 0 && (best == 0 || v < best)) best = v;
    }
    r->gleader[g] = best;
    return best;
}

void give(ShxPairWalk *w, uint64 a, uint64 b, int dist, bool copy_edge) {
    w->pairs++;
    if (a < b)
        w->sink(w->sink_arg, a, b, dist, copy_edge);
    else
        w->sink(w->sink_arg, b, a, dist, copy_edge);
}

/* Pairs among the copies of group g (partition 0 only: every pair of copies is first found there). */
void give_copies(ShxPairWalk *w, ShxRun *r, int64 g) {
    int64 s = r->gstart[g], e = r->gstart[g + 1];
    if (e - s < 2) return;
    if (w->leaders_only) {
        uint64 leader = group_leader(w, r, g);
        if (leader == 0) return;
        for (int64 i = s; i < e; i++) {
            uint64 v = entry_visible(w, r, i);
            if (v != 0 && v != leader) {
                w->pairs++;
                w->sink(w->sink_arg, leader, v, 0, true);
            }
        }
        return;
    }
    for (int64 i = s; i < e; i++) {
        uint64 a = entry_visible(w, r, i);
        CHECK_FOR_INTERRUPTS();
        if (a == 0) continue;
        for (int64 j = i + 1; j < e; j++) {
            uint64 b = entry_visible(w, r, j);
            if (b != 0) give(w, a, b, 0, false);
        }
    }
}

/* Pairs between group g of run r and group h of run q (distinct fingerprints at distance dist). */
void give_groups(ShxPairWalk *w, ShxRun *r, int64 g, ShxRun *q, int64 h, int dist) {
    if (w->leaders_only) {
        uint64 a = group_leader(w, r, g);
        if (a == 0) return;
        uint64 b = group_leader(w, q, h);
        if (b != 0) give(w, a, b, dist, false);
        return;
    }
    for (int64 i = r->gstart[g]; i < r->gstart[g + 1]; i++) {
        uint64 a = entry_visible(w, r, i);
        if (a == 0) continue;
        for (int64 j = q->gstart[h]; j < q->gstart[h + 1]; j++) {
            uint64 b = entry_visible(w, q, j);
            if (b != 0) give(w, a, b, dist, false);
        }
        CHECK_FOR_INTERRUPTS();
    }
}

/* Is a pair whose keys in partition p differ in kdiff first found in p? */
inline bool first_found_here(const ShxPairWalk *w, int p, uint64 kdiff) {
    uint64 diff = simhash::rotr64(kdiff, w->st.rot[p]);
    return !simhash::reached_in_earlier_partition(diff, w->st.mask, p, w->radius, w->st.nparts);
}

/*
 * Every pair of groups (g of r, h of q) within the radius and first found
 * in p; same: q is r, and only h > g.  The walk's hot loop: compiled for
 * POPCNT too (libgcc's software popcount took a sixth of a 1M-row walk).
 */
SHX_POPCNT_CLONES void compare_runs(ShxPairWalk *w, int p, ShxRun *r, ShxRun *q, bool same) {
    const int radius = w->radius;
    int64 since_check = 0;
    for (int64 g = 0; g < r->ngroups; g++) {
        uint64 kg = r->gkey[g];
        int64 h0 = same ? g + 1 : 0;
        const uint64 *qk = q->gkey;
        for (int64 h = h0; h < q->ngroups; h++) {
            uint64 kd = kg ^ qk[h];
            int d = __builtin_popcountll(kd);
            if (d <= radius && first_found_here(w, p, kd)) give_groups(w, r, g, q, h, d);
        }
        w->compared += q->ngroups - h0;
        since_check += q->ngroups - h0;
        if (since_check >= SHX_COMPARE_CHUNK) {
            CHECK_FOR_INTERRUPTS();
            since_check = 0;
        }
    }
}

/* A chain of leaves read left to right, page by page, each page's entries sorted. */
struct ChainCursor {
    int part;
    BlockNumber blk;   /* next page to read, InvalidBlockNumber at the end */
    BlockNumber from;  /* the page whose right link led to blk */
    uint64 from_hi;
    int n, pos;        /* entries of the page in w->page, and the next one */
};

void cursor_begin(ShxPairWalk *w, ChainCursor *c, int p) {
    c->part = p;
    c->blk = w->st.first_leaf[p];
    c->from = InvalidBlockNumber;
    c->from_hi = 0;
    c->n = c->pos = 0;
}

/* The next entry in key order; false at the end of the chain. */
bool cursor_next(ShxPairWalk *w, ChainCursor *c, simhash::KeyTid *out) {
    while (c->pos == c->n) {
        if (c->blk == InvalidBlockNumber) return false;
        CHECK_FOR_INTERRUPTS();
        /*
         * Not through a bulk-read ring: the walk reads the index once per
         * partition and again per call, and a ring kept every page out of
         * shared buffers (each read then copied it from the kernel).
         */
        Buffer buf = ReadBuffer(w->index, c->blk);
        LockBuffer(buf, BUFFER_LOCK_SHARE);
        Page page = BufferGetPage(buf);
        shx_check_page(w->index, page, c->blk, SHX_LEAF);
        if (c->from != InvalidBlockNumber) shx_check_right_step(w->index, page, c->from, c->from_hi, c->blk);
        int n = 0;
        shx_leaf_foreach(page, [&](uint64 key, ItemPointer tid) {
            if (n == SHX_MAX_LEAF_ENTRIES)
                ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
                                errmsg("index \"%s\" block %u holds more entries than a page can",
                                       RelationGetRelationName(w->index), c->blk)));
            w->page[n].key = key;
            w->page[n].tid = shx_pack_tid(tid);
            n++;
        });
        ShxPageOpaque *op = ShxPageGetOpaque(page);
        c->from = c->blk;
        c->from_hi = op->hi;
        c->blk = op->right;
        UnlockReleaseBuffer(buf);
        if (!key_tids_sorted(w->page, n)) simhash::sort_key_tids(w->page, (uint64) n);
        c->n = n;
        c->pos = 0;
        w->entries += n;
    }
    *out = w->page[c->pos++];
    return true;
}

inline uint64 block_of(uint64 key, int width) { return width >= 64 ? key : key >> (64 - width); }

/*
 * The next run of the chain into w->run; false at the end.  *pending holds
 * the entry read past the previous run (have_pending).
 */
bool next_run(ShxPairWalk *w, ChainCursor *c, int width, simhash::KeyTid *pending, bool *have_pending) {
    ShxRun *r = &w->run;
    r->n = 0;
    if (!*have_pending && !cursor_next(w, c, pending)) return false;
    uint64 b = block_of(pending->key, width);
    run_add(r, pending->key, pending->tid);
    *have_pending = false;
    simhash::KeyTid e;
    while (cursor_next(w, c, &e)) {
        if (block_of(e.key, width) != b) {
            *pending = e;
            *have_pending = true;
            break;
        }
        run_add(r, e.key, e.tid);
    }
    run_finish(r);
    return true;
}

/* Partition p's non-empty block values, sorted, distinct (for L_p >= 1). */
uint64 *nonempty_blocks(ShxPairWalk *w, int p, int64 *count) {
    int width = w->st.width[p];
    int64 n = 0, cap = 1024;
    uint64 *vals = (uint64 *) MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * cap);
    ChainCursor c;
    cursor_begin(w, &c, p);
    simhash::KeyTid e;
    /* pages come in key order and each page's entries sorted: the block values come sorted */
    while (cursor_next(w, &c, &e)) {
        uint64 b = block_of(e.key, width);
        if (n > 0 && vals[n - 1] == b) continue;
        if (n == cap) {
            cap *= 2;
            vals = (uint64 *) repalloc_huge(vals, sizeof(uint64) * cap);
        }
        vals[n++] = b;
    }
    *count = n;
    return vals;
}

/* Run b of partition p, read by a probe of its key range, into w->other. */
void read_run(ShxPairWalk *w, int p, uint64 b) {
    uint64 lo, hi;
    simhash::block_key_range(b, w->st.width[p], &lo, &hi);
    ShxRun *r = &w->other;
    r->n = 0;
    Buffer buf = shx_find_leaf(w->index, &w->st, p, lo, BUFFER_LOCK_SHARE);
    for (;;) {
        BlockNumber blk = BufferGetBlockNumber(buf);
        Page page = BufferGetPage(buf);
        shx_leaf_foreach_range(page, lo, hi, [&](uint64 key, ItemPointer tid) { run_add(r, key, shx_pack_tid(tid)); });
        ShxPageOpaque *op = ShxPageGetOpaque(page);
        bool clean = (op->flags & SHX_HI_CLEAN) != 0;
        BlockNumber right = op->right;
        uint64 phi = op->hi;
        UnlockReleaseBuffer(buf);
        /* keys up to hi may go on to the right, unless this page ends cleanly at hi */
        if (!((phi < hi || (phi == hi && !clean)) && right != InvalidBlockNumber)) break;
        CHECK_FOR_INTERRUPTS();
        buf = ReadBuffer(w->index, right);
        LockBuffer(buf, BUFFER_LOCK_SHARE);
        shx_check_page(w->index, BufferGetPage(buf), right, SHX_LEAF);
        shx_check_right_step(w->index, BufferGetPage(buf), blk, phi, right);
    }
    w->entries += r->n;
    run_finish(r);
}

int64 find_value(const uint64 *vals, int64 n, uint64 v) {
    int64 lo = 0, hi = n;
    while (lo < hi) {
        int64 mid = (lo + hi) / 2;
        if (vals[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && vals[lo] == v ? lo : -1;
}

/*
 * For a run of block value b (vals[at] == b) at level L >= 1: compares it
 * with every non-empty run b' > b within L bits.  Those are found by
 * enumerating the values near b when there are fewer of them than the
 * non-empty values after b, else by testing each of those.
 */
void compare_neighbours(ShxPairWalk *w, int p, int L, uint64 b, const uint64 *vals, int64 nvals, int64 at,
                        uint64 *near, uint64 nnear_cap) {
    int width = w->st.width[p];
    uint64 within = simhash::probes_within(width, L) - 1;
    if (within <= nnear_cap && (int64) within <= nvals - at - 1) {
        uint64 n = 0;
        for (int d = 1; d <= L && d <= width; d++) n += simhash::values_at_distance(b, width, d, near + n, nnear_cap - n);
        /* sorted, so the probes walk the partition left to right */
        uint64 m = 0;
        for (uint64 i = 0; i < n; i++)
            if (near[i] > b) near[m++] = near[i];
        /* insertion of a few hundred values: a simple sort is enough */
        for (uint64 i = 1; i < m; i++) {
            uint64 v = near[i];
            uint64 j = i;
            for (; j > 0 && near[j - 1] > v; j--) near[j] = near[j - 1];
            near[j] = v;
        }
        for (uint64 i = 0; i < m; i++) {
            if (find_value(vals + at + 1, nvals - at - 1, near[i]) < 0) continue;
            read_run(w, p, near[i]);
            compare_runs(w, p, &w->run, &w->other, false);
        }
    } else {
        for (int64 j = at + 1; j < nvals; j++) {
            if (__builtin_popcountll(b ^ vals[j]) > L) continue;
            read_run(w, p, vals[j]);
            compare_runs(w, p, &w->run, &w->other, false);
        }
    }
}

void walk_partition(ShxPairWalk *w, int p) {
    int L = simhash::radius_probe_level(w->radius, w->st.nparts, p);
    if (L < 0) return; /* no pair is first found here */
    int width = w->st.width[p];
    uint64 *vals = NULL, *near = NULL;
    int64 nvals = 0;
    uint64 nnear_cap = 0;
    if (L >= 1) {
        vals = nonempty_blocks(w, p, &nvals);
        uint64 within = simhash::probes_within(width, L);
        if (within <= (uint64) nvals + 1) {
            nnear_cap = within;
            near = (uint64 *) MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * nnear_cap);
        }
    }
    ChainCursor c;
    cursor_begin(w, &c, p);
    simhash::KeyTid pending;
    bool have_pending = false;
    int64 at = 0;
    while (next_run(w, &c, width, &pending, &have_pending)) {
        ShxRun *r = &w->run;
        if (p == 0)
            for (int64 g = 0; g < r->ngroups; g++) give_copies(w, r, g);
        compare_runs(w, p, r, r, true);
        if (L >= 1) {
            uint64 b = block_of(r->e[0].key, width);
            while (at < nvals && vals[at] < b) at++;
            /* a run the first pass did not see (inserted since) has no later neighbour it must find: skip */
            if (at < nvals && vals[at] == b) compare_neighbours(w, p, L, b, vals, nvals, at, near, nnear_cap);
        }
        CHECK_FOR_INTERRUPTS();
    }
    if (vals) pfree(vals);
    if (near) pfree(near);
    ereport(DEBUG1, (errmsg_internal("simhash pairs of \"%s\" at radius %d: partition %d of %d done, %lld entries read, "
                                     "%lld comparisons, %lld pairs, %lld heap visits so far",
                                     RelationGetRelationName(w->index), w->radius, p + 1, w->st.nparts,
                                     (long long) w->entries, (long long) w->compared, (long long) w->pairs,
                                     (long long) w->heap_fetches)));
}

}  // namespace

void shx_pair_walk_open(ShxPairWalk *w, Oid indexoid, bool radius_null, int32 radius, Oid caller) {
    memset(w, 0, sizeof(*w));
    if (radius_null) radius = simhash_threshold;
    if (radius < 0 || radius > 64)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("radius %d is out of range", radius),
                        errdetail("A radius is a number of differing bits, from 0 to 64.")));
    w->radius = radius;
    w->index = shx_open_index(indexoid, AccessShareLock, &w->heap, caller);
    shx_reject_invalid_index(w->index, "read pairs from");
    /*
     * The pairs say which rows are alike: the caller must be able to read
     * the table, and row security, which the index does not see, must not
     * apply (the walk would pass over its policies).
     */
    AclResult acl = pg_class_aclcheck(RelationGetRelid(w->heap), GetUserId(), ACL_SELECT);
    if (acl != ACLCHECK_OK) aclcheck_error(acl, OBJECT_TABLE, RelationGetRelationName(w->heap));
    if (check_enable_rls(RelationGetRelid(w->heap), InvalidOid, false) == RLS_ENABLED)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("table \"%s\" has row-level security enabled for this role",
                               RelationGetRelationName(w->heap)),
                        errdetail("Pairs are read off the index, which does not apply the table's policies."),
                        errhint("Use a self-join, which does.")));
    w->st = *shx_get_state(w->index);
    w->snapshot = GetActiveSnapshot();
    if (w->snapshot == NULL || !IsMVCCSnapshot(w->snapshot))
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("reading pairs requires an MVCC snapshot")));
    w->vis_blocks = RelationGetNumberOfBlocks(w->heap);
    Size nbytes = ((Size) w->vis_blocks * MaxHeapTuplesPerPage + 3) / 4;
    w->vis_bits = (uint8 *) MemoryContextAllocHuge(CurrentMemoryContext, Max(nbytes, 1));
    memset(w->vis_bits, 0, Max(nbytes, 1));
    w->fetch = compat_table_index_fetch_begin(w->heap);
    w->slot = table_slot_create(w->heap, NULL);
    w->page = (simhash::KeyTid *) palloc(sizeof(simhash::KeyTid) * SHX_MAX_LEAF_ENTRIES);
}

ReturnSetInfo *shx_pair_walk_begin_srf(FunctionCallInfo fcinfo, ShxPairWalk *w) {
    InitMaterializedSRF(fcinfo, 0);
    if (PG_ARGISNULL(0)) return NULL;
    shx_pair_walk_open(w, PG_GETARG_OID(0), PG_ARGISNULL(1), PG_ARGISNULL(1) ? 0 : PG_GETARG_INT32(1),
                       fcinfo->flinfo->fn_oid);
    return (ReturnSetInfo *) fcinfo->resultinfo;
}

void shx_pair_walk_run(ShxPairWalk *w) {
    for (int p = 0; p < w->st.nparts; p++) walk_partition(w, p);
}

void shx_pair_walk_close(ShxPairWalk *w) {
    table_index_fetch_end(w->fetch);
    ExecDropSingleTupleTableSlot(w->slot);
    ShxRun *runs[2] = {&w->run, &w->other};
    for (ShxRun *r : runs) {
        if (r->e) pfree(r->e);
        if (r->vis) pfree(r->vis);
        if (r->gstart) pfree(r->gstart);
        if (r->gkey) pfree(r->gkey);
        if (r->gleader) pfree(r->gleader);
    }
    pfree(w->page);
    pfree(w->vis_bits);
    index_close(w->index, AccessShareLock);
    table_close(w->heap, AccessShareLock);
}
