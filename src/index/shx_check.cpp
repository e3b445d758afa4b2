/*
 * shx_check.cpp: simhash_index_check (an amcheck-style verifier) and
 * simhash_index_stats (per-partition occupancy, to show skew).
 *
 * The check takes ShareLock on the table and the index (as amcheck's
 * bt_index_parent_check does), so the index cannot change while it runs, and
 * verifies: the metapage; every partition's chain (flags, partition number,
 * leftmost lo = 0, each page's lo = its left neighbour's hi, lo <= hi,
 * rightmost hi = 2^64-1, no cycle, every key inside its page's range);
 * every directory slot names a leaf of its partition whose lo is below the
 * slot value (or the leftmost leaf).  With heapallindexed, every heap tuple
 * an MVCC snapshot sees is present in every partition (as amcheck requires
 * it), found by merging the heap's rows and
 * each partition's entries, both sorted by (fingerprint, tid) in tuplesorts
 * that keep to maintenance_work_mem.  (Partitions
 * may legitimately differ by entries of rows whose inserting transaction
 * aborted or crashed between partitions; those rows are dead.)  Problems are reported as ERROR
 * (ERRCODE_INDEX_CORRUPTED).
 *
 * Reading the heap evaluates the index's expressions and predicate, the
 * table owner's code: the check runs as the owner (shx_owner.cpp).
 */
#include "shx.h"

#include "mih_probe.hpp"

#include <algorithm>

extern "C" {
#include "access/htup_details.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/tuplestore.h"
}

extern "C" {
PG_FUNCTION_INFO_V1(simhash_index_check);
PG_FUNCTION_INFO_V1(simhash_index_stats);
}


namespace {

#define CORRUPT(...) \
    ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED), errmsg(__VA_ARGS__)))

struct ChainResult {
    uint64 n;
    uint64 npages;
    uint64 nempty; /* leaves holding no entry */
    uint64 ntail;  /* entries in the tails of grouped leaves: appended since the page was last written sorted */
};

/*
 * Takes each leaf's entries, (key, packed tid) in page order, as the walk
 * reads them; a partition's pages come in key order, so only the entries
 * of one page need sorting.  Passing them on page by page keeps the memory
 * of both functions independent of the index's size (they used to copy
 * every entry of a partition, or of all of them, into one array).
 */
struct PageSink {
    void (*take)(PageSink *self, simhash::KeyTid *items, int n);
};

/*
 * Walks partition p; with los and is_leaf (nblocks entries, indexed by block
 * number) records each leaf's lo.  Without them (simhash_index_stats, under
 * a lock that lets inserts run) the index may grow during the walk, so a
 * link past nblocks is first checked against the index's size now.
 */
ChainResult walk_chain(Relation index, const ShxState *st, int p, bool verify, BlockNumber nblocks, uint64 *los,
                       bool *is_leaf, PageSink *sink) {
    const char *name = RelationGetRelationName(index);
    ChainResult r;
    r.n = 0;
    r.npages = 0;
    r.nempty = 0;
    r.ntail = 0;
    simhash::KeyTid *items = (simhash::KeyTid *) palloc(sizeof(simhash::KeyTid) * SHX_MAX_LEAF_ENTRIES);
    BlockNumber blk = st->first_leaf[p];
    uint64 prev_hi = 0;
    bool prev_clean = false; /* the left neighbour ends cleanly: no key here may equal its hi */
    /* skips not yet reached: every page up to its target must share the hi of the page it starts on */
    struct OpenSkip {
        BlockNumber from, target;
        uint64 hi;
    };
    int nopen = 0, maxopen = 16;
    OpenSkip *open = (OpenSkip *) palloc(sizeof(OpenSkip) * maxopen);
    while (blk != InvalidBlockNumber) {
        CHECK_FOR_INTERRUPTS();
        if (blk >= nblocks && los == NULL) nblocks = RelationGetNumberOfBlocks(index);
        if (blk == 0 || blk >= nblocks) CORRUPT("index \"%s\" partition %d links to block %u outside the index", name, p, blk);
        if (++r.npages > nblocks) CORRUPT("index \"%s\" partition %d has a cycle", name, p);
        Buffer buf = ReadBuffer(index, blk);
        LockBuffer(buf, BUFFER_LOCK_SHARE);
        Page page = BufferGetPage(buf);
        shx_check_page(index, page, blk, SHX_LEAF);
        ShxPageOpaque *op = ShxPageGetOpaque(page);
        if (verify) {
            if (op->part != p) CORRUPT("index \"%s\" block %u belongs to partition %d, found in chain %d", name, blk, op->part, p);
            bool first = r.npages == 1;
            if (first && (op->lo != 0 || !(op->flags & SHX_LEFTMOST)))
                CORRUPT("index \"%s\" partition %d: leftmost leaf %u has lo %llx", name, p, blk, (unsigned long long) op->lo);
            if (!first && op->lo != prev_hi)
                CORRUPT("index \"%s\" block %u: lo %llx differs from the left neighbour's hi %llx", name, blk,
                        (unsigned long long) op->lo, (unsigned long long) prev_hi);
            if (op->lo > op->hi) CORRUPT("index \"%s\" block %u: lo > hi", name, blk);
            if (op->right == InvalidBlockNumber && op->hi != PG_UINT64_MAX)
                CORRUPT("index \"%s\" partition %d: rightmost leaf %u does not end at 2^64-1", name, p, blk);
            if (!shx_leaf_layout_ok(page))
                CORRUPT("index \"%s\" block %u: the packed region's group table is out of order, or it and the tail do not add up to pd_lower", name, blk);
            for (int i = 0; i < nopen; i++) {
                if (open[i].target == blk) {
                    if (op->lo != open[i].hi)
                        CORRUPT("index \"%s\" block %u: the skip from block %u lands here, but this page's lo %llx is not %llx",
                                name, blk, open[i].from, (unsigned long long) op->lo, (unsigned long long) open[i].hi);
                    open[i--] = open[--nopen];
                } else if (op->hi != open[i].hi) {
                    CORRUPT("index \"%s\" block %u: the skip from block %u passes it, but its hi %llx differs from %llx",
                            name, blk, open[i].from, (unsigned long long) op->hi, (unsigned long long) open[i].hi);
                }
            }
            if (op->skip != 0) {
                if (nopen == maxopen) {
                    maxopen *= 2;
                    open = (OpenSkip *) repalloc(open, sizeof(OpenSkip) * maxopen);
                }
                open[nopen++] = OpenSkip{blk, op->skip, op->hi};
            }
            if (los) {
                los[blk] = op->lo;
                is_leaf[blk] = true;
            }
        }
        int i = 0;
        shx_leaf_foreach(page, [&](uint64 key, ItemPointer tid) {
            if (verify && (key < op->lo || key > op->hi))
                CORRUPT("index \"%s\" block %u: entry %d key %llx outside [%llx, %llx]", name, blk, i,
                        (unsigned long long) key, (unsigned long long) op->lo, (unsigned long long) op->hi);
            if (verify && prev_clean && key == op->lo)
                CORRUPT("index \"%s\" block %u: entry %d key %llx equals the hi of a left neighbour that ends cleanly",
                        name, blk, i, (unsigned long long) key);
            if (verify && !ItemPointerIsValid(tid)) CORRUPT("index \"%s\" block %u: entry %d has an invalid tid", name, blk, i);
            if (i == SHX_MAX_LEAF_ENTRIES) CORRUPT("index \"%s\" block %u holds more entries than a page can", name, blk);
            items[i].key = key;
            items[i].tid = shx_pack_tid(tid);
            i++;
        });
        r.n += i;
        if (i == 0) r.nempty++;
        if (op->packed_len > 0) {
            ShxPacked pk;
            if (shx_packed_open(page, &pk)) r.ntail += (uint64) Max(i - (int) pk.nentries, 0);
        }
        prev_hi = op->hi;
        prev_clean = (op->flags & SHX_HI_CLEAN) != 0;
        blk = op->right;
        UnlockReleaseBuffer(buf);
        if (sink) sink->take(sink, items, i);
    }
    pfree(items);
    if (nopen > 0)
        CORRUPT("index \"%s\" block %u: its skip names block %u, which is not to its right in partition %d", name,
                open[0].from, open[0].target, p);
    pfree(open);
    return r;
}

/* the heap's rows as (fingerprint, tid), for heapallindexed */
void heap_row_callback(Relation, ItemPointer tid, Datum *values, bool *isnull, bool, void *state) {
    if (isnull[0]) return;
    shx_pair_sort_put((ShxPairSort *) state, DatumGetSimhash(values[0]), shx_pack_tid(tid));
}

/* a partition's entries as (fingerprint, tid), into a sort */
struct SortSink {
    PageSink base;
    ShxPairSort *sort;
    int rot;
};

void sort_sink_take(PageSink *self, simhash::KeyTid *items, int n) {
    SortSink *s = (SortSink *) self;
    for (int i = 0; i < n; i++) shx_pair_sort_put(s->sort, simhash::rotr64(items[i].key, s->rot), items[i].tid);
}

/*
 * Every heap row is among partition p's entries; both streams sorted by
 * (fingerprint, tid).  A missing row's fingerprint is named only to a caller
 * who may read the table (show_values), as BuildIndexValueDescription
 * decides for a unique violation: the check can be granted to roles that
 * may not.
 */
void check_heap_rows_in(const char *name, int p, ShxPairSort *heap_rows, ShxPairSort *entries, bool show_values) {
    uint64 ek = 0, et = 0, hk, ht;
    bool have = shx_pair_sort_next(entries, &ek, &et);
    uint64 n = 0;
    while (shx_pair_sort_next(heap_rows, &hk, &ht)) {
        while (have && (ek < hk || (ek == hk && et < ht))) have = shx_pair_sort_next(entries, &ek, &et);
        if (!have || ek != hk || et != ht) {
            ItemPointerData tid;
            shx_unpack_tid(ht, &tid);
            if (!show_values)
                CORRUPT("index \"%s\" partition %d lacks heap tuple (%u,%u)", name, p, ItemPointerGetBlockNumber(&tid),
                        ItemPointerGetOffsetNumber(&tid));
            CORRUPT("index \"%s\" partition %d lacks heap tuple (%u,%u) with fingerprint %016llx", name, p,
                    ItemPointerGetBlockNumber(&tid), ItemPointerGetOffsetNumber(&tid), (unsigned long long) hk);
        }
        if ((++n & 0xFFFF) == 0) CHECK_FOR_INTERRUPTS();
    }
}

/* simhash_index_stats: one partition's block values, counted as the sorted pages stream by */
struct BucketSink {
    PageSink base;
    int width;
    uint64 *vals; /* one page's block values */
    uint64 distinct, largest, run, last;
};

void bucket_sink_take(PageSink *self, simhash::KeyTid *items, int n) {
    BucketSink *b = (BucketSink *) self;
    for (int i = 0; i < n; i++) b->vals[i] = b->width >= 64 ? items[i].key : items[i].key >> (64 - b->width);
    std::sort(b->vals, b->vals + n);
    for (int i = 0; i < n; i++) {
        if (b->distinct == 0 || b->vals[i] != b->last) {
            b->distinct++;
            b->run = 0;
            b->last = b->vals[i];
        }
        b->run++;
        b->largest = Max(b->largest, b->run);
    }
}

}  // namespace

/*
 * caller: the SQL function called (fcinfo->flinfo->fn_oid), which the hint
 * on a partitioned index shows, schema-qualified with the index, so that it
 * runs as given whatever the search_path and the index's name.
 */
Relation shx_open_index(Oid indexoid, LOCKMODE mode, Relation *heap, Oid caller) {
    char *name = get_rel_name(indexoid);
    if (name == NULL)
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE), errmsg("relation with OID %u does not exist", indexoid)));
    char kind = get_rel_relkind(indexoid);
    /* a partitioned index has no pages of its own: its partitions' indexes do */
    if (kind == RELKIND_PARTITIONED_INDEX) {
        const char *fn = quote_qualified_identifier(get_namespace_name(get_func_namespace(caller)),
                                                    get_func_name(caller));
        const char *idx = quote_qualified_identifier(get_namespace_name(get_rel_namespace(indexoid)), name);
        /* the statistics' columns beside the partition each row is of, not a bare record per row */
        const char *example = get_func_rettype(caller) == VOIDOID
                                  ? psprintf("SELECT relid, %s(relid) FROM pg_partition_tree(%s) WHERE isleaf;", fn,
                                             quote_literal_cstr(idx))
                                  : psprintf("SELECT t.relid, s.* FROM pg_partition_tree(%s) t, %s(t.relid) s "
                                             "WHERE t.isleaf;",
                                             quote_literal_cstr(idx), fn);
        ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE), errmsg("\"%s\" is a partitioned index", name),
                        errdetail("Each partition of the table has an index of its own."),
                        errhint("Give the index of a partition, for example: %s", example)));
    }
    Oid heapid = IndexGetRelation(indexoid, true);
    if (!OidIsValid(heapid) || kind != RELKIND_INDEX)
        ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE), errmsg("\"%s\" is not an index", name)));
    *heap = table_open(heapid, mode);
    Relation index = index_open(indexoid, mode);
    if (index->rd_indam == NULL || index->rd_indam->ambuild != shx_build)
        ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                        errmsg("\"%s\" is not a simhash index", RelationGetRelationName(index))));
    if (index->rd_rel->relpersistence == RELPERSISTENCE_TEMP && !RELATION_IS_LOCAL(index))
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("cannot access temporary indexes of other sessions")));
    return index;
}

/*
 * An index CREATE INDEX CONCURRENTLY never finished may have no metapage
 * yet (its pages are whatever the failed build left): reading it would
 * report corruption (XX002) where there is only an interrupted build.
 */
void shx_reject_invalid_index(Relation index, const char *verb) {
    if (!index->rd_index->indisvalid)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("cannot %s index \"%s\"", verb, RelationGetRelationName(index)),
                        errdetail("Index is not valid."),
                        errhint("Drop it, or REINDEX it; an interrupted CREATE INDEX CONCURRENTLY or REINDEX "
                                "CONCURRENTLY leaves such an index behind.")));
}

namespace {

/* May role read the table's rows whole?  BuildIndexValueDescription's test, for the table as a whole. */
bool may_see_rows(Relation heap, Oid role) {
    return check_enable_rls(RelationGetRelid(heap), role, true) != RLS_ENABLED &&
           pg_class_aclcheck(RelationGetRelid(heap), role, ACL_SELECT) == ACLCHECK_OK;
}

}  // namespace

Datum simhash_index_check(PG_FUNCTION_ARGS) {
    Oid indexoid = PG_GETARG_OID(0);
    bool heapallindexed = PG_GETARG_BOOL(1);
    Relation heap;
    /*
     * ShareLock keeps writers out on a primary.  A hot standby cannot take it,
     * and replay would change the index while it is read (splits show as
     * links past the end, rows replayed after the walk as missing), so there
     * the check needs replay paused.
     */
    if (RecoveryInProgress() && GetRecoveryPauseState() != RECOVERY_PAUSED)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("simhash_index_check needs WAL replay paused on a standby"),
                        errdetail("Replay would change the index while it is checked, which looks like corruption."),
                        errhint("Run SELECT pg_wal_replay_pause(); wait until pg_get_wal_replay_pause_state() "
                                "is 'paused', check, then SELECT pg_wal_replay_resume();")));
    LOCKMODE mode = RecoveryInProgress() ? AccessShareLock : ShareLock;
    Relation index = shx_open_index(indexoid, mode, &heap, fcinfo->flinfo->fn_oid);
    bool show_values = may_see_rows(heap, GetUserId());
    ShxCaller caller;
    shx_become_table_owner(heap, &caller);
    /* like amcheck: an index CREATE INDEX CONCURRENTLY never finished need not hold every row */
    shx_reject_invalid_index(index, "check");
    const char *name = RelationGetRelationName(index);
    ShxState st = *shx_get_state(index);
    BlockNumber nblocks = RelationGetNumberOfBlocks(index);
    uint64 *los = (uint64 *) MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * nblocks);
    /*
     * With heapallindexed the heap's rows and then each partition's entries
     * are sorted by (fingerprint, tid) and compared as two streams; each
     * sort keeps to half of maintenance_work_mem and spills past it, as
     * amcheck keeps its Bloom filter to maintenance_work_mem.  (The rows
     * used to be held in memory, 16 bytes a row per partition.)
     */
    int sort_mem = Max(maintenance_work_mem / 2, 1024);
    ShxPairSort heap_rows;
    if (heapallindexed) {
        IndexInfo *ii = BuildIndexInfo(index);
        /*
         * The rows required are those an MVCC snapshot sees: the heap is read
         * as CREATE INDEX CONCURRENTLY's first scan reads it, as amcheck's
         * checks and gist_index_check read it.  A plain build reads with
         * SnapshotAny and also indexes rows deleted but not yet removable,
         * which a concurrent build rightly leaves out: requiring them made
         * the check call an index rebuilt by REINDEX CONCURRENTLY corrupt
         * while an old snapshot or a standby's feedback held such rows back.
         * On a standby, replay may also have paused between a
         * row's heap record and its index records; a committed row's index
         * records come before its commit record.
         */
        ii->ii_Concurrent = true;
        Snapshot snapshot = RegisterSnapshot(GetTransactionSnapshot());
        /*
         * An index built over broken HOT chains lacks the older members a
         * snapshot from before its build may see, so a transaction snapshot
         * whose xmin does not follow the build is refused, as amcheck refuses it.
         */
        if (IsolationUsesXactSnapshot() && index->rd_index->indcheckxmin &&
            !TransactionIdPrecedes(HeapTupleHeaderGetXmin(index->rd_indextuple->t_data), snapshot->xmin))
            ereport(ERROR, (errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
                            errmsg("index \"%s\" cannot be checked with this transaction's snapshot", name),
                            errdetail("The index was built over broken HOT chains, and the snapshot's xmin does not follow "
                                      "its build, so the snapshot may see row versions the index need not hold."),
                            errhint("Check it at READ COMMITTED, or once the transactions older than the index have "
                                    "ended.")));
        TableScanDesc hscan = table_beginscan_strat(heap, snapshot, 0, NULL, true, true);
        shx_pair_sort_begin(&heap_rows, sort_mem, true, true);
        table_index_build_scan(heap, index, ii, true, false, heap_row_callback, &heap_rows, hscan);
        UnregisterSnapshot(snapshot);
        shx_pair_sort_perform(&heap_rows);
    }
    for (int p = 0; p < st.nparts; p++) {
        bool *is_leaf = (bool *) MemoryContextAllocHuge(CurrentMemoryContext, nblocks);
        memset(is_leaf, 0, nblocks);
        ShxPairSort entries;
        SortSink sink = {{sort_sink_take}, &entries, st.rot[p]};
        if (heapallindexed) shx_pair_sort_begin(&entries, sort_mem, true, false);
        walk_chain(index, &st, p, true, nblocks, los, is_leaf, heapallindexed ? &sink.base : NULL);
        /* directory */
        uint32 ndir = (SHX_DIR_SLOTS + st.dir_slots_per_page - 1) / st.dir_slots_per_page;
        for (uint32 d = 0; d < ndir; d++) {
            BlockNumber dblk = st.dir_start[p] + d;
            Buffer buf = ReadBuffer(index, dblk);
            LockBuffer(buf, BUFFER_LOCK_SHARE);
            Page page = BufferGetPage(buf);
            shx_check_page(index, page, dblk, SHX_DIR);
            const BlockNumber *slots = (const BlockNumber *) PageGetContents(page);
            for (uint32 s = 0; s < st.dir_slots_per_page; s++) {
                uint64 slot = (uint64) d * st.dir_slots_per_page + s;
                if (slot >= SHX_DIR_SLOTS) break;
                BlockNumber b = slots[s];
                uint64 sval = slot << (64 - SHX_DIR_BITS);
                if (b >= nblocks || !is_leaf[b] || (b != st.first_leaf[p] && los[b] >= sval))
                    CORRUPT("index \"%s\" partition %d: directory slot %llu names block %u, not a leaf below the slot",
                            name, p, (unsigned long long) slot, b);
            }
            UnlockReleaseBuffer(buf);
        }
        pfree(is_leaf);
        if (heapallindexed) {
            shx_pair_sort_perform(&entries);
            if (p > 0) shx_pair_sort_rescan(&heap_rows);
            check_heap_rows_in(name, p, &heap_rows, &entries, show_values);
            shx_pair_sort_end(&entries);
        }
    }
    if (heapallindexed) shx_pair_sort_end(&heap_rows);
    shx_restore_caller(&caller);
    index_close(index, mode);
    table_close(heap, mode);
    PG_RETURN_VOID();
}

Datum simhash_index_stats(PG_FUNCTION_ARGS) {
    Oid indexoid = PG_GETARG_OID(0);
    InitMaterializedSRF(fcinfo, 0);
    ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
    Relation heap;
    Relation index = shx_open_index(indexoid, AccessShareLock, &heap, fcinfo->flinfo->fn_oid);
    shx_reject_invalid_index(index, "report on");
    ShxState st = *shx_get_state(index);
    uint64 *vals = (uint64 *) palloc(sizeof(uint64) * SHX_MAX_LEAF_ENTRIES);
    for (int p = 0; p < st.nparts; p++) {
        int w = st.width[p];
        BucketSink sink = {{bucket_sink_take}, w, vals, 0, 0, 0, 0};
        ChainResult r = walk_chain(index, &st, p, false, RelationGetNumberOfBlocks(index), NULL, NULL, &sink.base);
        uint64 distinct = sink.distinct, largest = sink.largest;
        Datum values[9];
        bool nulls[9] = {false, false, false, false, false, false, false, false, false};
        values[0] = Int32GetDatum(p);
        values[1] = Int32GetDatum(w);
        values[2] = Int64GetDatum((int64) r.n);
        values[3] = Int64GetDatum((int64) r.npages);
        values[4] = Int64GetDatum((int64) distinct);
        values[5] = Int64GetDatum((int64) largest);
        values[6] = Float8GetDatum(distinct ? (double) r.n / distinct : 0.0);
        values[7] = Int64GetDatum((int64) r.nempty);
        values[8] = Int64GetDatum((int64) r.ntail);
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
    pfree(vals);
    index_close(index, AccessShareLock);
    table_close(heap, AccessShareLock);
    return (Datum) 0;
}
