/*
 * shx_nulls.cpp: the rows a scan without a search condition must also
 * return, those whose fingerprint is NULL.
 *
 * The index stores no NULL, like pgvector's, but it cannot say "optional
 * keys only for ordering" to the planner: with amoptionalkey the planner
 * also uses it for scans with no condition at all (a full index or bitmap
 * scan, ORDER BY fp <-> q with no LIMIT or a LIMIT above the non-NULL
 * rows), and takes the index to hold every row.  Such a scan, once it has
 * returned every indexed row, reads the heap once under the scan's snapshot
 * for the rows whose indexed value (column or expression, within a partial
 * index's predicate) is NULL, as amcheck's heapallindexed pass reads it
 * (HOT chains give their root tid, the one an index entry would hold).  A
 * scan with a condition never needs them: no condition matches NULL.
 */
#include "shx.h"

extern "C" {
#include "access/relscan.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
}

namespace {

struct NullRows {
    ItemPointerData *tids;
    int64 n, cap;
    MemoryContext cxt;
};

void collect_null_row(Relation index, ItemPointer tid, Datum *values, bool *isnull, bool tupleIsAlive, void *state) {
    if (!isnull[0]) return;
    NullRows *rows = (NullRows *) state;
    if (rows->n == rows->cap) {
        rows->cap = Max(64, rows->cap * 2);
        Size bytes = sizeof(ItemPointerData) * rows->cap;
        rows->tids = rows->tids == NULL ? (ItemPointerData *) MemoryContextAllocHuge(rows->cxt, bytes)
                                        : (ItemPointerData *) repalloc_huge(rows->tids, bytes);
    }
    rows->tids[rows->n++] = *tid;
}

}  // namespace

int64 shx_collect_null_rows(IndexScanDesc scan, MemoryContext cxt, ItemPointerData **tids) {
    Relation index = scan->indexRelation;
    Relation heap = scan->heapRelation;
    bool own_heap = heap == NULL;
    if (own_heap) heap = table_open(IndexGetRelation(RelationGetRelid(index), false), AccessShareLock);

    /* the scan's snapshot: rows it cannot see are not returned by the index part either */
    Snapshot snapshot = scan->xs_snapshot;
    bool own_snapshot = snapshot == NULL || !IsMVCCSnapshot(snapshot);
    if (own_snapshot) snapshot = RegisterSnapshot(GetLatestSnapshot());

    /*
     * The IndexInfo and whatever the heap read allocates go in a context of
     * their own: this runs again at every rescan that gets this far (each
     * outer row of a nested loop), and the caller's context lasts the query.
     */
    MemoryContext read_cxt = AllocSetContextCreate(CurrentMemoryContext, "simhash NULL rows", ALLOCSET_DEFAULT_SIZES);
    MemoryContext old_cxt = MemoryContextSwitchTo(read_cxt);
    IndexInfo *info = BuildIndexInfo(index);
    info->ii_Concurrent = true; /* an MVCC read of the heap, not a build's SnapshotAny pass */
    NullRows rows = {NULL, 0, 0, cxt};
    /* the index's expressions are the owner's code, which a caller's SELECT count(*) must not run (shx_owner.cpp) */
    ShxCaller caller;
    shx_become_table_owner(heap, &caller);
    TableScanDesc heap_scan = table_beginscan_strat(heap, snapshot, 0, NULL, true, true);
    table_index_build_scan(heap, index, info, true, false, collect_null_row, &rows, heap_scan);
    shx_restore_caller(&caller);
    MemoryContextSwitchTo(old_cxt);
    MemoryContextDelete(read_cxt);

    if (own_snapshot) UnregisterSnapshot(snapshot);
    if (own_heap) table_close(heap, AccessShareLock);
    *tids = rows.tids;
    return rows.n;
}
