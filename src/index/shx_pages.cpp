/*
 * shx_pages.cpp: page initialisation, the cached metapage state, the
 * directory and the Lehman-Yao leaf search shared by insert, scan and vacuum.
 */
#include "shx.h"

#include "blocks.hpp"
#include "mih_probe.hpp"

extern "C" {
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"
}

void shx_init_page(Page page, uint16 flags, uint16 part) {
    PageInit(page, BLCKSZ, sizeof(ShxPageOpaque));
    ShxPageOpaque *op = ShxPageGetOpaque(page);
    op->lo = 0;
    op->hi = PG_UINT64_MAX;
    op->right = InvalidBlockNumber;
    op->flags = flags;
    op->part = part;
    op->packed_len = 0;
    op->page_id = SHX_PAGE_ID;
}

void shx_fill_state(ShxState *st, const ShxMetaPageData *meta) {
    simhash::BlockLayout layout;
    if (!simhash::make_block_layout(meta->nparts, &layout))
        elog(ERROR, "simhash index: invalid number of blocks %d", (int) meta->nparts);
    st->nparts = meta->nparts;
    st->dir_slots_per_page = meta->dir_slots_per_page;
    for (int p = 0; p < st->nparts; p++) {
        st->width[p] = layout.width[p];
        st->rot[p] = simhash::partition_rotation(layout, p);
        st->dir_start[p] = meta->dir_start[p];
        st->first_leaf[p] = meta->first_leaf[p];
        st->mask[p] = layout.mask(p);
    }
}

/*
 * Raises an error unless the page is an initialised simhash page of a kind
 * in expect_flags; a leaf's lengths must also lie inside it.
 */
void shx_check_page(Relation index, Page page, BlockNumber blkno, uint16 expect_flags) {
    if (PageIsNew(page) || PageGetSpecialSize(page) != MAXALIGN(sizeof(ShxPageOpaque)) ||
        ShxPageGetOpaque(page)->page_id != SHX_PAGE_ID ||
        (ShxPageGetOpaque(page)->flags & expect_flags) == 0)
        ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
                        errmsg("index \"%s\" contains unexpected page %u",
                               RelationGetRelationName(index), blkno)));
    if ((ShxPageGetOpaque(page)->flags & SHX_LEAF) &&
        (((PageHeader) page)->pd_lower > ((PageHeader) page)->pd_upper ||
         ((PageHeader) page)->pd_upper > ((PageHeader) page)->pd_special ||
         SHX_CONTENT_OFFSET + ShxPageGetOpaque(page)->packed_len > ((PageHeader) page)->pd_lower))
        ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
                        errmsg("index \"%s\" page %u has a bad layout (pd_lower %u, pd_upper %u, packed length %u)",
                               RelationGetRelationName(index), blkno, (unsigned) ((PageHeader) page)->pd_lower,
                               (unsigned) ((PageHeader) page)->pd_upper, (unsigned) ShxPageGetOpaque(page)->packed_len)));
}

/*
 * Raises an error unless leaf blkno, reached through the right link of leaf
 * from whose hi was from_hi, starts where that one ended.  A page's lo never
 * changes and a split gives the new right page the left page's old hi, so
 * this holds under any concurrent split; a link back to the same page or to
 * the left breaks it, and would otherwise send the walk round for ever.
 */
void shx_check_right_step(Relation index, Page page, BlockNumber from, uint64 from_hi, BlockNumber blkno) {
    if (blkno == from || ShxPageGetOpaque(page)->lo != from_hi)
        ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
                        errmsg("index \"%s\" page %u links to page %u, which does not start where it ends",
                               RelationGetRelationName(index), from, blkno)));
}

#define SHX_STATE_CONTEXT "simhash index state"

/*
 * The state lives in a context of its own under rd_indexcxt, with the walk
 * starts it collects.  A relcache reload of an open index (another session's
 * ANALYZE, say) pfrees rd_amcache alone and keeps rd_indexcxt, so the hints
 * block used to be left behind at every reload (196 kB each, megabytes
 * over a long INSERT); when rd_amcache is found empty, whatever context an
 * earlier state left is dropped.
 */
static void drop_orphaned_state(Relation index) {
    MemoryContext c = index->rd_indexcxt->firstchild;
    while (c != NULL) {
        MemoryContext next = c->nextchild;
        if (strcmp(c->name, SHX_STATE_CONTEXT) == 0) MemoryContextDelete(c);
        c = next;
    }
}

const ShxState *shx_readable_state(Relation index, uint32 *old_version) {
    *old_version = 0;
    if (index->rd_amcache == NULL) {
        Buffer buf = ReadBuffer(index, SHX_METAPAGE_BLKNO);
        LockBuffer(buf, BUFFER_LOCK_SHARE);
        Page page = BufferGetPage(buf);
        shx_check_page(index, page, SHX_METAPAGE_BLKNO, SHX_META);
        ShxMetaPageData *meta = (ShxMetaPageData *) PageGetContents(page);
        if (meta->magic == SHX_MAGIC && meta->version < SHX_VERSION) {
            *old_version = meta->version;
            UnlockReleaseBuffer(buf);
            return NULL;
        }
        if (meta->magic != SHX_MAGIC || meta->version != SHX_VERSION)
            ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
                            errmsg("index \"%s\" has a bad metapage (magic %x, version %u)",
                                   RelationGetRelationName(index), meta->magic, meta->version)));
        ShxMetaPageData copy = *meta;
        UnlockReleaseBuffer(buf);
        drop_orphaned_state(index);
        MemoryContext cxt = AllocSetContextCreate(index->rd_indexcxt, SHX_STATE_CONTEXT, ALLOCSET_SMALL_SIZES);
        ShxState *st = (ShxState *) MemoryContextAllocZero(cxt, sizeof(ShxState));
        shx_fill_state(st, &copy);
        st->cxt = cxt;
        index->rd_amcache = st;
    }
    return (const ShxState *) index->rd_amcache;
}

const ShxState *shx_get_state(Relation index) {
    uint32 version;
    const ShxState *st = shx_readable_state(index, &version);
    if (st == NULL)
        /* as GIN does for its old page format */
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("index \"%s\" has on-disk version %u, which this simhash build no longer reads",
                               RelationGetRelationName(index), version),
                        errhint("To fix this, do REINDEX INDEX \"%s\".", RelationGetRelationName(index))));
    return st;
}

/* A new page at the end of the relation, pinned and exclusively locked. */
Buffer shx_new_buffer(Relation index) {
    bool needLock = !RELATION_IS_LOCAL(index);
    if (needLock) LockRelationForExtension(index, ExclusiveLock);
    Buffer buf = ReadBuffer(index, P_NEW);
    LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
    if (needLock) UnlockRelationForExtension(index, ExclusiveLock);
    return buf;
}

/*
 * Where a walk for key in partition part starts: a leaf an earlier walk of
 * this backend passed in the key's slot, with lo < key (shx_hints.cpp),
 * else the directory's leaf for the slot, with lo < slot value (or the
 * leftmost).  With keep, the directory page stays pinned in *keep
 * (InvalidBuffer at first; the caller releases it) for the next lookup, which
 * a scan probing hundreds of sorted block values usually makes on the same
 * page.
 */
BlockNumber shx_dir_lookup(Relation index, const ShxState *st, int part, uint64 key, Buffer *keep) {
    /* nearer than the directory's leaf when an earlier walk through this slot left one */
    BlockNumber hint = shx_hint_lookup(index, part, key);
    if (hint != InvalidBlockNumber) return hint;
    uint32 slot = (uint32) (key >> (64 - SHX_DIR_BITS));
    BlockNumber dblk = st->dir_start[part] + slot / st->dir_slots_per_page;
    Buffer buf;
    if (keep != nullptr && BufferIsValid(*keep) && BufferGetBlockNumber(*keep) == dblk) {
        buf = *keep;
    } else {
        if (keep != nullptr && BufferIsValid(*keep)) ReleaseBuffer(*keep);
        buf = shx_read_page(index, dblk);
        if (keep != nullptr) *keep = buf;
    }
    LockBuffer(buf, BUFFER_LOCK_SHARE);
    Page page = BufferGetPage(buf);
    shx_check_page(index, page, dblk, SHX_DIR);
    BlockNumber leaf = ((BlockNumber *) PageGetContents(page))[slot % st->dir_slots_per_page];
    LockBuffer(buf, BUFFER_LOCK_UNLOCK);
    if (keep == nullptr) ReleaseBuffer(buf);
    if (leaf == InvalidBlockNumber || leaf == 0) leaf = st->first_leaf[part];
    return leaf;
}


/* Pages of one hi an inserter passes before it records a skip over them. */
#define SHX_SKIP_AFTER 8

/*
 * Records on leaf from, if its hi is still hi, that target is the first page
 * to its right with a larger hi.  The caller holds no lock (from is left of
 * where it stands, and locks are taken left to right).
 */
static void record_skip(Relation index, BlockNumber from, uint64 hi, BlockNumber target) {
    Buffer buf = ReadBuffer(index, from);
    LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
    Page page = BufferGetPage(buf);
    shx_check_page(index, page, from, SHX_LEAF);
    if (ShxPageGetOpaque(page)->hi == hi && ShxPageGetOpaque(page)->skip != target) {
        GenericXLogState *x = GenericXLogStart(index);
        Page p = GenericXLogRegisterBuffer(x, buf, 0);
        ShxPageGetOpaque(p)->skip = target;
        GenericXLogFinish(x);
    }
    UnlockReleaseBuffer(buf);
}

/*
 * The first leaf of the partition whose hi >= key, pinned and locked in
 * lockmode: starts at the directory hint and moves right (Lehman-Yao).  It
 * moves right under share locks, as nbtree does, and takes an exclusive lock
 * only on the hint and on the page it stops at.
 *
 * Skew can put many pages between the hint and that page: a fingerprint
 * stored a million times fills a run of pages whose lo and hi are all its
 * key, and every key after it in the same 16-bit directory slot lies beyond
 * them.  So an inserter that passes SHX_SKIP_AFTER or more pages with one hi
 * records, on the first of them, the page after them (ShxPageOpaque.skip),
 * and walks jump there.  A skip stays right: pages between the two can only
 * come from splits of pages whose keys all equal that hi, which give pages
 * with the same hi, and a split of the first page re-initialises it and so
 * drops the skip.  The jump lands on a page whose lo is that hi, as a move
 * right does (shx_check_right_step).
 */
Buffer shx_find_leaf(Relation index, const ShxState *st, int part, uint64 key, int lockmode) {
    BlockNumber blk = shx_dir_lookup(index, st, part, key);
    Buffer buf = shx_read_page(index, blk);
    int held = lockmode; /* the hint is usually the page: lock it as the caller wants */
    compat_lock_buffer(buf, held);
    BlockNumber from = InvalidBlockNumber;
    uint64 from_hi = 0;
    /* the stretch of pages sharing one hi that the walk is in */
    BlockNumber run_first = InvalidBlockNumber, run_skip = 0;
    uint64 run_hi = 0;
    int run_len = 0;
    bool arrived = true;
    int steps = 0; /* pages moved right */
    for (;;) {
        Page page = BufferGetPage(buf);
        shx_check_page(index, page, blk, SHX_LEAF);
        if (from != InvalidBlockNumber) shx_check_right_step(index, page, from, from_hi, blk);
        ShxPageOpaque *op = ShxPageGetOpaque(page);
        if (arrived) {
            arrived = false;
            /*
             * A long walk inside the key's directory slot leaves starts for
             * the next ones (shx_hints.cpp); not inside a run of one key,
             * which only its first page's skip passes quickly.
             */
            shx_hint_passed(index, part, key, op, blk, steps);
            if (run_first != InvalidBlockNumber && op->hi == run_hi) {
                run_len++;
            } else {
                if (lockmode == BUFFER_LOCK_EXCLUSIVE && run_len >= SHX_SKIP_AFTER && run_skip != blk) {
                    LockBuffer(buf, BUFFER_LOCK_UNLOCK);
                    record_skip(index, run_first, run_hi, blk);
                    held = BUFFER_LOCK_SHARE;
                    compat_lock_buffer(buf, held);
                    run_first = InvalidBlockNumber;
                    run_len = 0;
                    arrived = true; /* look at this page again: it was unlocked */
                    continue;
                }
                run_first = blk;
                run_hi = op->hi;
                run_skip = op->skip;
                run_len = 1;
            }
        }
        if (op->hi >= key || op->right == InvalidBlockNumber) {
            if (held == lockmode) return buf;
            LockBuffer(buf, BUFFER_LOCK_UNLOCK);
            compat_lock_buffer(buf, lockmode);
            held = lockmode;
            continue; /* check the page again under the lock the caller wants */
        }
        from = blk;
        from_hi = op->hi;
        blk = shx_next_leaf_past(op, blk);
        shx_hint_leaving(index, part, key, op, blk);
        LockBuffer(buf, BUFFER_LOCK_UNLOCK);
        ReleaseBuffer(buf);
        /*
         * Between pages, with no lock of this walk held: a buffer lock holds
         * interrupts off, so a check after the next LockBuffer did nothing.
         * An inserter walking a later partition still holds
         * its earlier partitions' leaves, and so cannot be cancelled here.
         */
        CHECK_FOR_INTERRUPTS();
        buf = shx_read_page(index, blk);
        held = BUFFER_LOCK_SHARE;
        compat_lock_buffer(buf, held);
        arrived = true;
        steps++;
    }
}
