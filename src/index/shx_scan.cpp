/*
 * shx_scan.cpp: the scan callbacks (ambeginscan, amrescan, amgettuple,
 * amgetbitmap, amendscan) for radius conditions (=, %, %<= (q, r)) and
 * exact KNN (ORDER BY fp <-> q).  A scan with an ordering query is a KNN
 * search (shx_knn.cpp) when the probes cover its keys; every other scan is a
 * radius search (shx_radius.cpp), streamed page by page for an unordered
 * index scan, else collected (into a bitmap, or to be sorted by distance).
 * A scan with no search key returns the rows whose fingerprint is NULL last.
 * See shx.h for the algorithm, shx_scan.h for the scan's state.
 */
#include "shx_scan.h"

extern "C" {
#include "access/itup.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/tidbitmap.h"
#include "pgstat.h"
#include "utils/snapmgr.h"
}

namespace {

/* Hands one row to the executor: its tid, distance (ORDER BY) and fingerprint (index-only scans). */
bool return_row(IndexScanDesc scan, ShxScanOpaque *so, ItemPointerData tid, bool recheck, int dist, bool dist_null,
                uint64 fp, bool fp_null) {
    const ShxScanQuery *q = &so->query;
    scan->xs_heaptid = tid;
    scan->xs_recheck = recheck;
    if (scan->numberOfOrderBys > 0) {
        scan->xs_orderbyvals[0] = Int32GetDatum(dist);
        scan->xs_orderbynulls[0] = dist_null;
        for (int k = 0; k < q->nthen; k++) {
            bool null = fp_null || q->then_null[k];
            scan->xs_orderbyvals[k + 1] = Int32GetDatum(null ? 0 : simhash::hamming_distance(fp, q->then_q[k]));
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
    if (so->nulls.read) return;
    so->nulls.read = true;
    so->nulls.n = shx_collect_null_rows(scan, so->cxt, &so->nulls.tids);
}

/* After the last indexed row of a scan with no search key: the NULL rows. */
bool next_null_row(IndexScanDesc scan, ShxScanOpaque *so) {
    if (so->query.nkeys > 0) return false; /* no condition matches NULL */
    read_null_rows(scan, so);
    if (so->nulls.next >= so->nulls.n) return false;
    /* NULL <-> q is NULL: last in ascending order */
    return return_row(scan, so, so->nulls.tids[so->nulls.next++], false, 0, true, 0, true);
}

/*
 * Whether the ORDER BY keys order anything.  A NULL query makes every
 * distance NULL, so "ORDER BY fp <-> NULL" (a generic plan's parameter, a
 * row of a LATERAL join without a fingerprint) ties every row: the scan
 * streams its matches as an unordered one does, instead of collecting the
 * whole index first to sort it (64 MB and a second at 3M rows
 * for LIMIT 3).
 */
bool order_matters(const ShxScanQuery *q) {
    if (!q->order_null) return true;
    for (int k = 0; k < q->nthen; k++)
        if (!q->then_null[k]) return true;
    return false;
}

void start_scan(IndexScanDesc scan) {
    ShxScanOpaque *so = (ShxScanOpaque *) scan->opaque;
    const ShxScanQuery *q = &so->query;
    so->started = true;
    /* pg_stat_user_indexes.idx_scan, as nbtree counts each scan it starts (it stayed 0) */
    pgstat_count_index_scan(scan->indexRelation);
    if (q->nomatch) return;
    so->heap_check.heap = scan->heapRelation;
    so->heap_check.on = scan->xs_want_itup && so->hits.tbm == NULL && scan->xs_snapshot != NULL &&
                        IsMVCCSnapshot(scan->xs_snapshot) && so->heap_check.heap != NULL;
    MemoryContext old = MemoryContextSwitchTo(so->cxt);
    bool ordered = q->has_order && !q->order_null;
    if (ordered && shx_knn_plan(scan, so)) {
        shx_knn_begin(scan, so);
    } else if ((q->has_order && order_matters(q)) || so->hits.tbm != NULL) {
        /* every match first: to sort them by distance, or into the bitmap as they come */
        shx_radius_collect(scan, so);
        if (q->has_order) shx_sort_hits(q, so->hits.found.rows, so->hits.found.n);
    } else {
        /*
         * An unordered index scan reads leaf pages as rows are asked for, so
         * "LIMIT 1" or an EXISTS stops at the first match and memory holds
         * one page's matches.
         */
        so->radius.stream = true;
        shx_radius_begin(scan, so);
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
    ShxScanHeapCheck *hc = &so->heap_check;
    if (hc->fetch == NULL) {
        MemoryContext old = MemoryContextSwitchTo(GetMemoryChunkContext(so));
        hc->fetch = compat_table_index_fetch_begin(hc->heap);
        hc->slot = table_slot_create(hc->heap, NULL);
        MemoryContextSwitchTo(old);
    }
    bool call_again = false, all_dead = false;
    bool found = table_index_fetch_tuple(hc->fetch, &tid, scan->xs_snapshot, hc->slot, &call_again, &all_dead);
    ExecClearTuple(hc->slot);
    return found;
}

/* The walk of a radius or KNN search, if one is under way: its directory pin. */
void end_walk(ShxScanOpaque *so) {
    if (so->radius.walking || so->knn.walking) shx_walk_end(&so->walk);
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
    ShxScanQuery *q = &so->query;
    if (scankey && scan->numberOfKeys > 0) memmove(scan->keyData, scankey, scan->numberOfKeys * sizeof(ScanKeyData));
    if (orderbys && scan->numberOfOrderBys > 0)
        memmove(scan->orderByData, orderbys, scan->numberOfOrderBys * sizeof(ScanKeyData));
    end_walk(so);
    MemoryContextReset(so->cxt);
    so->hits = ShxScanHits{};
    so->radius = ShxRadiusSearch{};
    so->knn = ShxKnnSearch{};
    so->nulls = ShxScanNulls{};
    so->started = false;
    so->last_itup = NULL;
    q->nomatch = false;
    q->nkeys = scan->numberOfKeys;
    q->kq = (uint64 *) MemoryContextAlloc(so->cxt, sizeof(uint64) * Max(1, q->nkeys));
    q->kr = (int *) MemoryContextAlloc(so->cxt, sizeof(int) * Max(1, q->nkeys));
    for (int i = 0; i < q->nkeys; i++) {
        ScanKey sk = &scan->keyData[i];
        if (sk->sk_flags & SK_ISNULL) {
            q->nomatch = true;
            continue;
        }
        switch (sk->sk_strategy) {
            case SHX_STRATEGY_EQUAL:
                q->kq[i] = DatumGetSimhash(sk->sk_argument);
                q->kr[i] = 0;
                break;
            case SHX_STRATEGY_SIMILAR:
                q->kq[i] = DatumGetSimhash(sk->sk_argument);
                q->kr[i] = simhash_threshold;
                break;
            case SHX_STRATEGY_WITHIN: {
                HeapTupleHeader th = DatumGetHeapTupleHeader(sk->sk_argument);
                bool qnull, rnull;
                Datum qd = GetAttributeByNum(th, 1, &qnull);
                Datum rd = GetAttributeByNum(th, 2, &rnull);
                if (qnull || rnull) {
                    q->nomatch = true;
                    break;
                }
                int32 radius = DatumGetInt32(rd);
                if (radius < 0 || radius > 64)
                    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                                    errmsg("simhash radius %d is out of range", radius),
                                    errhint("The radius must be between 0 and 64.")));
                q->kq[i] = DatumGetSimhash(qd);
                q->kr[i] = radius;
                break;
            }
            default:
                elog(ERROR, "simhash index: unexpected strategy %d", sk->sk_strategy);
        }
    }
    q->has_order = scan->numberOfOrderBys > 0;
    q->order_null = false;
    if (q->has_order) {
        ScanKey ob = &scan->orderByData[0];
        if (ob->sk_flags & SK_ISNULL) q->order_null = true;
        else q->order_q = DatumGetSimhash(ob->sk_argument);
    }
    q->nthen = Max(scan->numberOfOrderBys - 1, 0);
    q->then_q = (uint64 *) MemoryContextAlloc(so->cxt, sizeof(uint64) * Max(1, q->nthen));
    q->then_null = (bool *) MemoryContextAlloc(so->cxt, sizeof(bool) * Max(1, q->nthen));
    for (int k = 0; k < q->nthen; k++) {
        ScanKey ob = &scan->orderByData[k + 1];
        q->then_null[k] = (ob->sk_flags & SK_ISNULL) != 0;
        q->then_q[k] = q->then_null[k] ? 0 : DatumGetSimhash(ob->sk_argument);
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
        ShxHit *h = so->knn.on ? shx_knn_next(scan->indexRelation, so) : shx_radius_next(scan->indexRelation, so);
        if (h == NULL) return next_null_row(scan, so);
        if (h->heap_check && !visible_in_heap(scan, so, h->tid)) {
            CHECK_FOR_INTERRUPTS();
            continue; /* a row this snapshot does not see (see shx_needs_heap_check) */
        }
        return return_row(scan, so, h->tid, !mvcc, h->dist, so->query.order_null, h->fp, false);
    }
}

int64 shx_getbitmap(IndexScanDesc scan, TIDBitmap *tbm) {
    ShxScanOpaque *so = (ShxScanOpaque *) scan->opaque;
    if (!so->started) {
        /* matches go into the bitmap as pages are read: memory stays within its work_mem */
        so->query.has_order = false;
        so->hits.tbm = tbm;
        start_scan(scan);
        so->hits.tbm = NULL;
        if (so->query.nkeys == 0) {
            read_null_rows(scan, so);
            /* tbm_add_tuples takes an int count: 2^31 NULL rows would wrap it */
            for (int64 done = 0; done < so->nulls.n; done += PG_INT32_MAX)
                tbm_add_tuples(tbm, so->nulls.tids + done, (int) Min(so->nulls.n - done, (int64) PG_INT32_MAX),
                               false);
            so->hits.ntids += so->nulls.n;
        }
    }
    return so->hits.ntids;
}

void shx_endscan(IndexScanDesc scan) {
    ShxScanOpaque *so = (ShxScanOpaque *) scan->opaque;
    end_walk(so);
    if (BufferIsValid(so->heap_check.vmbuf)) ReleaseBuffer(so->heap_check.vmbuf);
    if (so->heap_check.fetch != NULL) {
        table_index_fetch_end(so->heap_check.fetch);
        ExecDropSingleTupleTableSlot(so->heap_check.slot);
    }
    MemoryContextDelete(so->cxt);
    pfree(so->near);
    pfree(so);
    scan->opaque = NULL;
}
