/*
 * shx_insert.cpp: aminsert.  Each non-NULL fingerprint is appended to
 * the leaf of every partition whose key range covers its key, all in one
 * generic WAL record (shx_insert says why that is safe); a full leaf is
 * split in two (one generic WAL record for both pages), then the directory
 * slots that now belong to the right half are pointed at it (one record per
 * directory page; a crash in between leaves only stale, still-correct hints).
 */
#include "shx.h"

#include "mih_probe.hpp"

extern "C" {
#include "miscadmin.h"
#include "storage/predicate.h"
}

namespace {

void update_directory(Relation index, const ShxState *st, int part, BlockNumber oldblk, BlockNumber newblk,
                      uint64 sep, uint64 oldhi) {
    uint64 first = (sep >> (64 - SHX_DIR_BITS)) + 1;
    uint64 last = oldhi >> (64 - SHX_DIR_BITS);
    uint64 slot = first;
    while (slot <= last && slot < SHX_DIR_SLOTS) {
        uint32 d = (uint32) (slot / st->dir_slots_per_page);
        uint64 page_end = Min((uint64) (d + 1) * st->dir_slots_per_page - 1, last);
        BlockNumber dblk = st->dir_start[part] + d;
        Buffer buf = ReadBuffer(index, dblk);
        LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
        shx_check_page(index, BufferGetPage(buf), dblk, SHX_DIR);
        BlockNumber *slots = (BlockNumber *) PageGetContents(BufferGetPage(buf));
        bool any = false;
        for (uint64 s = slot; s <= page_end; s++)
            if (slots[s % st->dir_slots_per_page] == oldblk) any = true;
        if (any) {
            GenericXLogState *x = GenericXLogStart(index);
            Page page = GenericXLogRegisterBuffer(x, buf, 0);
            slots = (BlockNumber *) PageGetContents(page);
            for (uint64 s = slot; s <= page_end; s++)
                if (slots[s % st->dir_slots_per_page] == oldblk) slots[s % st->dir_slots_per_page] = newblk;
            GenericXLogFinish(x);
        }
        UnlockReleaseBuffer(buf);
        slot = page_end + 1;
    }
}

/*
 * Splits the full, exclusively locked leaf buf into itself (arr[0 .. mid))
 * and a new right page (arr[mid .. n)); releases buf.
 */
void split_leaf(Relation index, const ShxState *st, int part, Buffer buf, simhash::KeyTid *arr, int n, int mid) {
    Buffer nbuf = shx_new_buffer(index);
    BlockNumber oldblk = BufferGetBlockNumber(buf);
    BlockNumber newblk = BufferGetBlockNumber(nbuf);
    /*
     * At a group boundary the pages meet cleanly (SHX_HI_CLEAN); so they do
     * where the right page starts with the page's last key and holds only
     * it (split_point): the left page's hi stops below that key, which then
     * never lands on the left page again.
     */
    bool group_clean = simhash::key_group(arr[mid - 1].key) != simhash::key_group(arr[mid].key);
    bool key_clean = !group_clean && arr[mid - 1].key != arr[mid].key && arr[mid].key == arr[n - 1].key;
    bool clean = group_clean || key_clean;
    uint64 sep = group_clean ? simhash::last_key_before_group(arr[mid].key) : key_clean ? arr[mid].key - 1 : arr[mid].key;
    ShxPageOpaque old = *ShxPageGetOpaque(BufferGetPage(buf));
    TransactionId old_resume = ((PageHeader) BufferGetPage(buf))->pd_prune_xid; /* run_resume() */
    /* keys that move right keep the SERIALIZABLE readers' locks, as nbtree's _bt_split passes them on */
    PredicateLockPageSplit(index, oldblk, newblk);

    GenericXLogState *x = GenericXLogStart(index);
    Page left = GenericXLogRegisterBuffer(x, buf, GENERIC_XLOG_FULL_IMAGE);
    Page right = GenericXLogRegisterBuffer(x, nbuf, GENERIC_XLOG_FULL_IMAGE);
    shx_init_page(right, SHX_LEAF | (old.flags & SHX_HI_CLEAN), (uint16) part);
    ShxPageGetOpaque(right)->lo = sep;
    ShxPageGetOpaque(right)->hi = old.hi;
    ShxPageGetOpaque(right)->right = old.right;
    shx_init_page(left, (old.flags & ~SHX_HI_CLEAN) | (clean ? SHX_HI_CLEAN : 0), (uint16) part);
    ShxPageGetOpaque(left)->lo = old.lo;
    ShxPageGetOpaque(left)->hi = sep;
    ShxPageGetOpaque(left)->right = newblk;
    /*
     * A skip passes pages whose hi is the old page's hi.  The new right page
     * has that hi, so the skip stays with the left page if its hi does not
     * change, else moves to the right page.
     */
    Page keeps_hi = sep == old.hi ? left : right;
    ShxPageGetOpaque(keeps_hi)->skip = old.skip;
    /*
     * So does the place where the search along the run of keys equal to that
     * hi resumes (insert_along_run): lost at each split of the run's first
     * page, which follows every search that finds no room, searches began
     * again at the run's start and never reached the pages VACUUM emptied
     * further on.
     */
    ((PageHeader) keeps_hi)->pd_prune_xid = old_resume;
    shx_leaf_write_packed(left, arr, mid);
    shx_leaf_write_packed(right, arr + mid, n - mid);
    GenericXLogFinish(x);
    UnlockReleaseBuffer(nbuf);
    UnlockReleaseBuffer(buf);
    update_directory(index, st, part, oldblk, newblk, sep, old.hi);
}

/* Appends (key, tid) to the exclusively locked leaf buf, which has room; releases buf. */
void append_entry(Relation index, Buffer buf, uint64 key, ItemPointer tid) {
    shx_append_entries(index, &buf, &key, 1, tid);
    UnlockReleaseBuffer(buf);
}

/*
 * Where a full leaf of n sorted entries, key among them, splits: a page of
 * one key keeps its entries (the new page gets the new one), or as many as
 * pack into it; a key above
 * every other on the page (ascending inserts: counter values, a timestamp
 * in the fingerprint) leaves the left page filled to the index's fillfactor,
 * and one below every other the right page, as nbtree splits its rightmost
 * page, since such inserts never come back to refill the page they left
 * (halving left pages half empty: 1.7 to 1.9 times the size of a rebuilt
 * index); else halves, moved to the group boundary nearest the middle
 * within a quarter of the page either way: a group (all keys of one 16-bit
 * block value, what a probe reads) split across two pages costs its probes
 * a second page, and at 10M rows a group is a sixth of a page.  A cut that
 * would fall among the copies of the page's last key (usually its hi)
 * moves to where they start, and the left page then ends below that key
 * (split_leaf).  Such a page is the first of that key's run when the key is
 * stored very many times, and keys just below it share the page (near
 * copies of a popular text share its block value): cut among the copies,
 * each of their splits left the page's hi at the key with room for it
 * again, so the key's inserts filled the room at the run's front and never
 * went along the run to the pages VACUUM emptied, and the run grew with
 * every row written (34 leaves to 101 in a day's churn, 41 of
 * them empty).
 */
int split_point(Relation index, const simhash::KeyTid *arr, int n, uint64 key) {
    int mid;
    int keep = Max(1, n * (100 - shx_reloption_fillfactor(index)) / 100);
    if (arr[0].key == arr[n - 1].key) mid = n - 1;
    else if (key == arr[n - 1].key && arr[n - 2].key < key) mid = n - keep;
    else if (key == arr[0].key && arr[1].key > key) mid = keep;
    else mid = simhash::group_boundary_near(arr, n, n / 2, n / 4, n - n / 4);
    int last_copies = n - 1; /* where the copies of the last key start */
    while (last_copies > 0 && arr[last_copies - 1].key == arr[n - 1].key) last_copies--;
    if (last_copies > 0 && mid > last_copies) mid = last_copies;
    /*
     * Both halves must pack into a page.  A page's entries, once its tail is
     * merged in, may need more than the page: each tid of the tail can widen
     * every packed tid (tid_packing.hpp), so a page of one key keeps as many
     * as fit rather than all.
     */
    while (mid > 1 && shx_packed_size(arr, mid) > SHX_LEAF_SPACE) mid--;
    while (mid < n - 1 && shx_packed_size(arr + mid, n - mid) > SHX_LEAF_SPACE) mid++;
    if (shx_packed_size(arr, mid) > SHX_LEAF_SPACE || shx_packed_size(arr + mid, n - mid) > SHX_LEAF_SPACE)
        elog(ERROR, "simhash index: no split of %d entries fits two pages", n);
    return mid;
}

/*
 * Writes sorted arr[0..n) to the exclusively locked leaf buf, packed, when
 * that leaves a tenth of the page free (else the page is left alone and
 * the caller splits it or moves on); true when it wrote them.
 */
bool write_if_tenth_free(Relation index, Buffer buf, const simhash::KeyTid *arr, int n) {
    if (shx_packed_size(arr, n) > SHX_LEAF_SPACE * 9 / 10) return false;
    GenericXLogState *x = GenericXLogStart(index);
    shx_leaf_write_packed(GenericXLogRegisterBuffer(x, buf, GENERIC_XLOG_FULL_IMAGE), arr, n);
    GenericXLogFinish(x);
    return true;
}

/*
 * Re-packs the full, exclusively locked leaf buf when its entries packed
 * leave it a tenth free; true when it then has room for an entry.  The
 * pages of a run of one key after its first fill through their tail alone
 * (inserts go to the first page's right sibling and then split the first
 * page), 581 entries of 14 bytes where packed they take about 8 bytes.
 */
bool repack_if_roomier(Relation index, Buffer buf) {
    simhash::KeyTid *arr = (simhash::KeyTid *) palloc(sizeof(simhash::KeyTid) * SHX_MAX_LEAF_ENTRIES);
    int n = shx_leaf_decode(index, BufferGetPage(buf), BufferGetBlockNumber(buf), arr, NULL);
    simhash::sort_key_tids(arr, (uint64) n);
    bool roomier = write_if_tenth_free(index, buf, arr, n);
    pfree(arr);
    return roomier && shx_leaf_has_room(buf);
}

/* Pages of a run of one key an insert looks along for room before the run grows. */
#define SHX_RUN_LOOK 32

/* Is the locked page one of partition part's pages of key alone, where key may go? */
bool is_run_page(Page page, int part, uint64 key) {
    const ShxPageOpaque *op = ShxPageGetOpaque(page);
    return !PageIsNew(page) && PageGetSpecialSize(page) == MAXALIGN(sizeof(ShxPageOpaque)) &&
           op->page_id == SHX_PAGE_ID && (op->flags & SHX_LEAF) && op->part == part && op->lo == key &&
           op->hi == key && !(op->flags & SHX_HI_CLEAN);
}

/*
 * The page of its run where the last search for room stopped, kept in the
 * run's first page (shx.h): 0 for none.  A hint only; it is checked where
 * it is used.
 */
BlockNumber run_resume(Page first) { return (BlockNumber) ((PageHeader) first)->pd_prune_xid; }

/*
 * Records resume in the run's first page, block first, if it is still the
 * first page of key's run in partition part.  The caller holds no lock.
 */
void set_run_resume(Relation index, BlockNumber first, int part, uint64 key, BlockNumber resume) {
    Buffer buf = shx_read_page(index, first);
    LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
    Page page = BufferGetPage(buf);
    shx_check_page(index, page, first, SHX_LEAF);
    const ShxPageOpaque *op = ShxPageGetOpaque(page);
    if (op->part == part && op->hi == key && run_resume(page) != resume) {
        GenericXLogState *x = GenericXLogStart(index);
        Page p = GenericXLogRegisterBuffer(x, buf, 0);
        ((PageHeader) p)->pd_prune_xid = (TransactionId) resume;
        GenericXLogFinish(x);
    }
    UnlockReleaseBuffer(buf);
}

/*
 * Puts (key, tid) on a page of key's run (pages holding key alone) with room,
 * looking at up to SHX_RUN_LOOK pages from start, going on from run_start
 * (the run's third page) once when it reaches the run's end; true when it
 * did.  Sets *resume to where the next search should start: the page that
 * had room, the page after the last one it looked at, or 0 (the run's
 * start).  Without it a run under churn (a notification
 * stored every minute, deleted after a month) grew for ever: inserts fill
 * the pages at its start, split there, and never come back to the pages
 * VACUUM empties further along.  Any page of the run may hold the key (its
 * lo and hi are the key), and scans of the key read the whole run.  Holds
 * no other lock; takes one page at a time.
 */
bool insert_along_run(Relation index, int part, uint64 key, ItemPointer tid, BlockNumber start, BlockNumber run_start,
                      BlockNumber *resume) {
    BlockNumber blk = start;
    bool wrapped = start == run_start;
    for (int step = 0; step < SHX_RUN_LOOK; step++) {
        CHECK_FOR_INTERRUPTS();
        /*
         * The end of the partition's chain ends a run as a page of another
         * key does: the run of the largest key (all ones, in every rotation)
         * ends there, and stopping instead split the run's first page at the
         * end of every pass while VACUUM emptied its pages.
         */
        Buffer buf = InvalidBuffer;
        Page page = NULL;
        if (blk != InvalidBlockNumber) {
            buf = shx_read_page(index, blk);
            LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
            page = BufferGetPage(buf);
        }
        if (page == NULL || !is_run_page(page, part, key)) {
            /* the run ends here (or the hint was stale): go on from its start, once */
            if (BufferIsValid(buf)) UnlockReleaseBuffer(buf);
            if (wrapped) {
                *resume = 0;
                return false;
            }
            wrapped = true;
            blk = run_start;
            continue;
        }
        /* no re-pack here: while a run only grows its pages are full, and re-packing each costs a sort */
        if (shx_leaf_has_room(buf)) {
            CheckForSerializableConflictIn(index, NULL, blk);
            *resume = blk;
            append_entry(index, buf, key, tid);
            return true;
        }
        BlockNumber next = ShxPageGetOpaque(page)->right;
        UnlockReleaseBuffer(buf);
        if (next == blk) break;
        blk = next;
    }
    /* full as far as it looked: the run grows, and the next search goes on from here */
    *resume = blk == InvalidBlockNumber ? 0 : blk;
    return false;
}

/*
 * The first leaf that may hold key, exclusively locked; InvalidBuffer when
 * it had room and (key, tid) went there.
 */
Buffer full_leaf_for(Relation index, const ShxState *st, int part, uint64 key, ItemPointer tid) {
    Buffer buf = shx_find_leaf(index, st, part, key, BUFFER_LOCK_EXCLUSIVE);
    CheckForSerializableConflictIn(index, NULL, BufferGetBlockNumber(buf));
    if (!shx_leaf_has_room(buf)) return buf;
    append_entry(index, buf, key, tid);
    return InvalidBuffer;
}

/*
 * Inserts into the first leaf that may hold key.  When it is full and key is
 * its hi, equal keys may continue on the right sibling, which is tried while
 * the full page stays locked (left to right, the order every backend locks
 * neighbours in).  If that one is a full page of key alone, the run goes on
 * and the pages after it are tried (insert_along_run).  Else the first page
 * is split: a page of one key only keeps its entries and the new page
 * between it and its sibling starts with one, so inserts of a key stored
 * many times (the same short text in a million rows) touch at most two pages
 * while the run grows and leave the run's pages full (the sibling is
 * re-packed before the first page is split).
 */
void insert_entry(Relation index, const ShxState *st, int part, uint64 key, ItemPointer tid) {
    Buffer buf = full_leaf_for(index, st, part, key, tid);
    if (!BufferIsValid(buf)) return;
    Page page = BufferGetPage(buf);
    ShxPageOpaque *op = ShxPageGetOpaque(page);
    if (op->hi == key && op->right != InvalidBlockNumber && !(op->flags & SHX_HI_CLEAN)) {
        BlockNumber next = op->right;
        if (next == BufferGetBlockNumber(buf)) /* locking it again would wait for ourselves */
            ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
                            errmsg("index \"%s\" page %u links to itself", RelationGetRelationName(index), next)));
        Buffer rbuf = shx_read_page(index, next);
        LockBuffer(rbuf, BUFFER_LOCK_EXCLUSIVE);
        shx_check_page(index, BufferGetPage(rbuf), next, SHX_LEAF);
        shx_check_right_step(index, BufferGetPage(rbuf), BufferGetBlockNumber(buf), op->hi, next);
        if (shx_leaf_has_room(rbuf) || repack_if_roomier(index, rbuf)) {
            CheckForSerializableConflictIn(index, NULL, next);
            UnlockReleaseBuffer(buf);
            append_entry(index, rbuf, key, tid);
            return;
        }
        BlockNumber after = ShxPageGetOpaque(BufferGetPage(rbuf))->right;
        bool run = is_run_page(BufferGetPage(rbuf), part, key);
        UnlockReleaseBuffer(rbuf);
        if (run) {
            BlockNumber first = BufferGetBlockNumber(buf);
            BlockNumber hint = run_resume(page);
            UnlockReleaseBuffer(buf);
            BlockNumber resume;
            bool done = insert_along_run(index, part, key, tid, hint != 0 ? hint : after, after, &resume);
            if (resume != hint) set_run_resume(index, first, part, key, resume);
            if (done) return;
            /* the run is full as far as it looked: split its first page, as found again */
            buf = full_leaf_for(index, st, part, key, tid);
            if (!BufferIsValid(buf)) return;
            page = BufferGetPage(buf);
        }
    }
    /* full: re-pack the page if that frees a tenth of it, else split it */
    simhash::KeyTid *arr = (simhash::KeyTid *) palloc(sizeof(simhash::KeyTid) * (SHX_MAX_LEAF_ENTRIES + 1));
    int n = shx_leaf_decode(index, page, BufferGetBlockNumber(buf), arr, NULL);
    arr[n].key = key;
    arr[n].tid = shx_pack_tid(tid);
    n++;
    simhash::sort_key_tids(arr, (uint64) n);
    if (write_if_tenth_free(index, buf, arr, n)) UnlockReleaseBuffer(buf);
    else split_leaf(index, st, part, buf, arr, n, split_point(index, arr, n, key));
    pfree(arr);
}

}  // namespace

/*
 * The partitions' entries go in together: every leaf that has room is
 * locked first, in partition order, and all of them are changed in one
 * generic WAL record of up to MAX_GENERIC_XLOG_PAGES pages (one record per
 * row instead of one per partition: a fifth less CPU per row), built
 * without comparing pages (shx_append.cpp).  Locks
 * are taken partition by partition, and within a partition left to right,
 * which is the order every other lock holder follows (scans and VACUUM hold
 * one page at a time), so holding a lower partition's leaf while walking a
 * higher one cannot deadlock.  A full leaf is let go at once and handled afterwards,
 * alone, by insert_entry (re-pack or split), with no other leaf held.
 */
bool shx_insert(Relation index, Datum *values, bool *isnull, ItemPointer ht_ctid, Relation heapRel,
                IndexUniqueCheck checkUnique, bool indexUnchanged, IndexInfo *indexInfo) {
    if (isnull[0]) return false;
    const ShxState *st = shx_get_state(index);
    uint64 fp = DatumGetSimhash(values[0]);
    for (int first = 0; first < st->nparts; first += MAX_GENERIC_XLOG_PAGES) {
        int last = Min(st->nparts, first + MAX_GENERIC_XLOG_PAGES);
        Buffer held[MAX_GENERIC_XLOG_PAGES];
        uint64 held_key[MAX_GENERIC_XLOG_PAGES];
        int full[MAX_GENERIC_XLOG_PAGES];
        int nheld = 0, nfull = 0;
        for (int p = first; p < last; p++) {
            uint64 key = simhash::rotl64(fp, st->rot[p]);
            Buffer buf = shx_find_leaf(index, st, p, key, BUFFER_LOCK_EXCLUSIVE);
            if (shx_leaf_has_room(buf)) {
                /* a SERIALIZABLE reader of this leaf read where the key goes: 40001 for one of the two */
                CheckForSerializableConflictIn(index, NULL, BufferGetBlockNumber(buf));
                held[nheld] = buf;
                held_key[nheld++] = key;
            } else {
                UnlockReleaseBuffer(buf);
                full[nfull++] = p;
            }
        }
        if (nheld > 0) {
            shx_append_entries(index, held, held_key, nheld, ht_ctid);
            for (int i = 0; i < nheld; i++) UnlockReleaseBuffer(held[i]);
        }
        for (int i = 0; i < nfull; i++)
            insert_entry(index, st, full[i], simhash::rotl64(fp, st->rot[full[i]]), ht_ctid);
    }
    return false;
}
