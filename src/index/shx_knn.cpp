/*
 * shx_knn.cpp: exact KNN (ORDER BY fp <-> q), incrementally.  Probes walk
 * level by level, one partition at a time, and each proves a bound: every
 * row within it has been found.  Rows are kept by distance and returned
 * once their distance is proven; past the last probe level cheaper than a
 * full read, partition 0 (which holds each row once) is read whole for a
 * window of distances.  See shx.h for the algorithm.  KNN tells rows it has
 * already collected from new ones by where the probes first reach them
 * (simhash::first_probe_step): a row turns up once in every partition, and
 * only its first probe counts.
 */
#include "shx_scan.h"

#include "mih_probe.hpp"

/* Did a probe before the current one (k->level, k->part) reach fp? */
static inline bool reached_by_earlier_probe(const ShxScanOpaque *so, uint64 fp) {
    simhash::ProbeStep first = simhash::first_probe_step(fp ^ so->query.order_q, so->st.mask, so->st.nparts);
    return simhash::probe_step_before(first, so->knn.level, so->knn.part);
}

/*
 * Takes a page's entries within the distance the search is collecting: the
 * matches it has not collected before, into their distance's bucket.
 */
SHX_POPCNT_CLONES
static void knn_visit(void *arg, int part, ShxNearEntry *near, int n) {
    ShxScanOpaque *so = (ShxScanOpaque *) arg;
    ShxKnnSearch *k = &so->knn;
    int rot = so->st.rot[part];
    for (int i = 0; i < n; i++) {
        uint64 fp = simhash::rotr64(near[i].key, rot);
        int dist;
        if (!shx_scan_matches(&so->query, fp, &dist)) continue;
        if (k->full) {
            /*
             * Partition 0 holds each row once.  A read collects the distances
             * in a window (full_lo, bound]; the first read also takes the rows
             * at the current distance that the probes did not collect (those
             * within cap that an earlier probe reached).
             */
            if (dist > k->full_hi || dist < k->cur_d || (dist <= k->full_lo && dist != k->cur_d)) continue;
            if (dist <= k->full_lo && dist <= k->cap && reached_by_earlier_probe(so, fp)) continue;
        } else if (reached_by_earlier_probe(so, fp)) {
            continue; /* collected when an earlier probe reached it */
        } else if (k->redo && dist <= k->redo_from) {
            continue; /* the first pass collected it, and it has been returned (the redo starts past its cap) */
        }
        shx_scan_append_hit(so, &k->at[dist], 64, &near[i].tid, fp, dist);
    }
}

bool shx_knn_plan(IndexScanDesc scan, ShxScanOpaque *so) {
    ShxKnnSearch *k = &so->knn;
    const ShxScanQuery *q = &so->query;
    /* probe levels while each costs less than reading a partition whole */
    double pages = shx_leaf_pages_per_part(scan->indexRelation, &so->st);
    k->max_level = -1;
    for (int t = 0; t <= 64; t++) {
        double cost = 0;
        for (int p = 0; p < so->st.nparts; p++)
            cost += (double) simhash::binomial_saturated(so->st.width[p], t) *
                    simhash::probe_cost_pages(so->st.width[p], pages);
        if (cost == 0 || cost > pages) break;
        k->max_level = t;
    }
    k->cap_max = k->max_level >= 0 ? simhash::complete_radius_after_level(so->st.nparts, k->max_level) : -1;
    /* rows indexed: as of the last VACUUM, ANALYZE or build, else from the leaf pages (~650 entries each,
     * at 9 bytes and three quarters full) */
    double rows = scan->indexRelation->rd_rel->reltuples;
    if (rows < 0) rows = pages * (SHX_LEAF_SPACE / 9) * 0.75;
    int first = simhash::knn_first_pass_level(so->st.nparts, k->max_level, rows, shx_knn_first_pass_rows);
    k->cap = first >= 0 ? simhash::complete_radius_after_level(so->st.nparts, first) : k->cap_max;
    k->full_reach = simhash::uniform_radius_holding(rows, shx_knn_first_pass_rows);
    k->redo = false;
    /*
     * A radius key around the ordering query itself ("WHERE fp % q ORDER BY
     * fp <-> q LIMIT k") caps the distances that can match, so the
     * incremental KNN search can stop once its bound reaches the radius,
     * often after level 0 when q has near-duplicates.  That pays while the
     * probe levels alone cover the radius (cap); beyond, and for keys around
     * other points, the scan collects every match in one pass and sorts.
     */
    k->limit_d = 64;
    for (int i = 0; i < q->nkeys; i++)
        if (q->kq[i] == q->order_q) k->limit_d = Min(k->limit_d, q->kr[i]);
    return q->nkeys == 0 || k->limit_d <= k->cap_max;
}

void shx_knn_begin(IndexScanDesc scan, ShxScanOpaque *so) {
    ShxKnnSearch *k = &so->knn;
    shx_walk_init(&so->walk, &so->st, scan->xs_snapshot, so->near, knn_visit, so);
    k->on = true;
    shx_prefetch_own_blocks(scan->indexRelation, &so->st, so->query.order_q, so->st.nparts);
    k->bound = -1;
    k->level = 0;
    k->part = 0;
    k->cur_d = 0;
    k->full = false;
    k->walking = false;
}

/* The bound a walk of level t in partition p proves (a level t >= the block's width sees every row). */
static int probe_walk_bound(const ShxScanOpaque *so, int t, int p) {
    return t >= so->st.width[p] ? 64 : simhash::complete_radius_after_partial_level(so->st.nparts, t, p + 1);
}

/*
 * Starts the walk of the next level in the next partition, or of partition
 * 0 whole once a level costs more than that.  Going one partition at a time
 * lets the scan stop part way through a level: the k nearest of a query with
 * no near-duplicate lie 13-15 bits away at 10M rows, which the first
 * partitions of level 3 already prove (complete_radius_after_partial_level).
 * The walk then goes one leaf page per knn_step, so rows can be returned
 * while it is under way (shx_knn_next).
 */
static void knn_expand(ShxScanOpaque *so) {
    ShxKnnSearch *k = &so->knn;
    k->walk_lo = k->walk_hi = NULL;
    /*
     * Probes keep the rows within cap they reach first, so the bound may not
     * pass cap.  The first pass keeps rows within the complete radius that
     * holds simhash.knn_first_pass_rows (100) rows of uniform data (simhash::
     * knn_first_pass_level; 15 bits at 10M rows, where the 10 nearest of any
     * query lie), not the last probe level's (19 bits): a scan for the k
     * nearest then does not collect, one by one, the thousands of rows 16
     * to 19 bits away (a sixth of such a query's time).  A scan that needs
     * more walks the levels done again, keeping only the rows between the
     * old cap and the complete radius of the level it goes on to, before it
     * goes on: the redo costs what those levels cost, a third of the next
     * level's cost or less.
     */
    if (!k->full && !k->redo && k->level <= k->max_level && k->cap < k->cap_max) {
        int t = k->level;
        if (probe_walk_bound(so, t, k->part) > k->cap) {
            k->redo = true;
            k->redo_from = k->cap;
            k->cap = Min(k->cap_max, simhash::complete_radius_after_level(so->st.nparts, t));
            k->resume_level = k->level;
            k->resume_part = k->part;
            k->level = 0;
            k->part = 0;
        }
    }
    int t = k->level;
    if (k->full || t > k->max_level) {
        /*
         * Read partition 0 whole, keeping only a window of distances so memory
         * stays proportional to what is returned; a further window needs a
         * further read, but k nearest rows rarely need more than one.  The
         * first window reaches at least the radius that holds the first
         * pass's rows of uniform data: in a small index the probes stop at a
         * small radius (7 bits at 100k rows), and 8 bits more held none of a
         * random point's 10 nearest, so a second read took half the table.
         */
        if (!k->full) {
            for (int d = k->cur_d + 1; d <= 64; d++) k->at[d].n = k->taken[d] = 0;
            k->full_lo = Max(k->bound, k->cur_d);
            k->full_hi = Min(64, Max(k->full_lo + 8, k->full_reach));
            k->full = true;
        } else {
            k->full_lo = k->bound;
            k->full_hi = Min(64, k->bound + 16);
        }
        k->walk_bound = k->full_hi;
        shx_walk_begin(&so->walk, 0, &shx_whole_lo, &shx_whole_hi, 1, so->query.order_q, k->full_hi);
    } else {
        int p = k->part;
        k->walk_bound = k->redo ? k->bound /* proven in the first pass */ : probe_walk_bound(so, t, p);
        int64 n = shx_probe_ranges(&so->st, so->query.order_q, p, t, t, &k->walk_lo, &k->walk_hi);
        shx_walk_begin(&so->walk, p, k->walk_lo, k->walk_hi, n, so->query.order_q, k->cap);
    }
    k->walking = true;
}

/* Reads the next leaf page of the walk knn_expand began; at its end, the bound it proves holds. */
static void knn_step(Relation index, ShxScanOpaque *so) {
    ShxKnnSearch *k = &so->knn;
    if (shx_walk_step(index, &so->walk)) return;
    k->walking = false;
    if (k->walk_lo != NULL) {
        pfree(k->walk_lo);
        pfree(k->walk_hi);
        k->walk_lo = k->walk_hi = NULL;
    }
    k->bound = Max(k->bound, k->walk_bound);
    if (!k->full && ++k->part == so->st.nparts) {
        k->part = 0;
        k->level++;
    }
    if (k->redo && k->level == k->resume_level && k->part == k->resume_part) k->redo = false;
}

ShxHit *shx_knn_next(Relation index, ShxScanOpaque *so) {
    ShxKnnSearch *k = &so->knn;
    ShxHit *h = NULL;
    for (;;) {
        /*
         * Every row within bound has been found, so while a walk is under
         * way the rows it finds at bound + 1 are the nearest any row can
         * be: they are returned as they come (ties among them in any
         * order), so "LIMIT 1" next to a fingerprint stored a million
         * times reads one page, not the whole run.
         */
        int ready = k->walking && so->query.nthen == 0 ? k->bound + 1 : k->bound;
        while (k->cur_d <= ready && k->cur_d <= k->limit_d) {
            int d = k->cur_d;
            ShxHitArray *at = &k->at[d];
            if (k->taken[d] < at->n) {
                /* with later ORDER BY keys the rows at d are all found (ready): order them first */
                if (k->taken[d] == 0 && so->query.nthen > 0) shx_sort_hits(&so->query, at->rows, at->n);
                h = &at->rows[k->taken[d]++];
                break;
            }
            if (d > k->bound) break; /* the walk may still find rows at d */
            /* no row at d can turn up any more */
            if (at->rows != NULL) pfree(at->rows);
            at->rows = NULL;
            at->n = at->cap = k->taken[d] = 0;
            k->cur_d++;
        }
        if (h != NULL || k->cur_d > k->limit_d || (k->bound >= 64 && !k->walking)) break;
        MemoryContext old = MemoryContextSwitchTo(so->cxt);
        if (k->walking) knn_step(index, so);
        else knn_expand(so);
        MemoryContextSwitchTo(old);
    }
    return h;
}
