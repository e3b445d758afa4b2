// Hamming distance between 64-bit fingerprints: the one metric everything
// else (operators, index probes, KNN) is defined in terms of.
#pragma once

#include <cstdint>

namespace simhash {

constexpr int kFingerprintBits = 64;

inline int hamming_distance(uint64_t a, uint64_t b) noexcept {
    return __builtin_popcountll(a ^ b);
}

inline bool within_distance(uint64_t a, uint64_t b, int radius) noexcept {
    return hamming_distance(a, b) <= radius;
}

}  // namespace simhash
