/*
 * simhash_agg(feature, weight) and simhash_agg(feature): a fingerprint built
 * from features spread over rows (one row per term, as in a term table).
 * Rows whose feature or weight is NULL are skipped, as sum() skips them.
 * The state is the 64 running sums; it combines, so the aggregate runs in
 * parallel.
 */
#include "feature_votes.h"

#include <new>

extern "C" {
#include "libpq/pqformat.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(simhash_agg_weighted_transfn);
PG_FUNCTION_INFO_V1(simhash_agg_transfn);
PG_FUNCTION_INFO_V1(simhash_agg_combinefn);
PG_FUNCTION_INFO_V1(simhash_agg_finalfn);
PG_FUNCTION_INFO_V1(simhash_agg_serializefn);
PG_FUNCTION_INFO_V1(simhash_agg_deserializefn);
}

static_assert(std::is_trivially_copyable<simhash::RealVotes>::value, "the state is copied as bytes");
// The planner sizes hash aggregation by the state's SSPACE in simhash--1.0.sql
// (without it, an internal state counts as 8 kB): AllocSet rounds the
// 1056-byte state up to a chunk of 2048 bytes, behind a 16-byte header.
static_assert(sizeof(simhash::RealVotes) > 1024 && sizeof(simhash::RealVotes) <= 2048,
              "update simhash_agg's SSPACE (2064) in sql/simhash--1.0.sql");

static simhash::RealVotes* agg_state(FunctionCallInfo fcinfo, const char* caller) {
    MemoryContext agg_context;
    if (!AggCheckCallContext(fcinfo, &agg_context))
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("%s called in non-aggregate context", caller)));
    if (!PG_ARGISNULL(0)) return (simhash::RealVotes*) PG_GETARG_POINTER(0);
    void* memory = MemoryContextAllocZero(agg_context, sizeof(simhash::RealVotes));
    return new (memory) simhash::RealVotes();
}

static Datum add_feature(FunctionCallInfo fcinfo, simhash::RealVotes* votes, double weight) {
    uint64_t hash;
    if (!feature_text_hash(PG_GETARG_TEXT_PP(1), &hash)) PG_RETURN_POINTER(votes);
    votes->add(hash, weight);
    if (votes->overflowed())
        report_weight_overflow("simhash_agg",
                               psprintf(" at feature \"%s\" (weight %g)", message_excerpt(PG_GETARG_TEXT_PP(1)), weight));
    PG_RETURN_POINTER(votes);
}

extern "C" Datum simhash_agg_weighted_transfn(PG_FUNCTION_ARGS) {
    simhash::RealVotes* votes = agg_state(fcinfo, "simhash_agg_weighted_transfn");
    if (PG_ARGISNULL(1) || PG_ARGISNULL(2)) PG_RETURN_POINTER(votes);
    double weight = PG_GETARG_FLOAT8(2);
    check_feature_weight(weight, PG_GETARG_TEXT_PP(1));
    return add_feature(fcinfo, votes, weight);
}

extern "C" Datum simhash_agg_transfn(PG_FUNCTION_ARGS) {
    simhash::RealVotes* votes = agg_state(fcinfo, "simhash_agg_transfn");
    if (PG_ARGISNULL(1)) PG_RETURN_POINTER(votes);
    return add_feature(fcinfo, votes, 1.0);
}

extern "C" Datum simhash_agg_combinefn(PG_FUNCTION_ARGS) {
    if (PG_ARGISNULL(1)) {
        if (PG_ARGISNULL(0)) PG_RETURN_NULL();
        PG_RETURN_POINTER(PG_GETARG_POINTER(0));
    }
    simhash::RealVotes* votes = agg_state(fcinfo, "simhash_agg_combinefn");
    votes->merge(*(const simhash::RealVotes*) PG_GETARG_POINTER(1));
    /*
     * Parallel workers' shares can each stay below the limit that their
     * total passes: unchecked here, a parallel plan returned a fingerprint
     * of infinite sums where the serial one fails.
     */
    if (votes->overflowed()) report_weight_overflow("simhash_agg", "");
    PG_RETURN_POINTER(votes);
}

extern "C" Datum simhash_agg_finalfn(PG_FUNCTION_ARGS) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    const simhash::RealVotes* votes = (const simhash::RealVotes*) PG_GETARG_POINTER(0);
    if (votes->features() == 0) PG_RETURN_NULL();
    PG_RETURN_SIMHASH(votes->fingerprint());
}

extern "C" Datum simhash_agg_serializefn(PG_FUNCTION_ARGS) {
    const simhash::RealVotes* votes = (const simhash::RealVotes*) PG_GETARG_POINTER(0);
    bytea* result = (bytea*) palloc(VARHDRSZ + sizeof(*votes));
    SET_VARSIZE(result, VARHDRSZ + sizeof(*votes));
    memcpy(VARDATA(result), votes, sizeof(*votes));
    PG_RETURN_BYTEA_P(result);
}

extern "C" Datum simhash_agg_deserializefn(PG_FUNCTION_ARGS) {
    bytea* serialized = PG_GETARG_BYTEA_PP(0);
    if (VARSIZE_ANY_EXHDR(serialized) != sizeof(simhash::RealVotes))
        ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION), errmsg("invalid simhash_agg state")));
    if (!AggCheckCallContext(fcinfo, NULL))
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("simhash_agg_deserializefn called in non-aggregate context")));
    /*
     * In the per-input-row context: the combine function copies it into the
     * group's state.  In the aggregate's context, a hash aggregation kept
     * every input row's copy until the end of its batch (1.1 GB at a
     * work_mem of 1 MB over 559,076 partial states).
     */
    void* memory = palloc(sizeof(simhash::RealVotes));
    memcpy(memory, VARDATA_ANY(serialized), sizeof(simhash::RealVotes));
    PG_RETURN_POINTER(memory);
}
