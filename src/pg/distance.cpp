/*
 * Hamming distance and the predicates built on it: <->, %, simhash_within(),
 * simhash_similarity() and simhash_blocks().
 */
#include "simhash_datum.h"
#include "blocks.hpp"
#include "hamming.hpp"
#include "mih_probe.hpp"
#include "radius_selectivity.h"

extern "C" {
#include "catalog/pg_type.h"
#include "utils/array.h"

PG_FUNCTION_INFO_V1(simhash_hamming);
PG_FUNCTION_INFO_V1(simhash_similar_op);
PG_FUNCTION_INFO_V1(simhash_similar_sel);
PG_FUNCTION_INFO_V1(simhash_similar_joinsel);
PG_FUNCTION_INFO_V1(simhash_within);
PG_FUNCTION_INFO_V1(simhash_within_radius_sel);
PG_FUNCTION_INFO_V1(simhash_within_radius_joinsel);
PG_FUNCTION_INFO_V1(simhash_similarity);
PG_FUNCTION_INFO_V1(simhash_blocks);
}

extern "C" Datum simhash_hamming(PG_FUNCTION_ARGS) {
    PG_RETURN_INT32(simhash::hamming_distance(PG_GETARG_SIMHASH(0), PG_GETARG_SIMHASH(1)));
}

/* a % b: within simhash.threshold (so STABLE, like pg_trgm's %). */
extern "C" Datum simhash_similar_op(PG_FUNCTION_ARGS) {
    PG_RETURN_BOOL(simhash::within_distance(PG_GETARG_SIMHASH(0), PG_GETARG_SIMHASH(1), simhash_threshold));
}

/*
 * Row estimates of %: those of simhash_within at radius simhash.threshold
 * (contsel's fixed 0.001 said 200 of 200,000 rows at threshold 40, where
 * 196,717 matched).
 */
extern "C" Datum simhash_similar_sel(PG_FUNCTION_ARGS) {
    PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
    List *args = (List *) PG_GETARG_POINTER(2);
    int varRelid = PG_GETARG_INT32(3);
    PG_RETURN_FLOAT8(simhash_radius_restriction_sel(root, args, varRelid, simhash_threshold));
}

extern "C" Datum simhash_similar_joinsel(PG_FUNCTION_ARGS) {
    PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
    List *args = (List *) PG_GETARG_POINTER(2);
    PG_RETURN_FLOAT8(simhash_radius_join_sel(root, args, simhash_threshold, (SpecialJoinInfo *) PG_GETARG_POINTER(4)));
}

/*
 * Row estimates of fp %<= ROW(q, r), the index condition simhash_within
 * becomes, for when it is written by hand; the index's cost reads its
 * selectivity too.  contsel said 200 of 200,000 rows at radius 40, and the
 * planner chose the index over a sequential scan 4 times faster.
 */
extern "C" Datum simhash_within_radius_sel(PG_FUNCTION_ARGS) {
    PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
    List *pair;
    int radius;
    if (!simhash_radius_operator_args(root, (List *) PG_GETARG_POINTER(2), &pair, &radius))
        PG_RETURN_FLOAT8(kUnknownRadiusSelectivity);
    PG_RETURN_FLOAT8(simhash_radius_restriction_sel(root, pair, PG_GETARG_INT32(3), radius));
}

extern "C" Datum simhash_within_radius_joinsel(PG_FUNCTION_ARGS) {
    PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
    List *pair;
    int radius;
    if (!simhash_radius_operator_args(root, (List *) PG_GETARG_POINTER(2), &pair, &radius))
        PG_RETURN_FLOAT8(kUnknownRadiusSelectivity);
    PG_RETURN_FLOAT8(simhash_radius_join_sel(root, pair, radius, (SpecialJoinInfo *) PG_GETARG_POINTER(4)));
}

extern "C" Datum simhash_within(PG_FUNCTION_ARGS) {
    int32 radius = PG_GETARG_INT32(2);
    if (radius < 0 || radius > simhash::kFingerprintBits)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("simhash radius %d is out of range", radius),
                        errhint("The radius must be between 0 and 64.")));
    PG_RETURN_BOOL(simhash::within_distance(PG_GETARG_SIMHASH(0), PG_GETARG_SIMHASH(1), radius));
}

extern "C" Datum simhash_similarity(PG_FUNCTION_ARGS) {
    int distance = simhash::hamming_distance(PG_GETARG_SIMHASH(0), PG_GETARG_SIMHASH(1));
    PG_RETURN_FLOAT8(1.0 - distance / 64.0);
}

/*
 * The n pigeonhole blocks, most significant first, each as a non-negative
 * bigint: the keys of the hand-built "one btree per block" index.
 */
extern "C" Datum simhash_blocks(PG_FUNCTION_ARGS) {
    uint64_t fp = PG_GETARG_SIMHASH(0);
    int32 nblocks = PG_GETARG_INT32(1);
    simhash::BlockLayout layout;
    if (nblocks < 2 || !simhash::make_block_layout(nblocks, &layout))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("number of simhash blocks %d is out of range", nblocks),
                        errhint("The number of blocks must be between 2 and 64.")));
    Datum* values = (Datum*) palloc(sizeof(Datum) * nblocks);
    for (int i = 0; i < nblocks; ++i) values[i] = Int64GetDatum((int64) layout.value(fp, i));
    PG_RETURN_ARRAYTYPE_P(construct_array(values, nblocks, INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}
