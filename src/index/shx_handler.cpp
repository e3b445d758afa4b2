/*
 * shx_handler.cpp: the access method's handler, reloptions, amvalidate,
 * amproperty, the cost estimate, and the planner support function that makes
 * simhash_within(fp, q, r) an index condition (fp %<= ROW(q, r)).
 */
#include "shx.h"

#include "mih_probe.hpp"
#include "radius_selectivity.h"

#include <cmath>

extern "C" {
#include "access/amvalidate.h"
#include "access/htup_details.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_type_d.h"
#include "commands/vacuum.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"
#include "utils/catcache.h"
#include "utils/regproc.h"
#include "commands/progress.h"
}

extern "C" {
PG_FUNCTION_INFO_V1(simhash_index_handler);
PG_FUNCTION_INFO_V1(simhash_within_radius);
PG_FUNCTION_INFO_V1(simhash_within_support);
}


namespace {

relopt_kind shx_relopt_kind;
bool shx_relopts_ready = false;

void shx_init_reloptions() {
    if (shx_relopts_ready) return;
    shx_relopt_kind = add_reloption_kind();
    add_int_reloption(shx_relopt_kind, "blocks", "Number of block partitions of the 64 bits (1 to 16)",
                      SHX_DEFAULT_PARTS, 1, SHX_MAX_PARTS, AccessExclusiveLock);
    add_int_reloption(shx_relopt_kind, "fillfactor", "Percent of each leaf page CREATE INDEX fills", 90, 10, 100,
                      ShareUpdateExclusiveLock);
    shx_relopts_ready = true;
}

bytea *shx_options(Datum reloptions, bool validate) {
    static const relopt_parse_elt tab[] = {
        {"blocks", RELOPT_TYPE_INT, offsetof(ShxOptions, nparts)},
        {"fillfactor", RELOPT_TYPE_INT, offsetof(ShxOptions, fillfactor)},
    };
    shx_init_reloptions();
    return (bytea *) build_reloptions(reloptions, validate, shx_relopt_kind, sizeof(ShxOptions), tab, lengthof(tab));
}

bool shx_canreturn(Relation index, int attno) { return attno == 1; }

bool shx_property(Oid index_oid, int attno, IndexAMProperty prop, const char *propname, bool *res, bool *isnull) {
    if (prop == AMPROP_DISTANCE_ORDERABLE && attno == 1) {
        *res = true;
        *isnull = false;
        return true;
    }
    return false;
}

char *shx_buildphasename(int64 phase) {
    switch (phase) {
        case PROGRESS_CREATEIDX_SUBPHASE_INITIALIZE:
            return (char *) "initializing";
        case SHX_BUILD_PHASE_SCAN:
            return (char *) "scanning table";
        case SHX_BUILD_PHASE_LOAD:
            return (char *) "sorting and loading partitions";
        default:
            return NULL;
    }
}

/* Radius of an index clause, or -1 when it is not known at plan time. */
int clause_radius(PlannerInfo *root, IndexOptInfo *index, RestrictInfo *rinfo) {
    Expr *clause = rinfo->clause;
    if (!IsA(clause, OpExpr)) return -1;
    OpExpr *op = (OpExpr *) clause;
    int strategy = get_op_opfamily_strategy(op->opno, index->opfamily[0]);
    switch (strategy) {
        case SHX_STRATEGY_EQUAL:
            return 0;
        case SHX_STRATEGY_SIMILAR:
            return simhash_threshold;
        case SHX_STRATEGY_WITHIN: {
            int radius;
            return simhash_radius_operator_args(root, op->args, NULL, &radius) ? radius : -1;
        }
        default:
            return -1;
    }
}

/*
 * Once per session and index, as PostgreSQL warns of an index whose
 * collation version changed: the planner leaves the index aside, so
 * searches are sequential scans until it is rebuilt.
 */
void warn_old_index_once(Relation index, uint32 version) {
    static List *warned = NIL; /* index OIDs, in TopMemoryContext */
    Oid relid = RelationGetRelid(index);
    if (list_member_oid(warned, relid)) return;
    MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
    warned = lappend_oid(warned, relid);
    MemoryContextSwitchTo(old);
    ereport(WARNING, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                      errmsg("index \"%s\" has on-disk version %u, which this simhash build no longer reads; "
                             "queries do not use it",
                             RelationGetRelationName(index), version),
                      errhint("To fix this, do REINDEX INDEX \"%s\".", RelationGetRelationName(index))));
}

}  // namespace

void shx_costestimate(PlannerInfo *root, IndexPath *path, double loop_count, Cost *indexStartupCost,
                      Cost *indexTotalCost, Selectivity *indexSelectivity, double *indexCorrelation,
                      double *indexPages) {
    IndexOptInfo *index = path->indexinfo;
    GenericCosts costs;
    memset(&costs, 0, sizeof(costs));
    genericcostestimate(root, path, loop_count, &costs);

    int nparts = SHX_DEFAULT_PARTS;
    Relation irel = index_open(index->indexoid, NoLock);
    uint32 old_version = 0;
    if (RelationGetNumberOfBlocks(irel) > 0) {
        const ShxState *st = shx_readable_state(irel, &old_version);
        if (st != NULL)
            nparts = st->nparts;
        else
            warn_old_index_once(irel, old_version);
    }
    index_close(irel, NoLock);
    if (old_version != 0) {
        /*
         * An index only a REINDEX makes readable is priced out of every plan
         * rather than failing the estimate: the planner costs an index-only
         * scan for count(*) and SELECT fp, so an error here failed every
         * such query on the table, not just the searches.  Inserts still
         * fail, with the hint (they cannot write the old format).
         */
        *indexStartupCost = *indexTotalCost = 10 * disable_cost;
        *indexSelectivity = 1.0;
        *indexCorrelation = 0;
        *indexPages = index->pages;
        return;
    }

    int radius = 64;
    bool any = false;
    ListCell *lc;
    foreach (lc, path->indexclauses) {
        IndexClause *ic = lfirst_node(IndexClause, lc);
        ListCell *lc2;
        foreach (lc2, ic->indexquals) {
            int r = clause_radius(root, index, lfirst_node(RestrictInfo, lc2));
            if (r < 0) r = simhash_threshold;
            radius = any ? Min(radius, r) : r;
            any = true;
        }
    }
    double tuples = Max(index->tuples, 1.0);
    double dirpages = (double) nparts * ((SHX_DIR_SLOTS + SHX_DIR_SLOTS_PER_PAGE - 1) / SHX_DIR_SLOTS_PER_PAGE);
    double leafpages = Max(1.0, ((double) index->pages - 1 - dirpages) / nparts);
    double per_page = Max(1.0, tuples * nparts / Max(1.0, leafpages * nparts));
    int width = 64 / nparts;
    double probes;
    if (any) {
        int widths[SHX_MAX_PARTS], probed;
        for (int p = 0; p < nparts; p++) widths[p] = width;
        probes = simhash::radius_probe_count(radius, nparts, widths, &probed); /* as the scan probes */
    } else {
        /* KNN: assume levels 0 and 1; a full index scan: every page */
        probes = path->indexorderbys != NIL ? nparts * (double) simhash::probes_within(width, 1) : 1e30;
    }
    /* rows per probed key range: a block value's, or at radius 0 the one key's */
    double per_block = any && radius == 0 ? 1.0 : tuples / ldexp(1.0, width);
    double pages = probes * (1.0 + per_block / per_page);
    if (pages > leafpages) pages = leafpages; /* one partition read whole */
    double entries = pages * per_page;
    double spc_random = random_page_cost;
    /*
     * A probe jumps to its first page; the rest of its range follows along
     * the chain, page after page, as a btree range scan's leaves do (priced
     * at random_page_cost each, a first pass of KNN at 8 blocks, whose
     * ranges span 5 pages, came to three times its time).
     */
    double jumps = Min(probes, pages);
    /* repeated probes in a nested loop mostly hit cache */
    double cached = index_pages_fetched(pages * loop_count, (BlockNumber) index->pages, (double) index->pages, root) /
                    Max(loop_count, 1.0) / pages;
    double work = cached * (jumps * spc_random + (pages - jumps) * seq_page_cost) +
                  (pages < leafpages ? probes : 0) * 0.1 * spc_random + entries * cpu_operator_cost;
    /*
     * A KNN scan probes and sorts its first pass before it returns a row; a
     * startup of 0 priced LIMIT 10 at 1M rows at a thousandth of a full
     * ordered scan, 0.3 against a sequential scan's 18,000, where it takes
     * about as long as reading 200 of those units' worth of pages.
     */
    *indexStartupCost = path->indexorderbys != NIL ? work : 0;
    *indexTotalCost = work + costs.numIndexTuples * cpu_index_tuple_cost;
    /*
     * Each row an ordered (KNN) scan returns past its first pass is met in
     * every partition and kept in distance order: nparts index tuples and a
     * sort step each.  The planner prices LIMIT k as the share k / rows of
     * this total, which with a condition on another column that few rows
     * pass is the share of the walk to the depth k / (share passing).
     * Priced as index tuples alone, the walk cost a fifth of its time next
     * to a sequential scan: WHERE k2 < 10 ORDER BY fp <-> q LIMIT 150
     * (0.1% passing, 1M rows) walked 165,000 rows in 91 ms where a
     * sequential scan and sort take 29, and WHERE cat = 5 ... LIMIT 10
     * read 10,000 rows in 7-10 ms where the btree on cat and a sort take 1.
     */
    if (!any && path->indexorderbys != NIL)
        *indexTotalCost += tuples * nparts * (cpu_index_tuple_cost + cpu_operator_cost * log2(Max(2.0, tuples)));
    /* with no condition the scan ends with a heap pass for the NULL rows (shx_nulls.cpp) */
    if (!any) *indexTotalCost += index->rel->pages * seq_page_cost + index->rel->tuples * cpu_tuple_cost;
    /* uniformly random fingerprints within the smallest radius, but at least one row */
    *indexSelectivity = any ? Max(simhash::uniform_within_share(radius), 1.0 / tuples) : 1.0;
    *indexCorrelation = 0;
    *indexPages = pages;
}

bool shx_validate(Oid opclassoid) {
    bool result = true;
    HeapTuple classtup = SearchSysCache1(CLAOID, ObjectIdGetDatum(opclassoid));
    if (!HeapTupleIsValid(classtup)) elog(ERROR, "cache lookup failed for operator class %u", opclassoid);
    Form_pg_opclass classform = (Form_pg_opclass) GETSTRUCT(classtup);
    Oid opfamilyoid = classform->opcfamily;
    char *opclassname = pstrdup(NameStr(classform->opcname));
    CatCList *oprlist = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(opfamilyoid));
    for (int i = 0; i < oprlist->n_members; i++) {
        Form_pg_amop oprform = (Form_pg_amop) GETSTRUCT(&oprlist->members[i]->tuple);
        int s = oprform->amopstrategy;
        bool ok;
        if (s == SHX_STRATEGY_DISTANCE)
            ok = oprform->amoppurpose == AMOP_ORDER && OidIsValid(oprform->amopsortfamily);
        else
            ok = s >= 1 && s <= 3 && oprform->amoppurpose == AMOP_SEARCH &&
                 check_amop_signature(oprform->amopopr, BOOLOID, oprform->amoplefttype, oprform->amoprighttype);
        if (!ok) {
            ereport(INFO, (errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
                           errmsg("simhash operator class \"%s\" contains invalid operator %s for strategy %d",
                                  opclassname, format_operator(oprform->amopopr), s)));
            result = false;
        }
    }
    ReleaseCatCacheList(oprlist);
    ReleaseSysCache(classtup);
    return result;
}

Datum simhash_index_handler(PG_FUNCTION_ARGS) {
    shx_init_reloptions();
    IndexAmRoutine *am = makeNode(IndexAmRoutine);
    am->amstrategies = SHX_NSTRATEGIES;
    am->amsupport = 1;
    am->amoptsprocnum = 0;
    am->amcanorder = false;
    am->amcanorderbyop = true;
    am->amcanbackward = false;
    am->amcanunique = false;
    am->amcanmulticol = false;
    am->amoptionalkey = true;
    am->amsearcharray = false;
    am->amsearchnulls = false;
    am->amstorage = false;
    am->amclusterable = false;
    am->ampredlocks = true; /* page locks on the leaves a scan reads: shx_walk.cpp, shx_walk_step */
    am->amcanparallel = false;
    am->amcaninclude = false;
    am->amusemaintenanceworkmem = false;
    am->amparallelvacuumoptions = VACUUM_OPTION_PARALLEL_BULKDEL;
    am->amkeytype = InvalidOid;
    am->ambuild = shx_build;
    am->ambuildempty = shx_buildempty;
    am->aminsert = shx_insert;
    am->ambulkdelete = shx_bulkdelete;
    am->amvacuumcleanup = shx_vacuumcleanup;
    am->amcanreturn = shx_canreturn;
    am->amcostestimate = shx_costestimate;
    am->amoptions = shx_options;
    am->amproperty = shx_property;
    am->ambuildphasename = shx_buildphasename;
    am->amvalidate = shx_validate;
    am->amadjustmembers = NULL;
    am->ambeginscan = shx_beginscan;
    am->amrescan = shx_rescan;
    am->amgettuple = shx_gettuple;
    am->amgetbitmap = shx_getbitmap;
    am->amendscan = shx_endscan;
    am->ammarkpos = NULL;
    am->amrestrpos = NULL;
    am->amestimateparallelscan = NULL;
    am->aminitparallelscan = NULL;
    am->amparallelrescan = NULL;
    PG_RETURN_POINTER(am);
}

int shx_knn_first_pass_rows = (int) simhash::kKnnFirstPassRows;

void simhash_index_define_gucs(void) {
    shx_init_reloptions();
    DefineCustomIntVariable("simhash.knn_first_pass_rows",
                            "Rows near the query that the first pass of a simhash index KNN scan is sized for.",
                            "The first pass keeps only rows within the radius that holds this many rows of uniformly "
                            "random fingerprints; a scan that returns more walks its probes again. Set it near the "
                            "LIMIT of the KNN queries that matter.",
                            &shx_knn_first_pass_rows, (int) simhash::kKnnFirstPassRows, 0, INT_MAX, PGC_USERSET, 0,
                            NULL, NULL, NULL);
}

int shx_reloption_parts(Relation index) {
    ShxOptions *o = (ShxOptions *) index->rd_options;
    return o ? o->nparts : SHX_DEFAULT_PARTS;
}
int shx_reloption_fillfactor(Relation index) {
    ShxOptions *o = (ShxOptions *) index->rd_options;
    return o ? o->fillfactor : 90;
}

/* fp %<= ROW(q, r)::simhash_radius: the index condition simhash_within becomes. */
Datum simhash_within_radius(PG_FUNCTION_ARGS) {
    uint64 fp = PG_GETARG_SIMHASH(0);
    HeapTupleHeader th = PG_GETARG_HEAPTUPLEHEADER(1);
    bool qnull, rnull;
    Datum q = GetAttributeByNum(th, 1, &qnull);
    Datum r = GetAttributeByNum(th, 2, &rnull);
    if (qnull || rnull) PG_RETURN_NULL();
    int32 radius = DatumGetInt32(r);
    if (radius < 0 || radius > 64)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("simhash radius %d is out of range", radius),
                        errhint("The radius must be between 0 and 64.")));
    PG_RETURN_BOOL(__builtin_popcountll(fp ^ DatumGetSimhash(q)) <= radius);
}

/* Planner support for simhash_within(a, b, r): selectivity, and the index condition. */
Datum simhash_within_support(PG_FUNCTION_ARGS) {
    Node *rawreq = (Node *) PG_GETARG_POINTER(0);
    if (IsA(rawreq, SupportRequestSelectivity)) {
        SupportRequestSelectivity *req = (SupportRequestSelectivity *) rawreq;
        double sel = kUnknownRadiusSelectivity;
        if (list_length(req->args) == 3) {
            Node *r = estimate_expression_value(req->root, (Node *) lthird(req->args));
            if (IsA(r, Const) && !((Const *) r)->constisnull) {
                int radius = Min(64, Max(0, DatumGetInt32(((Const *) r)->constvalue)));
                sel = req->is_join ? simhash_radius_join_sel(req->root, req->args, radius, req->sjinfo)
                                   : simhash_radius_restriction_sel(req->root, list_make2(linitial(req->args),
                                                                                          lsecond(req->args)),
                                                                    req->varRelid, radius);
            }
        }
        req->selectivity = sel;
        PG_RETURN_POINTER(req);
    }
    if (IsA(rawreq, SupportRequestIndexCondition)) {
        SupportRequestIndexCondition *req = (SupportRequestIndexCondition *) rawreq;
        /*
         * The planner asks about every index on the argument, a btree on fp
         * included, whose strategy 3 is = (the condition built from it
         * failed planning with "type simhash is not composite").
         */
        bool ours = reinterpret_cast<void (*)()>(req->index->amcostestimate) == reinterpret_cast<void (*)()>(shx_costestimate);
        if (!ours || !is_funcclause(req->node)) PG_RETURN_POINTER(NULL);
        List *args = ((FuncExpr *) req->node)->args;
        if (list_length(args) != 3 || req->indexarg > 1) PG_RETURN_POINTER(NULL);
        Node *indexexpr = (Node *) list_nth(args, req->indexarg);
        Node *other = (Node *) list_nth(args, 1 - req->indexarg);
        Node *radius = (Node *) list_nth(args, 2);
        Oid opno = InvalidOid, righttype = InvalidOid;
        CatCList *catlist = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(req->opfamily));
        for (int i = 0; i < catlist->n_members; i++) {
            Form_pg_amop amop = (Form_pg_amop) GETSTRUCT(&catlist->members[i]->tuple);
            if (amop->amopstrategy == SHX_STRATEGY_WITHIN && amop->amoppurpose == AMOP_SEARCH) {
                opno = amop->amopopr;
                righttype = amop->amoprighttype;
            }
        }
        ReleaseCatCacheList(catlist);
        if (!OidIsValid(opno)) PG_RETURN_POINTER(NULL);
        Index relid = req->index->rel->relid;
        if (contain_volatile_functions(other) || contain_volatile_functions(radius) ||
            bms_is_member(relid, pull_varnos(req->root, other)) || bms_is_member(relid, pull_varnos(req->root, radius)))
            PG_RETURN_POINTER(NULL);
        RowExpr *row = makeNode(RowExpr);
        row->args = list_make2(copyObjectImpl(other), copyObjectImpl(radius));
        row->row_typeid = righttype;
        row->row_format = COERCE_IMPLICIT_CAST;
        row->colnames = NIL;
        row->location = -1;
        Expr *cond = make_opclause(opno, BOOLOID, false, (Expr *) copyObjectImpl(indexexpr), (Expr *) row, InvalidOid,
                                   InvalidOid);
        req->lossy = false;
        PG_RETURN_POINTER(list_make1(cond));
    }
    PG_RETURN_POINTER(NULL);
}
