// Heap tids of one index leaf in as few bits as that leaf's own tids need.
//
// A leaf of the simhash index keeps, next to each entry's key bits, the heap
// tid it points to.  Written whole (6 bytes: 32-bit block, 16-bit offset)
// that was half of every entry, yet one leaf's tids span a table's blocks
// (17 bits at 100k heap pages) and its offsets stay below the page's tuple
// limit (8 or 9 bits).  So a leaf stores the smallest block once and each
// tid as (block - base) << offset_bits | offset in a fixed width of
// block_bits + offset_bits bits, packed little-endian one after the other:
// entry i sits at bit i * width, so a scan still reads any one tid directly.
//
// A tid here is (block << 16) | offset, as in KeyTid.  Pure C++, no
// PostgreSQL header, no allocation, no exceptions.
#pragma once

#include <cstdint>
#include <cstring>

namespace simhash {

struct TidPacking {
    uint32_t base;         // smallest block of the leaf's tids
    uint8_t block_bits;    // bits of (block - base), 0..32
    uint8_t offset_bits;   // bits of the largest offset, 1..16
    unsigned width() const noexcept { return (unsigned) block_bits + offset_bits; }
};

// Bits needed to write v (0 for 0).
inline unsigned bits_for(uint64_t v) noexcept { return v == 0 ? 0 : 64 - (unsigned) __builtin_clzll(v); }

// The tids of a set of entries, gathered one at a time: what their packing
// is, and how many bytes n of them take in it.
class TidSpan {
public:
    void add(uint64_t tid) noexcept {
        uint32_t block = (uint32_t) (tid >> 16);
        uint32_t offset = (uint32_t) (tid & 0xffff);
        if (n_ == 0 || block < min_block_) min_block_ = block;
        if (n_ == 0 || block > max_block_) max_block_ = block;
        if (offset > max_offset_) max_offset_ = offset;
        n_++;
    }
    // The packing of the tids added so far; offset_bits is at least 1, so
    // that the width is never 0.
    TidPacking packing() const noexcept {
        TidPacking p;
        p.base = n_ == 0 ? 0 : min_block_;
        p.block_bits = (uint8_t) (n_ == 0 ? 0 : bits_for((uint64_t) max_block_ - min_block_));
        unsigned ob = bits_for(max_offset_);
        p.offset_bits = (uint8_t) (ob == 0 ? 1 : ob);
        return p;
    }
    // The width the tids would need with tid added too.
    unsigned width_with(uint64_t tid) const noexcept {
        TidSpan s = *this;
        s.add(tid);
        return s.packing().width();
    }
    uint64_t count() const noexcept { return n_; }

private:
    uint64_t n_ = 0;
    uint32_t min_block_ = 0, max_block_ = 0, max_offset_ = 0;
};

// Bytes that n tids take at width bits each.
inline uint64_t packed_tid_bytes(uint64_t n, unsigned width) noexcept { return (n * width + 7) / 8; }

// Can packing describe tids at all (as read from a page that may be damaged)?
// Not a bound on base + 2^block_bits - 1: the tids of blocks 1 and 2^31 + 1
// need 32 block bits, which reach past 2^32 - 1 from base 1, though no tid
// written does (get_packed_tid keeps a block's low 32 bits).  That bound
// made such leaves of a table past 16 TiB unreadable.
inline bool tid_packing_valid(const TidPacking& p) noexcept {
    return p.block_bits <= 32 && p.offset_bits >= 1 && p.offset_bits <= 16;
}

// Does tid fit packing?
inline bool tid_fits(const TidPacking& p, uint64_t tid) noexcept {
    uint64_t block = tid >> 16, offset = tid & 0xffff;
    return block >= p.base && bits_for(block - p.base) <= p.block_bits && bits_for(offset) <= p.offset_bits;
}

// Writes tid (which must fit p) as entry i of arr, whose bytes must start
// out zero; writes only the bytes the entry's bits fall in.
inline void put_packed_tid(unsigned char* arr, uint64_t i, const TidPacking& p, uint64_t tid) noexcept {
    uint64_t v = ((((tid >> 16) - p.base)) << p.offset_bits) | (tid & 0xffff);
    uint64_t bit = i * p.width();
    unsigned char* b = arr + bit / 8;
    unsigned shift = (unsigned) (bit % 8);
    unsigned nbytes = (shift + p.width() + 7) / 8;  // at most 7 (48 + 7 bits)
    for (unsigned k = 0; k < nbytes; k++) b[k] |= (unsigned char) ((v << shift) >> (8 * k));
}

// Entry i of arr.  Reads the 8 bytes from the entry's first byte on, so
// arr's buffer must extend 7 bytes past the last entry's (a leaf's packed
// region is followed at least by the page's special area).
inline uint64_t get_packed_tid(const unsigned char* arr, uint64_t i, const TidPacking& p) noexcept {
    uint64_t bit = i * p.width();
    uint64_t word;
    std::memcpy(&word, arr + bit / 8, sizeof(word));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    word = __builtin_bswap64(word);
#endif
    uint64_t v = (word >> (bit % 8)) & ((uint64_t(1) << p.width()) - 1);
    uint64_t offset = v & ((uint64_t(1) << p.offset_bits) - 1);
    uint64_t block = (uint64_t) p.base + (v >> p.offset_bits);
    return ((block & 0xffffffffu) << 16) | offset;
}

}  // namespace simhash
