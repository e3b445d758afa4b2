/*
 * shx_owner.cpp: reading the heap as its owner.
 *
 * Two readers of the heap outside CREATE INDEX evaluate the index's
 * expressions and partial-index predicate, which are functions the table's
 * owner chose: simhash_index_check's heapallindexed pass, and a scan
 * without a search condition collecting the rows whose fingerprint is NULL
 * (shx_nulls.cpp), which a plain SELECT count(*) can plan.  Run as the
 * caller, a table owner's function ran as any superuser who checked the
 * index or counted the table's rows.  Both run them as
 * PostgreSQL's maintenance commands and amcheck do (CVE-2022-1552): as the
 * owner, in a security-restricted operation, with changes to settings
 * undone at the end.  An ERROR in between restores both through the
 * (sub)transaction's abort.
 */
#include "shx.h"

extern "C" {
#include "miscadmin.h"
#include "utils/guc.h"
}

void shx_become_table_owner(Relation heap, ShxCaller *caller) {
    GetUserIdAndSecContext(&caller->user, &caller->sec_context);
    SetUserIdAndSecContext(heap->rd_rel->relowner, caller->sec_context | SECURITY_RESTRICTED_OPERATION);
    caller->guc_level = NewGUCNestLevel();
}

void shx_restore_caller(const ShxCaller *caller) {
    AtEOXact_GUC(false, caller->guc_level);
    SetUserIdAndSecContext(caller->user, caller->sec_context);
}
