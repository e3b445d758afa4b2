/*
 * Row estimates of fp % q and simhash_within(fp, q, r).  Near-duplicates are
 * what the extension is for, and a fingerprint stored in many rows (one
 * message posted ten thousand times) is what ANALYZE lists among the most
 * common values: those within the radius of a constant query count with
 * their measured frequency, as pg_trgm's matchingsel applies % to the MCV
 * list.  The other rows are modelled by the share of ones at each bit,
 * taken from ANALYZE's histogram bounds (a sample of the non-MCV rows;
 * src/core/bit_shares.hpp): text fingerprints lean, and a model of fair
 * random bits put rows=1 on radius-10 queries that matched 279 rows on
 * average and a join at 364 rows that returned 42,879.  NULLs never match.
 */
#include "radius_selectivity.h"

#include <cmath>

#include "bit_shares.hpp"
#include "hamming.hpp"
#include "mih_probe.hpp"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
}

namespace {

/*
 * What the statistics say about one side: NULL share, most common values
 * (for joins) and each bit's share of ones in the rest.
 */
struct ColumnModel {
    double nullfrac = 0;
    double share[64];
    int nmcv = 0;
    uint64 *mcv = nullptr;
    double *mcv_freq = nullptr;
    double mcv_total = 0;
};

void fill_mcvs(VariableStatData *vardata, ColumnModel *m) {
    AttStatsSlot sslot;
    if (!HeapTupleIsValid(vardata->statsTuple) ||
        !get_attstatsslot(&sslot, vardata->statsTuple, STATISTIC_KIND_MCV, InvalidOid,
                          ATTSTATSSLOT_VALUES | ATTSTATSSLOT_NUMBERS))
        return;
    int n = Min(sslot.nvalues, sslot.nnumbers);
    m->mcv = (uint64 *) palloc(sizeof(uint64) * Max(n, 1));
    m->mcv_freq = (double *) palloc(sizeof(double) * Max(n, 1));
    for (int i = 0; i < n; i++) {
        m->mcv[i] = DatumGetSimhash(sslot.values[i]);
        m->mcv_freq[i] = sslot.numbers[i];
        m->mcv_total += sslot.numbers[i];
    }
    m->nmcv = n;
    free_attstatsslot(&sslot);
}

void fill_model(VariableStatData *vardata, ColumnModel *m) {
    for (double &s : m->share) s = 0.5;
    m->nullfrac = 0;
    if (!HeapTupleIsValid(vardata->statsTuple)) return;
    m->nullfrac = ((Form_pg_statistic) GETSTRUCT(vardata->statsTuple))->stanullfrac;
    AttStatsSlot h;
    if (!get_attstatsslot(&h, vardata->statsTuple, STATISTIC_KIND_HISTOGRAM, InvalidOid, ATTSTATSSLOT_VALUES)) return;
    if ((size_t) h.nvalues >= simhash::kMinBitShareSample) {
        uint64 *sample = (uint64 *) palloc(sizeof(uint64) * h.nvalues);
        for (int i = 0; i < h.nvalues; i++) sample[i] = DatumGetSimhash(h.values[i]);
        simhash::estimate_bit_shares(sample, (size_t) h.nvalues, m->share);
        pfree(sample);
    }
    free_attstatsslot(&h);
}

double at_least_floor(double s) { return s > simhash::kMinRadiusSelectivity ? s : simhash::kMinRadiusSelectivity; }

/* Distinct values of a column, as eqsel and eqjoinsel count them; 0 when ANALYZE has not counted them. */
double counted_distinct(VariableStatData *vardata) {
    bool isdefault;
    double nd = get_variable_numdistinct(vardata, &isdefault);
    return isdefault ? 0 : nd;
}

/*
 * What PostgreSQL estimates for fp = q when q is none of the most common
 * values: the rest of the rows spread evenly over the other distinct values
 * (var_eq_const's rule), so never more than the least common of them.  Every
 * radius includes equality, so a radius estimate below it is too low: a
 * column of 2,000 fingerprints stored 50 times each (too even for a most
 * common values list) had fp % q estimated at 1 row and fp = q at 50.  0
 * when ANALYZE has not counted distinct values.
 */
double equal_share_of_rest(VariableStatData *vardata, double rest, int nmcv, double least_mcv_freq) {
    double ndistinct = counted_distinct(vardata);
    if (ndistinct == 0 || rest <= 0) return 0;
    double others = ndistinct - nmcv;
    double s = others > 1 ? rest / others : rest;
    if (nmcv > 0 && s > least_mcv_freq) s = least_mcv_freq;
    return s;
}


/*
 * PostgreSQL's estimate of a.fp = b.fp (eqjoinsel_inner's rule): with most
 * common values on both sides, the equal ones paired at their frequencies,
 * each side's unmatched ones and the rest spread over the other side's
 * distinct values, the smaller of the two points of view; otherwise the
 * non-NULL rows over the larger number of distinct values.
 */
double equal_join_sel(const ColumnModel &a, const ColumnModel &b, double nd_a, double nd_b) {
    if (a.nmcv == 0 || b.nmcv == 0) return (1.0 - a.nullfrac) * (1.0 - b.nullfrac) / Max(Max(nd_a, nd_b), 1.0);
    bool *matched_a = (bool *) palloc0(a.nmcv), *matched_b = (bool *) palloc0(b.nmcv);
    double pair_freq = 0;
    int nmatches = 0;
    for (int i = 0; i < a.nmcv; i++)
        for (int j = 0; j < b.nmcv; j++)
            if (!matched_b[j] && a.mcv[i] == b.mcv[j]) {
                matched_a[i] = matched_b[j] = true;
                pair_freq += a.mcv_freq[i] * b.mcv_freq[j];
                nmatches++;
                break;
            }
    double matched_freq_a = 0, unmatched_a = 0, matched_freq_b = 0, unmatched_b = 0;
    for (int i = 0; i < a.nmcv; i++) (matched_a[i] ? matched_freq_a : unmatched_a) += a.mcv_freq[i];
    for (int j = 0; j < b.nmcv; j++) (matched_b[j] ? matched_freq_b : unmatched_b) += b.mcv_freq[j];
    pfree(matched_a);
    pfree(matched_b);
    double other_a = Max(0.0, 1.0 - a.nullfrac - matched_freq_a - unmatched_a);
    double other_b = Max(0.0, 1.0 - b.nullfrac - matched_freq_b - unmatched_b);
    double from_a = pair_freq, from_b = pair_freq;
    if (nd_b > b.nmcv) from_a += unmatched_a * other_b / (nd_b - b.nmcv);
    if (nd_b > nmatches) from_a += other_a * (other_b + unmatched_b) / (nd_b - nmatches);
    if (nd_a > a.nmcv) from_b += unmatched_b * other_a / (nd_a - a.nmcv);
    if (nd_a > nmatches) from_b += other_b * (other_a + unmatched_a) / (nd_a - nmatches);
    return Min(from_a, from_b);
}

}  // namespace

namespace {

/* The right operand of %<=: *query (a node of type fp_type) and *radius, when known. */
bool radius_operand(PlannerInfo *root, Node *operand, Oid fp_type, Node **query, int *radius) {
    Node *r = NULL;
    if (IsA(operand, RowExpr) && list_length(((RowExpr *) operand)->args) == 2) {
        List *fields = ((RowExpr *) operand)->args;
        r = (Node *) lsecond(fields);
        if (root) r = estimate_expression_value(root, r);
        if (!IsA(r, Const) || ((Const *) r)->constisnull) return false;
        *query = (Node *) linitial(fields);
        *radius = DatumGetInt32(((Const *) r)->constvalue);
    } else if (IsA(operand, Const) && !((Const *) operand)->constisnull) {
        HeapTupleHeader row = DatumGetHeapTupleHeader(((Const *) operand)->constvalue);
        bool qnull, rnull;
        Datum q = GetAttributeByNum(row, 1, &qnull);
        Datum rv = GetAttributeByNum(row, 2, &rnull);
        if (rnull) return false;
        *query = (Node *) makeConst(fp_type, -1, InvalidOid, sizeof(int64), q, qnull, FLOAT8PASSBYVAL);
        *radius = DatumGetInt32(rv);
    } else {
        return false;
    }
    *radius = Min(64, Max(0, *radius));
    return true;
}

}  // namespace

bool simhash_radius_operator_args(PlannerInfo *root, List *args, List **pair, int *radius) {
    if (list_length(args) != 2) return false;
    Node *fp = (Node *) linitial(args);
    Node *query;
    if (!radius_operand(root, (Node *) lsecond(args), exprType(fp), &query, radius)) return false;
    if (pair) *pair = list_make2(fp, query);
    return true;
}

double simhash_radius_restriction_sel(PlannerInfo *root, List *args, int varRelid, int radius) {
    VariableStatData vardata;
    Node *other;
    bool varonleft;
    if (!get_restriction_variable(root, args, varRelid, &vardata, &other, &varonleft))
        return simhash::radius_selectivity(radius);
    /*
     * Another table's column, as the inner index scan of a nested loop sees
     * the outer row's fingerprint: the rows a random outer row matches, the
     * join's own estimate (most common values against each other included).
     * Modelled as a query like this column's rows, an inner scan whose
     * outer rows hit a fingerprint stored in 74,769 rows was estimated at 1
     * row a loop for 19,784.
     */
    Node *bare = other;
    while (IsA(bare, RelabelType)) bare = (Node *) ((RelabelType *) bare)->arg;
    if (IsA(bare, Var)) {
        Node *self = varonleft ? (Node *) linitial(args) : (Node *) lsecond(args);
        ReleaseVariableStats(vardata);
        return simhash_radius_join_sel(root, list_make2(self, other), radius);
    }
    ColumnModel m;
    fill_model(&vardata, &m);
    double sel;
    if (IsA(other, Const) && !((Const *) other)->constisnull) {
        uint64 q = DatumGetSimhash(((Const *) other)->constvalue);
        fill_mcvs(&vardata, &m);
        double mcv_match = 0, least_mcv_freq = 1;
        bool q_is_mcv = false;
        for (int i = 0; i < m.nmcv; i++) {
            least_mcv_freq = Min(least_mcv_freq, m.mcv_freq[i]);
            int d = simhash::hamming_distance(m.mcv[i], q);
            if (d <= radius) mcv_match += m.mcv_freq[i];
            if (d == 0) q_is_mcv = true;
        }
        double rest = Max(1.0 - m.nullfrac - m.mcv_total, 0.0);
        double rest_match = rest * at_least_floor(simhash::biased_within_share(q, m.share, radius));
        if (!q_is_mcv) rest_match = Max(rest_match, equal_share_of_rest(&vardata, rest, m.nmcv, least_mcv_freq));
        sel = mcv_match + rest_match;
    } else {
        /*
         * a parameter or another column of the row: a query like the
         * column's own rows, at least as many as fp = q (var_eq_non_const's
         * 1 / distinct values)
         */
        sel = (1.0 - m.nullfrac) * at_least_floor(simhash::biased_pair_within_share(m.share, m.share, radius));
        double ndistinct = counted_distinct(&vardata);
        if (ndistinct >= 1) {
            /* never more than the most common value's frequency, as var_eq_non_const caps it */
            double equal = (1.0 - m.nullfrac) / ndistinct;
            fill_mcvs(&vardata, &m);
            if (m.nmcv > 0) equal = Min(equal, m.mcv_freq[0]);
            sel = Max(sel, equal);
        }
    }
    ReleaseVariableStats(vardata);
    CLAMP_PROBABILITY(sel);
    return sel;
}

/*
 * A semi- or anti-join's selectivity is, for PostgreSQL, the share of outer
 * rows that have a match (eqjoinsel_semi's meaning), not the share of pairs:
 * taken as the pair share, the EXISTS of "which new rows have a stored near
 * copy" was estimated at 3% where 30% of them had one.  An outer row
 * holding a common value matches the inner rows within the radius of it;
 * another matches when it lies near an inner common value (each stored at
 * least once), or else by the chance a random pair has, over inner_rows
 * tries.
 */
static double semi_join_sel(const ColumnModel &outer, const ColumnModel &inner, double inner_rows, int radius) {
    double rest_outer = Max(0.0, 1.0 - outer.nullfrac - outer.mcv_total);
    double rest_inner = Max(0.0, 1.0 - inner.nullfrac - inner.mcv_total);
    double sel = 0;
    for (int i = 0; i < outer.nmcv; i++) {
        double share = rest_inner * simhash::biased_within_share(outer.mcv[i], inner.share, radius);
        for (int j = 0; j < inner.nmcv; j++)
            if (simhash::hamming_distance(outer.mcv[i], inner.mcv[j]) <= radius) share += inner.mcv_freq[j];
        sel += outer.mcv_freq[i] * -std::expm1(-inner_rows * share);
    }
    double near_common = 0;
    for (int j = 0; j < inner.nmcv; j++) near_common += simhash::biased_within_share(inner.mcv[j], outer.share, radius);
    near_common = Min(1.0, near_common);
    double by_chance =
        -std::expm1(-inner_rows * rest_inner * simhash::biased_pair_within_share(outer.share, inner.share, radius));
    sel += rest_outer * (1.0 - (1.0 - near_common) * (1.0 - by_chance));
    /*
     * Near copies of rows stored once are in no statistic: new rows that are
     * 30% copies of random stored ones were estimated at 1 row, and a
     * further join to an unindexed table then ran as a nested loop over it
     * for every match (over 100x the hash join).  So, as
     * eqjoinsel_semi does when statistics cannot tell, at least half the
     * outer rows are taken to match: neither EXISTS nor NOT EXISTS is then
     * estimated below half its true rows (an overestimate costs a hash join
     * where a nested loop would do; an estimate of 1 row can cost a nested
     * loop over a whole table per row).
     */
    sel = Max(sel, 0.5 * (1.0 - outer.nullfrac));
    CLAMP_PROBABILITY(sel);
    return sel;
}

/*
 * Pairs, for every join but a semi- or anti-join: most common values
 * against each other (a text posted many times matches itself in a
 * self-join), each side's most common values against the other's modelled
 * rest, and rest against rest.
 */
double simhash_radius_join_sel(PlannerInfo *root, List *args, int radius, SpecialJoinInfo *sjinfo) {
    if (list_length(args) < 2) return simhash::radius_selectivity(radius);
    VariableStatData a, b;
    bool semi = sjinfo != NULL && (sjinfo->jointype == JOIN_SEMI || sjinfo->jointype == JOIN_ANTI);
    bool reversed = false;
    if (semi)
        get_join_variables(root, list_make2(linitial(args), lsecond(args)), sjinfo, &a, &b, &reversed);
    else {
        examine_variable(root, (Node *) linitial(args), 0, &a);
        examine_variable(root, (Node *) lsecond(args), 0, &b);
    }
    ColumnModel ma, mb;
    fill_model(&a, &ma);
    fill_model(&b, &mb);
    fill_mcvs(&a, &ma);
    fill_mcvs(&b, &mb);
    RelOptInfo *inner_rel = reversed ? a.rel : b.rel;
    double nd_a = counted_distinct(&a), nd_b = counted_distinct(&b);
    ReleaseVariableStats(a);
    ReleaseVariableStats(b);
    if (semi && inner_rel != NULL && inner_rel->rows > 0)
        return reversed ? semi_join_sel(mb, ma, inner_rel->rows, radius) : semi_join_sel(ma, mb, inner_rel->rows, radius);
    double rest_a = Max(0.0, 1.0 - ma.nullfrac - ma.mcv_total), rest_b = Max(0.0, 1.0 - mb.nullfrac - mb.mcv_total);
    double sel = rest_a * rest_b * simhash::biased_pair_within_share(ma.share, mb.share, radius);
    for (int i = 0; i < ma.nmcv; i++) {
        for (int j = 0; j < mb.nmcv; j++)
            if (simhash::hamming_distance(ma.mcv[i], mb.mcv[j]) <= radius) sel += ma.mcv_freq[i] * mb.mcv_freq[j];
        sel += ma.mcv_freq[i] * rest_b * simhash::biased_within_share(ma.mcv[i], mb.share, radius);
    }
    for (int j = 0; j < mb.nmcv; j++)
        sel += mb.mcv_freq[j] * rest_a * simhash::biased_within_share(mb.mcv[j], ma.share, radius);
    sel = Max(sel, (1.0 - ma.nullfrac) * (1.0 - mb.nullfrac) * simhash::kMinRadiusSelectivity);
    /*
     * Nor fewer pairs than fp = fp, which a radius includes.  Two tables of
     * 400 fingerprints stored 50 and 5 times each gave 25,000 pairs for %
     * and 100,000 for =, and 100,000 matched.
     */
    if (nd_a > 0 && nd_b > 0) sel = Max(sel, equal_join_sel(ma, mb, nd_a, nd_b));
    CLAMP_PROBABILITY(sel);
    return sel;
}
