/*
 * Total order (unsigned, so it matches the hex text order) and hashing, for
 * the btree and hash operator classes: UNIQUE, GROUP BY, DISTINCT, merge and
 * hash joins.
 */
#include "simhash_datum.h"

extern "C" {
#include "common/hashfn.h"
#include "utils/sortsupport.h"

PG_FUNCTION_INFO_V1(simhash_eq);
PG_FUNCTION_INFO_V1(simhash_ne);
PG_FUNCTION_INFO_V1(simhash_lt);
PG_FUNCTION_INFO_V1(simhash_le);
PG_FUNCTION_INFO_V1(simhash_gt);
PG_FUNCTION_INFO_V1(simhash_ge);
PG_FUNCTION_INFO_V1(simhash_cmp);
PG_FUNCTION_INFO_V1(simhash_sortsupport);
PG_FUNCTION_INFO_V1(simhash_hash);
PG_FUNCTION_INFO_V1(simhash_hash_extended);
}

static inline int compare_fingerprints(uint64_t a, uint64_t b) { return a < b ? -1 : (a > b ? 1 : 0); }

#define SIMHASH_COMPARISON(name, op)                                         \
    extern "C" Datum name(PG_FUNCTION_ARGS) {                                \
        PG_RETURN_BOOL(PG_GETARG_SIMHASH(0) op PG_GETARG_SIMHASH(1));        \
    }
SIMHASH_COMPARISON(simhash_eq, ==)
SIMHASH_COMPARISON(simhash_ne, !=)
SIMHASH_COMPARISON(simhash_lt, <)
SIMHASH_COMPARISON(simhash_le, <=)
SIMHASH_COMPARISON(simhash_gt, >)
SIMHASH_COMPARISON(simhash_ge, >=)

extern "C" Datum simhash_cmp(PG_FUNCTION_ARGS) {
    PG_RETURN_INT32(compare_fingerprints(PG_GETARG_SIMHASH(0), PG_GETARG_SIMHASH(1)));
}

static int simhash_fastcmp(Datum a, Datum b, SortSupport) {
    return compare_fingerprints(DatumGetSimhash(a), DatumGetSimhash(b));
}

extern "C" Datum simhash_sortsupport(PG_FUNCTION_ARGS) {
    SortSupport ssup = (SortSupport) PG_GETARG_POINTER(0);
    ssup->comparator = simhash_fastcmp;
    PG_RETURN_VOID();
}

/* Hash the 8 bytes as int8 does, so that hash joins spread well. */
extern "C" Datum simhash_hash(PG_FUNCTION_ARGS) {
    uint64_t fp = PG_GETARG_SIMHASH(0);
    return hash_any((const unsigned char*) &fp, sizeof(fp));
}

extern "C" Datum simhash_hash_extended(PG_FUNCTION_ARGS) {
    uint64_t fp = PG_GETARG_SIMHASH(0);
    return hash_any_extended((const unsigned char*) &fp, sizeof(fp), PG_GETARG_INT64(1));
}
