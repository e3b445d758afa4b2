#include "idf.hpp"

#include <algorithm>
#include <cmath>

namespace simhash {

size_t count_sorted_hashes(const uint64_t* hashes, size_t count, IdfEntry* out) noexcept {
    size_t written = 0;
    for (size_t i = 0; i < count;) {
        size_t j = i + 1;
        while (j < count && hashes[j] == hashes[i]) ++j;
        out[written++] = {hashes[i], uint64_t(j - i)};
        i = j;
    }
    return written;
}

size_t merge_idf(const IdfEntry* a, size_t na, const IdfEntry* b, size_t nb, IdfEntry* out) noexcept {
    size_t i = 0, j = 0, written = 0;
    while (i < na && j < nb) {
        if (a[i].hash < b[j].hash) {
            out[written++] = a[i++];
        } else if (b[j].hash < a[i].hash) {
            out[written++] = b[j++];
        } else {
            out[written++] = {a[i].hash, a[i].df + b[j].df};
            ++i;
            ++j;
        }
    }
    while (i < na) out[written++] = a[i++];
    while (j < nb) out[written++] = b[j++];
    return written;
}

size_t keep_common(const IdfEntry* table, size_t count, uint64_t min_df, IdfEntry* out) noexcept {
    size_t kept = 0;
    for (size_t i = 0; i < count; ++i)
        if (table[i].df >= min_df) out[kept++] = table[i];
    return kept;
}

size_t idf_table_first_invalid(const IdfEntry* table, size_t count, uint64_t documents, uint64_t min_df) noexcept {
    for (size_t i = 0; i < count; ++i) {
        if (!idf_df_in_range(table[i].df, documents, min_df)) return i;
        if (i > 0 && table[i - 1].hash >= table[i].hash) return i;
    }
    return count;
}

// The hashes are XXH3 values, spread evenly over 64 bits, so a feature's
// place is about hash / 2^64 of the way along the table: a few rounds of
// interpolation narrow the range in fewer probes than bisection, whose last
// steps are cache misses in a large table (1.7 times as fast at a million
// features, 1.2 at ten million).  Bisection finishes, and takes over after
// eight rounds, so a table whose hashes are not even costs at most that.
uint64_t idf_lookup(const IdfEntry* table, size_t count, uint64_t hash) noexcept {
    size_t lo = 0, hi = count;  // entries before lo are below hash, entries from hi on are not
    for (int round = 0; round < 8 && hi - lo > 8; ++round) {
        const uint64_t first = table[lo].hash, last = table[hi - 1].hash;
        if (hash <= first) {
            hi = lo;
            break;
        }
        if (hash > last) {
            lo = hi;
            break;
        }
        // first < hash <= last
        size_t probe = lo + size_t(double(hash - first) / double(last - first) * double(hi - 1 - lo));
        probe = std::min(std::max(probe, lo), hi - 1);
        if (table[probe].hash < hash)
            lo = probe + 1;
        else
            hi = probe;
    }
    const IdfEntry* end = table + count;
    const IdfEntry* it =
        std::lower_bound(table + lo, table + hi, hash, [](const IdfEntry& e, uint64_t h) { return e.hash < h; });
    return (it != end && it->hash == hash) ? it->df : 0;
}

double idf_weight(uint64_t documents, uint64_t df) noexcept {
    const double n = double(documents);
    const double d = double(df < 1 ? 1 : df);
    return std::log(1.0 + n / d);
}

void IdfWeights::reset(const IdfEntry* table, size_t count, uint64_t documents) noexcept {
    table_ = table;
    count_ = count;
    documents_ = documents;
    const Slot zero = {0, idf_weight(documents, idf_lookup(table, count, 0))};
    for (Slot& slot : slots_) slot = zero;
}

}  // namespace simhash
