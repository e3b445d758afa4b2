/*
 * simhash_agg(feature, weight) and simhash_agg(feature): a fingerprint built
 * from features spread over rows (one row per term, as in a term table).
 * Rows whose feature or weight is NULL are skipped, as sum() skips them.
 * The state is the 64 running sums; it combines, so the aggregate runs in
 * parallel.
 *
 * Two forms of the state: internal (1.0: a bare RealVotes, serialized to
 * bytea between processes) and bytea (1.1: a VotesState, the same sums in a
 * varlena).  A distributed planner such as Citus aggregates on its workers
 * only when the state is a type it can ship (through the type's text I/O),
 * so the bytea form lets the shards build partial sums and send 1 kB each
 * instead of every row.  The transition function updates the bytea in
 * place, as an aggregate's own state may be, so it costs what the internal
 * one does.
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
PG_FUNCTION_INFO_V1(simhash_agg_state_weighted_transfn);
PG_FUNCTION_INFO_V1(simhash_agg_state_transfn);
PG_FUNCTION_INFO_V1(simhash_agg_state_combinefn);
PG_FUNCTION_INFO_V1(simhash_agg_state_finalfn);
}

static_assert(std::is_trivially_copyable<simhash::RealVotes>::value, "the state is copied as bytes");
// The planner sizes hash aggregation by the state's SSPACE (without it, an
// internal state counts as 8 kB): AllocSet rounds the 1056-byte state (1072
// as bytea) up to a chunk of 2048 bytes, behind a 16-byte header.
static_assert(sizeof(simhash::RealVotes) > 1024 && sizeof(simhash::RealVotes) + 16 <= 2048,
              "update simhash_agg's SSPACE (2064) in sql/simhash--1.0.sql and sql/simhash--1.0--1.1.sql");

static MemoryContext aggregate_context(FunctionCallInfo fcinfo, const char* caller) {
    MemoryContext agg_context;
    if (!AggCheckCallContext(fcinfo, &agg_context))
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("%s called in non-aggregate context", caller)));
    return agg_context;
}

static simhash::RealVotes* agg_state(FunctionCallInfo fcinfo, const char* caller) {
    MemoryContext agg_context = aggregate_context(fcinfo, caller);
    if (!PG_ARGISNULL(0)) return (simhash::RealVotes*) PG_GETARG_POINTER(0);
    void* memory = MemoryContextAllocZero(agg_context, sizeof(simhash::RealVotes));
    return new (memory) simhash::RealVotes();
}

static void add_feature(FunctionCallInfo fcinfo, simhash::RealVotes* votes, double weight) {
    uint64_t hash;
    if (!feature_text_hash(PG_GETARG_TEXT_PP(1), &hash)) return;
    votes->add(hash, weight);
    if (votes->overflowed())
        report_weight_overflow("simhash_agg",
                               psprintf(" at feature \"%s\" (weight %g)", message_excerpt(PG_GETARG_TEXT_PP(1)), weight));
}

/* The row's feature (argument 1) and weight (argument 2, or 1 for the unweighted form) added to votes. */
static void add_row(FunctionCallInfo fcinfo, simhash::RealVotes* votes, bool weighted) {
    if (PG_ARGISNULL(1) || (weighted && PG_ARGISNULL(2))) return;
    double weight = weighted ? PG_GETARG_FLOAT8(2) : 1.0;
    if (weighted) check_feature_weight(weight, PG_GETARG_TEXT_PP(1));
    add_feature(fcinfo, votes, weight);
}

extern "C" Datum simhash_agg_weighted_transfn(PG_FUNCTION_ARGS) {
    simhash::RealVotes* votes = agg_state(fcinfo, "simhash_agg_weighted_transfn");
    add_row(fcinfo, votes, true);
    PG_RETURN_POINTER(votes);
}

extern "C" Datum simhash_agg_transfn(PG_FUNCTION_ARGS) {
    simhash::RealVotes* votes = agg_state(fcinfo, "simhash_agg_transfn");
    add_row(fcinfo, votes, false);
    PG_RETURN_POINTER(votes);
}

static void merge_votes(simhash::RealVotes* votes, const simhash::RealVotes& other) {
    votes->merge(other);
    /*
     * Parallel workers' shares can each stay below the limit that their
     * total passes: unchecked here, a parallel plan returned a fingerprint
     * of infinite sums where the serial one fails.
     */
    if (votes->overflowed()) report_weight_overflow("simhash_agg", "");
}

extern "C" Datum simhash_agg_combinefn(PG_FUNCTION_ARGS) {
    if (PG_ARGISNULL(1)) {
        if (PG_ARGISNULL(0)) PG_RETURN_NULL();
        PG_RETURN_POINTER(PG_GETARG_POINTER(0));
    }
    simhash::RealVotes* votes = agg_state(fcinfo, "simhash_agg_combinefn");
    merge_votes(votes, *(const simhash::RealVotes*) PG_GETARG_POINTER(1));
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

/*
 * The bytea state: a varlena whose sums start 16 bytes in, so that in a
 * state the executor allocated (palloc's chunks start 16-byte aligned) the
 * sums' 16-byte vector loads never straddle a cache line (at 8 bytes in,
 * grouped aggregation ran 6% slower than with the internal state).  The
 * executor copies a transition value it did not get back unchanged into the
 * aggregate's context; every later row updates that copy in place.
 */
struct VotesState {
    int32 varlena_header; /* SET_VARSIZE's, of sizeof(VotesState) */
    int32 zero[3];        /* pads the sums to 16 bytes */
    simhash::RealVotes votes;
};
static_assert(offsetof(VotesState, votes) == 16, "the sums start 16 bytes in");
static_assert(std::is_trivially_copyable<VotesState>::value, "the state is copied as bytes");

static VotesState* new_votes_state() {
    /* In the per-row context: the executor copies it into the aggregate's. */
    VotesState* state = (VotesState*) palloc0(sizeof(VotesState));
    SET_VARSIZE(state, sizeof(VotesState));
    new (&state->votes) simhash::RealVotes();
    return state;
}

/*
 * A bytea state that came from elsewhere (another node's text, a parallel
 * worker's tuple, a user's INITCOND) as a fresh aligned VotesState, or an
 * ERROR if it has the wrong size.
 */
static VotesState* copy_votes_state(Datum datum) {
    bytea* value = DatumGetByteaPP(datum);
    if (VARSIZE_ANY_EXHDR(value) != sizeof(VotesState) - VARHDRSZ)
        ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
                        errmsg("invalid simhash_agg state of length %zu", (size_t) VARSIZE_ANY_EXHDR(value)),
                        errdetail("A simhash_agg state has %zu bytes.", sizeof(VotesState) - VARHDRSZ)));
    VotesState* state = new_votes_state();
    memcpy((char*) state + VARHDRSZ, VARDATA_ANY(value), sizeof(VotesState) - VARHDRSZ);
    return state;
}

/* The state itself when it is one the executor keeps (plain, the right size, aligned), else a copy. */
static VotesState* aligned_votes_state(Datum datum) {
    VotesState* state = (VotesState*) DatumGetPointer(datum);
    if (!VARATT_IS_EXTENDED(state) && VARSIZE(state) == sizeof(VotesState) &&
        (uintptr_t) state % alignof(VotesState) == 0)
        return state;
    return copy_votes_state(datum);
}

/* The group's state (argument 0), to be updated in place: a new one for the group's first row. */
static VotesState* own_votes_state(FunctionCallInfo fcinfo, const char* caller) {
    aggregate_context(fcinfo, caller);
    return PG_ARGISNULL(0) ? new_votes_state() : aligned_votes_state(PG_GETARG_DATUM(0));
}

extern "C" Datum simhash_agg_state_weighted_transfn(PG_FUNCTION_ARGS) {
    VotesState* state = own_votes_state(fcinfo, "simhash_agg_state_weighted_transfn");
    add_row(fcinfo, &state->votes, true);
    PG_RETURN_POINTER(state);
}

extern "C" Datum simhash_agg_state_transfn(PG_FUNCTION_ARGS) {
    VotesState* state = own_votes_state(fcinfo, "simhash_agg_state_transfn");
    add_row(fcinfo, &state->votes, false);
    PG_RETURN_POINTER(state);
}

extern "C" Datum simhash_agg_state_combinefn(PG_FUNCTION_ARGS) {
    if (PG_ARGISNULL(1)) {
        if (PG_ARGISNULL(0)) PG_RETURN_NULL();
        PG_RETURN_DATUM(PG_GETARG_DATUM(0));
    }
    VotesState* state = own_votes_state(fcinfo, "simhash_agg_state_combinefn");
    const VotesState* other = copy_votes_state(PG_GETARG_DATUM(1));
    merge_votes(&state->votes, other->votes);
    pfree((void*) other);
    PG_RETURN_POINTER(state);
}

extern "C" Datum simhash_agg_state_finalfn(PG_FUNCTION_ARGS) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    const VotesState* state = aligned_votes_state(PG_GETARG_DATUM(0));
    if (state->votes.features() == 0) PG_RETURN_NULL();
    PG_RETURN_SIMHASH(state->votes.fingerprint());
}
