/*
 * shx_vacuum.cpp: ambulkdelete and amvacuumcleanup.  Pages are visited in
 * physical order (re-reading the relation size at the end, as btvacuumscan
 * does, so pages added by concurrent splits are seen); dead entries are
 * removed by compacting the entry array in place, one generic WAL record per
 * changed page.  No page is ever unlinked or freed: the space inside pages is
 * what gets reused, so no running scan can follow a recycled page.
 *
 * VACUUM also merges each grouped leaf's tail, the entries inserts appended
 * since the page was last written sorted, into its sorted region, as GIN's
 * VACUUM flushes its pending list: every probe of a page reads its whole
 * tail, and after a table grows by its own size (1M rows to 2M) tails of
 * about 54 entries doubled the entries a nearest-neighbour query reads
 * (1.16 ms against 0.68 for the same rows indexed afresh).  Autovacuum runs
 * on tables that only grow too (autovacuum_vacuum_insert_threshold), and
 * then reaches this through amvacuumcleanup alone.
 */
#include "shx.h"

extern "C" {
#include "commands/progress.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "pgstat.h"
}

namespace {

/* Tails shorter than this are left alone: merging one costs a page write and its WAL. */
#define SHX_VACUUM_MERGE_TAIL 8

/* Visits every leaf page; with a callback, removes the entries it reports dead. */
void vacuum_scan(IndexVacuumInfo *info, IndexBulkDeleteResult *stats, IndexBulkDeleteCallback callback,
                 void *callback_state) {
    Relation index = info->index;
    const ShxState st = *shx_get_state(index);
    double live = 0;
    BlockNumber blkno = 1;
    BlockNumber nblocks;
    for (;;) {
        nblocks = RelationGetNumberOfBlocks(index);
        if (blkno >= nblocks) break;
        /* REINDEX and CREATE INDEX CONCURRENTLY's validation reads the index through here */
        if (info->report_progress) pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_TOTAL, nblocks);
        for (; blkno < nblocks; blkno++) {
            compat_vacuum_delay_point();
            if (info->report_progress) pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_DONE, blkno);
            Buffer buf = ReadBufferExtended(index, MAIN_FORKNUM, blkno, RBM_NORMAL, info->strategy);
            LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
            Page page = BufferGetPage(buf);
            if (PageIsNew(page)) {
                UnlockReleaseBuffer(buf);
                continue;
            }
            /* every page must be the index's own; only leaves hold entries */
            shx_check_page(index, page, blkno, SHX_META | SHX_DIR | SHX_LEAF);
            if (!(ShxPageGetOpaque(page)->flags & SHX_LEAF)) {
                UnlockReleaseBuffer(buf);
                continue;
            }
            simhash::KeyTid *items = (simhash::KeyTid *) palloc(sizeof(simhash::KeyTid) * SHX_MAX_LEAF_ENTRIES);
            int npacked;
            int n = shx_leaf_decode(index, page, blkno, items, &npacked);
            int ndead = 0;
            int j = n, jpacked = npacked;
            if (callback) {
                j = jpacked = 0;
                for (int i = 0; i < n; i++) {
                    ItemPointerData tid;
                    shx_unpack_tid(items[i].tid, &tid);
                    if (callback(&tid, callback_state)) {
                        ndead++;
                    } else {
                        if (i < npacked) jpacked++;
                        items[j++] = items[i];
                    }
                }
            }
            if (ndead > 0 || (npacked > 0 && j - jpacked >= SHX_VACUUM_MERGE_TAIL)) {
                simhash::KeyTid *sorted = (simhash::KeyTid *) palloc(sizeof(simhash::KeyTid) * Max(j, 1));
                memcpy(sorted, items, sizeof(simhash::KeyTid) * j);
                simhash::sort_key_tids(sorted, (uint64) j);
                bool fits = shx_packed_size(sorted, j) <= SHX_LEAF_SPACE;
                /* a tail is merged only into a grouped page (a plain one is all tail) that it fits */
                if (ndead > 0 || (fits && shx_leaf_packs_grouped(sorted, j))) {
                    GenericXLogState *x = GenericXLogStart(index);
                    Page p = GenericXLogRegisterBuffer(x, buf, 0);
                    /* the survivors packed together when they fit, else where they were (shx_leaf_write) */
                    if (fits) shx_leaf_write_packed(p, sorted, j);
                    else shx_leaf_write(p, items, j, jpacked);
                    GenericXLogFinish(x);
                }
                pfree(sorted);
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

/*
 * The index's on-disk version when this build no longer reads it, else 0.
 * VACUUM then leaves it alone, so that the table's own VACUUM, and
 * autovacuum's freezing of it, still run: failing them would hold back the
 * whole cluster's transaction ID horizon until a REINDEX.  Nothing reads the
 * index meanwhile (the planner leaves it aside, inserts and scans refuse
 * it), and REINDEX rebuilds it from the table, so the entries of rows VACUUM
 * removes may stay in it.
 */
uint32 old_format_version(Relation index) {
    uint32 version;
    return shx_readable_state(index, &version) == NULL ? version : 0;
}

}  // namespace

IndexBulkDeleteResult *shx_bulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
                                      IndexBulkDeleteCallback callback, void *callback_state) {
    if (old_format_version(info->index) != 0) return stats; /* shx_vacuumcleanup says so */
    if (stats == NULL) stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
    vacuum_scan(info, stats, callback, callback_state);
    return stats;
}

IndexBulkDeleteResult *shx_vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats) {
    if (info->analyze_only) return stats;
    if (uint32 version = old_format_version(info->index)) {
        /* once per VACUUM; NULL leaves the index's statistics as they were */
        ereport(WARNING, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                          errmsg("index \"%s\" has on-disk version %u, which this simhash build no longer reads; "
                                 "VACUUM leaves it alone",
                                 RelationGetRelationName(info->index), version),
                          errhint("To fix this, do REINDEX INDEX \"%s\".", RelationGetRelationName(info->index))));
        return NULL;
    }
    if (stats == NULL) {
        stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
        vacuum_scan(info, stats, NULL, NULL);
    }
    return stats;
}
