/*
 * Module entry point: the magic block and the GUCs.
 */
#include "simhash_datum.h"

extern "C" {
#include "utils/guc.h"

PG_MODULE_MAGIC;

/* PG15's fmgr.h does not declare it. */
void _PG_init(void);
/* The index access method's reloptions (src/index/shx_handler.cpp). */
void simhash_index_define_gucs(void);
}

int simhash_threshold = 3;

extern "C" void _PG_init(void) {
    DefineCustomIntVariable("simhash.threshold",
                            "Largest Hamming distance at which the % operator calls two simhashes similar.",
                            "3 is the classic near-duplicate threshold for 64-bit SimHash.",
                            &simhash_threshold, 3, 0, 64, PGC_USERSET, 0, NULL, NULL, NULL);
    simhash_index_define_gucs();
    MarkGUCPrefixReserved("simhash");
}
