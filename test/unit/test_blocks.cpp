#include <gtest/gtest.h>

#include <random>

#include "blocks.hpp"
#include "hamming.hpp"

using simhash::BlockLayout;
using simhash::make_block_layout;

TEST(Hamming, CountsDifferingBits) {
    EXPECT_EQ(simhash::hamming_distance(0, 0), 0);
    EXPECT_EQ(simhash::hamming_distance(0, ~uint64_t{0}), 64);
    EXPECT_EQ(simhash::hamming_distance(0xF0, 0x0F), 8);
    EXPECT_TRUE(simhash::within_distance(0b111, 0, 3));
    EXPECT_FALSE(simhash::within_distance(0b111, 0, 2));
}

TEST(Blocks, RejectsOutOfRangeCounts) {
    BlockLayout layout;
    EXPECT_FALSE(make_block_layout(0, &layout));
    EXPECT_FALSE(make_block_layout(65, &layout));
    EXPECT_FALSE(make_block_layout(-3, &layout));
}

TEST(Blocks, EveryLayoutTilesTheBitsOnce) {
    for (int n = 1; n <= 64; ++n) {
        BlockLayout layout;
        ASSERT_TRUE(make_block_layout(n, &layout));
        uint64_t covered = 0;
        int min_width = 64, max_width = 0;
        for (int i = 0; i < n; ++i) {
            EXPECT_EQ(covered & layout.mask(i), 0u) << "blocks overlap, n=" << n;
            covered |= layout.mask(i);
            min_width = std::min(min_width, layout.width[i]);
            max_width = std::max(max_width, layout.width[i]);
            if (i > 0) {
                EXPECT_GT(layout.shift[i - 1], layout.shift[i]) << "block 0 must be most significant";
            }
        }
        EXPECT_EQ(covered, ~uint64_t{0}) << "n=" << n;
        EXPECT_LE(max_width - min_width, 1) << "n=" << n;
    }
}

TEST(Blocks, ValuesOfFourBlocks) {
    BlockLayout layout;
    ASSERT_TRUE(make_block_layout(4, &layout));
    const uint64_t fp = 0x0123456789abcdefULL;
    EXPECT_EQ(layout.value(fp, 0), 0x0123u);
    EXPECT_EQ(layout.value(fp, 1), 0x4567u);
    EXPECT_EQ(layout.value(fp, 2), 0x89abu);
    EXPECT_EQ(layout.value(fp, 3), 0xcdefu);
    ASSERT_TRUE(make_block_layout(1, &layout));
    EXPECT_EQ(layout.value(fp, 0), fp);
}

// The property the index and the hand-built block index depend on.
TEST(Blocks, PigeonholeHoldsForRandomPairs) {
    std::mt19937_64 rng(20261122);
    for (int n : {1, 2, 3, 4, 5, 8, 16}) {
        BlockLayout layout;
        ASSERT_TRUE(make_block_layout(n, &layout));
        for (int trial = 0; trial < 20000; ++trial) {
            uint64_t a = rng();
            int radius = int(rng() % 65);
            uint64_t b = a;
            for (int f = 0; f < radius; ++f) b ^= uint64_t{1} << (rng() % 64);
            int distance = simhash::hamming_distance(a, b);
            int best = 64;
            for (int i = 0; i < n; ++i)
                best = std::min(best, simhash::hamming_distance(a & layout.mask(i), b & layout.mask(i)));
            EXPECT_LE(best, simhash::per_block_radius(distance, n)) << "n=" << n;
        }
    }
}
