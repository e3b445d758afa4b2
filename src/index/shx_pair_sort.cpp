/*
 * shx_pair_sort.cpp: (key, tid) pairs through a tuplesort, which keeps to
 * the memory it is given and spills to disk past it.  CREATE INDEX uses one
 * per partition once its pairs outgrow maintenance_work_mem;
 * simhash_index_check(idx, true) sorts the heap's rows and each partition's
 * entries to compare them.
 *
 * A pair is a two-column tuple of int8; keys are unsigned, so their top bit
 * is flipped to make int8 order theirs.
 */
#include "shx.h"

extern "C" {
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type_d.h"
#include "executor/tuptable.h"
#include "utils/tuplesort.h"
}

namespace {
const uint64 kSignBit = UINT64CONST(1) << 63;
}

void shx_pair_sort_begin(ShxPairSort *s, int work_mem_kb, bool by_tid_too, bool rescan) {
    TupleDesc desc = CreateTemplateTupleDesc(2);
    TupleDescInitEntry(desc, 1, "key", INT8OID, -1, 0);
    TupleDescInitEntry(desc, 2, "tid", INT8OID, -1, 0);
    compat_tuple_desc_finalize(desc);
    s->in = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
    s->out = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
    AttrNumber atts[2] = {1, 2};
    Oid ops[2] = {Int8LessOperator, Int8LessOperator};
    Oid colls[2] = {InvalidOid, InvalidOid};
    bool nulls_first[2] = {false, false};
    s->sort = tuplesort_begin_heap(desc, by_tid_too ? 2 : 1, atts, ops, colls, nulls_first, Max(work_mem_kb, 64),
                                   NULL, rescan ? TUPLESORT_RANDOMACCESS : TUPLESORT_NONE);
}

void shx_pair_sort_put(ShxPairSort *s, uint64 key, uint64 tid) {
    ExecClearTuple(s->in);
    s->in->tts_values[0] = Int64GetDatum((int64) (key ^ kSignBit));
    s->in->tts_values[1] = Int64GetDatum((int64) tid);
    s->in->tts_isnull[0] = s->in->tts_isnull[1] = false;
    ExecStoreVirtualTuple(s->in);
    tuplesort_puttupleslot(s->sort, s->in);
}

void shx_pair_sort_perform(ShxPairSort *s) { tuplesort_performsort(s->sort); }

bool shx_pair_sort_next(ShxPairSort *s, uint64 *key, uint64 *tid) {
    if (!tuplesort_gettupleslot(s->sort, true, false, s->out, NULL)) return false;
    slot_getallattrs(s->out);
    *key = (uint64) DatumGetInt64(s->out->tts_values[0]) ^ kSignBit;
    *tid = (uint64) DatumGetInt64(s->out->tts_values[1]);
    return true;
}

void shx_pair_sort_rescan(ShxPairSort *s) { tuplesort_rescan(s->sort); }

void shx_pair_sort_end(ShxPairSort *s) {
    tuplesort_end(s->sort);
    TupleDesc desc = s->in->tts_tupleDescriptor;
    ExecDropSingleTupleTableSlot(s->in);
    ExecDropSingleTupleTableSlot(s->out);
    FreeTupleDesc(desc);
    s->sort = NULL;
}
