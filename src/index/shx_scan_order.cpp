/*
 * shx_scan_order.cpp: the order of found rows in an ordered scan.  The
 * planner hands an index every ordering operator of ORDER BY fp <-> q1,
 * fp <-> q2, ... and trusts the order of all of them (the rows came back
 * ordered by the first alone, so a LIMIT returned the wrong ones): rows
 * are ordered by their distance to the first query, then to each later
 * one, then by tid.
 */
#include "shx_scan.h"

/* The order of rows tied on the first ORDER BY key: by the later keys' distances (a NULL query: all equal). */
static int cmp_then(const ShxScanQuery *q, const ShxHit *x, const ShxHit *y) {
    for (int k = 0; k < q->nthen; k++) {
        if (q->then_null[k]) continue;
        int dx = simhash::hamming_distance(x->fp, q->then_q[k]), dy = simhash::hamming_distance(y->fp, q->then_q[k]);
        if (dx != dy) return dx < dy ? -1 : 1;
    }
    return 0;
}

static int cmp_hit_dist(const void *a, const void *b, void *arg) {
    const ShxHit *x = (const ShxHit *) a, *y = (const ShxHit *) b;
    const ShxScanQuery *q = (const ShxScanQuery *) arg;
    /* a NULL first query gives every row the distance NULL: only the later keys order them */
    if (!q->order_null && x->dist != y->dist) return x->dist < y->dist ? -1 : 1;
    if (int c = cmp_then(q, x, y)) return c;
    return ItemPointerCompare((ItemPointer) &x->tid, (ItemPointer) &y->tid);
}

/*
 * Sorts found rows: every match of a radius search ordered by distance, or
 * the rows at one distance from the first query (all of them found) by the
 * later keys.  Interruptible: a large radius over millions of rows sorts
 * for a noticeable time.
 */
void shx_sort_hits(const ShxScanQuery *q, ShxHit *hits, int64 n) {
    if (n <= 1) return;
    qsort_interruptible(hits, n, sizeof(ShxHit), cmp_hit_dist, (void *) q);
}
