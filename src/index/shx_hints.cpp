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
 *
 * A hint is only a starting point, and it never goes wrong: a page's lo and
 * partition never change and pages are never freed (shx.h), so a leaf whose
 * lo is below the key has every page with a key at or above it to its
 * right, as the directory's own leaf does.  Hints live with the metapage
 * cache in rd_amcache's context (shi_get_state), which a REINDEX or TRUNCATE
 * (a new relfilenode) clears through the relcache invalidation.
 */
#include "shx.h"

extern "C" {
#include "utils/memutils.h"
}

#define SHI_HINTS_MAX 1024 /* per partition: 12 kB */
#define SHI_HINT_EVERY 4    /* a walk records every how many pages it passes */

typedef struct ShiLeafHints {
    int n[SHI_MAX_PARTS];
    uint64 lo[SHI_MAX_PARTS][SHI_HINTS_MAX]; /* sorted */
    BlockNumber blk[SHI_MAX_PARTS][SHI_HINTS_MAX];
} ShiLeafHints;

static ShiLeafHints *hints_of(Relation index, bool create) {
    ShiState *st = (ShiState *) shi_get_state(index);
    if (st->hints == NULL && create)
        st->hints = (ShiLeafHints *) MemoryContextAllocZero(st->cxt, sizeof(ShiLeafHints));
    return st->hints;
}

/* index of the last hint of partition part with lo < key, or -1 */
static int last_below(const ShiLeafHints *h, int part, uint64 key) {
    int lo = 0, hi = h->n[part];
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (h->lo[part][mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo - 1;
}

static uint64 slot_start(uint64 key) { return key & ~((UINT64CONST(1) << (64 - SHI_DIR_BITS)) - 1); }

BlockNumber shi_hint_lookup(Relation index, int part, uint64 key) {
    const ShiLeafHints *h = hints_of(index, false);
    if (h == NULL) return InvalidBlockNumber;
    int i = last_below(h, part, key);
    /* below the key's slot the directory's own leaf is as near */
    if (i < 0 || h->lo[part][i] < slot_start(key)) return InvalidBlockNumber;
    return h->blk[part][i];
}

void shi_hint_add(Relation index, int part, uint64 lo, BlockNumber blk) {
    ShiLeafHints *h = hints_of(index, true);
    int i = last_below(h, part, lo) + 1;
    if (i < h->n[part] && h->lo[part][i] == lo) {
        h->blk[part][i] = blk; /* of pages with one lo, a walk meets the rightmost last */
        return;
    }
    if (h->n[part] == SHI_HINTS_MAX) {
        /* full: keep every other hint, which halves the spacing nowhere worse than twice */
        int k = 0;
        for (int j = 0; j < h->n[part]; j += 2, k++) {
            h->lo[part][k] = h->lo[part][j];
            h->blk[part][k] = h->blk[part][j];
        }
        h->n[part] = k;
        i = last_below(h, part, lo) + 1;
    }
    memmove(&h->lo[part][i + 1], &h->lo[part][i], sizeof(uint64) * (h->n[part] - i));
    memmove(&h->blk[part][i + 1], &h->blk[part][i], sizeof(BlockNumber) * (h->n[part] - i));
    h->lo[part][i] = lo;
    h->blk[part][i] = blk;
    h->n[part]++;
}

/*
 * Inserts (shi_find_leaf) and scans (walk_step) alike, so that a session
 * that only reads (a pooled reader, a standby) also gets its lookups in a
 * crowded slot down to a few pages after the first.  Not inside a run of
 * one key (lo == hi), which only its first page's skip passes quickly.
 */
void shi_hint_passed(Relation index, int part, uint64 key, const ShiPageOpaque *op, BlockNumber blk, int steps) {
    if (steps > 0 && steps % SHI_HINT_EVERY == 0 && op->hi < key && op->lo < op->hi &&
        (op->lo >> (64 - SHI_DIR_BITS)) == (key >> (64 - SHI_DIR_BITS)))
        shi_hint_add(index, part, op->lo, blk);
}
