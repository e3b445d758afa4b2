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

/*
 * The scans' inner loop.  Hamming distance does not change when both
 * operands are rotated alike, so entries are compared in key form against
 * the query rotated into the partition's key order: a group's shared 16-bit
 * prefix contributes once per group (a group whose prefix alone is farther
 * than cap is skipped whole), an entry costs one 48-bit load, one xor and one
 * popcount.  On x86-64 the function is also compiled for the POPCNT
 * instruction and the dynamic loader picks that version on CPUs that have it
 * (a plain build calls a software popcount, about a third of a KNN scan).
 * Returns -1 for a page whose groups overrun its packed region.
 */
SHI_POPCNT_CLONES
int shi_leaf_near_entries(Page page, uint64 lo, uint64 hi, uint64 qkey, int cap, ShiNearEntry *out) {
    int n = 0;
    const char *p = (const char *) page + SHI_CONTENT_OFFSET;
    const char *pend = p + ShiPageGetOpaque(page)->packed_len;
    uint16 glo = (uint16) (lo >> 48), ghi = (uint16) (hi >> 48);
    uint64 qlow = qkey & UINT64CONST(0xFFFFFFFFFFFF);
    while (p + SHI_GROUP_HEADER <= pend) {
        uint16 prefix = shi_get16(p);
        int count = shi_get16(p + 2);
        p += SHI_GROUP_HEADER;
        const char *gend = p + (Size) count * SHI_PACKED_ENTRY;
        if (gend > pend) return -1; /* a group count that overruns the packed region */
        int dtop = __builtin_popcount((uint32) (prefix ^ (uint16) (qkey >> 48)));
        if (prefix < glo || prefix > ghi || dtop > cap) {
            p = gend;
            continue;
        }
        /*
         * A group at 10M rows is ~150 entries, 1.8 kB: asking for all its
         * cache lines at once overlaps their misses, where the scan alone
         * would wait for the hardware prefetcher to catch on line by line.
         */
        for (const char *line = p; line < gend; line += 64) __builtin_prefetch(line);
        uint64 top = (uint64) prefix << 48;
        /* only a group at either end of [lo, hi] can hold keys outside it */
        bool whole = top >= lo && (top | UINT64CONST(0xFFFFFFFFFFFF)) <= hi;
        int rest = cap - dtop;
        for (; p + SHI_PACKED_ENTRY <= gend; p += SHI_PACKED_ENTRY) {
            uint64 low = shi_get48(p);
            if (__builtin_popcountll(low ^ qlow) > rest) continue;
            uint64 key = top | low;
            if (!whole && (key < lo || key > hi)) continue;
            out[n].key = key;
            memcpy(&out[n].tid, p + 6, sizeof(ItemPointerData));
            n++;
        }
        p = gend;
    }
    const char *tend = (const char *) page + ((PageHeader) page)->pd_lower;
    for (p = pend; p + SHI_TAIL_ENTRY <= tend; p += SHI_TAIL_ENTRY) {
        uint64 key;
        memcpy(&key, p, sizeof(key));
        if (key < lo || key > hi || __builtin_popcountll(key ^ qkey) > cap) continue;
        out[n].key = key;
        memcpy(&out[n].tid, p + sizeof(uint64), sizeof(ItemPointerData));
        n++;
    }
    return n;
}
