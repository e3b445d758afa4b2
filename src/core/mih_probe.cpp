// See mih_probe.hpp.
#include "mih_probe.hpp"

#include <algorithm>
#include <cmath>

namespace simhash {

uint64_t binomial_saturated(int n, int k) noexcept {
    if (k < 0 || n < 0 || k > n) return 0;
    k = std::min(k, n - k);
    unsigned __int128 r = 1;
    for (int i = 1; i <= k; i++) {
        r = r * static_cast<unsigned>(n - k + i) / static_cast<unsigned>(i);
        if (r > UINT64_MAX) return UINT64_MAX;
    }
    return static_cast<uint64_t>(r);
}

double uniform_within_share_bits(int bits, int r) noexcept {
    double s = 0;
    for (int i = 0; i <= r && i <= bits; i++) s += std::ldexp(static_cast<double>(binomial_saturated(bits, i)), -bits);
    return std::min(1.0, s);
}

double uniform_within_share(int r) noexcept { return uniform_within_share_bits(64, r); }

double probe_cost_pages(int width, double pages) noexcept {
    return 0.5 + pages / std::ldexp(1.0, width);
}

int knn_first_pass_level(int nparts, int max_level, double rows, double want) noexcept {
    for (int t = 0; t < max_level; t++)
        if (rows * uniform_within_share(complete_radius_after_level(nparts, t)) >= want) return t;
    return max_level;
}

int uniform_radius_holding(double rows, double want) noexcept {
    for (int r = 0; r < 64; r++)
        if (rows * uniform_within_share(r) >= want) return r;
    return 64;
}

namespace {
// Sums per_partition(p, number of probes) over the partitions a radius-r search probes.
template <class PerPartition>
double sum_over_probed(int r, int nparts, const int* widths, int* probed, PerPartition per_partition) noexcept {
    double total = 0;
    *probed = 0;
    for (int p = 0; p < nparts; p++) {
        int level = radius_probe_level(r, nparts, p);
        if (level < 0) continue;
        total += per_partition(p, static_cast<double>(probes_within(widths[p], level)));
        *probed = p + 1;
    }
    return total;
}
}  // namespace

double radius_probe_count(int r, int nparts, const int* widths, int* probed) noexcept {
    return sum_over_probed(r, nparts, widths, probed, [](int, double probes) { return probes; });
}

double radius_probe_cost(int r, int nparts, const int* widths, double pages, int* probed) noexcept {
    return sum_over_probed(r, nparts, widths, probed, [widths, pages](int p, double probes) {
        return probes * probe_cost_pages(widths[p], pages);
    });
}

uint64_t probes_within(int w, int t) noexcept {
    uint64_t total = 0;
    for (int i = 0; i <= t && i <= w; i++) {
        uint64_t c = binomial_saturated(w, i);
        if (c > UINT64_MAX - total) return UINT64_MAX;
        total += c;
    }
    return total;
}

namespace {
inline uint64_t low_bits(int n) noexcept { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

// Appends, in increasing order, every value that has `prefix` above bit
// `bits` and differs from b in exactly `need` of its low `bits` bits:
// deciding the bits from the top down, a 0 before a 1, gives the values in
// order without a sort.
void append_at_distance(uint64_t b, int bits, int need, uint64_t prefix, uint64_t* out, uint64_t* n) noexcept {
    if (need == 0) {
        out[(*n)++] = prefix | (b & low_bits(bits));
        return;
    }
    if (need == bits) {
        out[(*n)++] = prefix | (~b & low_bits(bits));
        return;
    }
    int i = bits - 1;
    uint64_t bit = uint64_t{1} << i;
    bool one = (b & bit) != 0;
    append_at_distance(b, i, one ? need - 1 : need, prefix, out, n);
    append_at_distance(b, i, one ? need : need - 1, prefix | bit, out, n);
}
}  // namespace

uint64_t values_at_distance(uint64_t b, int w, int d, uint64_t* out, uint64_t capacity) noexcept {
    uint64_t count = binomial_saturated(w, d);
    if (count == 0 || count > capacity) return 0;
    uint64_t n = 0;
    append_at_distance(b & low_bits(w), w, d, 0, out, &n);
    return n;
}

}  // namespace simhash

namespace simhash {

int group_boundary_near(const KeyTid* items, int n, int mid, int lo, int hi) noexcept {
    if (lo < 1) lo = 1;
    if (hi > n - 1) hi = n - 1;
    auto starts_group = [items](int i) { return key_group(items[i - 1].key) != key_group(items[i].key); };
    for (int d = 0; mid - d >= lo || mid + d <= hi; d++) {
        if (mid - d >= lo && mid - d <= hi && starts_group(mid - d)) return mid - d;
        if (d > 0 && mid + d >= lo && mid + d <= hi && starts_group(mid + d)) return mid + d;
    }
    return mid;
}

void sort_key_tids(KeyTid* items, uint64_t n) noexcept {
    std::sort(items, items + n, [](const KeyTid& a, const KeyTid& b) {
        return a.key != b.key ? a.key < b.key : a.tid < b.tid;
    });
}

uint64_t merge_heap_size(uint64_t n, uint64_t run) noexcept { return n == 0 ? 1 : (n + run - 1) / run; }

RunMerge::RunMerge(const KeyTid* items, uint64_t n, uint64_t run, uint64_t* heap) noexcept
    : items_(items), n_(n), run_(run), heap_(heap), size_(0) {
    for (uint64_t start = 0; start < n; start += run) heap_[size_++] = start;
    for (uint64_t i = size_ / 2; i-- > 0;) sift_down(i);
}

bool RunMerge::less(uint64_t a, uint64_t b) const noexcept {
    const KeyTid& x = items_[a];
    const KeyTid& y = items_[b];
    return x.key != y.key ? x.key < y.key : x.tid < y.tid;
}

uint64_t RunMerge::run_end(uint64_t pos) const noexcept {
    uint64_t end = (pos / run_ + 1) * run_;
    return end < n_ ? end : n_;
}

void RunMerge::sift_down(uint64_t i) noexcept {
    for (;;) {
        uint64_t smallest = i, l = 2 * i + 1, r = l + 1;
        if (l < size_ && less(heap_[l], heap_[smallest])) smallest = l;
        if (r < size_ && less(heap_[r], heap_[smallest])) smallest = r;
        if (smallest == i) return;
        uint64_t t = heap_[i];
        heap_[i] = heap_[smallest];
        heap_[smallest] = t;
        i = smallest;
    }
}

bool RunMerge::next(KeyTid* out) noexcept {
    if (size_ == 0) return false;
    uint64_t pos = heap_[0];
    *out = items_[pos];
    if (pos + 1 < run_end(pos)) {
        heap_[0] = pos + 1;
        if (size_ == 1) return true;  // the last run left: no order to restore
    } else {
        heap_[0] = heap_[--size_];
    }
    sift_down(0);
    return true;
}

}  // namespace simhash
