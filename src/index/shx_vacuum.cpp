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
            if (PageIsNew(page) || !(ShiPageGetOpaque(page)->flags & SHI_LEAF)) {
                UnlockReleaseBuffer(buf);
                continue;
            }
            int n = shi_leaf_nentries(page);
            int ndead = 0;
            bool *dead = NULL;
            if (callback) {
                dead = (bool *) palloc0(sizeof(bool) * Max(n, 1));
                for (int i = 0; i < n; i++) {
                    ItemPointerData tid;
                    shi_entry_tid(shi_entry_ptr(page, i), &tid);
                    if (callback(&tid, callback_state)) {
                        dead[i] = true;
                        ndead++;
                    }
                }
            }
            if (ndead > 0) {
                GenericXLogState *x = GenericXLogStart(index);
                Page p = GenericXLogRegisterBuffer(x, buf, 0);
                int j = 0;
                for (int i = 0; i < n; i++) {
                    if (dead[i]) continue;
                    if (i != j) memmove(shi_entry_ptr(p, j), shi_entry_ptr(p, i), SHI_ENTRY_SIZE);
                    j++;
                }
                ((PageHeader) p)->pd_lower = SHI_CONTENT_OFFSET + j * SHI_ENTRY_SIZE;
                GenericXLogFinish(x);
            }
            stats->tuples_removed += (double) ndead / st.nparts;
            live += n - ndead;
            if (dead) pfree(dead);
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
