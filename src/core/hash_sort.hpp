// Sorting 64-bit hashes in place, in slices a caller can interrupt.
//
// simhash_idf_agg sorts every document's feature hashes (to count each once)
// and its pending counts: a document of hundreds of megabytes has hundreds of
// millions of them, and std::sort would hold the backend for seconds with no
// point at which a cancel could be honoured.  This radix sort (in place, on
// the hashes' bytes from the most significant, as American flag sort does)
// calls tick() after every kSortTickItems items it handles, where the caller
// checks for a cancel.  It never allocates: 6 kB of counters per byte level
// on the stack, 8 levels at most.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace simhash {

constexpr size_t kSortTickItems = size_t(1) << 20;

namespace detail {

// Below this many items a bucket is left to std::sort: short, and cheaper
// than another level of counters (a document of a few thousand features
// sorts as it did with std::sort alone).
constexpr size_t kRadixCutoff = 4096;

template <class Tick>
class HashSorter {
public:
    explicit HashSorter(Tick& tick) noexcept : tick_(tick) {}

    void sort(uint64_t* a, size_t n, int shift) {
        if (n <= kRadixCutoff) {
            std::sort(a, a + n);
            pace(n);
            return;
        }
        // A bucket of one value (a word repeated all through a document,
        // or what is left of a few distinct values after a level) is done:
        // counting it down eight levels cost three times std::sort.
        size_t same = 1;
        while (same < n) {
            size_t from = same, stop = std::min(n, same + kSortTickItems);
            while (same < stop && a[same] == a[0]) ++same;
            pace(same - from);
            if (same < stop) break;  // another value
        }
        if (same == n) return;
        size_t count[256] = {};
        for (size_t i = 0; i < n;) {
            size_t stop = std::min(n, i + kSortTickItems);
            for (size_t j = i; j < stop; ++j) ++count[digit(a[j], shift)];
            pace(stop - i);
            i = stop;
        }
        size_t next[256], end[256];
        size_t at = 0;
        for (int b = 0; b < 256; ++b) {
            next[b] = at;
            at += count[b];
            end[b] = at;
        }
        // Each item is moved once, straight to its bucket: a cycle of swaps
        // starting from the first unplaced item of bucket b ends back in b.
        for (int b = 0; b < 256; ++b) {
            while (next[b] < end[b]) {
                uint64_t v = a[next[b]];
                unsigned d = digit(v, shift);
                while (d != unsigned(b)) {
                    std::swap(v, a[next[d]++]);
                    d = digit(v, shift);
                    pace(1);
                }
                a[next[b]++] = v;
                pace(1);
            }
        }
        if (shift == 0) return;  // every bucket holds one value
        size_t start = 0;
        for (int b = 0; b < 256; ++b) {
            if (count[b] > 1) sort(a + start, count[b], shift - 8);
            start += count[b];
        }
    }

private:
    static unsigned digit(uint64_t v, int shift) noexcept { return unsigned(v >> shift) & 0xFF; }
    void pace(size_t items) {
        since_tick_ += items;
        if (since_tick_ >= kSortTickItems) {
            since_tick_ = 0;
            tick_();
        }
    }

    Tick& tick_;
    size_t since_tick_ = 0;
};

}  // namespace detail

// Sorts hashes[0..count) ascending, calling tick() after every
// kSortTickItems items handled.
template <class Tick>
void sort_hashes(uint64_t* hashes, size_t count, Tick&& tick) {
    detail::HashSorter<Tick> sorter(tick);
    sorter.sort(hashes, count, 56);
}

}  // namespace simhash
