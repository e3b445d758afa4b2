// Pigeonhole block partitions of a 64-bit fingerprint.
//
// A layout with n blocks splits the 64 bits into n contiguous blocks whose
// widths differ by at most one bit; the wider blocks come first and block 0
// holds the most significant bits.  64 bits in 4 blocks is 16/16/16/16; in 5
// blocks it is 13/13/13/13/12.  Two fingerprints within Hamming distance r
// agree on at least one block up to floor(r / n) bits (pigeonhole), which is
// what both simhash_blocks() and the index rely on.
#pragma once

#include <cstdint>

namespace simhash {

constexpr int kMaxBlocks = 64;

struct BlockLayout {
    int nblocks = 0;
    int width[kMaxBlocks] = {};  // bits in block i
    int shift[kMaxBlocks] = {};  // right shift that brings block i to bit 0

    // Value of block i, right-aligned.
    uint64_t value(uint64_t fp, int i) const noexcept {
        uint64_t mask = width[i] == 64 ? ~uint64_t{0} : ((uint64_t{1} << width[i]) - 1);
        return (fp >> shift[i]) & mask;
    }

    // The fingerprint bits outside block i are cleared, block i stays in place.
    uint64_t mask(int i) const noexcept {
        uint64_t m = width[i] == 64 ? ~uint64_t{0} : ((uint64_t{1} << width[i]) - 1);
        return m << shift[i];
    }
};

// Returns false (and leaves *out untouched) unless 1 <= nblocks <= 64.
bool make_block_layout(int nblocks, BlockLayout* out) noexcept;

// Largest per-block bit difference the pigeonhole guarantees for radius r:
// some block of a fingerprint within distance r differs in at most this many bits.
inline int per_block_radius(int radius, int nblocks) noexcept { return radius / nblocks; }

}  // namespace simhash
