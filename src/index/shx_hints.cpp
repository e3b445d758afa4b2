/*
 * shx_hints.cpp: backend-local starting points for walks inside one
 * directory slot.
 *
 * The directory names one leaf per 16-bit slot of a partition's keys, and a
 * walk moves right from there page by page.  Many different fingerprints
 * sharing one slot (a counter's simhash_from_bigint values, a huge cluster
 * of distinct near copies) fill hundreds of pages in it, and every insert
 * into the slot walked them: inserts in ascending order took time in
 * proportion to the rows already there.  An insert that walks far records
 * every few pages it passes as (lo, block); a later walk for a key starts at
 * the recorded page with the largest lo below the key, in the same slot.
 * A walk that leaves a page ending cleanly inside the slot records the page
 * after it (shx_hint_leaving).
 *
 * A hint is only a starting point, and it never goes wrong: a page's lo and
 * partition never change and pages are never freed (shx.h), so a leaf whose
 * lo is below the key has every page with a key at or above it to its
 * right, as the directory's own leaf does.  Hints live with the metapage
 * cache in rd_amcache's context (shx_get_state), which a REINDEX or TRUNCATE
 * (a new relfilenode) clears through the relcache invalidation.
 */
#include "shx.h"

extern "C" {
#include "utils/memutils.h"
}

#define SHX_HINTS_MAX 1024 /* per partition: 12 kB, allocated on first use */
#define SHX_HINT_EVERY 4    /* a walk records every how many pages it passes */

/* One partition's hints, allocated when its first is recorded: a session
 * touching the indexes of many tables or partitions keeps 12 kB for each
 * partition that has a crowded slot, not 196 kB for every index. */
typedef struct ShxPartHints {
    int n;
    uint64 lo[SHX_HINTS_MAX]; /* sorted */
    BlockNumber blk[SHX_HINTS_MAX];
} ShxPartHints;

typedef struct ShxLeafHints {
    ShxPartHints *part[SHX_MAX_PARTS];
} ShxLeafHints;

static ShxPartHints *hints_of(Relation index, int part, bool create) {
    ShxState *st = (ShxState *) shx_get_state(index);
    if (st->hints == NULL) {
        if (!create) return NULL;
        st->hints = (ShxLeafHints *) MemoryContextAllocZero(st->cxt, sizeof(ShxLeafHints));
    }
    if (st->hints->part[part] == NULL && create)
        st->hints->part[part] = (ShxPartHints *) MemoryContextAllocZero(st->cxt, sizeof(ShxPartHints));
    return st->hints->part[part];
}

/* index of the last hint with lo < key, or -1 */
static int last_below(const ShxPartHints *h, uint64 key) {
    int lo = 0, hi = h->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (h->lo[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo - 1;
}

static uint64 slot_start(uint64 key) { return key & ~((UINT64CONST(1) << (64 - SHX_DIR_BITS)) - 1); }

BlockNumber shx_hint_lookup(Relation index, int part, uint64 key) {
    const ShxPartHints *h = hints_of(index, part, false);
    if (h == NULL) return InvalidBlockNumber;
    int i = last_below(h, key);
    /* below the key's slot the directory's own leaf is as near */
    if (i < 0 || h->lo[i] < slot_start(key)) return InvalidBlockNumber;
    return h->blk[i];
}

void shx_hint_add(Relation index, int part, uint64 lo, BlockNumber blk) {
    ShxPartHints *h = hints_of(index, part, true);
    int i = last_below(h, lo) + 1;
    if (i < h->n && h->lo[i] == lo) {
        h->blk[i] = blk; /* of pages with one lo, a walk meets the rightmost last */
        return;
    }
    if (h->n == SHX_HINTS_MAX) {
        /* full: keep every other hint, which halves the spacing nowhere worse than twice */
        int k = 0;
        for (int j = 0; j < h->n; j += 2, k++) {
            h->lo[k] = h->lo[j];
            h->blk[k] = h->blk[j];
        }
        h->n = k;
        i = last_below(h, lo) + 1;
    }
    memmove(&h->lo[i + 1], &h->lo[i], sizeof(uint64) * (h->n - i));
    memmove(&h->blk[i + 1], &h->blk[i], sizeof(BlockNumber) * (h->n - i));
    h->lo[i] = lo;
    h->blk[i] = blk;
    h->n++;
}

/*
 * Inserts (shx_find_leaf) and scans (shx_walk_step) alike, so that a session
 * that only reads (a pooled reader, a standby) also gets its lookups in a
 * crowded slot down to a few pages after the first.  Not inside a run of
 * one key (lo == hi), which only its first page's skip passes quickly.
 */
void shx_hint_passed(Relation index, int part, uint64 key, const ShxPageOpaque *op, BlockNumber blk, int steps) {
    if (steps > 0 && steps % SHX_HINT_EVERY == 0 && op->hi < key && op->lo < op->hi &&
        (op->lo >> (64 - SHX_DIR_BITS)) == (key >> (64 - SHX_DIR_BITS)))
        shx_hint_add(index, part, op->lo, blk);
}

/*
 * A walk toward key leaving page op for next: when op ends cleanly inside
 * key's slot, next is where every walk for a key of the slot above op's hi
 * may start.  Only a split among a key's copies (split_point) ends a page
 * cleanly inside a slot, below the key's first copy, and the directory slot
 * still names the page that ends there, so every insert and lookup of that
 * key, a popular one, read a page too many.
 */
void shx_hint_leaving(Relation index, int part, uint64 key, const ShxPageOpaque *op, BlockNumber next) {
    if ((op->flags & SHX_HI_CLEAN) && op->hi < key && slot_start(op->hi) == slot_start(key))
        shx_hint_add(index, part, op->hi, next);
}
