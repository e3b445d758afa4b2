// Row estimates for collections whose fingerprints lean: text fingerprints
// do not have independent fair bits (common words push some bits the same
// way in every document: measured shares of ones from 0.11 to 0.88 in
// English), so far more of them fall within a radius of each other than
// uniform random fingerprints would.  The planner's model: each bit i is
// one with probability share[i], independently; the distance to a query is
// then a sum of 64 independent Bernoulli variables (Poisson binomial).
#ifndef SIMHASH_BIT_SHARES_HPP
#define SIMHASH_BIT_SHARES_HPP

#include <cstddef>
#include <cstdint>

namespace simhash {

// Fewest sample fingerprints the shares are estimated from; below it the
// planner keeps the uniform model.
constexpr std::size_t kMinBitShareSample = 20;

// share[i] = share of sample fingerprints with bit i (bit 0 least
// significant) set, smoothed as (ones + 1) / (n + 2), so that no bit is
// certain from a sample of a hundred.
void estimate_bit_shares(const uint64_t* sample, std::size_t n, double share[64]) noexcept;

// Probability that a fingerprint drawn from the model is within r bits of q.
double biased_within_share(uint64_t q, const double share[64], int r) noexcept;

// Probability that two fingerprints drawn independently from two models
// (one per join side; pass the same array twice for a self-join) are within
// r bits of each other.
double biased_pair_within_share(const double share_a[64], const double share_b[64], int r) noexcept;

}  // namespace simhash

#endif
