// The planner's leaning-bits model (src/core/bit_shares).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "bit_shares.hpp"
#include "hamming.hpp"
#include "mih_probe.hpp"

namespace {

TEST(BitShares, FairBitsGiveTheUniformShare) {
    double half[64];
    for (double& s : half) s = 0.5;
    for (int r : {0, 3, 10, 20, 32, 40, 63, 64}) {
        EXPECT_NEAR(simhash::biased_within_share(0x0123456789abcdefULL, half, r), simhash::uniform_within_share(r),
                    1e-12 + 1e-9 * simhash::uniform_within_share(r))
            << r;
        EXPECT_NEAR(simhash::biased_pair_within_share(half, half, r), simhash::uniform_within_share(r),
                    1e-12 + 1e-9 * simhash::uniform_within_share(r))
            << r;
    }
}

TEST(BitShares, CertainBitsGiveCertainDistances) {
    double zeros[64];
    for (double& s : zeros) s = 0.0;
    // every row is 0: exactly popcount(q) bits from q
    uint64_t q = 0xF0ULL;  // 4 bits
    EXPECT_DOUBLE_EQ(simhash::biased_within_share(q, zeros, 3), 0.0);
    EXPECT_DOUBLE_EQ(simhash::biased_within_share(q, zeros, 4), 1.0);
    EXPECT_DOUBLE_EQ(simhash::biased_pair_within_share(zeros, zeros, 0), 1.0);
    EXPECT_DOUBLE_EQ(simhash::biased_within_share(q, zeros, -1), 0.0);
}

TEST(BitShares, SmoothedSampleShares) {
    std::vector<uint64_t> sample = {0x1, 0x1, 0x3, 0x0};
    double share[64];
    simhash::estimate_bit_shares(sample.data(), sample.size(), share);
    EXPECT_DOUBLE_EQ(share[0], 4.0 / 6.0);  // 3 of 4, smoothed
    EXPECT_DOUBLE_EQ(share[1], 2.0 / 6.0);
    EXPECT_DOUBLE_EQ(share[63], 1.0 / 6.0);
}

// Against a simulation of the model itself: rows with bit i set with
// probability share[i] (leaning like text fingerprints).
TEST(BitShares, MatchesSimulatedLeaningRows) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    double share[64];
    for (int i = 0; i < 64; i++) share[i] = 0.1 + 0.8 * u(rng);
    const int rows = 200000;
    const uint64_t q = 0;
    int within[65] = {0};
    for (int k = 0; k < rows; k++) {
        uint64_t fp = 0;
        for (int i = 0; i < 64; i++)
            if (u(rng) < share[i]) fp |= uint64_t{1} << i;
        within[simhash::hamming_distance(fp, q)]++;
    }
    int cum = 0;
    for (int r = 0; r <= 40; r++) {
        cum += within[r];
        double expect = simhash::biased_within_share(q, share, r);
        double measured = static_cast<double>(cum) / rows;
        // four standard errors of a binomial share, plus a little
        double se = std::sqrt(expect * (1 - expect) / rows);
        EXPECT_NEAR(measured, expect, 4 * se + 1e-5) << "r = " << r;
    }
    // leaning bits put far more rows near a query on the lean's side (each
    // bit as most rows have it) than fair bits would
    uint64_t lean = 0;
    for (int i = 0; i < 64; i++)
        if (share[i] > 0.5) lean |= uint64_t{1} << i;
    EXPECT_GT(simhash::biased_within_share(lean, share, 16), 100 * simhash::uniform_within_share(16));
}

}  // namespace
