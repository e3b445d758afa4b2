/*
 * The simhash_idf value: corpus document frequencies for IDF-weighted
 * fingerprints.  A varlena (TOASTable, 8-byte aligned):
 *
 *   int32  varlena header
 *   uint8  format version (kIdfFormatVersion)
 *   uint8  tokenizer (simhash::TokenizerKind) and uint8 n-gram size the
 *          features were counted with; one byte unused (zero)
 *   uint64 documents N (at least 1)
 *   uint64 number of entries
 *   simhash::IdfEntry entries[]  (hash, df): strictly increasing hashes,
 *          2 <= df <= N (features in one document only are not stored)
 */
#ifndef SIMHASH_IDF_DATUM_H
#define SIMHASH_IDF_DATUM_H

#include "simhash_datum.h"
#include "idf.hpp"
#include "tokenizer.hpp"

constexpr uint8 kIdfFormatVersion = 1;

struct SimhashIdfHeader {
    int32 vl_len_;
    uint8 version;
    uint8 tokenizer;
    uint8 ngram;
    uint8 unused;
    uint64 documents;
    uint64 entries;
};
static_assert(sizeof(SimhashIdfHeader) == 24, "the entries start 8-byte aligned");

inline const simhash::IdfEntry* idf_entries(const SimhashIdfHeader* value) {
    return (const simhash::IdfEntry*) ((const char*) value + sizeof(SimhashIdfHeader));
}

inline size_t idf_value_size(size_t entries) { return sizeof(SimhashIdfHeader) + entries * sizeof(simhash::IdfEntry); }

/*
 * A new value, palloc'd in the current memory context, holding the entries
 * of table with df >= kIdfMinStoredDf.
 */
SimhashIdfHeader* make_idf_value(simhash::TokenizerKind kind, int n, uint64 documents,
                                 const simhash::IdfEntry* table, size_t count);

/*
 * What is wrong with a detoasted value (size, version, tokenizer, n, the
 * document count, the order and range of its entries), as a sentence for
 * errdetail; NULL when it is well formed.
 */
const char* idf_value_problem(const SimhashIdfHeader* value);

#endif
