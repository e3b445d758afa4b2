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

/* The share of pairs of rows within radius: args are the two sides of the join. */
double simhash_radius_join_sel(PlannerInfo *root, List *args, int radius);

#endif
