// Corpus document frequencies for IDF-weighted SimHash.
//
// A table is an array of IdfEntry in strictly increasing hash order: the
// feature's hash (feature_hash(), exactly as the fingerprint computes it) and
// its document frequency df, the number of documents the feature occurs in
// (once per document however often it repeats there).  Features in fewer than
// kIdfMinStoredDf documents are not stored, so a feature missing from the
// table has df <= 1 and is weighed as df = 1.
//
// Every function works on caller-provided memory and never allocates.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "hash_sort.hpp"

namespace simhash {

struct IdfEntry {
    uint64_t hash;
    uint64_t df;
};
static_assert(sizeof(IdfEntry) == 16, "stored as two 64-bit words");

// The smallest df a finished table keeps.
constexpr uint64_t kIdfMinStoredDf = 2;

// Sorts hashes and removes repeats; returns how many distinct hashes remain
// at the front.  tick() is called as sort_hashes() calls it.
template <class Tick>
size_t sort_unique(uint64_t* hashes, size_t count, Tick&& tick) {
    sort_hashes(hashes, count, tick);
    return size_t(std::unique(hashes, hashes + count) - hashes);
}
inline size_t sort_unique(uint64_t* hashes, size_t count) noexcept { return sort_unique(hashes, count, [] {}); }

// Writes one entry per distinct hash of sorted hashes[0..count), its df
// being how often it occurs, to out (room for count entries).  Returns the
// number of entries written.
size_t count_sorted_hashes(const uint64_t* hashes, size_t count, IdfEntry* out) noexcept;

// Sorts hashes (which may repeat) and counts them as count_sorted_hashes()
// does.  tick() is called as sort_hashes() calls it.
template <class Tick>
size_t count_hashes(uint64_t* hashes, size_t count, IdfEntry* out, Tick&& tick) {
    sort_hashes(hashes, count, tick);
    return count_sorted_hashes(hashes, count, out);
}
inline size_t count_hashes(uint64_t* hashes, size_t count, IdfEntry* out) noexcept {
    return count_hashes(hashes, count, out, [] {});
}

// Merges two tables, adding the df of equal hashes; out (room for na + nb
// entries) must not overlap either input.  Returns the number written.
size_t merge_idf(const IdfEntry* a, size_t na, const IdfEntry* b, size_t nb, IdfEntry* out) noexcept;

// Copies the entries with df >= min_df to out (which may equal table).
// Returns the number kept.
size_t keep_common(const IdfEntry* table, size_t count, uint64_t min_df, IdfEntry* out) noexcept;

// Whether a stored df is possible: at least min_df, at most the documents counted.
inline bool idf_df_in_range(uint64_t df, uint64_t documents, uint64_t min_df) noexcept {
    return df >= min_df && df <= documents;
}

// The first entry whose hash is not above the one before it or whose df is
// outside min_df .. documents; count when there is none.
size_t idf_table_first_invalid(const IdfEntry* table, size_t count, uint64_t documents, uint64_t min_df) noexcept;

// True when the hashes strictly increase and min_df <= df <= documents.
inline bool idf_table_valid(const IdfEntry* table, size_t count, uint64_t documents, uint64_t min_df) noexcept {
    return idf_table_first_invalid(table, count, documents, min_df) == count;
}

// The df of hash, or 0 when the table does not hold it.
uint64_t idf_lookup(const IdfEntry* table, size_t count, uint64_t hash) noexcept;

// The weight of one occurrence of a feature in a corpus of `documents`
// documents: ln(1 + N / df), with df taken as 1 when it is below 1 (a
// feature missing from the table).  Positive for every feature; ln 2 for a
// feature in every document.  Computed in double exactly as written, so SQL's
// ln(1 + N::float8 / df) gives the same value.
double idf_weight(uint64_t documents, uint64_t df) noexcept;

// idf_weight() of the features of one table, remembered for the features
// met lately in a direct-mapped cache on the low bits of their hash: texts
// repeat their features, Chinese text its characters most of all, and the
// common ones recur from text to text, where each occurrence would look its
// df up in the table again (a cache miss in a large one) and take a
// logarithm.  A slot always holds a hash and that hash's weight, so the
// weights are the ones idf_weight() gives.  Trivially destructible, for
// memory the caller owns.
class IdfWeights {
public:
    // Starts over for a table, which must outlive the weights taken from it.
    void reset(const IdfEntry* table, size_t count, uint64_t documents) noexcept;
    double weight(uint64_t hash) noexcept {
        Slot& slot = slots_[hash & (kSlots - 1)];
        if (slot.hash != hash) slot = {hash, idf_weight(documents_, idf_lookup(table_, count_, hash))};
        return slot.weight;
    }

private:
    static constexpr size_t kSlots = 4096;
    struct Slot {
        uint64_t hash;
        double weight;
    };
    const IdfEntry* table_ = nullptr;
    size_t count_ = 0;
    uint64_t documents_ = 0;
    Slot slots_[kSlots];
};

}  // namespace simhash
