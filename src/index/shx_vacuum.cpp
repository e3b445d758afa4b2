/*
 * shx_vacuum.cpp: ambulkdelete and amvacuumcleanup.  Pages are visited in
 * physical order (re-reading the relation size at the end, as btvacuumscan
 * does, so pages added by concurrent splits are seen); dead entries are
 * removed by compacting the entry array in place, one generic WAL record per
 * changed page.  No page is ever unlinked or freed: the space inside pages is
 * what gets reused, so no running scan can follow a recycled page.
 */
#include "shx.h"

extern "C" {
#include "commands/vacuum.h"
#include "miscadmin.h"
}

namespace {

/* Visits every leaf page; with a callback, removes the entries it reports dead. */
void vacuum_scan(IndexVacuumInfo *info, IndexBulkDeleteResult *stats, IndexBulkDeleteCallback callback,
                 void *callback_state) {
    Relation index = info->index;
    const ShiState st = *shi_get_state(index);
    double live = 0;
    BlockNumber blkno = 1;
    BlockNumber nblocks;
    for (;;) {
        nblocks = RelationGetNumberOfBlocks(index);
        if (blkno >= nblocks) break;
        for (; blkno < nblocks; blkno++) {
            vacuum_delay_point();
            Buffer buf = ReadBufferExtended(index, MAIN_FORKNUM, blkno, RBM_NORMAL, info->strategy);
            LockBuffer(buf, callback ? BUFFER_LOCK_EXCLUSIVE : BUFFER_LOCK_SHARE);
            Page page = BufferGetPage(buf);
            if (PageIsNew(page)) {
                UnlockReleaseBuffer(buf);
                continue;
            }
            /* every page must be the index's own; only leaves hold entries */
            shi_check_page(index, page, blkno, SHI_META | SHI_DIR | SHI_LEAF);
            if (!(ShiPageGetOpaque(page)->flags & SHI_LEAF)) {
                UnlockReleaseBuffer(buf);
                continue;
            }
            simhash::KeyTid *items = (simhash::KeyTid *) palloc(sizeof(simhash::KeyTid) * SHI_MAX_LEAF_ENTRIES);
            int npacked;
            int n = shi_leaf_decode(index, page, blkno, items, &npacked);
            int ndead = 0;
            if (callback) {
                int j = 0, jpacked = 0;
                for (int i = 0; i < n; i++) {
                    ItemPointerData tid;
                    shi_unpack_tid(items[i].tid, &tid);
                    if (callback(&tid, callback_state)) {
                        ndead++;
                    } else {
                        if (i < npacked) jpacked++;
                        items[j++] = items[i];
                    }
                }
                if (ndead > 0) {
                    GenericXLogState *x = GenericXLogStart(index);
                    Page p = GenericXLogRegisterBuffer(x, buf, 0);
                    /* the survivors packed together when they fit, else where they were (shi_leaf_write) */
                    simhash::KeyTid *sorted = (simhash::KeyTid *) palloc(sizeof(simhash::KeyTid) * Max(j, 1));
                    memcpy(sorted, items, sizeof(simhash::KeyTid) * j);
                    simhash::sort_key_tids(sorted, (uint64) j);
                    if (shi_packed_size(sorted, j) <= SHI_LEAF_SPACE) shi_leaf_write_packed(p, sorted, j);
                    else shi_leaf_write(p, items, j, jpacked);
                    pfree(sorted);
                    GenericXLogFinish(x);
                }
            }
            pfree(items);
            stats->tuples_removed += (double) ndead / st.nparts;
            live += n - ndead;
            UnlockReleaseBuffer(buf);
        }
    }
    stats->num_pages = nblocks;
    stats->num_index_tuples = live / st.nparts;
    stats->estimated_count = false;
}

}  // namespace

IndexBulkDeleteResult *shi_bulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
                                      IndexBulkDeleteCallback callback, void *callback_state) {
    if (stats == NULL) stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
    vacuum_scan(info, stats, callback, callback_state);
    return stats;
}

IndexBulkDeleteResult *shi_vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats) {
    if (info->analyze_only) return stats;
    if (stats == NULL) {
        stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
        vacuum_scan(info, stats, NULL, NULL);
    }
    return stats;
}
