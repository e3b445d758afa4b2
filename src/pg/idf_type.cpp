/*
 * The simhash_idf type's I/O.  The text form is a summary, not the table:
 * simhash_idf(documents=300, features=1234, tokenizer=mixed, n=2), so text
 * input is refused (build values with simhash_idf_agg()).  The binary form
 * carries the whole table and is checked on receipt.
 */
#include "idf_datum.h"

extern "C" {
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(simhash_idf_in);
PG_FUNCTION_INFO_V1(simhash_idf_out);
PG_FUNCTION_INFO_V1(simhash_idf_recv);
PG_FUNCTION_INFO_V1(simhash_idf_send);
}

/*
 * The most features a value holds: it must fit one allocation with room to
 * spare for what PostgreSQL wraps around it before TOAST compresses it (a
 * heap tuple's header, a tuplestore's), or a value just under the
 * allocation limit is made but cannot be stored (XX000 "invalid
 * memory alloc request size 1073741864").  1 kB is 64 features.
 */
static const size_t kIdfMaxFeatures = (MaxAllocSize - 1024 - sizeof(SimhashIdfHeader)) / sizeof(simhash::IdfEntry);

SimhashIdfHeader* make_idf_value(simhash::TokenizerKind kind, int n, uint64 documents,
                                 const simhash::IdfEntry* table, size_t count) {
    size_t kept = 0;
    for (size_t i = 0; i < count; ++i) kept += table[i].df >= simhash::kIdfMinStoredDf;
    if (kept > kIdfMaxFeatures)
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("simhash_idf of %zu features is too large", kept),
                        errdetail("A value holds at most %zu features.", kIdfMaxFeatures),
                        errhint("Count the features of a sample of the documents, or of each group of them.")));
    size_t size = idf_value_size(kept);
    SimhashIdfHeader* value = (SimhashIdfHeader*) palloc0(size);
    SET_VARSIZE(value, size);
    value->version = kIdfFormatVersion;
    value->tokenizer = (uint8) kind;
    value->ngram = (uint8) n;
    value->documents = documents;
    value->entries = simhash::keep_common(table, count, simhash::kIdfMinStoredDf,
                                          (simhash::IdfEntry*) idf_entries(value));
    return value;
}

/* Whether a stored tokenizer byte names a tokenizer. */
static bool known_tokenizer(int code) { return code >= 0 && code <= (int) simhash::TokenizerKind::kMixed; }

const char* idf_value_problem(const SimhashIdfHeader* value) {
    size_t size = VARSIZE(value);
    if (size < sizeof(SimhashIdfHeader)) return psprintf("It is %zu bytes, shorter than its header.", size);
    if (value->version != kIdfFormatVersion) return psprintf("Its format version is %d.", value->version);
    if (!known_tokenizer(value->tokenizer)) return psprintf("Its tokenizer number %d is unknown.", value->tokenizer);
    if (value->ngram < 1 || value->ngram > simhash::kMaxNgram)
        return psprintf("Its n is %d, outside 1 to %d.", value->ngram, simhash::kMaxNgram);
    /* the wire carries a signed int64; nothing counts 2^63 documents */
    if (value->documents < 1 || value->documents > (uint64) PG_INT64_MAX)
        return psprintf("It counts %lld documents, outside 1 to %lld.", (long long) value->documents,
                        (long long) PG_INT64_MAX);
    if (value->entries > (size - sizeof(SimhashIdfHeader)) / sizeof(simhash::IdfEntry) ||
        size != idf_value_size(value->entries))
        return psprintf("It is %zu bytes, which do not hold its %llu features.", size,
                        (unsigned long long) value->entries);
    const simhash::IdfEntry* entries = idf_entries(value);
    size_t bad = simhash::idf_table_first_invalid(entries, value->entries, value->documents, simhash::kIdfMinStoredDf);
    if (bad == value->entries) return NULL;
    if (!simhash::idf_df_in_range(entries[bad].df, value->documents, simhash::kIdfMinStoredDf))
        return psprintf("Feature %zu has df %lld, outside %llu to the %lld documents.", bad + 1,
                        (long long) entries[bad].df, (unsigned long long) simhash::kIdfMinStoredDf,
                        (long long) value->documents);
    return psprintf("Feature %zu's hash is not above the one before it: hashes must strictly increase.", bad + 1);
}

extern "C" Datum simhash_idf_in(PG_FUNCTION_ARGS) {
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("simhash_idf cannot be entered as text: \"%s\"", PG_GETARG_CSTRING(0)),
                    errdetail("The text form of simhash_idf is a summary, not the table."),
                    errhint("Build the value with simhash_idf_agg(document).")));
    PG_RETURN_NULL();
}

/* Only the header is read: a large value is not detoasted in full. */
extern "C" Datum simhash_idf_out(PG_FUNCTION_ARGS) {
    const SimhashIdfHeader* value = (const SimhashIdfHeader*) PG_DETOAST_DATUM_SLICE(
        PG_GETARG_DATUM(0), 0, sizeof(SimhashIdfHeader) - VARHDRSZ);
    if (VARSIZE(value) < sizeof(SimhashIdfHeader) || !known_tokenizer(value->tokenizer))
        ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED), errmsg("invalid simhash_idf value in output")));
    PG_RETURN_CSTRING(psprintf("simhash_idf(documents=%llu, features=%llu, tokenizer=%s, n=%d)",
                               (unsigned long long) value->documents, (unsigned long long) value->entries,
                               simhash::tokenizer_name((simhash::TokenizerKind) value->tokenizer),
                               (int) value->ngram));
}

/* version, tokenizer, n (one byte each), documents, count, then count (hash, df) pairs: 64-bit, network order. */
extern "C" Datum simhash_idf_send(PG_FUNCTION_ARGS) {
    const SimhashIdfHeader* value = (const SimhashIdfHeader*) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
    StringInfoData buf;
    pq_begintypsend(&buf);
    pq_sendbyte(&buf, value->version);
    pq_sendbyte(&buf, value->tokenizer);
    pq_sendbyte(&buf, value->ngram);
    pq_sendint64(&buf, (int64) value->documents);
    pq_sendint64(&buf, (int64) value->entries);
    const simhash::IdfEntry* entries = idf_entries(value);
    for (uint64 i = 0; i < value->entries; ++i) {
        pq_sendint64(&buf, (int64) entries[i].hash);
        pq_sendint64(&buf, (int64) entries[i].df);
    }
    PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

extern "C" Datum simhash_idf_recv(PG_FUNCTION_ARGS) {
    StringInfo buf = (StringInfo) PG_GETARG_POINTER(0);
    /* version, tokenizer, n, documents, features: a shorter field is a damaged value (pq_getmsg* would say 08P01) */
    constexpr int kHeaderBytes = 3 + 2 * 8;
    if (buf->len - buf->cursor < kHeaderBytes)
        ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
                        errmsg_plural("invalid simhash_idf binary value: %d byte, shorter than its %d-byte header",
                                      "invalid simhash_idf binary value: %d bytes, shorter than its %d-byte header",
                                      buf->len - buf->cursor, buf->len - buf->cursor, kHeaderBytes)));
    int version = pq_getmsgbyte(buf);
    int tokenizer = pq_getmsgbyte(buf);
    int ngram = pq_getmsgbyte(buf);
    uint64 documents = (uint64) pq_getmsgint64(buf);
    uint64 count = (uint64) pq_getmsgint64(buf);
    if (version != kIdfFormatVersion)
        ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
                        errmsg("unsupported simhash_idf format version %d", version)));
    if (count > (uint64) (buf->len - buf->cursor) / (2 * sizeof(int64)))
        ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
                        errmsg("simhash_idf claims %lld features but carries %d bytes of them",
                               (long long) count, buf->len - buf->cursor)));
    SimhashIdfHeader* value = (SimhashIdfHeader*) palloc0(idf_value_size(count));
    SET_VARSIZE(value, idf_value_size(count));
    value->version = (uint8) version;
    value->tokenizer = (uint8) tokenizer;
    value->ngram = (uint8) ngram;
    value->documents = documents;
    value->entries = count;
    simhash::IdfEntry* entries = (simhash::IdfEntry*) idf_entries(value);
    for (uint64 i = 0; i < count; ++i) {
        entries[i].hash = (uint64) pq_getmsgint64(buf);
        entries[i].df = (uint64) pq_getmsgint64(buf);
    }
    /* signed, as sent: a negative count reads as itself, not as a number near 2^64 */
    if (const char* problem = idf_value_problem(value))
        ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
                        errmsg("invalid simhash_idf binary value: %lld documents, tokenizer %d (%s), n %d, %lld features",
                               (long long) documents, tokenizer,
                               known_tokenizer(tokenizer) ? simhash::tokenizer_name((simhash::TokenizerKind) tokenizer)
                                                          : "unknown",
                               ngram, (long long) count),
                        errdetail("%s", problem)));
    PG_RETURN_POINTER(value);
}
