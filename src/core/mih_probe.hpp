// Multi-index hashing (Norouzi, Punjani, Fleet 2012) arithmetic for the
// simhash index: the order-preserving "partition key" of a fingerprint, and
// the enumeration of the block values a probe must visit.  Pure C++, no
// PostgreSQL header, no allocation, no exceptions: the index glue calls it
// between buffer operations that may ereport().
//
// Partition key.  Partition p of a layout (see blocks.hpp) owns the bits
// [shift[p], shift[p] + width[p]).  Its key is the fingerprint rotated left so
// that block p occupies the most significant bits:
//     key_p(fp) = rotl(fp, 64 - shift[p] - width[p])
// The rotation is a bijection, so the key stores the whole fingerprint, and
// all fingerprints whose block p equals b form the contiguous key range
//     [b << (64 - w), (b << (64 - w)) | (2^(64 - w) - 1)].
// A partition of the index is a list of (key, heap tid) sorted by key.
#pragma once

#include <cstdint>

#include "blocks.hpp"

namespace simhash {

inline uint64_t rotl64(uint64_t x, int k) noexcept {
    k &= 63;
    return k == 0 ? x : (x << k) | (x >> (64 - k));
}
inline uint64_t rotr64(uint64_t x, int k) noexcept {
    k &= 63;
    return k == 0 ? x : (x >> k) | (x << (64 - k));
}

// Left rotation that turns a fingerprint into partition p's key.
inline int partition_rotation(const BlockLayout& layout, int p) noexcept {
    return (64 - layout.shift[p] - layout.width[p]) & 63;
}

// Key range [*lo, *hi] of the fingerprints whose block (of width w bits) is b.
inline void block_key_range(uint64_t b, int w, uint64_t* lo, uint64_t* hi) noexcept {
    if (w >= 64) {
        *lo = *hi = b;
        return;
    }
    *lo = b << (64 - w);
    *hi = *lo | ((uint64_t{1} << (64 - w)) - 1);
}

// C(n, k), saturating at UINT64_MAX (n <= 64).
uint64_t binomial_saturated(int n, int k) noexcept;

// Share of uniformly random 64-bit fingerprints within r bits of a given
// one: the planner's estimate for radius r (the search index cost, % and
// simhash_within).
double uniform_within_share(int r) noexcept;
// The same for random values of `bits` bits (1..64).
double uniform_within_share_bits(int bits, int r) noexcept;

// The row estimate of % and simhash_within for radius r: that share, but at
// least one in a million, as real collections hold near-duplicates that
// uniform fingerprints would not.
constexpr double kMinRadiusSelectivity = 1e-6;
inline double radius_selectivity(int r) noexcept {
    double s = uniform_within_share(r);
    return s > kMinRadiusSelectivity ? s : kMinRadiusSelectivity;
}

// Number of w-bit values within (<=) t bits of a given one, saturating.
uint64_t probes_within(int w, int t) noexcept;

// Writes to out[] every w-bit value at exactly d bits from b, in increasing
// order, and returns how many; writes nothing and returns 0 when there are
// more than capacity of them (call binomial_saturated first to size out).
uint64_t values_at_distance(uint64_t b, int w, int d, uint64_t* out, uint64_t capacity) noexcept;

// Smallest total distance the pigeonhole guarantees complete part way
// through level t: every block value within t bits probed in `done`
// partitions (1..nparts), within t - 1 bits in the others.  A row not yet
// seen differs by at least t + 1 bits in each of the first and by at least t
// in each of the rest, so every row within nparts * t + done - 1 has been
// seen (capped at 64).  KNN probes one partition at a time and stops as soon
// as this covers the k rows it has.
inline int complete_radius_after_partial_level(int nparts, int t, int done) noexcept {
    long v = static_cast<long>(nparts) * t + done - 1;
    return v > 64 ? 64 : static_cast<int>(v);
}

// The same after level t in every partition: nparts * (t + 1) - 1.
inline int complete_radius_after_level(int nparts, int t) noexcept {
    return complete_radius_after_partial_level(nparts, t, nparts);
}

// What one probe costs, in leaf pages of a whole-partition read, when a
// partition of `pages` leaf pages is cut by `width`-bit blocks: a random
// visit, which costs about half a page read in sequence (measured 0.3 to
// 0.65 at 1M to 10M rows), plus the pages its bucket fills (pages / 2^width;
// a quarter of a page at 10M rows and 16 bits, 64 pages at 8 bits).  Scans
// probe while the probes cost less than reading a partition whole.
double probe_cost_pages(int width, double pages) noexcept;

// KNN's first pass: the first probe level below max_level whose complete
// radius holds `want` rows around any query among `rows` uniformly random
// fingerprints, else max_level.  A KNN scan keeps only rows within that
// radius while it probes (at 10M rows, level 3: 15 bits, about 120 rows), so
// a query for the k nearest does not collect thousands of farther rows that
// later levels would need; real collections hold near-duplicates, so their
// k nearest lie closer still.
constexpr double kKnnFirstPassRows = 100;
int knn_first_pass_level(int nparts, int max_level, double rows, double want) noexcept;

// The smallest radius within which `rows` uniformly random fingerprints hold
// `want` rows around any query (64 when none does).  KNN's first read of a
// partition whole keeps the distances up to at least this radius: at 100k
// rows the 10 nearest of a random point lie 16 to 19 bits away, and a window
// of 8 bits past the probes' radius 7 held none of them, so a second read
// collected half the table (the distances up to 31).
int uniform_radius_holding(double rows, double want) noexcept;

// Where level-by-level probing (every partition at level t, in partition
// order, before any at level t + 1) first reaches a row whose fingerprint
// differs from the query in the bits `diff`: at the row's smallest block
// distance, in the first partition with that distance.  A row turns up once
// per partition, so a probe at (level, part) returns a row for the first time
// exactly when this is (level, part); the KNN scan uses it instead of
// remembering the rows it has returned.  masks[p] selects partition p's bits.
struct ProbeStep {
    int level;
    int part;
};
inline ProbeStep first_probe_step(uint64_t diff, const uint64_t* masks, int nparts) noexcept {
    ProbeStep s{65, 0};
    for (int p = 0; p < nparts; p++) {
        int d = __builtin_popcountll(diff & masks[p]);
        if (d < s.level) s = ProbeStep{d, p};
    }
    return s;
}
// Radius search, for radius r = nparts * t + a (0 <= a < nparts): a row
// within r differs in at most t bits in one of the first a + 1 partitions,
// or in at most t - 1 bits in one of the others (else it would differ in at
// least (a + 1)(t + 1) + (nparts - a - 1) t = r + 1 bits; Norouzi et al.,
// multi-index hashing).  So partition p is probed with the block values
// within this many bits of the query's, none when it is -1: radius 0 probes
// one partition, radius 1 two, and radius 5 at four partitions probes two
// within 1 bit and two within 0.
inline int radius_probe_level(int r, int nparts, int p) noexcept {
    int t = r / nparts, a = r % nparts;
    return p <= a ? t : t - 1;
}

// Block values a radius-r search probes in all, over nparts partitions of
// widths[p] bits at radius_probe_level; *probed gets how many partitions
// (from the first) it probes.
double radius_probe_count(int r, int nparts, const int* widths, int* probed) noexcept;

// What those probes cost in pages of a whole-partition read of `pages`
// pages: each partition's probes at probe_cost_pages of its own width
// (blocks that do not divide 64 leave widths one bit apart).
double radius_probe_cost(int r, int nparts, const int* widths, double pages, int* probed) noexcept;

// A row turns up in each partition where its block is within that
// partition's level; it is new in partition part unless an earlier
// partition already reached it.
inline bool reached_in_earlier_partition(uint64_t diff, const uint64_t* masks, int part, int r, int nparts) noexcept {
    for (int p = 0; p < part; p++)
        if (__builtin_popcountll(diff & masks[p]) <= radius_probe_level(r, nparts, p)) return true;
    return false;
}

// Is step a probed before (level, part) in that order?
inline bool probe_step_before(ProbeStep a, int level, int part) noexcept {
    return a.level < level || (a.level == level && a.part < part);
}

}  // namespace simhash

namespace simhash {

// A (key, packed heap tid) pair as the index build sorts it.
struct KeyTid {
    uint64_t key;
    uint64_t tid;
};

// Sorts by key (then tid), in place; no allocation, no exception.
void sort_key_tids(KeyTid* items, uint64_t n) noexcept;

// A leaf groups its keys by their top 16 bits: at 16-bit blocks a group is
// the key range of one block value, which is what a probe reads.
inline uint64_t key_group(uint64_t key) noexcept { return key >> 48; }

// (v << 48) - 1 for a key of group v > 0: the largest key group v - 1 can
// hold, the hi of a leaf that ends just before group v.
inline uint64_t last_key_before_group(uint64_t key) noexcept {
    return (key & ~UINT64_C(0xFFFFFFFFFFFF)) - 1;
}

// The index i nearest to mid, within [lo, hi] and [1, n - 1], where sorted
// items[0..n) start a group (items[i] and items[i - 1] differ in group);
// mid when there is none.  On a tie the lower index wins.
int group_boundary_near(const KeyTid* items, int n, int mid, int lo, int hi) noexcept;

// Reads an array whose consecutive runs of `run` items ([0, run), [run,
// 2 run), ..., the last one shorter) are each sorted, as one sorted sequence.
// The index build sorts runs one at a time and merges while it writes, so
// that a cancel is seen between runs instead of after one long sort of the
// whole array.  The heap is the caller's: merge_heap_size(n, run) entries.
// Trivially destructible, no allocation.
uint64_t merge_heap_size(uint64_t n, uint64_t run) noexcept;

class RunMerge {
public:
    RunMerge(const KeyTid* items, uint64_t n, uint64_t run, uint64_t* heap) noexcept;
    // The next item in key (then tid) order; false when every item was read.
    bool next(KeyTid* out) noexcept;

private:
    bool less(uint64_t a, uint64_t b) const noexcept;  // positions in items
    void sift_down(uint64_t i) noexcept;
    uint64_t run_end(uint64_t pos) const noexcept;

    const KeyTid* items_;
    uint64_t n_, run_;
    uint64_t* heap_;  // a min-heap of each unfinished run's next position
    uint64_t size_;
};

}  // namespace simhash
