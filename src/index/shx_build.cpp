/*
 * shx_build.cpp: CREATE INDEX / REINDEX by sorting, and the init fork of
 * an unlogged index.
 *
 * One heap scan collects (fingerprint, tid) pairs.  While they fit in
 * maintenance_work_mem they stay in one array of 16-byte pairs that is
 * re-keyed and sorted in place once per partition; past that, they go to one
 * tuplesort per partition (each given maintenance_work_mem / blocks,
 * shx_pair_sort.cpp), which spills to disk.  Sorted keys are written to leaf
 * pages left to right at the fillfactor, then the directory is filled, then
 * the whole relation is WAL-logged with log_newpage_range (as pgvector does).
 */
#include "shx.h"

#include "blocks.hpp"
#include "mih_probe.hpp"

extern "C" {
#include "access/tableam.h"
#include "catalog/index.h"
#include "commands/progress.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/buffile.h"
#include "storage/smgr.h"
#include "utils/memutils.h"
#include "access/xloginsert.h"
}

namespace {

struct BuildState {
    ShxState st;
    simhash::KeyTid *items;  // in-memory mode: (fp, tid)
    Size nitems;
    Size maxitems;
    ShxPairSort sorts[SHX_MAX_PARTS];  // spill mode, by key
    double indtuples;
    MemoryContext tmpcxt;
};

/*
 * Past maintenance_work_mem the pairs go to the tuplesorts, which get
 * maintenance_work_mem between them.  The full array is first written to a
 * temporary file and freed, then read back into them: copying it across
 * directly held both at once (2.3 times the setting at the peak).
 */
void start_spill(BuildState *bs) {
    Size n = bs->nitems;
    BufFile *file = BufFileCreateTemp(false);
    BufFileWrite(file, bs->items, n * sizeof(simhash::KeyTid));
    pfree(bs->items);
    bs->items = NULL;
    bs->nitems = 0;
    int mem = Max(maintenance_work_mem / bs->st.nparts, 1024);
    for (int p = 0; p < bs->st.nparts; p++) shx_pair_sort_begin(&bs->sorts[p], mem, false, false);
    if (BufFileSeek(file, 0, 0, SEEK_SET) != 0)
        ereport(ERROR, (errcode_for_file_access(), errmsg("could not rewind the index build's temporary file")));
    simhash::KeyTid chunk[1024];
    for (Size done = 0; done < n;) {
        Size want = Min((Size) lengthof(chunk), n - done);
        if (BufFileRead(file, chunk, want * sizeof(simhash::KeyTid)) != want * sizeof(simhash::KeyTid))
            ereport(ERROR, (errcode_for_file_access(), errmsg("could not read the index build's temporary file")));
        for (Size i = 0; i < want; i++)
            for (int p = 0; p < bs->st.nparts; p++)
                shx_pair_sort_put(&bs->sorts[p], simhash::rotl64(chunk[i].key, bs->st.rot[p]), chunk[i].tid);
        done += want;
        CHECK_FOR_INTERRUPTS();
    }
    BufFileClose(file);
}

void build_callback(Relation index, ItemPointer tid, Datum *values, bool *isnull, bool tupleIsAlive,
                    void *state) {
    BuildState *bs = (BuildState *) state;
    if (isnull[0]) return;
    uint64 fp = DatumGetSimhash(values[0]);
    if (bs->items != NULL) {
        if (bs->nitems == bs->maxitems) {
            Size limit = (Size) maintenance_work_mem * 1024 / sizeof(simhash::KeyTid);
            if (bs->maxitems >= limit) {
                start_spill(bs);
            } else {
                Size n = Min(bs->maxitems * 2, limit);
                bs->items = (simhash::KeyTid *) repalloc_huge(bs->items, n * sizeof(simhash::KeyTid));
                bs->maxitems = n;
            }
        }
        if (bs->items != NULL) {
            bs->items[bs->nitems].key = fp;
            bs->items[bs->nitems].tid = shx_pack_tid(tid);
            bs->nitems++;
        }
    }
    if (bs->items == NULL)
        for (int p = 0; p < bs->st.nparts; p++)
            shx_pair_sort_put(&bs->sorts[p], simhash::rotl64(fp, bs->st.rot[p]), shx_pack_tid(tid));
    bs->indtuples += 1;
}

/*
 * Writes one partition's leaf chain from sorted keys; records each page's lo
 * for the directory.  The page being filled stays pinned but is locked only
 * while it is written: a content lock holds off interrupts, and a build of
 * a large table must stay cancellable.
 */
struct LeafWriter {
    Relation index;
    int part;
    Size limit;          /* packed bytes per page at the fillfactor */
    simhash::KeyTid *cur; /* entries of the page being filled */
    int cur_groups;       /* their groups */
    int group_first;      /* where the last of them starts in cur */
    bool finishing_group; /* past the fill, adding the rest of the last group (writer_add) */
    Size undershoot;      /* then: how far below the fill the page would end before that group */
    simhash::TidSpan cur_tids; /* their tids' range: the width the page packs them in */
    Buffer buf;
    Page page;
    int n;
    uint64 *los;
    BlockNumber *blks;
    int npages;
    int maxpages;
};

/* lo: the new page's; clean: the page before it ends at a group boundary (SHX_HI_CLEAN) */
void writer_new_page(LeafWriter *w, uint64 lo, bool clean = false) {
    Buffer nbuf = shx_new_buffer(w->index);
    Page np = BufferGetPage(nbuf);
    shx_init_page(np, SHX_LEAF | (w->npages == 0 ? SHX_LEFTMOST : 0), (uint16) w->part);
    ShxPageGetOpaque(np)->lo = lo;
    MarkBufferDirty(nbuf);
    LockBuffer(nbuf, BUFFER_LOCK_UNLOCK);
    if (BufferIsValid(w->buf)) {
        LockBuffer(w->buf, BUFFER_LOCK_EXCLUSIVE);
        ShxPageGetOpaque(w->page)->hi = lo;
        if (clean) ShxPageGetOpaque(w->page)->flags |= SHX_HI_CLEAN;
        ShxPageGetOpaque(w->page)->right = BufferGetBlockNumber(nbuf);
        MarkBufferDirty(w->buf);
        UnlockReleaseBuffer(w->buf);
    }
    if (w->npages == w->maxpages) {
        w->maxpages *= 2;
        w->los = (uint64 *) repalloc_huge(w->los, sizeof(uint64) * w->maxpages);
        w->blks = (BlockNumber *) repalloc_huge(w->blks, sizeof(BlockNumber) * w->maxpages);
    }
    w->los[w->npages] = lo;
    w->blks[w->npages] = BufferGetBlockNumber(nbuf);
    w->npages++;
    w->buf = nbuf;
    w->page = np;
    w->n = 0;
    w->finishing_group = false;
    w->cur_groups = 0;
    w->cur_tids = simhash::TidSpan();
}

void writer_flush(LeafWriter *w) {
    LockBuffer(w->buf, BUFFER_LOCK_EXCLUSIVE);
    shx_leaf_write_packed(w->page, w->cur, w->n);
    MarkBufferDirty(w->buf);
    LockBuffer(w->buf, BUFFER_LOCK_UNLOCK);
}

/*
 * Ends the full page being filled before its last group, which starts at
 * w->cur[first] and goes on to the next page: at a group boundary the pages
 * meet cleanly (SHX_HI_CLEAN), and a probe of that group reads one page
 * instead of two.
 */
void writer_cut_before_group(LeafWriter *w, int first) {
    int moved = w->n - first;
    uint64 lo = simhash::last_key_before_group(w->cur[first].key);
    w->n = first;
    writer_flush(w);
    /* a new page resets the counts, not cur: the group's entries move to its start */
    writer_new_page(w, lo, true);
    memmove(w->cur, w->cur + first, sizeof(simhash::KeyTid) * moved);
    for (int i = 0; i < moved; i++) w->cur_tids.add(w->cur[i].tid);
    w->n = moved;
    w->cur_groups = 1;
    w->group_first = 0;
}

/*
 * Pages end at a group boundary where one is near the fillfactor's fill: a
 * group (the keys of one 16-bit block value, what a probe reads) cut across
 * two pages costs its probes a second page, and at 10M rows a group is a
 * sixth of a page.  When an entry would take the page past the fill inside
 * a group, the page ends before that group, or, when the group ends sooner
 * past the fill than it began before it (and within half the room the
 * fillfactor leaves), after it: the boundary nearer the fill, so that pages
 * stay as full as the fillfactor says on average.  A group that began in
 * the first three quarters of the fill is cut where the fill is reached, as
 * is any group at a page's start (it is larger than the page).
 */
void writer_add(LeafWriter *w, uint64 key, uint64 packed) {
    if (!BufferIsValid(w->buf)) {
        writer_new_page(w, 0);
    } else if (w->n > 0) {
        /* the page's bytes with this entry: its tid may widen every tid of the page */
        bool new_group = simhash::key_group(key) != simhash::key_group(w->cur[w->n - 1].key);
        int groups = w->cur_groups + (new_group ? 1 : 0);
        Size bytes = shx_leaf_form_bytes(groups, w->n + 1, w->cur_tids.width_with(packed));
        bool over = bytes > w->limit || w->n >= SHX_MAX_LEAF_ENTRIES - 2;
        bool room = bytes <= w->limit + (SHX_LEAF_SPACE - w->limit) / 2 && w->n < SHX_MAX_LEAF_ENTRIES - 2;
        if (w->finishing_group) {
            /* past the fill, finishing the page's last group */
            if (new_group) {
                writer_flush(w);
                writer_new_page(w, simhash::last_key_before_group(key), true);
            } else if (!room || bytes > w->limit + w->undershoot) {
                writer_cut_before_group(w, w->group_first);
            }
        } else if (over && new_group) {
            writer_flush(w);
            writer_new_page(w, simhash::last_key_before_group(key), true);
        } else if (over) {
            Size before = w->group_first > 0 ? shx_packed_size(w->cur, w->group_first) : 0;
            if (before < w->limit * 3 / 4) {
                writer_flush(w);
                writer_new_page(w, key);
            } else if (room && bytes - w->limit < w->limit - before) {
                w->finishing_group = true;
                w->undershoot = w->limit - before;
            } else {
                writer_cut_before_group(w, w->group_first);
            }
        }
    }
    if (w->n == 0 || simhash::key_group(key) != simhash::key_group(w->cur[w->n - 1].key)) {
        w->cur_groups++;
        w->group_first = w->n;
    }
    w->cur_tids.add(packed);
    w->cur[w->n].key = key;
    w->cur[w->n].tid = packed;
    w->n++;
}

/* writer_add, counting entries for the progress view; a build checks for a cancel every 16k entries. */
void writer_add_counted(LeafWriter *w, uint64 key, uint64 packed, int64 *done) {
    writer_add(w, key, packed);
    if ((++*done & 0x3fff) == 0) {
        CHECK_FOR_INTERRUPTS();
        pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, *done);
    }
}

void writer_finish(LeafWriter *w) {
    if (!BufferIsValid(w->buf)) writer_new_page(w, 0);
    writer_flush(w);
    ReleaseBuffer(w->buf);
    w->buf = InvalidBuffer;
}

/* Slot i of the directory: the last leaf whose lo < (i << 48), else the leftmost. */
void fill_directory(Relation index, const ShxMetaPageData *meta, int part, const LeafWriter *w,
                    ForkNumber fork, Page *images) {
    int j = 0;
    for (uint32 d = 0; d < meta->dir_pages_per_part; d++) {
        BlockNumber dblk = meta->dir_start[part] + d;
        Buffer buf = InvalidBuffer;
        Page page;
        if (images) {
            page = images[dblk];
        } else {
            buf = ReadBufferExtended(index, fork, dblk, RBM_NORMAL, NULL);
            LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
            page = BufferGetPage(buf);
        }
        BlockNumber *slots = (BlockNumber *) PageGetContents(page);
        for (uint32 s = 0; s < meta->dir_slots_per_page; s++) {
            uint64 slot = (uint64) d * meta->dir_slots_per_page + s;
            if (slot >= SHX_DIR_SLOTS) break;
            uint64 sval = slot << (64 - SHX_DIR_BITS);
            while (j + 1 < w->npages && w->los[j + 1] < sval) j++;
            slots[s] = w->blks[j];
        }
        ((PageHeader) page)->pd_lower =
            SHX_CONTENT_OFFSET + meta->dir_slots_per_page * sizeof(BlockNumber);
        if (!images) {
            MarkBufferDirty(buf);
            UnlockReleaseBuffer(buf);
        }
    }
}

void init_meta(ShxMetaPageData *meta, int nparts) {
    memset(meta, 0, sizeof(*meta));
    meta->magic = SHX_MAGIC;
    meta->version = SHX_VERSION;
    meta->nparts = (uint16) nparts;
    meta->dirbits = SHX_DIR_BITS;
    meta->dir_slots_per_page = SHX_DIR_SLOTS_PER_PAGE;
    meta->dir_pages_per_part = (SHX_DIR_SLOTS + SHX_DIR_SLOTS_PER_PAGE - 1) / SHX_DIR_SLOTS_PER_PAGE;
    for (int p = 0; p < nparts; p++) meta->dir_start[p] = 1 + p * meta->dir_pages_per_part;
}

void write_meta(Page page, const ShxMetaPageData *meta) {
    shx_init_page(page, SHX_META, 0);
    memcpy(PageGetContents(page), meta, sizeof(*meta));
    ((PageHeader) page)->pd_lower = SHX_CONTENT_OFFSET + sizeof(ShxMetaPageData);
}

}  // namespace

IndexBuildResult *shx_build(Relation heap, Relation index, IndexInfo *indexInfo) {
    if (RelationGetNumberOfBlocks(index) != 0)
        elog(ERROR, "index \"%s\" already contains data", RelationGetRelationName(index));

    int nparts = shx_reloption_parts(index);
    int fillfactor = shx_reloption_fillfactor(index);
    ShxMetaPageData meta;
    init_meta(&meta, nparts);

    /*
     * Metapage and directory pages first: blocks 0 .. nparts * ndir.  The
     * metapage is written at the end; it is not kept locked meanwhile, since
     * a content lock would hold off a cancel for the whole build.
     */
    Buffer mbuf = shx_new_buffer(index);
    Assert(BufferGetBlockNumber(mbuf) == SHX_METAPAGE_BLKNO);
    shx_init_page(BufferGetPage(mbuf), SHX_META, 0);
    MarkBufferDirty(mbuf);
    UnlockReleaseBuffer(mbuf);
    for (int p = 0; p < nparts; p++)
        for (uint32 d = 0; d < meta.dir_pages_per_part; d++) {
            Buffer b = shx_new_buffer(index);
            shx_init_page(BufferGetPage(b), SHX_DIR, (uint16) p);
            MarkBufferDirty(b);
            UnlockReleaseBuffer(b);
        }

    BuildState bs;
    memset(&bs, 0, sizeof(bs));
    shx_fill_state(&bs.st, &meta);
    bs.maxitems = 1024;
    bs.items = (simhash::KeyTid *) MemoryContextAllocHuge(CurrentMemoryContext, bs.maxitems * sizeof(simhash::KeyTid));

    pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, SHX_BUILD_PHASE_SCAN);
    double reltuples = table_index_build_scan(heap, index, indexInfo, true, true, build_callback, &bs, NULL);

    pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, SHX_BUILD_PHASE_LOAD);
    pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_TOTAL, (int64) (bs.indtuples * nparts));
    int64 done = 0;

    Size limit = Max((Size) (SHX_LEAF_SPACE * fillfactor / 100), shx_packed_len(1, 1, 48));
    uint64 prev_rot = 0;
    for (int p = 0; p < nparts; p++) {
        LeafWriter w = LeafWriter();
        w.index = index;
        w.part = p;
        w.limit = limit;
        w.cur = (simhash::KeyTid *) palloc(sizeof(simhash::KeyTid) * SHX_MAX_LEAF_ENTRIES);
        w.buf = InvalidBuffer;
        w.maxpages = 64;
        w.los = (uint64 *) palloc(sizeof(uint64) * w.maxpages);
        w.blks = (BlockNumber *) palloc(sizeof(BlockNumber) * w.maxpages);

        if (bs.items != NULL) {
            int delta = (bs.st.rot[p] - (int) prev_rot + 64) & 63;
            for (Size i = 0; i < bs.nitems; i++) bs.items[i].key = simhash::rotl64(bs.items[i].key, delta);
            prev_rot = bs.st.rot[p];
            /*
             * Sorted a run of 4M entries (64 MB, about half a second) at a
             * time and merged while written: one sort of a whole gigabyte of
             * maintenance_work_mem would run seconds without a check for a
             * cancel.  Up to 4M rows there is one run and nothing to merge.
             */
            const uint64 run = UINT64CONST(1) << 22;
            for (uint64 i = 0; i < bs.nitems; i += run) {
                simhash::sort_key_tids(bs.items + i, Min(run, (uint64) bs.nitems - i));
                CHECK_FOR_INTERRUPTS();
            }
            uint64 *heap = (uint64 *) palloc(sizeof(uint64) * simhash::merge_heap_size(bs.nitems, run));
            simhash::RunMerge merge(bs.items, bs.nitems, run, heap);
            simhash::KeyTid item;
            while (merge.next(&item)) writer_add_counted(&w, item.key, item.tid, &done);
            pfree(heap);
        } else {
            shx_pair_sort_perform(&bs.sorts[p]);
            uint64 key, tid;
            while (shx_pair_sort_next(&bs.sorts[p], &key, &tid)) writer_add_counted(&w, key, tid, &done);
            shx_pair_sort_end(&bs.sorts[p]);
        }
        writer_finish(&w);
        meta.first_leaf[p] = w.blks[0];
        fill_directory(index, &meta, p, &w, MAIN_FORKNUM, NULL);
        pfree(w.los);
        pfree(w.blks);
        pfree(w.cur);
    }
    pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, done);
    if (bs.items) pfree(bs.items);

    mbuf = ReadBuffer(index, SHX_METAPAGE_BLKNO);
    LockBuffer(mbuf, BUFFER_LOCK_EXCLUSIVE);
    write_meta(BufferGetPage(mbuf), &meta);
    MarkBufferDirty(mbuf);
    UnlockReleaseBuffer(mbuf);

    if (RelationNeedsWAL(index))
        log_newpage_range(index, MAIN_FORKNUM, 0, RelationGetNumberOfBlocks(index), true);

    IndexBuildResult *result = (IndexBuildResult *) palloc(sizeof(IndexBuildResult));
    result->heap_tuples = reltuples;
    result->index_tuples = bs.indtuples;
    return result;
}

/* The init fork of an unlogged index: an empty index, written through smgr. */
void shx_buildempty(Relation index) {
    int nparts = shx_reloption_parts(index);
    ShxMetaPageData meta;
    init_meta(&meta, nparts);
    BlockNumber first = 1 + nparts * meta.dir_pages_per_part;
    BlockNumber nblocks = first + nparts;
    Page *images = (Page *) palloc(sizeof(Page) * nblocks);
    for (BlockNumber b = 0; b < nblocks; b++) images[b] = (Page) palloc0(BLCKSZ);
    for (int p = 0; p < nparts; p++) {
        for (uint32 d = 0; d < meta.dir_pages_per_part; d++)
            shx_init_page(images[meta.dir_start[p] + d], SHX_DIR, (uint16) p);
        meta.first_leaf[p] = first + p;
        shx_init_page(images[first + p], SHX_LEAF | SHX_LEFTMOST, (uint16) p);
        LeafWriter w = LeafWriter();
        uint64 lo = 0;
        BlockNumber blk = first + p;
        w.los = &lo;
        w.blks = &blk;
        w.npages = 1;
        fill_directory(index, &meta, p, &w, INIT_FORKNUM, images);
    }
    write_meta(images[0], &meta);
    SMgrRelation srel = RelationGetSmgr(index);
    for (BlockNumber b = 0; b < nblocks; b++) {
        compat_page_set_checksum(images[b], b);
        smgrextend(srel, INIT_FORKNUM, b, (char *) images[b], true);
        log_newpage(compat_smgr_file(srel), INIT_FORKNUM, b, images[b], true);
    }
    smgrimmedsync(srel, INIT_FORKNUM);
}
