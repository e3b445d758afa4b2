/*
 * shx_leaf.cpp: the contents of a leaf page (see shx.h): a packed region of
 * sorted groups of 12-byte entries sharing their top 16 key bits, then a
 * tail of 14-byte entries that inserts append.
 */
#include "shx.h"

static inline void put48(char *p, uint64 v) {
    unsigned char *b = (unsigned char *) p;
    for (int i = 0; i < 6; i++) b[i] = (unsigned char) (v >> (8 * i));
}
static inline void put16(char *p, uint16 v) {
    unsigned char *b = (unsigned char *) p;
    b[0] = (unsigned char) v;
    b[1] = (unsigned char) (v >> 8);
}

/* Every entry of the page into out[] (room for SHI_MAX_LEAF_ENTRIES); returns the count. */
int shi_leaf_decode(Page page, simhash::KeyTid *out) {
    int n = 0;
    shi_leaf_foreach(page, [&](uint64 key, ItemPointer tid) {
        if (n < SHI_MAX_LEAF_ENTRIES) {
            out[n].key = key;
            out[n].tid = shi_pack_tid(tid);
            n++;
        }
    });
    return n;
}

/* Bytes the grouped encoding of sorted a[0..n) takes. */
static Size grouped_size(const simhash::KeyTid *a, int n) {
    Size size = 0;
    int run = 0;
    for (int i = 0; i < n; i++) {
        if (i == 0 || (a[i].key >> 48) != (a[i - 1].key >> 48) || run == PG_UINT16_MAX) {
            size += SHI_GROUP_HEADER;
            run = 0;
        }
        size += SHI_PACKED_ENTRY;
        run++;
    }
    return size;
}

/*
 * Bytes sorted a[0..n) takes on a page: grouped, or as plain 14-byte entries
 * when groups would be too small to pay for their headers (small tables).
 */
Size shi_packed_size(const simhash::KeyTid *a, int n) {
    return Min(grouped_size(a, n), (Size) n * SHI_TAIL_ENTRY);
}

/* Replaces the page's entries with the encoding of sorted a[0..n) (which must fit). */
void shi_leaf_write_packed(Page page, const simhash::KeyTid *a, int n) {
    char *base = (char *) page + SHI_CONTENT_OFFSET;
    if (grouped_size(a, n) > (Size) n * SHI_TAIL_ENTRY) {
        ShiPageGetOpaque(page)->packed_len = 0;
        ((PageHeader) page)->pd_lower = SHI_CONTENT_OFFSET;
        for (int i = 0; i < n; i++) {
            ItemPointerData tid;
            shi_unpack_tid(a[i].tid, &tid);
            shi_leaf_append(page, a[i].key, &tid);
        }
        return;
    }
    char *p = base;
    char *group = NULL;
    int run = 0;
    for (int i = 0; i < n; i++) {
        if (i == 0 || (a[i].key >> 48) != (a[i - 1].key >> 48) || run == PG_UINT16_MAX) {
            group = p;
            put16(group, (uint16) (a[i].key >> 48));
            put16(group + 2, 0);
            p += SHI_GROUP_HEADER;
            run = 0;
        }
        put48(p, a[i].key);
        ItemPointerData tid;
        shi_unpack_tid(a[i].tid, &tid);
        memcpy(p + 6, &tid, sizeof(tid));
        p += SHI_PACKED_ENTRY;
        run++;
        put16(group + 2, (uint16) run);
    }
    Assert((Size) (p - base) <= SHI_LEAF_SPACE);
    ShiPageGetOpaque(page)->packed_len = (uint16) (p - base);
    ((PageHeader) page)->pd_lower = (LocationIndex) (SHI_CONTENT_OFFSET + (p - base));
}

/* Appends (key, tid) to the tail; false when the page has no room. */
bool shi_leaf_append(Page page, uint64 key, ItemPointer tid) {
    PageHeader ph = (PageHeader) page;
    if (ph->pd_lower + SHI_TAIL_ENTRY > ph->pd_upper) return false;
    char *p = (char *) page + ph->pd_lower;
    memcpy(p, &key, sizeof(key));
    memcpy(p + sizeof(uint64), tid, sizeof(ItemPointerData));
    ph->pd_lower += SHI_TAIL_ENTRY;
    return true;
}

/* Do the packed region's groups and the tail add up exactly to pd_lower? */
bool shi_leaf_layout_ok(Page page) {
    Size packed = ShiPageGetOpaque(page)->packed_len;
    Size used = ((PageHeader) page)->pd_lower - SHI_CONTENT_OFFSET;
    if (((PageHeader) page)->pd_lower < SHI_CONTENT_OFFSET || packed > used || (used - packed) % SHI_TAIL_ENTRY != 0)
        return false;
    const char *p = (const char *) page + SHI_CONTENT_OFFSET;
    const char *pend = p + packed;
    while (p < pend) {
        if (p + SHI_GROUP_HEADER > pend) return false;
        int count = shi_get16(p + 2);
        if (count == 0) return false;
        p += SHI_GROUP_HEADER + (Size) count * SHI_PACKED_ENTRY;
    }
    return p == pend;
}
