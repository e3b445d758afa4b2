/*
 * The simhash type's text and binary I/O, and its casts to bigint, bit(64)
 * and from the string types.
 */
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
}

static uint64_t parse_or_error(const char* text, size_t length) {
    uint64_t fp;
    if (!simhash::parse_fingerprint(text, length, &fp))
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("invalid input syntax for type simhash: \"%s\"", pnstrdup(text, length)),
                        errdetail("A simhash is 16 hexadecimal digits or 64 binary digits."),
                        errhint("If this was simhash('...') meant to fingerprint a text, write simhash('...'::text); "
                                "for a column of type citext or name, simhash(column::text).")));
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
    bits8* bytes = VARBITS(result);
    for (int i = 0; i < 8; ++i) bytes[i] = (bits8)(fp >> (56 - 8 * i));
    PG_RETURN_VARBIT_P(result);
}

extern "C" Datum simhash_from_bit(PG_FUNCTION_ARGS) {
    VarBit* bits = PG_GETARG_VARBIT_P(0);
    if (VARBITLEN(bits) != 64)
        ereport(ERROR, (errcode(ERRCODE_STRING_DATA_LENGTH_MISMATCH),
                        errmsg("cannot cast a bit string of length %d to simhash", VARBITLEN(bits)),
                        errdetail("A simhash is exactly 64 bits.")));
    const bits8* bytes = VARBITS(bits);
    uint64_t fp = 0;
    for (int i = 0; i < 8; ++i) fp = (fp << 8) | bytes[i];
    PG_RETURN_SIMHASH(fp);
}
