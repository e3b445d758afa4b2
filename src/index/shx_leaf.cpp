/*
 * shx_leaf.cpp: the contents of a leaf page (see shx.h): a packed region
 * (the sorted entries, grouped by their top 16 key bits: a table of groups,
 * then the entries' low 48 key bits, then their tids in the bits the page's
 * tids need), then a tail of
 * 14-byte entries that inserts append.
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

void shx_report_bad_packed_region(Relation index, BlockNumber blkno) {
    ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
                    errmsg("index \"%s\" page %u has a packed region that does not add up (its group table, entry count and length disagree)",
                           RelationGetRelationName(index), blkno)));
}

/*
 * Every entry of the page into out[] (room for SHX_MAX_LEAF_ENTRIES), the
 * packed region's first and in order (*npacked of them, unless npacked is
 * NULL), then the tail's; returns the count.  Its callers write the entries back (a re-pack, a split,
 * VACUUM), so a damaged layout is an error here: read as far as it holds
 * together, it would lose entries or repeat them in the rewritten page.
 */
int shx_leaf_decode(Relation index, Page page, BlockNumber blkno, simhash::KeyTid *out, int *npacked) {
    if (!shx_leaf_layout_ok(page)) shx_report_bad_packed_region(index, blkno);
    if (npacked) {
        ShxPacked pk;
        shx_packed_open(page, &pk);
        *npacked = Min(pk.nentries, SHX_MAX_LEAF_ENTRIES);
    }
    int n = 0;
    shx_leaf_foreach(page, [&](uint64 key, ItemPointer tid) {
        if (n < SHX_MAX_LEAF_ENTRIES) {
            out[n].key = key;
            out[n].tid = shx_pack_tid(tid);
            n++;
        }
    });
    return n;
}

static int count_groups(const simhash::KeyTid *a, int n) {
    int groups = 0;
    for (int i = 0; i < n; i++)
        if (i == 0 || (a[i].key >> 48) != (a[i - 1].key >> 48)) groups++;
    return groups;
}

static simhash::TidPacking tid_packing_of(const simhash::KeyTid *a, int n) {
    simhash::TidSpan span;
    for (int i = 0; i < n; i++) span.add(a[i].tid);
    return span.packing();
}

/*
 * Bytes sorted a[0..n) takes on a page: grouped, or as plain 14-byte entries
 * when its groups are too small to pay for their headers or for a scan's
 * work per group (small tables; shx_leaf_form_bytes).
 */
Size shx_packed_size(const simhash::KeyTid *a, int n) {
    return shx_leaf_form_bytes(count_groups(a, n), n, tid_packing_of(a, n).width());
}

/* Does the form shx_leaf_form_bytes chooses for such entries group them (rather than write them plain)? */
static bool form_is_grouped(int ngroups, int n, unsigned width) {
    return shx_leaf_form_bytes(ngroups, n, width) == shx_packed_len(ngroups, n, width);
}

/* Would shx_leaf_write_packed write sorted a[0..n) grouped (rather than as plain entries)? */
bool shx_leaf_packs_grouped(const simhash::KeyTid *a, int n) {
    return n > 0 && form_is_grouped(count_groups(a, n), n, tid_packing_of(a, n).width());
}

/*
 * Writes sorted a[0..n), n > 0, in ngroups groups with tids packed as tp, as
 * the page's grouped region; the tail stays empty.
 */
static void write_grouped(Page page, const simhash::KeyTid *a, int n, int ngroups, const simhash::TidPacking &tp) {
    Size size = shx_packed_len(ngroups, n, tp.width());
    /* callers size what they write; a mistake must not write past the page */
    if (size > SHX_LEAF_SPACE || n > PG_UINT16_MAX)
        elog(ERROR, "simhash index: %d entries of %zu bytes do not fit a page", n, (size_t) size);
    char *base = (char *) page + SHX_CONTENT_OFFSET;
    char *group = base + SHX_PACKED_HEADER;
    char *lows = group + (Size) ngroups * SHX_GROUP_HEADER;
    unsigned char *tids = (unsigned char *) (lows + (Size) n * SHX_PACKED_KEY);
    memset(base, 0, size);
    put16(base, (uint16) ngroups);
    put16(base + 2, (uint16) n);
    memcpy(base + 4, &tp.base, sizeof(uint32));
    base[8] = (char) tp.block_bits;
    base[9] = (char) tp.offset_bits;
    for (int i = 0; i < n; i++) {
        if (i == 0 || (a[i].key >> 48) != (a[i - 1].key >> 48)) {
            put16(group, (uint16) (a[i].key >> 48));
            put16(group + 2, (uint16) i);
            group += SHX_GROUP_HEADER;
        }
        put48(lows + (Size) i * SHX_PACKED_KEY, a[i].key);
        simhash::put_packed_tid(tids, (uint64) i, tp, a[i].tid);
    }
    ShxPageGetOpaque(page)->packed_len = (uint16) size;
    ((PageHeader) page)->pd_lower = (LocationIndex) (SHX_CONTENT_OFFSET + size);
}

static void append_all(Page page, const simhash::KeyTid *a, int n) {
    for (int i = 0; i < n; i++) {
        ItemPointerData tid;
        shx_unpack_tid(a[i].tid, &tid);
        if (!shx_leaf_append(page, a[i].key, &tid)) elog(ERROR, "simhash index: %d entries do not fit a page", n);
    }
}

/*
 * Replaces the page's entries with the encoding of sorted a[0..n) (which must
 * fit), in the form shx_packed_size chose: grouped, with the low key bits of
 * all entries in one array apart from the tids, so that a scan reads 6 bytes
 * per entry, and the group table at the start of the page, next to the page
 * header a reader touches anyway, so that finding a group costs no walk
 * through the page; or plain entries.
 */
void shx_leaf_write_packed(Page page, const simhash::KeyTid *a, int n) {
    ShxPageGetOpaque(page)->packed_len = 0;
    ((PageHeader) page)->pd_lower = SHX_CONTENT_OFFSET;
    if (n == 0) return;
    int ngroups = count_groups(a, n);
    simhash::TidPacking tp = tid_packing_of(a, n);
    if (form_is_grouped(ngroups, n, tp.width())) write_grouped(page, a, n, ngroups, tp);
    else append_all(page, a, n);
}

/*
 * Replaces the page's entries with sorted a[0..npacked), grouped, and then
 * a[npacked..n) in the tail.  VACUUM keeps a page's entries where they were
 * when all of them no longer pack into it: a tail entry's tid can widen
 * every packed tid of its page (a page of one key filled by a run of
 * inserts), so the page holds entries packed and in its tail that would not
 * all fit packed, and it holds any part of them as they were.
 */
void shx_leaf_write(Page page, const simhash::KeyTid *a, int n, int npacked) {
    ShxPageGetOpaque(page)->packed_len = 0;
    ((PageHeader) page)->pd_lower = SHX_CONTENT_OFFSET;
    /* grouped as they were, whatever their groups' size: plain, they might not fit */
    if (npacked > 0) write_grouped(page, a, npacked, count_groups(a, npacked), tid_packing_of(a, npacked));
    append_all(page, a + npacked, n - npacked);
}

/* Appends (key, tid) to the tail; false when the page has no room. */
bool shx_leaf_append(Page page, uint64 key, ItemPointer tid) {
    PageHeader ph = (PageHeader) page;
    if (!shx_page_has_tail_room(page)) return false;
    char *p = (char *) page + ph->pd_lower;
    memcpy(p, &key, sizeof(key));
    memcpy(p + sizeof(uint64), tid, sizeof(ItemPointerData));
    ph->pd_lower += SHX_TAIL_ENTRY;
    return true;
}

/*
 * Do the packed region's counts add up to its length, are its groups in
 * strictly increasing prefix order, each with at least one entry, and does
 * the tail fill whole entries up to pd_lower?
 */
bool shx_leaf_layout_ok(Page page) {
    Size packed = ShxPageGetOpaque(page)->packed_len;
    Size used = ((PageHeader) page)->pd_lower - SHX_CONTENT_OFFSET;
    if (((PageHeader) page)->pd_lower < SHX_CONTENT_OFFSET || packed > used || (used - packed) % SHX_TAIL_ENTRY != 0)
        return false;
    ShxPacked pk;
    if (!shx_packed_open(page, &pk)) return false;
    for (int g = 0; g < pk.ngroups; g++) {
        if (g == 0 && shx_group_first(&pk, 0) != 0) return false;
        if (shx_group_end(&pk, g) <= shx_group_first(&pk, g)) return false;
        if (g > 0 && shx_group_prefix(&pk, g) <= shx_group_prefix(&pk, g - 1)) return false;
    }
    return true;
}

/*
 * Groups of at most this many entries (a cache line of key bits) are not
 * prefetched: in a small index a group holds a few entries, a page a hundred
 * groups read in order, which the hardware prefetcher follows by itself.
 */
#define SHX_PREFETCH_MIN_GROUP 10

namespace {
/*
 * The share of random 48-bit values within rest bits of a given one,
 * P(Binomial(48, 1/2) <= rest): how many of a group's entries a scan can
 * expect to pass when the data is spread out.  Filled when the library
 * loads: the scan looks it up once per group, and a call with a first-use
 * check there was a tenth of a small index's KNN scan.
 */
struct PassRate48 {
    double share[49];
    PassRate48() {
        for (int k = 0; k <= 48; k++) share[k] = simhash::uniform_within_share_bits(48, k);
    }
};
const PassRate48 kPassRate48;
}  // namespace

/*
 * The scans' inner loop.  Hamming distance does not change when both
 * operands are rotated alike, so entries are compared in key form against
 * the query rotated into the partition's key order: a group's shared 16-bit
 * prefix contributes once per group (a group whose prefix alone is farther
 * than cap is skipped whole), an entry costs one 48-bit load, one xor and one
 * popcount.  On x86-64 the function is also compiled for the POPCNT
 * instruction and the dynamic loader picks that version on CPUs that have it
 * (a plain build calls a software popcount, about a third of a KNN scan).
 * Returns -1 for a page whose packed region does not add up (its header or
 * group table contradicts the page).
 */
SHX_POPCNT_CLONES
int shx_leaf_near_entries(Page page, uint64 lo, uint64 hi, uint64 qkey, int cap, ShxNearEntry *out) {
    int n = 0;
    uint16 at[SHX_MAX_LEAF_ENTRIES]; /* the packed index of out[k] */
    ShxPacked pk;
    if (!shx_packed_open(page, &pk)) return -1;
    /*
     * Every call reads the whole tail, which the inserts since the page was
     * last packed left unsorted.  At 10M rows, 1.6% more rows inserted
     * put about 13 entries in each leaf's tail, 3 cache lines that each of a
     * KNN scan's probes waited for one after the other (KNN-10 0.94 ->
     * 1.20 ms); asked for here, they arrive while the groups are read.
     */
    const char *pend = (const char *) page + SHX_CONTENT_OFFSET + ShxPageGetOpaque(page)->packed_len;
    const char *tend = (const char *) page + ((PageHeader) page)->pd_lower;
    for (const char *line = pend; line < tend; line += 64) __builtin_prefetch(line);
    uint16 ghi = (uint16) (hi >> 48);
    uint64 qlow = qkey & UINT64CONST(0xFFFFFFFFFFFF);
    for (int g = shx_group_search(&pk, (uint16) (lo >> 48)); g < pk.ngroups; g++) {
        uint16 prefix = shx_group_prefix(&pk, g);
        if (prefix > ghi) break;
        int first = shx_group_first(&pk, g), end = shx_group_end(&pk, g);
        if (first >= end || end > pk.nentries) return -1; /* a group table that contradicts itself */
        int dtop = __builtin_popcount((uint32) (prefix ^ (uint16) (qkey >> 48)));
        if (dtop > cap) continue;
        int rest = cap - dtop;
        const char *p = pk.lows + (Size) first * SHX_PACKED_KEY, *gend = pk.lows + (Size) end * SHX_PACKED_KEY;
        /*
         * A group at 10M rows is ~150 entries, 900 bytes of low key bits and
         * 450 of tids: asking for all their cache lines at once overlaps the
         * misses, where the scan alone would wait for the hardware prefetcher
         * to catch on line by line.  The tids too when some entry is likely
         * to pass: a KNN scan keeps entries up to its cap, which at 10M rows
         * passes one in ten at the first levels and one or two per group at
         * the last, and each would wait for its tid's line (a third of the
         * scan's time); a radius-3 scan passes almost none.
         */
        if (end - first > SHX_PREFETCH_MIN_GROUP) {
            for (const char *line = p; line < gend; line += 64) __builtin_prefetch(line);
            if ((end - first) * kPassRate48.share[Min(rest, 48)] >= 0.25)
                for (const unsigned char *line = pk.tids + (Size) first * pk.tidpack.width() / 8,
                                         *tend = pk.tids + ((Size) end * pk.tidpack.width() + 7) / 8;
                     line < tend; line += 64)
                    __builtin_prefetch(line);
        }
        uint64 top = (uint64) prefix << 48;
        /* only a group at either end of [lo, hi] can hold keys outside it */
        bool whole = top >= lo && (top | UINT64CONST(0xFFFFFFFFFFFF)) <= hi;
        for (int i = first; i < end; i++, p += SHX_PACKED_KEY) {
            uint64 low = shx_get48(p);
            if (__builtin_popcountll(low ^ qlow) > rest) continue;
            uint64 key = top | low;
            if (!whole && (key < lo || key > hi)) continue;
            out[n].key = key;
            at[n++] = (uint16) i;
        }
    }
    /*
     * The passing entries' tids are unpacked after the loop: unpacking
     * inside it left too few registers for the loop's own values, which
     * were reloaded from the stack at every entry (KNN-10 at 100k rows,
     * which reads a partition whole, took 0.59 ms against 0.30).
     */
    for (int k = 0; k < n; k++) shx_packed_tid(&pk, at[k], &out[k].tid);
    const char *p;
    for (p = pend; p + SHX_TAIL_ENTRY <= tend; p += SHX_TAIL_ENTRY) {
        uint64 key;
        memcpy(&key, p, sizeof(key));
        if (key < lo || key > hi || __builtin_popcountll(key ^ qkey) > cap) continue;
        out[n].key = key;
        memcpy(&out[n].tid, p + sizeof(uint64), sizeof(ItemPointerData));
        n++;
    }
    return n;
}
