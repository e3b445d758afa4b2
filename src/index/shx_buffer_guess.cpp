/*
 * shx_buffer_guess.cpp: backend-local guesses of the shared buffer that
 * holds an index page.
 *
 * A search reads one random leaf per probe, and a KNN search for a point
 * with no near neighbour probes 1,100 to 1,700 of them at 10M rows.
 * ReadBuffer finds each in the shared buffer mapping table: a hash lookup
 * under a partition lock, a fifth of such a query's time, mostly cache
 * misses.  PostgreSQL's ReadRecentBuffer pins a page through the buffer it
 * was in before, when it is still there, checking the buffer's tag under
 * its header lock, so a wrong guess costs one check and then the normal
 * lookup.  Each backend keeps, per index, the buffer of every page it read,
 * direct-mapped by block number: at most SHX_GUESS_MAX_SLOTS (1 MB),
 * sized to the index when first used, freed with the index's cached state
 * (a relcache reload, a REINDEX).  A larger index shares slots, so fewer
 * guesses hold, and none is ever wrong.
 */
#include "shx.h"

extern "C" {
#include "pgstat.h"
#include "storage/buf_internals.h"
#include "utils/memutils.h"
}

#define SHX_GUESS_MIN_SLOTS 1024
#define SHX_GUESS_MAX_SLOTS (1 << 18)

typedef struct ShxBufferGuess {
    uint32 mask;  /* slots - 1 */
    Buffer *slot; /* by block number & mask: the buffer that held it, or InvalidBuffer */
} ShxBufferGuess;

static ShxBufferGuess *guesses_of(Relation index) {
    ShxState *st = (ShxState *) shx_get_state(index);
    if (st->guesses == NULL) {
        uint32 slots = SHX_GUESS_MIN_SLOTS;
        BlockNumber nblocks = RelationGetNumberOfBlocks(index);
        while (slots < nblocks && slots < SHX_GUESS_MAX_SLOTS) slots <<= 1;
        ShxBufferGuess *g = (ShxBufferGuess *) MemoryContextAlloc(st->cxt, sizeof(ShxBufferGuess));
        g->slot = (Buffer *) MemoryContextAllocZero(st->cxt, sizeof(Buffer) * slots);
        g->mask = slots - 1;
        st->guesses = g;
    }
    return st->guesses;
}

Buffer shx_read_page(Relation index, BlockNumber blk) {
    if (index->rd_rel->relpersistence != RELPERSISTENCE_TEMP) {
        ShxBufferGuess *g = guesses_of(index);
        Buffer *guess = &g->slot[blk & g->mask];
        if (*guess != InvalidBuffer && ReadRecentBuffer(compat_rel_file(index), MAIN_FORKNUM, blk, *guess)) {
            /* what ReadBuffer counts for a page found in shared buffers */
            pgstat_count_buffer_read(index);
            pgstat_count_buffer_hit(index);
            return *guess;
        }
        Buffer buf = ReadBuffer(index, blk);
        *guess = buf;
        return buf;
    }
    return ReadBuffer(index, blk);
}

/*
 * Asks the CPU for the first lines a walk for key will read: the leaf its
 * directory slot names, found through the guesses without a pin or a lock.
 * A KNN search probes hundreds of leaves, one after another, and each
 * probe's first touch of its page (header, special area, buffer header)
 * waited for memory: over a third of the search.  Called a few ranges
 * ahead, this overlaps those waits.  (Asking for the directory slot's line
 * earlier still, in a first stage, gained nothing.)  Nothing read here is
 * trusted: a guess may name a buffer that now holds another page, whose
 * bytes then give a useless prefetch; every address is inside shared
 * buffers either way, and the walk itself reads the page as always.
 */
void shx_prefetch_walk_start(Relation index, const ShxState *st, int part, uint64 key) {
    if (st->guesses == NULL || index->rd_rel->relpersistence == RELPERSISTENCE_TEMP) return;
    const ShxBufferGuess *g = st->guesses;
    uint32 slot = (uint32) (key >> (64 - SHX_DIR_BITS));
    BlockNumber dblk = st->dir_start[part] + slot / st->dir_slots_per_page;
    Buffer dbuf = g->slot[dblk & g->mask];
    if (dbuf <= 0 || dbuf > NBuffers) return;
    const volatile BlockNumber *slots = (const volatile BlockNumber *) PageGetContents(BufferGetPage(dbuf));
    BlockNumber leaf = slots[slot % st->dir_slots_per_page];
    if (leaf == 0 || leaf == InvalidBlockNumber) return;
    Buffer lbuf = g->slot[leaf & g->mask];
    if (lbuf <= 0 || lbuf > NBuffers) return;
    const char *page = (const char *) BufferGetPage(lbuf);
    __builtin_prefetch(GetBufferDescriptor(lbuf - 1));
    __builtin_prefetch(page);                                  /* header, packed header, group table */
    __builtin_prefetch(page + BLCKSZ - sizeof(ShxPageOpaque)); /* special area */
}
