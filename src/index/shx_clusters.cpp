/*
 * shx_clusters.cpp: simhash_clusters(index, radius, method), each row of
 * the index's table that has another row within the radius, with the row
 * that represents its cluster: (member tid, representative tid).  Rows with
 * no neighbour are left out (they are their own cluster), so the output of
 * a table of mostly unique rows stays small.
 *
 * method 'connected': connected components of the "within radius" graph
 * (every member reachable from every other through a chain of pairs); the
 * representative is the component's first row in ctid order.
 * method 'keep_first': the exclusion-constraint recipe's semantics: rows are
 * walked in ctid order and a row is kept unless a row already kept lies
 * within the radius; a kept row represents itself, another row names the
 * first kept row within the radius.  So
 *     DELETE FROM t USING simhash_clusters('t_fp_idx', 3, 'keep_first') c
 *     WHERE t.ctid = c.member AND c.member <> c.representative;
 * leaves exactly the rows such a constraint would have let in, in that
 * order.  (ctid order is the load order of a table that was only appended
 * to; a table can be put in another order with CLUSTER first.)
 *
 * The pairs come from shx_pair_walk in leaders_only mode: copies of one
 * fingerprint are linked to their first copy only, so a fingerprint stored
 * 30,000 times costs 30,000 edges, not 450 million pairs.  Memory grows
 * with the rows that have a neighbour (about 40 bytes each: the id map,
 * the rank and the union-find or keep-first state), never with the pairs:
 * 'connected' unites pairs as they come; 'keep_first' needs each row's
 * earlier neighbours in order, so its edges go through a tuplesort that
 * keeps to work_mem and spills to disk past it.
 */
#include "shx_batch.h"

#include "row_graph.hpp"

extern "C" {
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"
}

extern "C" {
PG_FUNCTION_INFO_V1(simhash_clusters);
}

namespace {

/* A copy's edge to its first copy is sorted after the neighbour edges of the same row by this bit. */
const uint64 kCopyEdge = UINT64CONST(1) << 62;

/* The rows that have a neighbour, as dense nodes. */
struct Nodes {
    simhash::IdMap map;
    uint64 *tid;     /* per node: packed tid, its rank (ctid order) */
    uint32 *parent;  /* per node: union-find ('connected') */
    uint32 n, cap;
    bool connected;
    ShxPairSort edges; /* 'keep_first': (later tid, earlier tid | kCopyEdge) */
};

void map_alloc(simhash::IdMap *m, uint64 capacity) {
    m->capacity = capacity;
    m->size = 0;
    m->keys = (uint64 *) MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * capacity);
    memset(m->keys, 0, sizeof(uint64) * capacity);
    m->values = (uint32 *) MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * capacity);
}

uint32 node_of(Nodes *g, uint64 tid) {
    if (g->map.full()) {
        simhash::IdMap bigger;
        map_alloc(&bigger, g->map.capacity * 2);
        g->map.rehash_into(&bigger);
        pfree(g->map.keys);
        pfree(g->map.values);
        g->map = bigger;
    }
    if (g->n == PG_UINT32_MAX - 1)
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED), errmsg("too many rows with a neighbour to cluster")));
    bool added;
    uint32 id = g->map.find_or_add(tid, g->n, &added);
    if (added) {
        if (g->n == g->cap) {
            g->cap *= 2;
            g->tid = (uint64 *) repalloc_huge(g->tid, sizeof(uint64) * g->cap);
            g->parent = (uint32 *) repalloc_huge(g->parent, sizeof(uint32) * g->cap);
        }
        g->tid[id] = tid;
        g->parent[id] = id;
        g->n++;
    }
    return id;
}

void cluster_take(void *arg, uint64 a, uint64 b, int, bool copy_edge) {
    Nodes *g = (Nodes *) arg;
    uint32 x = node_of(g, a), y = node_of(g, b);
    if (g->connected) {
        simhash::UnionFind uf{g->parent, g->tid};
        uf.unite(x, y);
    } else {
        /* a < b: b is the later row */
        shx_pair_sort_put(&g->edges, b, a | (copy_edge ? kCopyEdge : 0));
    }
}

void put_row(ReturnSetInfo *rsinfo, uint64 member, uint64 rep) {
    ItemPointerData tm, tr;
    shx_unpack_tid(member, &tm);
    shx_unpack_tid(rep, &tr);
    Datum values[2] = {PointerGetDatum(&tm), PointerGetDatum(&tr)};
    bool nulls[2] = {false, false};
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

}  // namespace

Datum simhash_clusters(PG_FUNCTION_ARGS) {
    const char *method = PG_ARGISNULL(2) ? "connected" : text_to_cstring(PG_GETARG_TEXT_PP(2));
    bool connected;
    if (strcmp(method, "connected") == 0)
        connected = true;
    else if (strcmp(method, "keep_first") == 0)
        connected = false;
    else
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("unknown clustering method \"%s\"", method),
                        errhint("The methods are 'connected' and 'keep_first'.")));
    ShxPairWalk w;
    ReturnSetInfo *rsinfo = shx_pair_walk_begin_srf(fcinfo, &w);
    if (rsinfo == NULL) return (Datum) 0; /* no index: no rows */
    Nodes g;
    memset(&g, 0, sizeof(g));
    map_alloc(&g.map, 1024);
    g.cap = 512;
    g.tid = (uint64 *) MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * g.cap);
    g.parent = (uint32 *) MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * g.cap);
    g.connected = connected;
    if (!connected) shx_pair_sort_begin(&g.edges, work_mem, true, false);
    w.leaders_only = true;
    w.sink = cluster_take;
    w.sink_arg = &g;
    shx_pair_walk_run(&w);
    shx_pair_walk_close(&w);

    if (connected) {
        simhash::UnionFind uf{g.parent, g.tid};
        for (uint32 i = 0; i < g.n; i++) {
            put_row(rsinfo, g.tid[i], g.tid[uf.find(i)]);
            if ((i & 0xFFFF) == 0) CHECK_FOR_INTERRUPTS();
        }
    } else {
        shx_pair_sort_perform(&g.edges);
        bool *kept = (bool *) MemoryContextAllocHuge(CurrentMemoryContext, sizeof(bool) * Max(g.n, 1));
        uint32 *rep = (uint32 *) MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * Max(g.n, 1));
        simhash::KeepFirst kf{kept, rep, 0, false};
        kf.begin(g.n);
        uint64 later, earlier;
        uint64 k = 0;
        while (shx_pair_sort_next(&g.edges, &later, &earlier)) {
            bool copy = (earlier & kCopyEdge) != 0;
            kf.edge(g.map.find(earlier & ~kCopyEdge), g.map.find(later), copy);
            if ((++k & 0xFFFF) == 0) CHECK_FOR_INTERRUPTS();
        }
        shx_pair_sort_end(&g.edges);
        for (uint32 i = 0; i < g.n; i++) {
            put_row(rsinfo, g.tid[i], g.tid[rep[i]]);
            if ((i & 0xFFFF) == 0) CHECK_FOR_INTERRUPTS();
        }
    }
    return (Datum) 0;
}
