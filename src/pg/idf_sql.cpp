/*
 * simhash(document, idf [, tokenizer, n]): the fingerprint with every
 * occurrence of a feature voting with weight ln(1 + N / df) (simhash::idf_weight)
 * instead of 1, through the weighted-vote path of simhash(text[], float8[]):
 * the result equals simhash(simhash_features(document, tokenizer, n), weights)
 * with those weights.
 *
 * The idf argument is usually the same large value on every row, so its
 * detoasted copy is cached in fn_extra, keyed by the argument's bytes as
 * passed: a TOAST pointer names one stored value, and an inline value is its
 * own key.  With it are the weights of the features met lately
 * (simhash::IdfWeights), which the following rows mostly meet again.
 */
#include "feature_votes.h"
#include "idf_datum.h"

#include <new>
#include <type_traits>

extern "C" {
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(simhash_text_idf);
PG_FUNCTION_INFO_V1(simhash_text_idf_tokenized);
}

struct IdfCache {
    char* key; /* the argument's bytes as passed */
    size_t key_length;
    SimhashIdfHeader* value; /* detoasted and checked */
    simhash::IdfWeights* weights; /* of value's table */
};
static_assert(std::is_trivially_destructible<simhash::IdfWeights>::value, "IdfWeights lives in palloc'd memory");

static IdfCache* cached_idf(FunctionCallInfo fcinfo, int argno) {
    MemoryContext fn_context = fcinfo->flinfo->fn_mcxt;
    IdfCache* cache = (IdfCache*) fcinfo->flinfo->fn_extra;
    if (cache == nullptr) {
        cache = (IdfCache*) MemoryContextAllocZero(fn_context, sizeof(IdfCache));
        fcinfo->flinfo->fn_extra = cache;
    }

    struct varlena* keyed = PG_GETARG_RAW_VARLENA_P(argno);
    /* Indirect and expanded pointers hold memory addresses, which can be reused: key on the contents. */
    if (VARATT_IS_EXTERNAL(keyed) && !VARATT_IS_EXTERNAL_ONDISK(keyed)) keyed = PG_DETOAST_DATUM(PointerGetDatum(keyed));
    size_t key_length = VARSIZE_ANY(keyed);
    if (cache->value != nullptr && cache->key_length == key_length && memcmp(cache->key, keyed, key_length) == 0)
        return cache;

    if (cache->value != nullptr) {
        pfree(cache->value);
        pfree(cache->key);
        cache->value = nullptr;
        cache->key = nullptr;
    }
    MemoryContext old = MemoryContextSwitchTo(fn_context);
    SimhashIdfHeader* value = (SimhashIdfHeader*) PG_DETOAST_DATUM_COPY(PointerGetDatum(keyed));
    char* key = (char*) palloc(key_length);
    MemoryContextSwitchTo(old);
    memcpy(key, keyed, key_length);
    if (const char* problem = idf_value_problem(value))
        ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED), errmsg("invalid simhash_idf value"),
                        errdetail("%s", problem)));
    if (cache->weights == nullptr)
        cache->weights = new (MemoryContextAlloc(fn_context, sizeof(simhash::IdfWeights))) simhash::IdfWeights();
    cache->weights->reset(idf_entries(value), value->entries, value->documents);
    cache->key = key;
    cache->key_length = key_length;
    cache->value = value;
    return cache;
}

static Datum idf_fingerprint(FunctionCallInfo fcinfo, const IdfCache* cache, simhash::TokenizerKind kind, int n) {
    const SimhashIdfHeader* idf = cache->value;
    if (idf->tokenizer != (uint8) kind || idf->ngram != n)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("simhash_idf was counted with tokenizer %s, n = %d, not %s, n = %d",
                               simhash::tokenizer_name((simhash::TokenizerKind) idf->tokenizer), (int) idf->ngram,
                               simhash::tokenizer_name(kind), n),
                        errhint("Fingerprint with the tokenizer the simhash_idf was built with, or rebuild it "
                                "with simhash_idf_agg(document, tokenizer, n).")));

    simhash::IdfWeights* weights = cache->weights;
    simhash::RealVotes votes;
    for_each_text_feature(PG_GETARG_TEXT_PP(0), kind, n, [&votes, weights](const char* feature, size_t length) {
        uint64_t hash = simhash::feature_hash(feature, length);
        votes.add(hash, weights->weight(hash));
    });
    if (votes.features() == 0) PG_RETURN_NULL();
    PG_RETURN_SIMHASH(votes.fingerprint());
}

/*
 * Without a tokenizer, the one the counts were made with (checked when the
 * value was decoded): the features must be counted the way their document
 * frequencies were, so no other choice gives a meaningful fingerprint.
 */
extern "C" Datum simhash_text_idf(PG_FUNCTION_ARGS) {
    const IdfCache* cache = cached_idf(fcinfo, 1);
    return idf_fingerprint(fcinfo, cache, (simhash::TokenizerKind) cache->value->tokenizer, cache->value->ngram);
}

extern "C" Datum simhash_text_idf_tokenized(PG_FUNCTION_ARGS) {
    int32 n = PG_GETARG_INT32(3);
    simhash::TokenizerKind kind = checked_tokenizer(PG_GETARG_TEXT_PP(2), n);
    return idf_fingerprint(fcinfo, cached_idf(fcinfo, 1), kind, n);
}
