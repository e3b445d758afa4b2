#include "feature_votes.h"

#include <cfloat>
#include <cmath>

extern "C" {
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
}

TextBytes text_as_utf8(const text* value) {
    const char* data = VARDATA_ANY(value);
    size_t length = VARSIZE_ANY_EXHDR(value);
    int encoding = GetDatabaseEncoding();
    /* SQL_ASCII declares nothing: its bytes are read as UTF-8, invalid bytes separate. */
    if (encoding == PG_UTF8 || encoding == PG_SQL_ASCII || length == 0) return {data, length, false};
    char* converted = pg_server_to_any(data, (int) length, PG_UTF8);
    if (converted == data) return {data, length, false};
    return {converted, strlen(converted), true};
}

void release_text_bytes(TextBytes bytes) {
    if (bytes.converted) pfree((void*) bytes.data);
}

/*
 * SQL_ASCII text is read as UTF-8, and a UTF8 client checks every message
 * it gets from such a database: a cut inside a character, or a byte that is
 * not UTF-8, made it refuse the message (ERROR 22021 in place of ours).  So
 * whole UTF-8 characters are kept and any other byte is shown as \xNN.
 */
static char* utf8_excerpt(const char* data, int length) {
    StringInfoData out;
    initStringInfo(&out);
    int i = 0;
    while (i < length) {
        const unsigned char* at = (const unsigned char*) data + i;
        int n = pg_utf_mblen(at);
        bool legal = n <= length - i && pg_utf8_islegal(at, n);
        if (!legal) n = 1;
        if (out.len + (legal ? n : 4) > kMessageExcerptBytes) break;
        if (legal) appendBinaryStringInfo(&out, (const char*) at, n);
        else appendStringInfo(&out, "\\x%02x", *at);
        i += n;
    }
    if (i < length) appendStringInfoString(&out, "...");
    return out.data;
}

char* message_excerpt(const text* value) {
    return message_excerpt(VARDATA_ANY(value), (int) VARSIZE_ANY_EXHDR(value));
}

char* message_excerpt(const char* data, int length) {
    if (GetDatabaseEncoding() == PG_SQL_ASCII) return utf8_excerpt(data, length);
    int shown = pg_mbcliplen(data, length, kMessageExcerptBytes);
    if (shown == length) return pnstrdup(data, length);
    return psprintf("%s...", pnstrdup(data, shown));
}

bool feature_text_hash(const text* feature, uint64_t* hash) {
    if (VARSIZE_ANY_EXHDR(feature) == 0) return false;
    TextBytes bytes = text_as_utf8(feature);
    *hash = simhash::feature_hash(bytes.data, bytes.length);
    release_text_bytes(bytes);
    return true;
}

void check_feature_weight(double weight, const text* feature) {
    if (!std::isfinite(weight))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("weight %g of feature \"%s\" is not finite", weight, message_excerpt(feature))));
}

void report_weight_overflow(const char* function, const char* where) {
    ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE), errmsg("%s weights overflow a double", function),
                    errdetail("The absolute values of the weights add up past %g%s.", DBL_MAX, where)));
    pg_unreachable();
}

simhash::TokenizerKind checked_tokenizer(const text* name, int32 n) {
    simhash::TokenizerKind kind;
    if (!simhash::parse_tokenizer(VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name), &kind))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("unknown simhash tokenizer \"%s\"", message_excerpt(name)),
                        errhint("Valid tokenizers are \"mixed\", \"words\" and \"chars\".")));
    if (n < 1 || n > simhash::kMaxNgram)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("simhash n-gram size %d is out of range", n),
                        errhint("n must be between 1 and %d.", simhash::kMaxNgram)));
    return kind;
}

void vote_tsvector(TSVector vector, simhash::IntegerVotes* votes) {
    WordEntry* entries = ARRPTR(vector);
    char* lexemes = STRPTR(vector);
    for (int i = 0; i < vector->size; ++i) {
        const WordEntry* entry = &entries[i];
        const char* lexeme = lexemes + entry->pos;
        TextBytes bytes{lexeme, entry->len, false};
        int encoding = GetDatabaseEncoding();
        if (encoding != PG_UTF8 && encoding != PG_SQL_ASCII) {
            char* converted = pg_server_to_any(lexeme, (int) entry->len, PG_UTF8);
            if (converted != lexeme) bytes = {converted, strlen(converted), true};
        }
        uint64_t hash = simhash::feature_hash(bytes.data, bytes.length);
        release_text_bytes(bytes);

        int npos = POSDATALEN(vector, entry);
        if (npos == 0) {
            votes->add(hash, kLabelWeight[0]);
            continue;
        }
        int64_t weight = 0;
        WordEntryPos* positions = POSDATAPTR(vector, entry);
        for (int p = 0; p < npos; ++p) weight += kLabelWeight[WEP_GETWEIGHT(positions[p])];
        votes->add(hash, weight);
    }
}
