/*
 * The simhash type's text and binary I/O, and its casts to bigint, numeric
 * (unsigned), bit(64), bytea and from the string types.
 */
#include "feature_votes.h"
#include "simhash_datum.h"
#include "text_format.hpp"

extern "C" {
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/varbit.h"

PG_FUNCTION_INFO_V1(simhash_in);
PG_FUNCTION_INFO_V1(simhash_from_text);
PG_FUNCTION_INFO_V1(simhash_out);
PG_FUNCTION_INFO_V1(simhash_recv);
PG_FUNCTION_INFO_V1(simhash_send);
PG_FUNCTION_INFO_V1(simhash_to_bigint);
PG_FUNCTION_INFO_V1(simhash_from_bigint);
PG_FUNCTION_INFO_V1(simhash_to_bit);
PG_FUNCTION_INFO_V1(simhash_from_bit);
PG_FUNCTION_INFO_V1(simhash_to_numeric);
PG_FUNCTION_INFO_V1(simhash_from_numeric);
PG_FUNCTION_INFO_V1(simhash_to_bytea);
PG_FUNCTION_INFO_V1(simhash_from_bytea);
}

#include <algorithm>
#include <cctype>

/*
 * The hint for text that is no simhash.  Fingerprints brought from
 * application code come as 0x-prefixed or unpadded hex, or as unsigned
 * decimals (Python's simhash values), each with its own way in; other text
 * was most likely meant for the fingerprint function.  The hint writes the
 * call with ::text, which fingerprints under every version of the
 * extension's SQL (simhash('...') alone does from 1.1).
 */
static const char* input_hint(const char* text, size_t length) {
    while (length > 0 && isspace((unsigned char) *text)) text++, length--;
    while (length > 0 && isspace((unsigned char) text[length - 1])) length--;
    if (length > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
        return "Write the 16 hex digits without 0x: regexp_replace(value, '^0[xX]', '')::simhash, padding shorter "
               "ones with lpad(..., 16, '0').";
    /* what bytea's text output prints: a backslash, x, then the bytes in hex */
    if (length > 2 && text[0] == '\\' && (text[1] == 'x' || text[1] == 'X'))
        return "This is the text form of a bytea: cast the bytea itself (bytes::simhash), or decode the text "
               "first: decode(substr(value, 3), 'hex')::simhash.";
    /* the signed form simhash_to_bigint and fingerprints stored as bigint take */
    if (length > 1 && length <= 20 && text[0] == '-' &&
        std::all_of(text + 1, text + length, [](char c) { return isdigit((unsigned char) c) != 0; }))
        return "For a fingerprint stored as a signed 64-bit integer, cast it from bigint: '...'::bigint::simhash.";
    bool binary = length > 0, decimal = length > 0, hex = length > 0;
    for (size_t i = 0; i < length; i++) {
        binary = binary && (text[i] == '0' || text[i] == '1');
        decimal = decimal && isdigit((unsigned char) text[i]);
        hex = hex && isxdigit((unsigned char) text[i]);
    }
    if (binary && length > 16) return "Binary digits come 64 at a time, most significant first.";
    /* 2^64 - 1 has 20 digits */
    if (decimal && length > 16 && length <= 20)
        return "For a fingerprint written as an unsigned decimal number, cast it from numeric: '...'::numeric::simhash.";
    if (hex && length < 16)
        return "To fingerprint a text, call simhash() on it: simhash('...'::text); for a fingerprint of fewer hex "
               "digits, pad them: lpad(value, 16, '0')::simhash.";
    return "To fingerprint a text, call simhash() on it: simhash('...'::text), or simhash(column::text) for a "
           "column of type citext or name.";
}

/* The 64 bits as 8 bytes, most significant first (the order of the binary text form and of send). */
static void put_bytes(uint64_t fp, unsigned char* out) {
    for (int i = 0; i < 8; ++i) out[i] = (unsigned char) (fp >> (56 - 8 * i));
}
static uint64_t get_bytes(const unsigned char* in) {
    uint64_t fp = 0;
    for (int i = 0; i < 8; ++i) fp = (fp << 8) | in[i];
    return fp;
}

static uint64_t parse_or_error(const char* text, size_t length) {
    uint64_t fp;
    if (!simhash::parse_fingerprint(text, length, &fp))
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("invalid input syntax for type simhash: \"%s\"", message_excerpt(text, (int) length)),
                        errdetail("A simhash is 16 hexadecimal digits or 64 binary digits."),
                        errhint("%s", input_hint(text, length))));
    return fp;
}

extern "C" Datum simhash_in(PG_FUNCTION_ARGS) {
    const char* text = PG_GETARG_CSTRING(0);
    PG_RETURN_SIMHASH(parse_or_error(text, strlen(text)));
}

/*
 * The casts from text, varchar and char: the same reading as simhash_in.  As
 * casts with a function rather than PostgreSQL's automatic I/O conversion,
 * they also stop simhash(x), for x of a domain over those types, from being
 * read as a cast: it calls the fingerprint function simhash(text).
 */
extern "C" Datum simhash_from_text(PG_FUNCTION_ARGS) {
    const text* value = PG_GETARG_TEXT_PP(0);
    PG_RETURN_SIMHASH(parse_or_error(VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value)));
}

extern "C" Datum simhash_out(PG_FUNCTION_ARGS) {
    char* out = (char*) palloc(simhash::kHexDigits + 1);
    simhash::format_fingerprint(PG_GETARG_SIMHASH(0), out);
    PG_RETURN_CSTRING(out);
}

extern "C" Datum simhash_recv(PG_FUNCTION_ARGS) {
    StringInfo buf = (StringInfo) PG_GETARG_POINTER(0);
    PG_RETURN_SIMHASH((uint64_t) pq_getmsgint64(buf));
}

extern "C" Datum simhash_send(PG_FUNCTION_ARGS) {
    StringInfoData buf;
    pq_begintypsend(&buf);
    pq_sendint64(&buf, (int64) PG_GETARG_SIMHASH(0));
    PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* The same 64 bits, read as a signed integer. */
extern "C" Datum simhash_to_bigint(PG_FUNCTION_ARGS) { PG_RETURN_INT64((int64) PG_GETARG_SIMHASH(0)); }

extern "C" Datum simhash_from_bigint(PG_FUNCTION_ARGS) { PG_RETURN_SIMHASH((uint64_t) PG_GETARG_INT64(0)); }

/* bit(64), most significant bit first: the same order as the binary text form. */
extern "C" Datum simhash_to_bit(PG_FUNCTION_ARGS) {
    uint64_t fp = PG_GETARG_SIMHASH(0);
    const int nbits = 64;
    VarBit* result = (VarBit*) palloc0(VARBITTOTALLEN(nbits));
    SET_VARSIZE(result, VARBITTOTALLEN(nbits));
    VARBITLEN(result) = nbits;
    put_bytes(fp, VARBITS(result));
    PG_RETURN_VARBIT_P(result);
}

extern "C" Datum simhash_from_bit(PG_FUNCTION_ARGS) {
    VarBit* bits = PG_GETARG_VARBIT_P(0);
    if (VARBITLEN(bits) != 64)
        ereport(ERROR, (errcode(ERRCODE_STRING_DATA_LENGTH_MISMATCH),
                        errmsg("cannot cast a bit string of length %d to simhash", VARBITLEN(bits)),
                        errdetail("A simhash is exactly 64 bits.")));
    PG_RETURN_SIMHASH(get_bytes(VARBITS(bits)));
}

/*
 * numeric: the 64 bits read as an unsigned integer, the form Python's simhash
 * and unsigned 64-bit columns of other databases hold.  Only whole numbers
 * from 0 to 2^64 - 1 come in; anything else is an error naming it, never a
 * wrapped value.
 */
extern "C" Datum simhash_to_numeric(PG_FUNCTION_ARGS) {
    char digits[21];
    snprintf(digits, sizeof(digits), "%llu", (unsigned long long) PG_GETARG_SIMHASH(0));
    return DirectFunctionCall3(numeric_in, CStringGetDatum(digits), ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

extern "C" Datum simhash_from_numeric(PG_FUNCTION_ARGS) {
    char* text = DatumGetCString(DirectFunctionCall1(numeric_out, PG_GETARG_DATUM(0)));
    const char* p = text;
    uint64_t value = 0;
    bool ok = isdigit((unsigned char) *p);
    for (; ok && isdigit((unsigned char) *p); p++) {
        unsigned digit = (unsigned) (*p - '0');
        if (value > (UINT64_MAX - digit) / 10) ok = false;
        else value = value * 10 + digit;
    }
    /* a whole number may print with a zero fraction ('5.000') */
    if (ok && *p == '.')
        for (p++; *p == '0'; p++) {}
    if (!ok || *p != '\0')
        ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                        errmsg("value %s is out of range for type simhash", text),
                        errdetail("A simhash read from a number is a whole number from 0 to 18446744073709551615, "
                                  "its 64 bits unsigned.")));
    PG_RETURN_SIMHASH(value);
}

/* bytea: 8 bytes, most significant first, as the binary form and the hex text. */
extern "C" Datum simhash_to_bytea(PG_FUNCTION_ARGS) {
    uint64_t fp = PG_GETARG_SIMHASH(0);
    bytea* result = (bytea*) palloc(VARHDRSZ + 8);
    SET_VARSIZE(result, VARHDRSZ + 8);
    put_bytes(fp, (unsigned char*) VARDATA(result));
    PG_RETURN_BYTEA_P(result);
}

extern "C" Datum simhash_from_bytea(PG_FUNCTION_ARGS) {
    bytea* bytes = PG_GETARG_BYTEA_PP(0);
    int length = (int) VARSIZE_ANY_EXHDR(bytes);
    if (length != 8)
        ereport(ERROR, (errcode(ERRCODE_STRING_DATA_LENGTH_MISMATCH),
                        errmsg("cannot cast a bytea of %d bytes to simhash", length),
                        errdetail("A simhash is exactly 8 bytes, most significant first.")));
    PG_RETURN_SIMHASH(get_bytes((const unsigned char*) VARDATA_ANY(bytes)));
}
