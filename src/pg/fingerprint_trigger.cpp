/*
 * simhash_fingerprint_trigger(target_column, source_column [, ...]
 * [, 'min_features=N']): a BEFORE INSERT OR UPDATE row trigger that keeps a
 * simhash column in step with its sources, in the manner of
 * tsvector_update_trigger.
 *
 * text and varchar sources are tokenized as simhash(text) does, tsvector
 * sources vote as simhash(tsvector) does, and all sources vote together:
 * with text sources only, the result equals simhash(concat_ws(' ', ...)),
 * and with min_features=N simhash(concat_ws(' ', ...), 'mixed', 1, N).
 * NULL sources contribute nothing; when no source has a feature (or fewer
 * than N) the target becomes NULL.
 */
#include "feature_votes.h"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(simhash_fingerprint_trigger);
}

enum class SourceKind { kText, kTsvector };

static int column_number(Relation rel, const char* name) {
    int attnum = SPI_fnumber(RelationGetDescr(rel), name);
    if (attnum <= 0)  /* system columns cannot be sources or targets either */
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                        errmsg("column \"%s\" does not exist in table \"%s\"", name, RelationGetRelationName(rel))));
    return attnum;
}

/*
 * A stored generated column is computed after BEFORE row triggers run: as a
 * source the trigger would read NULL in every row, as the target its value
 * would be overwritten.  Either way nothing useful happens, silently.
 */
static void reject_generated_column(Relation rel, int attnum, const char* name, bool target) {
    if (TupleDescAttr(RelationGetDescr(rel), attnum - 1)->attgenerated == '\0') return;
    ereport(ERROR,
            (errcode(ERRCODE_GENERATED_ALWAYS),
             errmsg("column \"%s\" of table \"%s\" is a generated column", name, RelationGetRelationName(rel)),
             target ? errdetail("Its generation expression sets it after BEFORE triggers run.")
                    : errdetail("It is computed after BEFORE triggers run, so the trigger would read NULL."),
             target ? errhint("Use an ordinary simhash column as the target, or drop the trigger and keep the "
                              "generated column: GENERATED ALWAYS AS (simhash(...)) STORED.")
                    : errhint("Name the columns it is computed from as sources.")));
}

static Oid column_base_type(Relation rel, int attnum) {
    return getBaseType(TupleDescAttr(RelationGetDescr(rel), attnum - 1)->atttypid);
}

/* The simhash type of the schema this trigger function lives in. */
static Oid simhash_type_oid(FunctionCallInfo fcinfo) {
    Oid namespace_oid = get_func_namespace(fcinfo->flinfo->fn_oid);
    return GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum("simhash"),
                           ObjectIdGetDatum(namespace_oid));
}

#define MIN_FEATURES_OPTION "min_features="

/*
 * Is this trigger argument the option min_features=N?  Sets *min_features.
 * Trigger arguments are strings, so the floor simhash(text, ..., min_features)
 * takes is written as one; no column is named like it.
 */
static bool parse_min_features(const char* arg, int32* min_features) {
    size_t prefix = strlen(MIN_FEATURES_OPTION);
    if (strncmp(arg, MIN_FEATURES_OPTION, prefix) != 0) return false;
    const char* digits = arg + prefix;
    char* end = nullptr;
    errno = 0;
    long value = strtol(digits, &end, 10);
    if (*digits < '0' || *digits > '9' || *end != '\0' || errno == ERANGE || value < 1 || value > PG_INT32_MAX)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("simhash_fingerprint_trigger: invalid option \"%s\"", arg),
                        errhint("min_features takes a whole number from 1 to %d: 'min_features=20'.", PG_INT32_MAX)));
    *min_features = (int32) value;
    return true;
}

/* CONTEXT of any error raised while the trigger runs: which trigger, on which table
   (a row applied by logical replication names neither otherwise). */
static void trigger_error_context(void* arg) {
    const TriggerData* trigdata = static_cast<const TriggerData*>(arg);
    errcontext("simhash_fingerprint_trigger of trigger \"%s\" on table \"%s\"", trigdata->tg_trigger->tgname,
               RelationGetRelationName(trigdata->tg_relation));
}

extern "C" Datum simhash_fingerprint_trigger(PG_FUNCTION_ARGS) {
    if (!CALLED_AS_TRIGGER(fcinfo))
        ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                        errmsg("simhash_fingerprint_trigger: not fired by trigger manager")));
    TriggerData* trigdata = (TriggerData*) fcinfo->context;
    ErrorContextCallback context{error_context_stack, trigger_error_context, trigdata};
    error_context_stack = &context;
    if (!TRIGGER_FIRED_FOR_ROW(trigdata->tg_event) || !TRIGGER_FIRED_BEFORE(trigdata->tg_event))
        ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                        errmsg("simhash_fingerprint_trigger: must be fired BEFORE ... FOR EACH ROW")));

    HeapTuple tuple;
    if (TRIGGER_FIRED_BY_INSERT(trigdata->tg_event))
        tuple = trigdata->tg_trigtuple;
    else if (TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event))
        tuple = trigdata->tg_newtuple;
    else
        ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                        errmsg("simhash_fingerprint_trigger: must be fired for INSERT or UPDATE")));

    Trigger* trigger = trigdata->tg_trigger;
    Relation rel = trigdata->tg_relation;
    if (trigger->tgnargs < 2)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("simhash_fingerprint_trigger: expected a target column and at least one source column"),
                        errhint("CREATE TRIGGER ... EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'body');")));

    int target = column_number(rel, trigger->tgargs[0]);
    reject_generated_column(rel, target, trigger->tgargs[0], true);
    if (column_base_type(rel, target) != simhash_type_oid(fcinfo))
        ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                        errmsg("column \"%s\" of table \"%s\" is of type %s, not %s", trigger->tgargs[0],
                               RelationGetRelationName(rel),
                               format_type_be(TupleDescAttr(RelationGetDescr(rel), target - 1)->atttypid),
                               format_type_be(simhash_type_oid(fcinfo)))));

    int32 min_features = 1;
    int nsources = 0;
    for (int i = 1; i < trigger->tgnargs; ++i) {
        int32 value;
        if (!parse_min_features(trigger->tgargs[i], &value)) {
            nsources++;
        } else if (i < trigger->tgnargs - 1) { /* a repeated option is not last either */
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("simhash_fingerprint_trigger: option \"%s\" must be the last argument, once",
                                   trigger->tgargs[i])));
        } else {
            min_features = value;
        }
    }
    if (nsources == 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("simhash_fingerprint_trigger: expected at least one source column"),
                        errhint("CREATE TRIGGER ... EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'body', "
                                "'min_features=20');")));

    simhash::IntegerVotes tsvector_votes;
    simhash::TextVotes text_votes(simhash::kDefaultTokenizer); /* the text columns, as one text */
    for (int i = 1; i <= nsources; ++i) {
        const char* name = trigger->tgargs[i];
        int attnum = column_number(rel, name);
        reject_generated_column(rel, attnum, name, false);
        Oid type = column_base_type(rel, attnum);
        SourceKind kind;
        if (type == TEXTOID || type == VARCHAROID || type == BPCHAROID)
            kind = SourceKind::kText;
        else if (type == TSVECTOROID)
            kind = SourceKind::kTsvector;
        else
            ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                            errmsg("column \"%s\" of table \"%s\" is of type %s, not text, varchar, char or tsvector",
                                   name,
                                   RelationGetRelationName(rel), format_type_be(type))));

        bool isnull;
        Datum value = SPI_getbinval(tuple, RelationGetDescr(rel), attnum, &isnull);
        if (isnull) continue;
        if (kind == SourceKind::kTsvector) {
            vote_tsvector(DatumGetTSVector(value), &tsvector_votes);
            continue;
        }
        for_each_text_feature(DatumGetTextPP(value), simhash::kDefaultTokenizer, simhash::kDefaultNgram, text_votes);
    }

    /* the features simhash(text, ..., min_features) counts: occurrences, function words included */
    uint64 features = tsvector_votes.features() + text_votes.features();
    bool fingerprint_null = features < (uint64) min_features; /* at least 1 */
    Datum fingerprint = fingerprint_null ? (Datum) 0 : SimhashGetDatum(text_votes.fingerprint(&tsvector_votes));
    /* A domain target keeps its constraints, as an assignment in SQL would. */
    Oid target_type = TupleDescAttr(RelationGetDescr(rel), target - 1)->atttypid;
    if (target_type != getBaseType(target_type))
        domain_check(fingerprint, fingerprint_null, target_type, &fcinfo->flinfo->fn_extra, fcinfo->flinfo->fn_mcxt);
    HeapTuple result = heap_modify_tuple_by_cols(tuple, RelationGetDescr(rel), 1, &target, &fingerprint, &fingerprint_null);
    error_context_stack = context.previous;
    return PointerGetDatum(result);
}
