/*
 * Row estimates of fp % q and simhash_within(fp, q, r).  Near-duplicates are
 * what the extension is for, and a fingerprint stored in many rows (one
 * message posted ten thousand times) is what ANALYZE lists among the most
 * common values: those within the radius of a constant query count with
 * their measured frequency, as pg_trgm's matchingsel applies % to the MCV
 * list.  The other rows are taken to be spread like random fingerprints
 * (simhash::radius_selectivity), and NULLs never match.  Before, a query one
 * bit from a value held by 10% of the rows was estimated at one row.
 */
#include "radius_selectivity.h"

#include "hamming.hpp"
#include "mih_probe.hpp"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
}

double simhash_radius_restriction_sel(PlannerInfo *root, List *args, int varRelid, int radius) {
    double random_share = simhash::radius_selectivity(radius);
    VariableStatData vardata;
    Node *other;
    bool varonleft;
    if (!get_restriction_variable(root, args, varRelid, &vardata, &other, &varonleft)) return random_share;
    double sel = random_share;
    if (IsA(other, Const) && !((Const *) other)->constisnull && HeapTupleIsValid(vardata.statsTuple)) {
        uint64 q = DatumGetSimhash(((Const *) other)->constvalue);
        double nullfrac = ((Form_pg_statistic) GETSTRUCT(vardata.statsTuple))->stanullfrac;
        double mcv_match = 0, mcv_total = 0;
        AttStatsSlot sslot;
        if (get_attstatsslot(&sslot, vardata.statsTuple, STATISTIC_KIND_MCV, InvalidOid,
                             ATTSTATSSLOT_VALUES | ATTSTATSSLOT_NUMBERS)) {
            for (int i = 0; i < sslot.nvalues && i < sslot.nnumbers; i++) {
                mcv_total += sslot.numbers[i];
                if (simhash::hamming_distance(DatumGetSimhash(sslot.values[i]), q) <= radius)
                    mcv_match += sslot.numbers[i];
            }
            free_attstatsslot(&sslot);
        }
        double rest = 1.0 - nullfrac - mcv_total;
        sel = mcv_match + (rest > 0 ? rest : 0) * random_share;
    }
    ReleaseVariableStats(vardata);
    CLAMP_PROBABILITY(sel);
    return sel;
}
