/*
 * Row estimates of the radius predicates, fp % q and simhash_within(fp, q, r).
 */
#ifndef SIMHASH_RADIUS_SELECTIVITY_H
#define SIMHASH_RADIUS_SELECTIVITY_H

#include "simhash_datum.h"

extern "C" {
#include "nodes/pathnodes.h"
}

/*
 * args: the two fingerprint arguments (column and query, either order).
 * The share of rows within radius of the query.
 */
double simhash_radius_restriction_sel(PlannerInfo *root, List *args, int varRelid, int radius);

/*
 * The share of pairs of rows within radius: args are the two sides of the
 * join.  For a semi- or anti-join (sjinfo given), the share of outer rows
 * with an inner row within radius.
 */
double simhash_radius_join_sel(PlannerInfo *root, List *args, int radius, SpecialJoinInfo *sjinfo = nullptr);

/* A radius unknown at plan time (a generic plan's parameter): contsel's share. */
constexpr double kUnknownRadiusSelectivity = 0.001;

/*
 * The arguments of fp %<= ROW(q, r)::simhash_radius.  Its right operand is
 * the ROW the planner support of simhash_within builds (q a parameter or
 * another table's column), or a constant simhash_radius, as a ROW of
 * constants written by hand is folded to.  Sets *pair (unless NULL) to
 * (fp, q), the arguments of the estimates above, and *radius (clamped to
 * 0-64); false when the radius is not known at plan time.
 */
bool simhash_radius_operator_args(PlannerInfo *root, List *args, List **pair, int *radius);

#endif
