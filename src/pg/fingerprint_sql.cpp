/*
 * The simhash() fingerprint functions and simhash_features(), which shows
 * the features a text is split into.  A value with no features has no
 * fingerprint: the result is NULL, never a constant.
 */
#include <type_traits>

#include "feature_votes.h"

extern "C" {
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

PG_FUNCTION_INFO_V1(simhash_text);
PG_FUNCTION_INFO_V1(simhash_unknown);
PG_FUNCTION_INFO_V1(simhash_text_tokenized);
PG_FUNCTION_INFO_V1(simhash_text_min_features);
PG_FUNCTION_INFO_V1(simhash_tsvector);
PG_FUNCTION_INFO_V1(simhash_feature_array);
PG_FUNCTION_INFO_V1(simhash_weighted_feature_array);
PG_FUNCTION_INFO_V1(simhash_features);
PG_FUNCTION_INFO_V1(simhash_algorithm_version);
}

/* Which rules the fingerprints this library computes follow (README, "The algorithm"). */
extern "C" Datum simhash_algorithm_version(PG_FUNCTION_ARGS) { PG_RETURN_INT32(simhash::kAlgorithmVersion); }

/* NULL when the text has fewer than min_features features (at least 1). */
static Datum text_fingerprint(FunctionCallInfo fcinfo, const text* value, simhash::TokenizerKind kind, int n,
                              int64 min_features = 1) {
    simhash::TextVotes votes(kind);
    for_each_text_feature(value, kind, n, votes);
    uint64 features = votes.features();
    if (features == 0 || (int64) features < min_features) PG_RETURN_NULL();
    PG_RETURN_SIMHASH(votes.fingerprint());
}

extern "C" Datum simhash_text(PG_FUNCTION_ARGS) {
    return text_fingerprint(fcinfo, PG_GETARG_TEXT_PP(0), simhash::kDefaultTokenizer, simhash::kDefaultNgram);
}

/*
 * simhash(unknown): simhash('some text').  PostgreSQL reads a one-argument
 * call named like a type, on a literal of no stated type, as a cast unless a
 * function takes type unknown exactly; this one does.  An unknown value
 * comes as a C string in the server encoding, the bytes a text of the
 * literal holds, so the fingerprint is simhash(text)'s.
 */
extern "C" Datum simhash_unknown(PG_FUNCTION_ARGS) {
    return text_fingerprint(fcinfo, cstring_to_text(PG_GETARG_CSTRING(0)), simhash::kDefaultTokenizer,
                            simhash::kDefaultNgram);
}

/*
 * simhash(text, tokenizer, n) of databases whose extension script declared
 * it apart from min_features (the script now gives n and min_features
 * defaults on one function); kept so that their calls still find a symbol.
 */
extern "C" Datum simhash_text_tokenized(PG_FUNCTION_ARGS) {
    int32 n = PG_GETARG_INT32(2);
    simhash::TokenizerKind kind = checked_tokenizer(PG_GETARG_TEXT_PP(1), n);
    return text_fingerprint(fcinfo, PG_GETARG_TEXT_PP(0), kind, n);
}

/*
 * Short texts have few features, so unrelated short texts land close to each
 * other; production systems refuse to fingerprint them.  Features are counted
 * with repeats, as simhash_features() lists them.
 */
extern "C" Datum simhash_text_min_features(PG_FUNCTION_ARGS) {
    int32 n = PG_GETARG_INT32(2);
    simhash::TokenizerKind kind = checked_tokenizer(PG_GETARG_TEXT_PP(1), n);
    int32 min_features = PG_GETARG_INT32(3);
    if (min_features < 1)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("simhash min_features %d is out of range", min_features),
                        errhint("min_features must be at least 1.")));
    return text_fingerprint(fcinfo, PG_GETARG_TEXT_PP(0), kind, n, min_features);
}

extern "C" Datum simhash_tsvector(PG_FUNCTION_ARGS) {
    simhash::IntegerVotes votes;
    vote_tsvector(PG_GETARG_TSVECTOR(0), &votes);
    if (votes.empty()) PG_RETURN_NULL();
    PG_RETURN_SIMHASH(votes.fingerprint());
}

/*
 * A list of features or weights is one-dimensional: a matrix would pair
 * features with weights by their order in storage, whatever the two shapes
 * (as hstore(text[], text[]) refuses, and pgvector's array casts).
 */
static void check_one_dimensional(ArrayType* array, const char* what) {
    if (ARR_NDIM(array) > 1)
        ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR), errmsg("%s array must be one-dimensional", what),
                        errdetail("The array has %d dimensions.", ARR_NDIM(array))));
}

/* Elements of a text[] argument; NULL elements are an error. */
static void text_elements(ArrayType* array, const char* what, Datum** elements, int* count) {
    bool* nulls;
    check_one_dimensional(array, what);
    deconstruct_array(array, TEXTOID, -1, false, TYPALIGN_INT, elements, &nulls, count);
    for (int i = 0; i < *count; ++i)
        if (nulls[i])
            ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                            errmsg("%s array must not contain nulls", what),
                            errdetail("Element %d is null.", i + 1)));
}

// ereport(ERROR) and CHECK_FOR_INTERRUPTS() may longjmp over these frames' vote counters.
static_assert(std::is_trivially_destructible<simhash::UnitVotes>::value, "UnitVotes must need no destructor");
static_assert(std::is_trivially_destructible<simhash::TextVotes>::value, "TextVotes must need no destructor");
static_assert(std::is_trivially_destructible<simhash::RealVotes>::value, "RealVotes must need no destructor");

extern "C" Datum simhash_feature_array(PG_FUNCTION_ARGS) {
    Datum* features;
    int count;
    text_elements(PG_GETARG_ARRAYTYPE_P(0), "feature", &features, &count);
    simhash::UnitVotes votes;
    uint64_t hashes[256]; /* counted 256 at a time, as UnitVotes counts best */
    int pending = 0;
    for (int i = 0; i < count; ++i) {
        if ((i & 0xFFFF) == 0) CHECK_FOR_INTERRUPTS();  /* arrays of millions of features take seconds */
        if (feature_text_hash(DatumGetTextPP(features[i]), &hashes[pending]) && ++pending == 256) {
            votes.add_all(hashes, pending);
            pending = 0;
        }
    }
    votes.add_all(hashes, pending);
    if (votes.features() == 0) PG_RETURN_NULL();
    PG_RETURN_SIMHASH(votes.fingerprint());
}

extern "C" Datum simhash_weighted_feature_array(PG_FUNCTION_ARGS) {
    Datum* features;
    int count;
    text_elements(PG_GETARG_ARRAYTYPE_P(0), "feature", &features, &count);

    Datum* weights;
    bool* weight_nulls;
    int weight_count;
    ArrayType* weight_array = PG_GETARG_ARRAYTYPE_P(1);
    check_one_dimensional(weight_array, "weight");
    deconstruct_array(weight_array, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &weights,
                      &weight_nulls, &weight_count);
    if (weight_count != count)
        ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                        errmsg("simhash needs one weight per feature"),
                        errdetail("Features: %d, weights: %d.", count, weight_count)));

    simhash::RealVotes votes;
    int overflow_at = -1; /* the element whose weight took the sum of magnitudes past DBL_MAX */
    for (int i = 0; i < count; ++i) {
        if ((i & 0xFFFF) == 0) CHECK_FOR_INTERRUPTS();
        if (weight_nulls[i])
            ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("weight array must not contain nulls"),
                            errdetail("Weight %d (of feature \"%s\") is null.", i + 1,
                                      message_excerpt(DatumGetTextPP(features[i])))));
        double weight = DatumGetFloat8(weights[i]);
        check_feature_weight(weight, DatumGetTextPP(features[i]));
        uint64_t hash;
        if (feature_text_hash(DatumGetTextPP(features[i]), &hash)) {
            votes.add(hash, weight);
            if (overflow_at < 0 && votes.overflowed()) overflow_at = i;
        }
    }
    /* after the loop, so that a NULL or non-finite weight anywhere is reported first, whatever its place */
    if (overflow_at >= 0)
        report_weight_overflow("simhash", psprintf(" at feature %d, \"%s\" (weight %g)", overflow_at + 1,
                                                   message_excerpt(DatumGetTextPP(features[overflow_at])),
                                                   DatumGetFloat8(weights[overflow_at])));
    if (votes.features() == 0) PG_RETURN_NULL();
    PG_RETURN_SIMHASH(votes.fingerprint());
}

/* A feature as simhash_features shows it: in the server encoding, as the user typed it (release_text_bytes frees it). */
static TextBytes shown_feature(const char* feature, size_t length) {
    char* shown = pg_any_to_server(feature, (int) length, PG_UTF8);
    if (shown == feature) return {feature, length, false};
    return {shown, strlen(shown), true};
}

/*
 * The features of a text, in order, as the tokenizer produces them.
 *
 * Two passes over the text: the first counts the features and the bytes
 * they take, the second writes them into an array allocated once at its
 * final size.  Collecting them one Datum at a time (accumArrayResult) held
 * about seven times the result in memory and failed with an internal error
 * past 67M features, when its doubling pointer array reached 1 GB, although
 * the array itself was well within its limit.
 */
extern "C" Datum simhash_features(PG_FUNCTION_ARGS) {
    const text* value = PG_GETARG_TEXT_PP(0);
    int32 n = PG_GETARG_INT32(2);
    simhash::TokenizerKind kind = checked_tokenizer(PG_GETARG_TEXT_PP(1), n);

    /*
     * Word 32-grams of a large text add up to many times its size: stop as
     * soon as the array could not be built, not after gigabytes of elements.
     */
    int64 count = 0;
    Size array_bytes = ARR_OVERHEAD_NONULLS(1);
    for_each_text_feature(value, kind, n, [&count, &array_bytes, n](const char* feature, size_t length) {
        TextBytes shown = shown_feature(feature, length);
        array_bytes += INTALIGN(VARHDRSZ + shown.length);
        count++;
        release_text_bytes(shown);
        if (array_bytes > MaxAllocSize || count > (int64) MaxArraySize)
            ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                            errmsg("simhash_features result would exceed the maximum array size (%d bytes)",
                                   (int) MaxAllocSize),
                            errdetail("The features listed so far, with n = %d, take more than that.", n),
                            errhint("Use a smaller n or a shorter text; simhash() itself has no such limit.")));
    });
    if (count == 0) PG_RETURN_ARRAYTYPE_P(construct_empty_array(TEXTOID));

    /* not palloc0: zeroing up to 1 GB before the loop below could not be cancelled; every byte is written */
    ArrayType* result = (ArrayType*) palloc(array_bytes);
    memset(result, 0, ARR_OVERHEAD_NONULLS(1));
    SET_VARSIZE(result, array_bytes);
    result->ndim = 1;
    result->dataoffset = 0; /* no null bitmap */
    result->elemtype = TEXTOID;
    ARR_DIMS(result)[0] = (int) count;
    ARR_LBOUND(result)[0] = 1;
    char* out = ARR_DATA_PTR(result);
    const char* end = (const char*) result + array_bytes;
    int64 written = 0;
    for_each_text_feature(value, kind, n, [&out, end, &written, count](const char* feature, size_t length) {
        TextBytes shown = shown_feature(feature, length);
        Size size = INTALIGN(VARHDRSZ + shown.length);
        if (written == count || size > (Size) (end - out))
            elog(ERROR, "simhash_features: the second pass over the text found more features than the first");
        SET_VARSIZE(out, VARHDRSZ + shown.length);
        memcpy(VARDATA(out), shown.data, shown.length);
        memset(VARDATA(out) + shown.length, 0, size - VARHDRSZ - shown.length); /* alignment padding */
        release_text_bytes(shown);
        out += size;
        written++;
    });
    if (written != count || out != end)
        elog(ERROR, "simhash_features: the second pass over the text found fewer features than the first");
    PG_RETURN_ARRAYTYPE_P(result);
}
