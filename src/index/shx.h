/*
 * shx.h: declarations of the simhash index access method ("USING simhash").
 *
 * The design (multi-index hashing on block partitions), the scans, inserts
 * and splits, locking, WAL, VACUUM, the verifier and the open problems are
 * described in src/index/README.  This comment says what a reader of this
 * header finds in it.
 *
 * What the header declares
 * ------------------------
 * 1) The on-disk format's constants: SHX_MAGIC and SHX_VERSION (README,
 *    "Index Format Versions"), the page flags, the directory's size, the
 *    operator strategies and the build's progress phases.
 * 2) The structs laid out on disk: ShxMetaPageData (block 0) and
 *    ShxPageOpaque (every page's special area), and the byte layout of a
 *    leaf, below (README, "On-Disk Layout").
 * 3) Inline readers of a leaf, shared by the scans, VACUUM and the
 *    verifier: shx_packed_open, shx_group_search, shx_leaf_foreach_range.
 * 4) The backend-local state (ShxState, cached in rd_amcache) and the
 *    functions each shx_*.cpp file exports, grouped by file.
 *
 * Partition keys
 * --------------
 * Partition p stores a row under key_p(fp) = rotl(fp, ShxState.rot[p]),
 * its block p moved to the top bits (src/core/mih_probe.hpp), so that the
 * rows of one block value form one key range.  With blocks = 4 and
 * fp = 0x1234_5678_9abc_def0:
 *
 *     partition 0:  key = fp               = 0x1234_5678_9abc_def0
 *     partition 1:  key = rotl(fp, 16)     = 0x5678_9abc_def0_1234
 *     partition 2:  key = rotl(fp, 32)     = 0x9abc_def0_1234_5678
 *     partition 3:  key = rotl(fp, 48)     = 0xdef0_1234_5678_9abc
 *
 * A key holds the whole fingerprint: scans verify candidates in the index.
 *
 * Leaf pages
 * ----------
 * A leaf holds keys in [lo, hi] (ShxPageOpaque).  Its entries lie between
 * the page header and pd_lower: a packed region of packed_len bytes, then
 * a tail of SHX_TAIL_ENTRY-byte entries (8-byte key, ItemPointerData) that
 * inserts append.  The packed region holds the page's sorted entries,
 * grouped by their top 16 key bits:
 *
 *     header        SHX_PACKED_HEADER bytes: uint16 groups G, uint16
 *                   entries N, uint32 tid base, uint8 block bits, uint8
 *                   offset bits, 2 zero bytes
 *     group table   G x SHX_GROUP_HEADER: {uint16 top 16 key bits,
 *                   uint16 index of the group's first entry}, increasing
 *     key bits      N x SHX_PACKED_KEY: each key's low 48 bits
 *     tids          N x W bits, W = block bits + offset bits, each
 *                   (block - tid base) << offset bits | offset
 *                   (src/core/tid_packing.hpp)
 *
 * Its length is shx_packed_len(G, N, W).  For example, in partition 1 the
 * row above sits in the group 0x5678 as the key bits 0x9abc_def0_1234;
 * a page whose tids span heap blocks 41,000 to 41,300, with offsets up to
 * 60, stores them in 9 + 6 bits from base 41,000, tid (41123, 7) as
 * 123 << 6 | 7.  A page with no packed region (packed_len 0) is "plain",
 * all tail: the writers choose that form when groups would be small
 * (SHX_GROUPED_MIN_AVG, shx_leaf_form_bytes).
 *
 * What readers may rely on
 * ------------------------
 * A leaf's lo and partition never change and no page is ever freed, so a
 * directory slot, a walk start (shx_hints.cpp) or a remembered block is
 * never wrong, only maybe stale; a page's hi equals its right sibling's lo
 * (shx_check_right_step checks it at every step); copies of a key equal to
 * a page's hi may continue to the right unless the page has SHX_HI_CLEAN;
 * every page between a leaf and its skip has that leaf's hi.  Why these
 * hold under concurrent inserts: README, "Searching" and "Locking".
 */
#ifndef SHX_H
#define SHX_H

#include "simhash_datum.h"
#include "mih_probe.hpp"
#include "tid_packing.hpp"

extern "C" {
#include "access/amapi.h"
#include "access/generic_xlog.h"
#include "access/reloptions.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/rel.h"
}

#define SHX_MAGIC 0x53484958u /* "SHIX" */
#define SHX_VERSION 3 /* 1: groups and their entries interleaved; 2: whole 6-byte tids (both before 2026-11-27) */
#define SHX_METAPAGE_BLKNO 0
#define SHX_MAX_PARTS 16
#define SHX_DEFAULT_PARTS 4
#define SHX_DIR_BITS 16
#define SHX_DIR_SLOTS (1u << SHX_DIR_BITS)
#define SHX_PAGE_ID 0xFF83

/* CREATE INDEX subphases in pg_stat_progress_create_index (1 is core's "initializing") */
#define SHX_BUILD_PHASE_SCAN 2 /* scanning table */
#define SHX_BUILD_PHASE_LOAD 3 /* sorting and loading partitions */

/* strategies */
#define SHX_STRATEGY_EQUAL 1   /* fp = q */
#define SHX_STRATEGY_SIMILAR 2 /* fp % q: radius simhash.threshold */
#define SHX_STRATEGY_WITHIN 3  /* fp %<= (q, r)::simhash_radius */
#define SHX_STRATEGY_DISTANCE 4 /* ORDER BY fp <-> q */
#define SHX_NSTRATEGIES 4

/* page flags */
#define SHX_META 1
#define SHX_DIR 2
#define SHX_LEAF 4
#define SHX_LEFTMOST 8
/*
 * Leaf: cut at a group boundary, so no entry with key hi lives to its right:
 * hi is the last key of a 16-bit group, (v << 48) - 1, and the right page
 * starts at group v.  A walk whose range ends at hi (with blocks of 16
 * bits or fewer every probe's range ends at the end of a group) then stops
 * on this page, and directory slot v names the right page, so neither of
 * the two groups costs a second page.
 * Kept by the one path that could put such an entry on the right page: an
 * insert of key hi into a full page does not go on to the right sibling.
 */
#define SHX_HI_CLEAN 16

typedef struct ShxPageOpaque {
    uint64 lo;          /* leaf: smallest key the page may hold */
    uint64 hi;          /* leaf: largest key the page may hold */
    BlockNumber right;  /* leaf: right sibling in the partition chain */
    uint16 flags;
    uint16 part;        /* partition of a leaf or directory page */
    uint16 packed_len;  /* leaf: bytes of the packed region */
    uint16 page_id;     /* SHX_PAGE_ID */
    BlockNumber skip;   /* leaf: 0, or a page to the right such that every page
                         * in between has this page's hi (see shx_find_leaf) */
} ShxPageOpaque;

#define ShxPageGetOpaque(page) ((ShxPageOpaque *) PageGetSpecialPointer(page))
/* skip took what used to be padding: the special area keeps its size */
static_assert(MAXALIGN(sizeof(ShxPageOpaque)) == 32, "simhash leaf special area is 32 bytes");

typedef struct ShxMetaPageData {
    uint32 magic;
    uint32 version;
    uint16 nparts;
    uint16 dirbits;
    uint32 dir_slots_per_page;
    uint32 dir_pages_per_part;
    BlockNumber dir_start[SHX_MAX_PARTS];  /* first directory page of partition p */
    BlockNumber first_leaf[SHX_MAX_PARTS]; /* leftmost leaf of partition p */
} ShxMetaPageData;

#define SHX_TAIL_ENTRY (sizeof(uint64) + sizeof(ItemPointerData)) /* 14 */
#define SHX_PACKED_HEADER 12 /* uint16 groups, uint16 entries, uint32 tid base, uint8 block bits, uint8 offset bits, 2 zero bytes */
#define SHX_GROUP_HEADER 4   /* uint16 prefix, uint16 first entry */
#define SHX_PACKED_KEY 6     /* the low 48 key bits of an entry */
#define SHX_CONTENT_OFFSET MAXALIGN(SizeOfPageHeaderData)
#define SHX_LEAF_SPACE (BLCKSZ - SHX_CONTENT_OFFSET - MAXALIGN(sizeof(ShxPageOpaque)))
/* a packed entry takes at least 6 bytes and 1 bit */
#define SHX_MAX_LEAF_ENTRIES ((int) (SHX_LEAF_SPACE * 8 / (SHX_PACKED_KEY * 8 + 1)) + 2)
#define SHX_DIR_SLOTS_PER_PAGE (SHX_LEAF_SPACE / sizeof(BlockNumber))

/* Has the leaf room for one more tail entry? */
static inline bool shx_page_has_tail_room(Page page) {
    return ((PageHeader) page)->pd_lower + SHX_TAIL_ENTRY <= ((PageHeader) page)->pd_upper;
}
static inline uint64 shx_pack_tid(const ItemPointerData *tid) {
    return ((uint64) ItemPointerGetBlockNumberNoCheck(tid) << 16) | ItemPointerGetOffsetNumberNoCheck(tid);
}
static inline void shx_unpack_tid(uint64 v, ItemPointer tid) {
    ItemPointerSet(tid, (BlockNumber) (v >> 16), (OffsetNumber) (v & 0xffff));
}
/* The 48-bit little-endian value at p (p + 8 must still be inside the page). */
static inline uint64 shx_get48(const char *p) {
#ifndef WORDS_BIGENDIAN
    uint64 v;
    memcpy(&v, p, sizeof(v));
    return v & UINT64CONST(0xFFFFFFFFFFFF);
#else
    const unsigned char *b = (const unsigned char *) p;
    uint64 v = 0;
    for (int i = 5; i >= 0; i--) v = (v << 8) | b[i];
    return v;
#endif
}
static inline uint16 shx_get16(const char *p) {
    const unsigned char *b = (const unsigned char *) p;
    return (uint16) (b[0] | (b[1] << 8));
}

/*
 * The packed region of a leaf, opened: its groups (prefix, first entry) and
 * the two arrays of its entries.  Group g holds entries first(g) ..
 * first(g + 1) - 1 (the last group runs to nentries).
 */
typedef struct ShxPacked {
    const char *groups; /* ngroups x {uint16 prefix, uint16 first entry} */
    const char *lows;   /* nentries x 6 bytes: the low 48 key bits */
    const unsigned char *tids; /* nentries tids in tidpack's width */
    simhash::TidPacking tidpack;
    int ngroups;
    int nentries;
} ShxPacked;

/* Bytes the packed region of n entries in ngroups groups takes with tids of width bits. */
static inline Size shx_packed_len(int ngroups, int n, unsigned width) {
    return SHX_PACKED_HEADER + (Size) ngroups * SHX_GROUP_HEADER + (Size) n * SHX_PACKED_KEY +
           (Size) simhash::packed_tid_bytes((uint64) n, width);
}

/*
 * Entries per group below which a page is written as plain 14-byte entries
 * (a tail of its own) rather than grouped: a scan pays for each group it
 * passes (its prefix, its distance, its bounds), and small indexes, whose
 * KNN scans read a partition whole, have small groups.  Isolated KNN-10,
 * alternating pgbench runs: 100k rows (1.5 entries a group) 0.59 ms grouped,
 * 0.26 plain; 300k rows (4.6 a group) 1.05 ms grouped, 0.70 plain, for 47%
 * more pages (19 MiB against 13); from 1M rows (15 a group) pages are
 * grouped, as before.
 */
#define SHX_GROUPED_MIN_AVG 6

/*
 * Bytes a page of n entries in ngroups groups, tids of width bits, takes in
 * the form it is written in (shx_leaf_write_packed): grouped, or plain when
 * its groups are small or plain entries would take less room.
 */
static inline Size shx_leaf_form_bytes(int ngroups, int n, unsigned width) {
    Size plain = (Size) n * SHX_TAIL_ENTRY;
    if (n < SHX_GROUPED_MIN_AVG * ngroups) return plain;
    return Min(shx_packed_len(ngroups, n, width), plain);
}

/*
 * Opens the packed region of a leaf; false when its counts do not add up to
 * its length (a damaged page).  A page without one (packed_len 0) opens
 * with no groups.
 */
static inline bool shx_packed_open(Page page, ShxPacked *pk) {
    const char *p = (const char *) page + SHX_CONTENT_OFFSET;
    Size len = ShxPageGetOpaque(page)->packed_len;
    Size lower = ((PageHeader) page)->pd_lower;
    pk->ngroups = pk->nentries = 0;
    pk->groups = pk->lows = p;
    pk->tids = (const unsigned char *) p;
    pk->tidpack.base = 0;
    pk->tidpack.block_bits = 0;
    pk->tidpack.offset_bits = 1;
    /* the region must lie inside the page's used part, whatever else is damaged */
    if (SHX_CONTENT_OFFSET + len > lower || lower > BLCKSZ - MAXALIGN(sizeof(ShxPageOpaque))) return false;
    if (len == 0) return true;
    if (len < SHX_PACKED_HEADER) return false;
    pk->ngroups = shx_get16(p);
    pk->nentries = shx_get16(p + 2);
    memcpy(&pk->tidpack.base, p + 4, sizeof(uint32));
    pk->tidpack.block_bits = (uint8) p[8];
    pk->tidpack.offset_bits = (uint8) p[9];
    if (pk->ngroups == 0 || pk->nentries < pk->ngroups || !simhash::tid_packing_valid(pk->tidpack) ||
        len != shx_packed_len(pk->ngroups, pk->nentries, pk->tidpack.width())) {
        pk->ngroups = pk->nentries = 0;
        return false;
    }
    pk->groups = p + SHX_PACKED_HEADER;
    pk->lows = pk->groups + (Size) pk->ngroups * SHX_GROUP_HEADER;
    pk->tids = (const unsigned char *) (pk->lows + (Size) pk->nentries * SHX_PACKED_KEY);
    return true;
}
/* Entry i's heap tid (the packed region ends at least 32 bytes before the page does: get_packed_tid may read 7 past it). */
static inline void shx_packed_tid(const ShxPacked *pk, int i, ItemPointer out) {
    uint64 v = simhash::get_packed_tid(pk->tids, (uint64) i, pk->tidpack);
    ItemPointerSet(out, (BlockNumber) (v >> 16), (OffsetNumber) (v & 0xffff));
}
static inline uint16 shx_group_prefix(const ShxPacked *pk, int g) { return shx_get16(pk->groups + (Size) g * SHX_GROUP_HEADER); }
static inline int shx_group_first(const ShxPacked *pk, int g) { return shx_get16(pk->groups + (Size) g * SHX_GROUP_HEADER + 2); }
static inline int shx_group_end(const ShxPacked *pk, int g) {
    return g + 1 < pk->ngroups ? shx_group_first(pk, g + 1) : pk->nentries;
}
/* The first group whose prefix is >= prefix (groups are sorted by prefix). */
static inline int shx_group_search(const ShxPacked *pk, uint16 prefix) {
    int lo = 0, hi = pk->ngroups;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (shx_group_prefix(pk, mid) < prefix)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/*
 * Calls f(key, ItemPointer) for every entry of a leaf page whose key is in
 * [lo, hi], packed region first (only the groups whose prefix is in the
 * range are read).  The callback must hold no object with a destructor (it
 * may ereport).  A damaged packed region is read only as far as it stays
 * inside itself; simhash_index_check reports it.
 */
template <class F>
inline void shx_leaf_foreach_range(Page page, uint64 lo, uint64 hi, F &&f) {
    ShxPacked pk;
    if (shx_packed_open(page, &pk)) {
        uint16 ghi = (uint16) (hi >> 48);
        for (int g = shx_group_search(&pk, (uint16) (lo >> 48)); g < pk.ngroups; g++) {
            uint16 prefix = shx_group_prefix(&pk, g);
            if (prefix > ghi) break;
            uint64 top = (uint64) prefix << 48;
            int end = Min(shx_group_end(&pk, g), pk.nentries);
            for (int i = shx_group_first(&pk, g); i < end; i++) {
                uint64 key = top | shx_get48(pk.lows + (Size) i * 6);
                if (key < lo || key > hi) continue;
                ItemPointerData tid;
                shx_packed_tid(&pk, i, &tid);
                f(key, &tid);
            }
        }
    }
    const char *p = (const char *) page + SHX_CONTENT_OFFSET + ShxPageGetOpaque(page)->packed_len;
    const char *tend = (const char *) page + ((PageHeader) page)->pd_lower;
    for (; p + SHX_TAIL_ENTRY <= tend; p += SHX_TAIL_ENTRY) {
        uint64 key;
        memcpy(&key, p, sizeof(key));
        if (key < lo || key > hi) continue;
        f(key, (ItemPointer) (p + sizeof(uint64)));
    }
}

template <class F>
inline void shx_leaf_foreach(Page page, F &&f) {
    shx_leaf_foreach_range(page, 0, PG_UINT64_MAX, f);
}

/*
 * Hot loops that count bits are also compiled for the POPCNT instruction on
 * x86-64; the dynamic loader picks that version on CPUs that have it (the
 * baseline build calls libgcc's software popcount).
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SHX_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define SHX_POPCNT_CLONES
#endif

/* reloptions */
typedef struct ShxOptions {
    int32 vl_len_;
    int nparts;     /* "blocks" */
    int fillfactor; /* build fill of leaf pages, percent */
} ShxOptions;

/* Cached per-relation state (rd_amcache): immutable after build. */
typedef struct ShxState {
    int nparts;
    int width[SHX_MAX_PARTS];
    int rot[SHX_MAX_PARTS];
    uint32 dir_slots_per_page;
    BlockNumber dir_start[SHX_MAX_PARTS];
    BlockNumber first_leaf[SHX_MAX_PARTS];
    uint64 mask[SHX_MAX_PARTS];  /* partition p's bits of a fingerprint */
    struct ShxLeafHints *hints;  /* backend-local walk starts (shx_hints.cpp); only through rd_amcache */
    struct ShxBufferGuess *guesses; /* backend-local buffers of pages read (shx_buffer_guess.cpp); the same */
    MemoryContext cxt;           /* holds this state and the hints (shx_get_state) */
} ShxState;

/* An entry of a leaf page near a query (shx_leaf_near_entries). */
typedef struct ShxNearEntry {
    uint64 key;
    ItemPointerData tid;
} ShxNearEntry;

extern "C" {
/* handler / misc */
PGDLLEXPORT Datum simhash_index_handler(PG_FUNCTION_ARGS);
PGDLLEXPORT Datum simhash_within_radius(PG_FUNCTION_ARGS);
PGDLLEXPORT Datum simhash_within_support(PG_FUNCTION_ARGS);
PGDLLEXPORT Datum simhash_index_check(PG_FUNCTION_ARGS);
PGDLLEXPORT Datum simhash_index_stats(PG_FUNCTION_ARGS);
void simhash_index_define_gucs(void);
}
/* simhash.knn_first_pass_rows (shx_handler.cpp) */
extern int shx_knn_first_pass_rows;

/*
 * The page a walk for a key beyond leaf blkno (beyond its hi) goes to next:
 * its skip target when it has one (every page in between ends at the same hi,
 * see shx_find_leaf), else its right sibling.
 */
static inline BlockNumber shx_next_leaf_past(const ShxPageOpaque *op, BlockNumber blkno) {
    return (op->skip != 0 && op->skip != blkno) ? op->skip : op->right;
}

/* pages */
void shx_init_page(Page page, uint16 flags, uint16 part);
const ShxState *shx_get_state(Relation index);
/*
 * shx_get_state, but an index built by an earlier build (an on-disk version
 * it refuses) gives NULL and its version in *old_version, else 0: for the
 * cost estimate, which must not fail (see shx_costestimate).
 */
const ShxState *shx_readable_state(Relation index, uint32 *old_version);
void shx_fill_state(ShxState *st, const ShxMetaPageData *meta);
int shx_reloption_parts(Relation index);
int shx_reloption_fillfactor(Relation index);
Buffer shx_new_buffer(Relation index);
BlockNumber shx_dir_lookup(Relation index, const ShxState *st, int part, uint64 key, Buffer *keep = nullptr);
Buffer shx_find_leaf(Relation index, const ShxState *st, int part, uint64 key, int lockmode);

/* backend-local walk starts inside a directory slot (shx_hints.cpp) */
BlockNumber shx_hint_lookup(Relation index, int part, uint64 key);
void shx_hint_add(Relation index, int part, uint64 lo, BlockNumber blk);
/* a walk toward key has moved steps pages right and reached leaf blk: maybe a start for later walks */
void shx_hint_passed(Relation index, int part, uint64 key, const ShxPageOpaque *op, BlockNumber blk, int steps);
/* a walk toward key leaves leaf op for next (its right sibling, or past a skip) */
void shx_hint_leaving(Relation index, int part, uint64 key, const ShxPageOpaque *op, BlockNumber next);
/* the heap read as its owner, for the index's expressions (shx_owner.cpp) */
typedef struct ShxCaller {
    Oid user;
    int sec_context;
    int guc_level;
} ShxCaller;
void shx_become_table_owner(Relation heap, ShxCaller *caller);
void shx_restore_caller(const ShxCaller *caller);
/* ReadBuffer, through the buffer that held the page before when it still does (shx_buffer_guess.cpp) */
Buffer shx_read_page(Relation index, BlockNumber blk);
void shx_prefetch_walk_start(Relation index, const ShxState *st, int part, uint64 key);
void shx_check_page(Relation index, Page page, BlockNumber blkno, uint16 expect_flags);
void shx_check_right_step(Relation index, Page page, BlockNumber from, uint64 from_hi, BlockNumber blkno);

/* leaf contents (shx_leaf.cpp); KeyTid.tid is a packed tid (shx_pack_tid) */
[[noreturn]] void shx_report_bad_packed_region(Relation index, BlockNumber blkno);
/* every entry of leaf blkno, for a rewrite of it; a page whose layout does not add up is an ERROR */
int shx_leaf_decode(Relation index, Page page, BlockNumber blkno, simhash::KeyTid *out, int *npacked);
bool shx_leaf_packs_grouped(const simhash::KeyTid *a, int n);
Size shx_packed_size(const simhash::KeyTid *a, int n);
void shx_leaf_write_packed(Page page, const simhash::KeyTid *a, int n);
void shx_leaf_write(Page page, const simhash::KeyTid *a, int n, int npacked);
bool shx_leaf_append(Page page, uint64 key, ItemPointer tid);
bool shx_leaf_layout_ok(Page page);
int shx_leaf_near_entries(Page page, uint64 lo, uint64 hi, uint64 qkey, int cap, ShxNearEntry *out);

/* appending a row's entries to leaves, with their WAL record (shx_append.cpp) */
bool shx_leaf_has_room(Buffer buf);
/* appends (keys[i], tid) to each of the n <= MAX_GENERIC_XLOG_PAGES exclusively
 * locked leaves bufs[i], which have room, in one WAL record; keeps the locks */
void shx_append_entries(Relation index, const Buffer *bufs, const uint64 *keys, int n, ItemPointer tid);

/* (key, packed tid) pairs sorted within a memory budget, spilling to disk (shx_pair_sort.cpp) */
typedef struct ShxPairSort {
    struct Tuplesortstate *sort;
    struct TupleTableSlot *in, *out;
} ShxPairSort;
void shx_pair_sort_begin(ShxPairSort *s, int work_mem_kb, bool by_tid_too, bool rescan);
void shx_pair_sort_put(ShxPairSort *s, uint64 key, uint64 tid);
void shx_pair_sort_perform(ShxPairSort *s);
bool shx_pair_sort_next(ShxPairSort *s, uint64 *key, uint64 *tid);
void shx_pair_sort_rescan(ShxPairSort *s);
void shx_pair_sort_end(ShxPairSort *s);

/* the rows with a NULL indexed value, for scans without a search key (shx_nulls.cpp) */
int64 shx_collect_null_rows(IndexScanDesc scan, MemoryContext cxt, ItemPointerData **tids);

/* opening an index named by a SQL function's argument (shx_check.cpp): ERROR unless a valid simhash index */
Relation shx_open_index(Oid indexoid, LOCKMODE mode, Relation *heap, Oid caller);
void shx_reject_invalid_index(Relation index, const char *verb);

/* phases */
IndexBuildResult *shx_build(Relation heap, Relation index, IndexInfo *indexInfo);
void shx_buildempty(Relation index);
bool shx_insert(Relation index, Datum *values, bool *isnull, ItemPointer ht_ctid, Relation heapRel,
                IndexUniqueCheck checkUnique, bool indexUnchanged, IndexInfo *indexInfo);
IndexBulkDeleteResult *shx_bulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
                                      IndexBulkDeleteCallback callback, void *callback_state);
IndexBulkDeleteResult *shx_vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats);
IndexScanDesc shx_beginscan(Relation r, int nkeys, int norderbys);
void shx_rescan(IndexScanDesc scan, ScanKey scankey, int nscankeys, ScanKey orderbys, int norderbys);
bool shx_gettuple(IndexScanDesc scan, ScanDirection dir);
int64 shx_getbitmap(IndexScanDesc scan, TIDBitmap *tbm);
void shx_endscan(IndexScanDesc scan);
void shx_costestimate(struct PlannerInfo *root, struct IndexPath *path, double loop_count,
                      Cost *indexStartupCost, Cost *indexTotalCost, Selectivity *indexSelectivity,
                      double *indexCorrelation, double *indexPages);
bool shx_validate(Oid opclassoid);


#endif
