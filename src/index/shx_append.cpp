/*
 * shx_append.cpp: appending one row's entries to leaves, with their WAL.
 *
 * An insert appends 14 bytes to the tail of up to four leaves.  Through the
 * generic WAL API that costs, per page, a copy of the whole page and a
 * byte-by-byte comparison of its used part with the copy to find the
 * change, plus a 64 kB work area: 60% of the index's CPU per
 * inserted row, although we know exactly which bytes change.  So the
 * record is built here directly, in
 * generic WAL's own record format (resource manager "Generic", one block
 * reference per page, each with a delta of fragments {uint16 offset, uint16
 * length, bytes}; access/transam/generic_xlog.c): PostgreSQL's generic redo
 * replays it, on a standby and after a crash, as it replays the records
 * of GenericXLogFinish (which would log only the bytes of pd_lower that
 * changed, where this logs both), so no library needs preloading and
 * nothing changes for a standby.  The page is changed in place in a critical
 * section, as nbtree changes its pages.
 *
 * The format has not changed since generic WAL appeared (9.6); every major
 * the test command runs checks it, replaying under wal_consistency_checking
 * = generic (test/t/020_index_wal.pl).
 */
#include "shx.h"

extern "C" {
#include "access/rmgr.h"
#include "access/xloginsert.h"
#include "miscadmin.h"
}

namespace {

/* A page's delta: the new pd_lower and the appended entry, two fragments. */
constexpr Size FRAGMENT_HEADER = 2 * sizeof(uint16);
constexpr Size APPEND_DELTA = FRAGMENT_HEADER + sizeof(LocationIndex) + FRAGMENT_HEADER + SHX_TAIL_ENTRY;

char *put_fragment(char *out, Size offset, Size length, const void *bytes) {
    uint16 o = (uint16) offset, l = (uint16) length;
    memcpy(out, &o, sizeof(o));
    memcpy(out + sizeof(o), &l, sizeof(l));
    memcpy(out + FRAGMENT_HEADER, bytes, length);
    return out + FRAGMENT_HEADER + length;
}

}  // namespace

bool shx_leaf_has_room(Buffer buf) { return shx_page_has_tail_room(BufferGetPage(buf)); }

void shx_append_entries(Relation index, const Buffer *bufs, const uint64 *keys, int n, ItemPointer tid) {
    /* checked before the critical section: an error inside one is a PANIC */
    if (n < 1 || n > MAX_GENERIC_XLOG_PAGES)
        elog(ERROR, "simhash index \"%s\": %d pages in one WAL record", RelationGetRelationName(index), n);
    for (int i = 0; i < n; i++)
        if (!shx_leaf_has_room(bufs[i]))
            elog(ERROR, "simhash index \"%s\": no room on a leaf checked for room", RelationGetRelationName(index));
    char delta[MAX_GENERIC_XLOG_PAGES][APPEND_DELTA];
    START_CRIT_SECTION();
    for (int i = 0; i < n; i++) {
        Page page = BufferGetPage(bufs[i]);
        PageHeader ph = (PageHeader) page;
        LocationIndex at = ph->pd_lower;
        shx_leaf_append(page, keys[i], tid);
        char *d = put_fragment(delta[i], offsetof(PageHeaderData, pd_lower), sizeof(LocationIndex), &ph->pd_lower);
        put_fragment(d, at, SHX_TAIL_ENTRY, (char *) page + at);
        MarkBufferDirty(bufs[i]);
    }
    if (RelationNeedsWAL(index)) {
        XLogBeginInsert();
        for (int i = 0; i < n; i++) {
            XLogRegisterBuffer((uint8) i, bufs[i], REGBUF_STANDARD);
            XLogRegisterBufData((uint8) i, delta[i], APPEND_DELTA);
        }
        XLogRecPtr lsn = XLogInsert(RM_GENERIC_ID, 0);
        for (int i = 0; i < n; i++) PageSetLSN(BufferGetPage(bufs[i]), lsn);
    }
    END_CRIT_SECTION();
}
