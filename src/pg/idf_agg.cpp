/*
 * simhash_idf_agg(document [, tokenizer, n]): counts, over the documents of a
 * group, how many contain each feature (once per document however often it
 * repeats), and returns them as a simhash_idf.  Rows with a NULL argument are
 * skipped; a group with no other row gives NULL.  Documents without features
 * still count in N.
 *
 * The state lives in the aggregate context: a sorted table of counts and a
 * buffer of pending hashes (each document's distinct hashes, appended).  When
 * the buffer outgrows the table it is sorted, counted and merged into the
 * table, so counting costs O(log) per feature.  Per-document work (encoding
 * conversion, tokenizer scratch) is done in a scratch context reset after
 * every document.  The state serializes, so the aggregate runs in parallel.
 */
#include "feature_votes.h"
#include "idf_datum.h"

extern "C" {
#include "miscadmin.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(simhash_idf_agg_transfn);
PG_FUNCTION_INFO_V1(simhash_idf_agg_tokenized_transfn);
PG_FUNCTION_INFO_V1(simhash_idf_agg_combinefn);
PG_FUNCTION_INFO_V1(simhash_idf_agg_finalfn);
PG_FUNCTION_INFO_V1(simhash_idf_agg_serializefn);
PG_FUNCTION_INFO_V1(simhash_idf_agg_deserializefn);
}

/* Pending hashes are merged once there are this many and at least as many as table entries. */
constexpr size_t kMinPendingFlush = size_t(1) << 20;

struct IdfAggState {
    MemoryContext context; /* the aggregate context: everything below is allocated there */
    MemoryContext scratch; /* per document, reset after each */
    uint64 documents;
    int tokenizer; /* simhash::TokenizerKind, or -1 before the first document */
    int ngram;
    simhash::IdfEntry* table; /* strictly increasing hashes, df >= 1 */
    size_t table_count;
    uint64* pending; /* distinct hashes of each document since the last flush */
    size_t pending_count;
    size_t pending_capacity;
};

/* Serialized: this header, then table_count entries. */
struct IdfAggWire {
    uint64 documents;
    int32 tokenizer;
    int32 ngram;
    uint64 table_count;
};

static MemoryContext aggregate_context(FunctionCallInfo fcinfo, const char* caller) {
    MemoryContext context;
    if (!AggCheckCallContext(fcinfo, &context))
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("%s called in non-aggregate context", caller)));
    return context;
}

static IdfAggState* new_state(MemoryContext context) {
    IdfAggState* state = (IdfAggState*) MemoryContextAllocZero(context, sizeof(IdfAggState));
    state->context = context;
    state->tokenizer = -1;
    return state;
}

static void *alloc_huge(MemoryContext context, size_t count, size_t size) {
    if (count > MaxAllocHugeSize / size)
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("simhash_idf_agg cannot hold %zu features", count)));
    return MemoryContextAllocHuge(context, count * size);
}

static void append_pending(IdfAggState* state, uint64 hash) {
    if (state->pending_count == state->pending_capacity) {
        size_t capacity = state->pending_capacity ? 2 * state->pending_capacity : 1024;
        if (capacity > MaxAllocHugeSize / sizeof(uint64))
            ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                            errmsg("simhash_idf_agg cannot hold %zu pending features", capacity)));
        state->pending = state->pending ? (uint64*) repalloc_huge(state->pending, capacity * sizeof(uint64))
                                        : (uint64*) MemoryContextAllocHuge(state->context, capacity * sizeof(uint64));
        state->pending_capacity = capacity;
    }
    state->pending[state->pending_count++] = hash;
}

/* Replaces the table by its merge with other (which may be the counted pending hashes). */
static void merge_into_table(IdfAggState* state, const simhash::IdfEntry* other, size_t other_count) {
    if (other_count == 0) return;
    simhash::IdfEntry* merged = (simhash::IdfEntry*) alloc_huge(state->context, state->table_count + other_count,
                                                                sizeof(simhash::IdfEntry));
    size_t count = simhash::merge_idf(state->table, state->table_count, other, other_count, merged);
    if (count < (state->table_count + other_count) / 2) /* many shared hashes: give the rest back */
        merged = (simhash::IdfEntry*) repalloc_huge(merged, count * sizeof(simhash::IdfEntry));
    if (state->table) pfree(state->table);
    state->table = merged;
    state->table_count = count;
}

static void flush_pending(IdfAggState* state) {
    if (state->pending_count == 0) return;
    CHECK_FOR_INTERRUPTS();
    simhash::IdfEntry* counted =
        (simhash::IdfEntry*) alloc_huge(state->context, state->pending_count, sizeof(simhash::IdfEntry));
    size_t count = simhash::count_hashes(state->pending, state->pending_count, counted, check_for_interrupts);
    CHECK_FOR_INTERRUPTS();
    merge_into_table(state, counted, count);
    pfree(counted);
    state->pending_count = 0;
    CHECK_FOR_INTERRUPTS();
}

static void set_tokenizer(IdfAggState* state, int tokenizer, int ngram) {
    if (state->tokenizer < 0) {
        state->tokenizer = tokenizer;
        state->ngram = ngram;
    } else if (state->tokenizer != tokenizer || state->ngram != ngram) {
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("simhash_idf_agg got tokenizer %s, n = %d, after tokenizer %s, n = %d",
                               simhash::tokenizer_name((simhash::TokenizerKind) tokenizer), ngram,
                               simhash::tokenizer_name((simhash::TokenizerKind) state->tokenizer), state->ngram),
                        errdetail("Every document of a group must be counted with the same tokenizer.")));
    }
}

static Datum add_document(FunctionCallInfo fcinfo, simhash::TokenizerKind kind, int n) {
    MemoryContext context = aggregate_context(fcinfo, "simhash_idf_agg_transfn");
    IdfAggState* state = PG_ARGISNULL(0) ? new_state(context) : (IdfAggState*) PG_GETARG_POINTER(0);
    set_tokenizer(state, (int) kind, n);
    if (state->scratch == nullptr)
        state->scratch = AllocSetContextCreate(state->context, "simhash_idf_agg document", ALLOCSET_DEFAULT_SIZES);

    MemoryContext old = MemoryContextSwitchTo(state->scratch);
    size_t start = state->pending_count;
    for_each_text_feature(PG_GETARG_TEXT_PP(1), kind, n, [state](const char* feature, size_t length) {
        append_pending(state, simhash::feature_hash(feature, length));
    });
    MemoryContextSwitchTo(old);
    MemoryContextReset(state->scratch);

    state->pending_count =
        start + simhash::sort_unique(state->pending + start, state->pending_count - start, check_for_interrupts);
    ++state->documents;
    if (state->pending_count >= kMinPendingFlush && state->pending_count >= state->table_count)
        flush_pending(state);
    PG_RETURN_POINTER(state);
}

extern "C" Datum simhash_idf_agg_transfn(PG_FUNCTION_ARGS) {
    if (PG_ARGISNULL(1)) {
        if (PG_ARGISNULL(0)) PG_RETURN_NULL();
        PG_RETURN_POINTER(PG_GETARG_POINTER(0));
    }
    return add_document(fcinfo, simhash::kDefaultTokenizer, simhash::kDefaultNgram);
}

extern "C" Datum simhash_idf_agg_tokenized_transfn(PG_FUNCTION_ARGS) {
    if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3)) {
        if (PG_ARGISNULL(0)) PG_RETURN_NULL();
        PG_RETURN_POINTER(PG_GETARG_POINTER(0));
    }
    int32 n = PG_GETARG_INT32(3);
    simhash::TokenizerKind kind = checked_tokenizer(PG_GETARG_TEXT_PP(2), n);
    return add_document(fcinfo, kind, n);
}

extern "C" Datum simhash_idf_agg_combinefn(PG_FUNCTION_ARGS) {
    MemoryContext context = aggregate_context(fcinfo, "simhash_idf_agg_combinefn");
    if (PG_ARGISNULL(1)) {
        if (PG_ARGISNULL(0)) PG_RETURN_NULL();
        PG_RETURN_POINTER(PG_GETARG_POINTER(0));
    }
    IdfAggState* other = (IdfAggState*) PG_GETARG_POINTER(1);
    IdfAggState* state = PG_ARGISNULL(0) ? new_state(context) : (IdfAggState*) PG_GETARG_POINTER(0);
    if (other->tokenizer >= 0) set_tokenizer(state, other->tokenizer, other->ngram);
    flush_pending(state);
    flush_pending(other);
    merge_into_table(state, other->table, other->table_count);
    state->documents += other->documents;
    CHECK_FOR_INTERRUPTS();
    PG_RETURN_POINTER(state);
}

/* NULL for a group without documents; otherwise the features in two or more of them. */
extern "C" Datum simhash_idf_agg_finalfn(PG_FUNCTION_ARGS) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    IdfAggState* state = (IdfAggState*) PG_GETARG_POINTER(0);
    if (state->documents == 0) PG_RETURN_NULL();
    flush_pending(state); /* the counts stay the same; only their representation changes */
    PG_RETURN_POINTER(make_idf_value((simhash::TokenizerKind) state->tokenizer, state->ngram, state->documents,
                                     state->table, state->table_count));
}

extern "C" Datum simhash_idf_agg_serializefn(PG_FUNCTION_ARGS) {
    IdfAggState* state = (IdfAggState*) PG_GETARG_POINTER(0);
    flush_pending(state);
    size_t table_bytes = state->table_count * sizeof(simhash::IdfEntry);
    size_t size = VARHDRSZ + sizeof(IdfAggWire) + table_bytes;
    if (!AllocSizeIsValid(size))
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("simhash_idf_agg state of %zu features is too large to pass between processes",
                               state->table_count)));
    bytea* result = (bytea*) palloc(size);
    SET_VARSIZE(result, size);
    IdfAggWire wire{state->documents, state->tokenizer, state->ngram, state->table_count};
    memcpy(VARDATA(result), &wire, sizeof(wire));
    if (table_bytes) memcpy(VARDATA(result) + sizeof(wire), state->table, table_bytes);
    PG_RETURN_BYTEA_P(result);
}

extern "C" Datum simhash_idf_agg_deserializefn(PG_FUNCTION_ARGS) {
    /* in the per-input-row context, as simhash_agg_deserializefn: the combine function copies it */
    (void) aggregate_context(fcinfo, "simhash_idf_agg_deserializefn");
    MemoryContext context = CurrentMemoryContext;
    bytea* serialized = PG_GETARG_BYTEA_PP(0);
    size_t length = VARSIZE_ANY_EXHDR(serialized);
    IdfAggWire wire;
    bool ok = length >= sizeof(wire);
    if (ok) {
        memcpy(&wire, VARDATA_ANY(serialized), sizeof(wire));
        ok = wire.tokenizer >= -1 && wire.tokenizer <= (int) simhash::TokenizerKind::kMixed &&
             (wire.tokenizer < 0 || (wire.ngram >= 1 && wire.ngram <= simhash::kMaxNgram)) &&
             wire.table_count == (length - sizeof(wire)) / sizeof(simhash::IdfEntry) &&
             length == sizeof(wire) + wire.table_count * sizeof(simhash::IdfEntry);
    }
    if (!ok)
        ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
                        errmsg("invalid simhash_idf_agg state of %zu bytes", length)));
    IdfAggState* state = new_state(context);
    state->documents = wire.documents;
    state->tokenizer = wire.tokenizer;
    state->ngram = wire.ngram;
    if (wire.table_count) {
        state->table = (simhash::IdfEntry*) alloc_huge(context, wire.table_count, sizeof(simhash::IdfEntry));
        memcpy(state->table, VARDATA_ANY(serialized) + sizeof(wire), wire.table_count * sizeof(simhash::IdfEntry));
        state->table_count = wire.table_count;
    }
    if (!simhash::idf_table_valid(state->table, state->table_count, state->documents, 1))
        ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
                        errmsg("invalid simhash_idf_agg state: %llu features over %llu documents out of order or range",
                               (unsigned long long) state->table_count, (unsigned long long) state->documents)));
    PG_RETURN_POINTER(state);
}
