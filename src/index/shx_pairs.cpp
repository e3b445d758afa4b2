/*
 * shx_pairs.cpp: simhash_pairs(index, radius), every pair of rows of the
 * index's table within a radius, each unordered pair once, as
 * (a tid, b tid, distance) with a < b: the same rows as the self-join
 *     SELECT x.ctid, y.ctid FROM t x JOIN t y ON x.fp % y.fp AND x.ctid < y.ctid
 * read off the index by shx_pair_walk instead of one probe per row.
 *
 * Why tids: they join back to the user's table whatever its key
 * (JOIN t ON t.ctid = p.a, a TID scan or a hash join), they come straight
 * from the index with no column to look up, and a DELETE ... USING can name
 * rows by them.  They are the tids of the row versions the statement's
 * snapshot sees, so they are valid for that statement only: join in the
 * same statement.
 *
 * The rows go into the function's tuplestore, which keeps to work_mem and
 * spills to disk past it (as every set-returning function in FROM does), so
 * a fingerprint stored 30,000 times (450 million pairs) costs disk, not
 * memory; simhash_clusters lists such a group as 30,000 rows instead.
 */
#include "shx_batch.h"

extern "C" {
#include "funcapi.h"
#include "utils/tuplestore.h"
}

extern "C" {
PG_FUNCTION_INFO_V1(simhash_pairs);
}

namespace {

struct PairsOut {
    Tuplestorestate *store;
    TupleDesc desc;
};

void pairs_put(void *arg, uint64 a, uint64 b, int dist, bool) {
    PairsOut *out = (PairsOut *) arg;
    ItemPointerData ta, tb;
    shx_unpack_tid(a, &ta);
    shx_unpack_tid(b, &tb);
    Datum values[3] = {PointerGetDatum(&ta), PointerGetDatum(&tb), Int32GetDatum(dist)};
    bool nulls[3] = {false, false, false};
    tuplestore_putvalues(out->store, out->desc, values, nulls);
}

}  // namespace

Datum simhash_pairs(PG_FUNCTION_ARGS) {
    ShxPairWalk w;
    ReturnSetInfo *rsinfo = shx_pair_walk_begin_srf(fcinfo, &w);
    if (rsinfo == NULL) return (Datum) 0; /* no index: no rows */
    PairsOut out = {rsinfo->setResult, rsinfo->setDesc};
    w.leaders_only = false;
    w.sink = pairs_put;
    w.sink_arg = &out;
    shx_pair_walk_run(&w);
    shx_pair_walk_close(&w);
    return (Datum) 0;
}
