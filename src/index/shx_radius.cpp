/*
 * shx_radius.cpp: radius search (=, %, %<= (q, r)) as a stream of leaf
 * pages: the probes of each partition in turn, or partition 0 read whole
 * when they would cost more.  Matches are verified exactly (the key holds
 * the whole fingerprint), each row counted in the first partition whose
 * probes reach it.  An unordered index scan returns each page's matches as
 * it reads the page; a bitmap scan adds them to the bitmap; a scan ordered
 * by distance to another point collects every match (and the callbacks sort
 * them).
 */
#include "shx_scan.h"

#include "mih_probe.hpp"

extern "C" {
#include "nodes/tidbitmap.h"
}

/* Takes a page's entries near the most selective key: the matches, each in the first partition that reaches it. */
SHX_POPCNT_CLONES
static void radius_visit(void *arg, int part, ShxNearEntry *near, int n) {
    ShxScanOpaque *so = (ShxScanOpaque *) arg;
    const ShxRadiusSearch *rs = &so->radius;
    int rot = so->st.rot[part];
    for (int i = 0; i < n; i++) {
        uint64 fp = simhash::rotr64(near[i].key, rot);
        int dist;
        if (!shx_scan_matches(&so->query, fp, &dist)) continue;
        /* a row is reached in every partition where its block is close enough; take it in the first */
        if (rs->probe_r >= 0 &&
            simhash::reached_in_earlier_partition(fp ^ rs->filter_q, so->st.mask, part, rs->probe_r, so->st.nparts))
            continue;
        ItemPointer tid = &near[i].tid;
        if (so->hits.tbm != NULL) {
            tbm_add_tuples(so->hits.tbm, tid, 1, false);
            so->hits.ntids++;
        } else {
            shx_scan_append_hit(so, &so->hits.found, 256, tid, fp, dist);
        }
    }
}

void shx_radius_begin(IndexScanDesc scan, ShxScanOpaque *so) {
    ShxRadiusSearch *rs = &so->radius;
    const ShxScanQuery *q = &so->query;
    shx_walk_init(&so->walk, &so->st, scan->xs_snapshot, so->near, radius_visit, so);
    rs->filter_q = 0;
    rs->filter_r = 64;
    rs->probe_r = -1;
    rs->part = 0;
    rs->nparts = 1; /* partition 0 whole */
    rs->walking = false;
    if (q->nkeys == 0) return;
    int best = 0;
    for (int i = 1; i < q->nkeys; i++)
        if (q->kr[i] < q->kr[best]) best = i;
    rs->filter_q = q->kq[best];
    rs->filter_r = q->kr[best];
    /*
     * The refined pigeonhole: fp = q and radius 0 probe one partition,
     * radius r < blocks r + 1 of them, each at its block value alone (every
     * partition used to be probed, at floor(r / blocks) bits).
     */
    int r = q->kr[best], probed;
    double pages = shx_leaf_pages_per_part(scan->indexRelation, &so->st);
    double cost = simhash::radius_probe_cost(r, so->st.nparts, so->st.width, pages, &probed);
    if (cost <= pages) {
        rs->probe_r = r;
        rs->nparts = probed;
        shx_prefetch_own_blocks(scan->indexRelation, &so->st, rs->filter_q, probed);
    }
}

/* Reads the next leaf page of the radius search; false when it is done. */
static bool radius_step(Relation index, ShxScanOpaque *so) {
    ShxRadiusSearch *rs = &so->radius;
    for (;;) {
        if (rs->walking) {
            if (shx_walk_step(index, &so->walk)) return true;
            rs->walking = false;
        }
        if (rs->part >= rs->nparts) return false;
        int p = rs->part++;
        if (rs->probe_r < 0) {
            shx_walk_begin(&so->walk, 0, &shx_whole_lo, &shx_whole_hi, 1, rs->filter_q, rs->filter_r);
        } else {
            uint64 *lo, *hi;
            MemoryContext old = MemoryContextSwitchTo(so->cxt);
            int64 n;
            if (rs->filter_r == 0) {
                /* only the key itself can match: no need to read the rest of its block value's range */
                lo = (uint64 *) palloc(sizeof(uint64));
                hi = (uint64 *) palloc(sizeof(uint64));
                *lo = *hi = simhash::rotl64(rs->filter_q, so->st.rot[p]);
                n = 1;
            } else {
                n = shx_probe_ranges(&so->st, rs->filter_q, p, 0,
                                     simhash::radius_probe_level(rs->probe_r, so->st.nparts, p), &lo, &hi);
            }
            MemoryContextSwitchTo(old);
            shx_walk_begin(&so->walk, p, lo, hi, n, rs->filter_q, rs->filter_r);
        }
        rs->walking = true;
    }
}

void shx_radius_collect(IndexScanDesc scan, ShxScanOpaque *so) {
    shx_radius_begin(scan, so);
    while (radius_step(scan->indexRelation, so)) {
    }
}

ShxHit *shx_radius_next(Relation index, ShxScanOpaque *so) {
    ShxScanHits *hits = &so->hits;
    while (hits->next >= hits->found.n) {
        if (!so->radius.stream) break;
        hits->found.n = hits->next = 0;
        if (!radius_step(index, so)) {
            so->radius.stream = false;
            break;
        }
    }
    return hits->next < hits->found.n ? &hits->found.rows[hits->next++] : NULL;
}
