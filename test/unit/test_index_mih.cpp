// Unit tests for the index's multi-index-hashing arithmetic (mih_probe.hpp).
#include <gtest/gtest.h>
#include <algorithm>

#include <random>
#include <set>
#include <vector>

#include "hamming.hpp"
#include "mih_probe.hpp"

using namespace simhash;

TEST(IndexMih, Binomial) {
    EXPECT_EQ(binomial_saturated(16, 0), 1u);
    EXPECT_EQ(binomial_saturated(16, 3), 560u);
    EXPECT_EQ(binomial_saturated(64, 32), 1832624140942590534ull);
    EXPECT_EQ(binomial_saturated(4, 5), 0u);
    EXPECT_EQ(probes_within(16, 1), 17u);
    EXPECT_EQ(probes_within(4, 9), 16u);
}

TEST(IndexMih, RotationIsBijectiveAndPutsBlockOnTop) {
    std::mt19937_64 rng(7);
    for (int n : {1, 3, 4, 5, 8, 16}) {
        BlockLayout l;
        ASSERT_TRUE(make_block_layout(n, &l));
        for (int i = 0; i < 1000; i++) {
            uint64_t fp = rng();
            for (int p = 0; p < n; p++) {
                int rot = partition_rotation(l, p);
                uint64_t key = rotl64(fp, rot);
                EXPECT_EQ(rotr64(key, rot), fp);
                uint64_t lo, hi;
                block_key_range(l.value(fp, p), l.width[p], &lo, &hi);
                EXPECT_LE(lo, key);
                EXPECT_LE(key, hi);
            }
        }
    }
}

TEST(IndexMih, ValuesAtDistanceEnumeratesExactly) {
    for (int w : {1, 4, 12, 16, 21, 22, 32, 64}) {
        for (int d = 0; d <= std::min(w, w >= 32 ? 2 : 3); d++) {
            uint64_t b = w == 64 ? 0xf0e1d2c3b4a59687ull : (0x5a5a5a5aull & ((1ull << w) - 1));
            std::vector<uint64_t> out(binomial_saturated(w, d));
            uint64_t n = values_at_distance(b, w, d, out.data(), out.size());
            ASSERT_EQ(n, out.size());
            std::set<uint64_t> seen(out.begin(), out.end());
            EXPECT_EQ(seen.size(), n);
            for (uint64_t v : out) {
                EXPECT_EQ(hamming_distance(v, b), d);
                if (w < 64) {
                    EXPECT_LT(v, 1ull << w);
                }
            }
            EXPECT_TRUE(std::is_sorted(out.begin(), out.end()));
        }
    }
    // every value of a small block, by distance, is each value once
    for (int w : {1, 5, 8}) {
        std::vector<uint64_t> all;
        for (int d = 0; d <= w; d++) {
            std::vector<uint64_t> out(binomial_saturated(w, d));
            ASSERT_EQ(values_at_distance(3, w, d, out.data(), out.size()), out.size());
            all.insert(all.end(), out.begin(), out.end());
        }
        std::sort(all.begin(), all.end());
        ASSERT_EQ(all.size(), 1ull << w);
        for (uint64_t v = 0; v < all.size(); v++) EXPECT_EQ(all[v], v);
    }
    uint64_t small[2];
    EXPECT_EQ(values_at_distance(0, 16, 2, small, 2), 0u);  // too many
}

TEST(IndexMih, PigeonholeCompleteness) {
    // Every pair within complete_radius_after_level(n, t) agrees on some
    // block within t bits.
    std::mt19937_64 rng(11);
    for (int n : {2, 4, 5, 8}) {
        BlockLayout l;
        ASSERT_TRUE(make_block_layout(n, &l));
        for (int t = 0; t < 3; t++) {
            int r = complete_radius_after_level(n, t);
            for (int i = 0; i < 2000; i++) {
                uint64_t a = rng(), b = a;
                int flips = static_cast<int>(rng() % (r + 1));
                for (int f = 0; f < flips; f++) b ^= 1ull << (rng() % 64);
                ASSERT_LE(hamming_distance(a, b), r);
                bool some = false;
                for (int p = 0; p < n; p++)
                    some |= hamming_distance(l.value(a, p), l.value(b, p)) <= t;
                EXPECT_TRUE(some);
            }
        }
    }
}

TEST(IndexMih, UniformWithinShareBits) {
    EXPECT_DOUBLE_EQ(uniform_within_share_bits(64, 10), uniform_within_share(10));
    EXPECT_DOUBLE_EQ(uniform_within_share_bits(48, 0), std::ldexp(1.0, -48));
    EXPECT_DOUBLE_EQ(uniform_within_share_bits(48, 48), 1.0);
    // symmetric about 24: P(<= 23) = P(>= 25)
    EXPECT_NEAR(2 * uniform_within_share_bits(48, 23) + std::ldexp(static_cast<double>(binomial_saturated(48, 24)), -48),
                1.0, 1e-12);
    EXPECT_DOUBLE_EQ(uniform_within_share_bits(4, 1), 5.0 / 16);
}

TEST(IndexMih, ProbeCostPages) {
    // 10M rows, 16-bit blocks: 16,449 leaf pages per partition, ~150 rows a
    // bucket (a quarter page); 1M: 1,650 pages; 8-bit blocks: 64 pages a bucket
    EXPECT_NEAR(probe_cost_pages(16, 16449), 0.751, 0.001);
    EXPECT_NEAR(probe_cost_pages(16, 1650), 0.525, 0.001);
    EXPECT_NEAR(probe_cost_pages(8, 16449), 64.75, 0.01);
    EXPECT_NEAR(probe_cost_pages(64, 1e6), 0.5, 1e-9);
}

TEST(IndexMih, RadiusProbeCost) {
    // Each partition's probes at its own width: with 3 blocks (22, 21, 21
    // bits) radius 5 probes 1 + 22 + 1 + 21 + 1 + 21 block values, and a
    // probe of a 21-bit block reads twice the pages of a 22-bit one's.
    const int widths[3] = {22, 21, 21};
    const double pages = 1 << 22;
    int probed = 0;
    EXPECT_DOUBLE_EQ(radius_probe_cost(5, 3, widths, pages, &probed), 23 * 1.5 + 22 * 2.5 + 22 * 2.5);
    EXPECT_EQ(probed, 3);
    EXPECT_DOUBLE_EQ(radius_probe_count(5, 3, widths, &probed), 67);
    // radius 1 probes the first two partitions only
    EXPECT_DOUBLE_EQ(radius_probe_cost(1, 3, widths, pages, &probed), 1.5 + 2.5);
    EXPECT_EQ(probed, 2);
    const int equal[4] = {16, 16, 16, 16};
    EXPECT_DOUBLE_EQ(radius_probe_cost(3, 4, equal, 16449, &probed),
                     radius_probe_count(3, 4, equal, &probed) * probe_cost_pages(16, 16449));
}

TEST(IndexMih, UniformRadiusHolding) {
    // 100 uniform rows around a point: within 20 bits of 100k (184; 78
    // within 19), 17 of 1M, 15 of 10M; 10 rows never hold 100
    EXPECT_EQ(uniform_radius_holding(1e5, kKnnFirstPassRows), 20);
    EXPECT_EQ(uniform_radius_holding(1e6, kKnnFirstPassRows), 17);
    EXPECT_EQ(uniform_radius_holding(1e7, kKnnFirstPassRows), 15);
    EXPECT_EQ(uniform_radius_holding(10, kKnnFirstPassRows), 64);
    EXPECT_EQ(uniform_radius_holding(1e5, 0), 0);
    for (double rows : {1e3, 1e5, 1e9}) {
        int r = uniform_radius_holding(rows, kKnnFirstPassRows);
        EXPECT_GE(rows * uniform_within_share(r), kKnnFirstPassRows);
        EXPECT_LT(rows * uniform_within_share(r - 1), kKnnFirstPassRows);
    }
}

TEST(IndexMih, KnnFirstPassLevel) {
    // 4 blocks: complete radii 3, 7, 11, 15, 19.  Uniform rows within 15
    // bits of a point: 122 of 10M, 12 of 1M; within 11: 50 of 1B.
    EXPECT_EQ(knn_first_pass_level(4, 4, 1e7, kKnnFirstPassRows), 3);
    EXPECT_EQ(knn_first_pass_level(4, 8, 1e8, kKnnFirstPassRows), 3);
    EXPECT_EQ(knn_first_pass_level(4, 9, 1e9, kKnnFirstPassRows), 3);
    EXPECT_EQ(knn_first_pass_level(4, 9, 1e9, 40), 2);
    // never past the last probe level, whatever it would take
    EXPECT_EQ(knn_first_pass_level(4, 2, 1e6, kKnnFirstPassRows), 2);
    EXPECT_EQ(knn_first_pass_level(4, 0, 1e3, kKnnFirstPassRows), 0);
    EXPECT_EQ(knn_first_pass_level(4, -1, 1e3, kKnnFirstPassRows), -1);
    // the level's radius holds the rows wanted, the one before does not
    for (double rows : {1e5, 1e6, 1e7, 1e8, 1e9}) {
        int t = knn_first_pass_level(4, 16, rows, kKnnFirstPassRows);
        EXPECT_GE(rows * uniform_within_share(complete_radius_after_level(4, t)), kKnnFirstPassRows);
        if (t > 0) {
            EXPECT_LT(rows * uniform_within_share(complete_radius_after_level(4, t - 1)), kKnnFirstPassRows);
        }
    }
}

TEST(IndexMih, PigeonholePartialLevel) {
    // Pairs built partition by partition with as many differing bits as the
    // bound allows: a pair within complete_radius_after_partial_level(n, t,
    // done) must differ by <= t bits in one of the first `done` partitions or
    // by <= t - 1 in one of the others; the bound is tight (one bit more and a
    // pair escapes every probe made so far).
    std::mt19937_64 rng(17);
    for (int n : {1, 2, 3, 4, 5, 8}) {
        BlockLayout l;
        ASSERT_TRUE(make_block_layout(n, &l));
        for (int t = 0; t < 4; t++) {
            for (int done = 1; done <= n; done++) {
                EXPECT_EQ(complete_radius_after_partial_level(n, t, n), complete_radius_after_level(n, t));
                int r = complete_radius_after_partial_level(n, t, done);
                auto escapes = [&](uint64_t a, uint64_t b) {
                    for (int p = 0; p < n; p++) {
                        int limit = p < done ? t : t - 1;
                        if (hamming_distance(l.value(a, p), l.value(b, p)) <= limit) return false;
                    }
                    return true;
                };
                auto flip_in = [&](uint64_t v, int p, int bits) {
                    std::vector<int> pos(l.width[p]);
                    for (int i = 0; i < l.width[p]; i++) pos[i] = l.shift[p] + i;
                    std::shuffle(pos.begin(), pos.end(), rng);
                    for (int i = 0; i < bits && i < l.width[p]; i++) v ^= 1ull << pos[i];
                    return v;
                };
                for (int i = 0; i < 500; i++) {
                    // spread r differing bits with as many as possible per partition
                    uint64_t a = rng(), b = a;
                    int left = r;
                    std::vector<int> order(n);
                    for (int p = 0; p < n; p++) order[p] = p;
                    std::shuffle(order.begin(), order.end(), rng);
                    for (int p : order) {
                        int most = p < done ? t + 1 : t;
                        int k = std::min<int>(left, std::min(most, l.width[p]));
                        b = flip_in(b, p, k);
                        left -= k;
                    }
                    ASSERT_LE(hamming_distance(a, b), r);
                    EXPECT_FALSE(escapes(a, b)) << "n=" << n << " t=" << t << " done=" << done;
                }
                if (r < 64) {  // tight: t + 1 bits in each done partition, t in the rest
                    uint64_t a = rng(), b = a;
                    for (int p = 0; p < n; p++) b = flip_in(b, p, p < done ? t + 1 : t);
                    if (hamming_distance(a, b) == r + 1) {
                        EXPECT_TRUE(escapes(a, b)) << "n=" << n << " t=" << t << " done=" << done;
                    }
                }
            }
        }
    }
}

TEST(IndexMih, FirstProbeStepIsTheOnlyProbeThatCountsARow) {
    // Simulate level-by-level probing: a row is reached at (level t,
    // partition p) exactly when its block p differs from the query's by t
    // bits.  first_probe_step must name the first such probe, so that
    // "returned before" == probe_step_before(first, current probe).
    std::mt19937_64 rng(23);
    for (int n : {1, 3, 4, 5, 8, 16}) {
        BlockLayout l;
        ASSERT_TRUE(make_block_layout(n, &l));
        uint64_t masks[kMaxBlocks];
        for (int p = 0; p < n; p++) masks[p] = l.mask(p);
        for (int i = 0; i < 2000; i++) {
            uint64_t q = rng();
            // mostly rows near q, where ties between partitions are common
            uint64_t row = q;
            int flips = static_cast<int>(rng() % 12);
            for (int f = 0; f < flips; f++) row ^= 1ull << (rng() % 64);
            if (i % 5 == 0) row = rng();
            ProbeStep first = first_probe_step(row ^ q, masks, n);
            int reached = 0;
            for (int t = 0; t <= 64 && reached == 0; t++)
                for (int p = 0; p < n; p++) {
                    int d = hamming_distance(l.value(row, p), l.value(q, p));
                    if (d != t) continue;
                    if (reached == 0) {
                        EXPECT_EQ(first.level, t);
                        EXPECT_EQ(first.part, p);
                    }
                    EXPECT_EQ(probe_step_before(first, t, p), reached > 0);
                    reached++;
                }
            EXPECT_GT(reached, 0);
            EXPECT_FALSE(probe_step_before(first, first.level, first.part));
            EXPECT_TRUE(probe_step_before(first, first.level + 1, 0));
        }
    }
}

TEST(IndexMih, RadiusSearchCountsEachRowInOnePartition) {
    // Every row within radius r of q is reached by the probes of some
    // partition (the refined pigeonhole of radius_probe_level), and counted
    // in exactly one of those; rows at exactly r bits are the tight case.
    std::mt19937_64 rng(29);
    for (int n : {1, 2, 3, 4, 5, 8, 16}) {
        BlockLayout l;
        ASSERT_TRUE(make_block_layout(n, &l));
        uint64_t masks[kMaxBlocks];
        for (int p = 0; p < n; p++) masks[p] = l.mask(p);
        for (int r : {0, 1, 2, 3, 4, 5, 6, 7, 9, 12, 17, 64}) {
            for (int i = 0; i < 2000; i++) {
                uint64_t q = rng(), row = q;
                int want = i % 2 == 0 ? r : static_cast<int>(rng() % (r + 1));
                while (hamming_distance(row, q) < want) {
                    int bit = static_cast<int>(rng() % 64);
                    if (((row ^ q) >> bit & 1) == 0) row ^= 1ull << bit;  // a bit still equal
                }
                int counted = 0;
                for (int p = 0; p < n; p++) {
                    bool probed = hamming_distance(l.value(row, p), l.value(q, p)) <= radius_probe_level(r, n, p);
                    if (probed && !reached_in_earlier_partition(row ^ q, masks, p, r, n)) counted++;
                }
                EXPECT_EQ(counted, 1) << "n=" << n << " r=" << r << " distance=" << want;
            }
        }
    }
}

TEST(IndexMih, RadiusProbeLevelsAreTheRefinedPigeonhole) {
    // Radius 0 probes one partition exactly, radius 3 at four partitions
    // probes all four exactly, radius 5 two within 1 bit and two exactly;
    // the levels never exceed the plain floor(r / n) of every partition.
    EXPECT_EQ(radius_probe_level(0, 4, 0), 0);
    EXPECT_EQ(radius_probe_level(0, 4, 1), -1);
    EXPECT_EQ(radius_probe_level(1, 4, 1), 0);
    EXPECT_EQ(radius_probe_level(1, 4, 2), -1);
    for (int p = 0; p < 4; p++) EXPECT_EQ(radius_probe_level(3, 4, p), 0);
    EXPECT_EQ(radius_probe_level(5, 4, 0), 1);
    EXPECT_EQ(radius_probe_level(5, 4, 1), 1);
    EXPECT_EQ(radius_probe_level(5, 4, 2), 0);
    for (int n : {1, 2, 3, 4, 5, 8, 16})
        for (int r = 0; r <= 64; r++)
            for (int p = 0; p < n; p++) EXPECT_LE(radius_probe_level(r, n, p), per_block_radius(r, n));
    // the totals the scan and the cost estimate use
    const int w16[4] = {16, 16, 16, 16};
    int probed = -1;
    EXPECT_EQ(radius_probe_count(0, 4, w16, &probed), 1.0);
    EXPECT_EQ(probed, 1);
    EXPECT_EQ(radius_probe_count(1, 4, w16, &probed), 2.0);
    EXPECT_EQ(probed, 2);
    EXPECT_EQ(radius_probe_count(5, 4, w16, &probed), 17.0 + 17 + 1 + 1);
    EXPECT_EQ(probed, 4);
}

// The build sorts runs and merges them while writing leaves: the merge must
// give exactly std::sort's order, for any run length, with duplicate keys,
// short last runs, one run, and nothing at all.
TEST(IndexMih, RunMergeEqualsOneSort) {
    std::mt19937_64 rng(7);
    for (uint64_t n : {0ull, 1ull, 5ull, 64ull, 1000ull, 4097ull}) {
        for (uint64_t run : {1ull, 3ull, 64ull, 1000ull, 100000ull}) {
            std::vector<KeyTid> items(n);
            for (auto& it : items) it = KeyTid{rng() % 50, rng() % 1000};  // many equal keys
            std::vector<KeyTid> expected = items;
            sort_key_tids(expected.data(), expected.size());
            for (uint64_t i = 0; i < n; i += run) sort_key_tids(items.data() + i, std::min(run, n - i));
            std::vector<uint64_t> heap(merge_heap_size(n, run));
            RunMerge merge(items.data(), n, run, heap.data());
            std::vector<KeyTid> got;
            KeyTid kt;
            while (merge.next(&kt)) got.push_back(kt);
            ASSERT_EQ(got.size(), expected.size()) << n << " " << run;
            for (uint64_t i = 0; i < n; ++i) {
                ASSERT_EQ(got[i].key, expected[i].key) << n << " " << run << " " << i;
                ASSERT_EQ(got[i].tid, expected[i].tid) << n << " " << run << " " << i;
            }
        }
    }
}

// Leaves end at group boundaries (the top 16 key bits change), the split's
// nearest to the middle, and such a leaf's hi is the last key of its group.
TEST(IndexMih, GroupBoundaries) {
    auto k = [](uint64_t group, uint64_t low) { return (group << 48) | low; };
    EXPECT_EQ(key_group(k(7, 123)), 7u);
    EXPECT_EQ(last_key_before_group(k(7, 123)), k(6, 0xFFFFFFFFFFFFull));
    EXPECT_EQ(last_key_before_group(k(1, 0)), 0xFFFFFFFFFFFFull);
    EXPECT_EQ(last_key_before_group(k(0xFFFF, 5)), k(0xFFFE, 0xFFFFFFFFFFFFull));
    // groups 1 x3, 2 x4, 3 x1, 4 x2: boundaries at 3, 7, 8
    std::vector<KeyTid> a;
    for (auto [g, n] : {std::pair<uint64_t, int>{1, 3}, {2, 4}, {3, 1}, {4, 2}})
        for (int i = 0; i < n; i++) a.push_back({k(g, static_cast<uint64_t>(i)), 0});
    int n = static_cast<int>(a.size());
    EXPECT_EQ(group_boundary_near(a.data(), n, 5, 2, 8), 3);  // 3 and 7 tie at distance 2: the lower
    EXPECT_EQ(group_boundary_near(a.data(), n, 6, 2, 8), 7);
    EXPECT_EQ(group_boundary_near(a.data(), n, 5, 4, 6), 5);  // none in range: the middle
    EXPECT_EQ(group_boundary_near(a.data(), n, 8, 8, 8), 8);
    EXPECT_EQ(group_boundary_near(a.data(), n, 9, 0, 50), 8); // bounds clipped to [1, n - 1]
    // one group: no boundary anywhere
    std::vector<KeyTid> one(5, KeyTid{k(9, 1), 0});
    EXPECT_EQ(group_boundary_near(one.data(), 5, 2, 0, 10), 2);
    // every result is a boundary or mid, in range, and no boundary is nearer
    std::mt19937_64 rng(5);
    for (int trial = 0; trial < 2000; trial++) {
        int m = 2 + static_cast<int>(rng() % 40);
        std::vector<KeyTid> b(static_cast<size_t>(m));
        for (auto& e : b) e = {k(rng() % 6, rng() % 1000), 0};
        sort_key_tids(b.data(), static_cast<uint64_t>(m));
        int mid = 1 + static_cast<int>(rng() % static_cast<uint64_t>(m - 1));
        int lo = mid - static_cast<int>(rng() % 10), hi = mid + static_cast<int>(rng() % 10);
        int got = group_boundary_near(b.data(), m, mid, lo, hi);
        auto boundary = [&](int i) { return i >= std::max(lo, 1) && i <= std::min(hi, m - 1) && key_group(b[static_cast<size_t>(i - 1)].key) != key_group(b[static_cast<size_t>(i)].key); };
        int best = -1;
        for (int i = 1; i < m; i++)
            if (boundary(i) && (best < 0 || std::abs(i - mid) < std::abs(best - mid))) best = i;
        EXPECT_EQ(got, best < 0 ? mid : best) << "trial " << trial;
    }
}
