#include "idf.hpp"

#include <algorithm>
#include <cmath>

namespace simhash {

size_t sort_unique(uint64_t* hashes, size_t count) noexcept {
    std::sort(hashes, hashes + count);
    return size_t(std::unique(hashes, hashes + count) - hashes);
}

size_t count_hashes(uint64_t* hashes, size_t count, IdfEntry* out) noexcept {
    std::sort(hashes, hashes + count);
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

bool idf_table_valid(const IdfEntry* table, size_t count, uint64_t documents, uint64_t min_df) noexcept {
    for (size_t i = 0; i < count; ++i) {
        if (table[i].df < min_df || table[i].df > documents) return false;
        if (i > 0 && table[i - 1].hash >= table[i].hash) return false;
    }
    return true;
}

uint64_t idf_lookup(const IdfEntry* table, size_t count, uint64_t hash) noexcept {
    const IdfEntry* end = table + count;
    const IdfEntry* it =
        std::lower_bound(table, end, hash, [](const IdfEntry& e, uint64_t h) { return e.hash < h; });
    return (it != end && it->hash == hash) ? it->df : 0;
}

double idf_weight(uint64_t documents, uint64_t df) noexcept {
    const double n = double(documents);
    const double d = double(df < 1 ? 1 : df);
    return std::log(1.0 + n / d);
}

}  // namespace simhash
