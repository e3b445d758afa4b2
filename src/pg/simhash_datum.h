/*
 * How a simhash value travels as a Datum, and the GUCs other glue files read.
 *
 * A simhash is 64 bits passed by value (typbyval on 64-bit builds, as int8).
 * Ordering and hex text treat it as unsigned; the bigint cast reinterprets the
 * same 64 bits as signed.
 */
#ifndef SIMHASH_DATUM_H
#define SIMHASH_DATUM_H

#include <cstdint>

extern "C" {
#include "postgres.h"
#include "fmgr.h"
}
#include "pg_compat.h"

#if SIZEOF_DATUM != 8
#error "simhash requires a 64-bit build (the type is passed by value)"
#endif

#define DatumGetSimhash(d) ((uint64_t) DatumGetInt64(d))
#define SimhashGetDatum(x) Int64GetDatum((int64) (x))
#define PG_GETARG_SIMHASH(n) DatumGetSimhash(PG_GETARG_DATUM(n))
#define PG_RETURN_SIMHASH(x) return SimhashGetDatum(x)

extern "C" {
/* simhash.threshold: the radius used by the % operator (default 3). */
extern int simhash_threshold;
}

#endif
