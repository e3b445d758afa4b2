#include "bit_shares.hpp"

#include <algorithm>

namespace simhash {

void estimate_bit_shares(const uint64_t* sample, std::size_t n, double share[64]) noexcept {
    for (int i = 0; i < 64; i++) {
        std::size_t ones = 0;
        for (std::size_t k = 0; k < n; k++) ones += (sample[k] >> i) & 1;
        share[i] = (static_cast<double>(ones) + 1.0) / (static_cast<double>(n) + 2.0);
    }
}

namespace {

// P(sum of Bernoulli(differ[i]) <= r), by dynamic programming over the bits
// (dist[d] = probability of exactly d differing bits so far).
double poisson_binomial_at_most(const double differ[64], int r) {
    if (r < 0) return 0.0;
    if (r >= 64) return 1.0;
    double dist[65] = {1.0};
    for (int i = 0; i < 64; i++) {
        double p = differ[i];
        for (int d = i + 1; d >= 1; d--) dist[d] = dist[d] * (1.0 - p) + dist[d - 1] * p;
        dist[0] *= 1.0 - p;
    }
    double s = 0;
    for (int d = 0; d <= r; d++) s += dist[d];
    return std::min(1.0, std::max(0.0, s));
}

}  // namespace

double biased_within_share(uint64_t q, const double share[64], int r) noexcept {
    double differ[64];
    for (int i = 0; i < 64; i++) differ[i] = ((q >> i) & 1) ? 1.0 - share[i] : share[i];
    return poisson_binomial_at_most(differ, r);
}

double biased_pair_within_share(const double share_a[64], const double share_b[64], int r) noexcept {
    double differ[64];
    for (int i = 0; i < 64; i++) differ[i] = share_a[i] * (1.0 - share_b[i]) + share_b[i] * (1.0 - share_a[i]);
    return poisson_binomial_at_most(differ, r);
}

}  // namespace simhash
