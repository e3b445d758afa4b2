#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "features.hpp"
#include "fingerprint.hpp"
#include "idf.hpp"

using simhash::IdfEntry;

namespace simhash {  // found by argument-dependent lookup from std::vector's ==
static bool operator==(const IdfEntry& a, const IdfEntry& b) { return a.hash == b.hash && a.df == b.df; }
static void PrintTo(const IdfEntry& e, std::ostream* os) { *os << "{" << e.hash << ", df " << e.df << "}"; }
}  // namespace simhash

static std::vector<IdfEntry> count_all(std::vector<uint64_t> hashes) {
    std::vector<IdfEntry> out(hashes.size());
    out.resize(simhash::count_hashes(hashes.data(), hashes.size(), out.data()));
    return out;
}

static std::vector<IdfEntry> merged(const std::vector<IdfEntry>& a, const std::vector<IdfEntry>& b) {
    std::vector<IdfEntry> out(a.size() + b.size());
    out.resize(simhash::merge_idf(a.data(), a.size(), b.data(), b.size(), out.data()));
    return out;
}

TEST(Idf, SortUniqueKeepsOneOfEach) {
    std::vector<uint64_t> h = {5, 1, 5, 3, 1, 1, ~0ULL};
    size_t n = simhash::sort_unique(h.data(), h.size());
    h.resize(n);
    EXPECT_EQ(h, (std::vector<uint64_t>{1, 3, 5, ~0ULL}));
    EXPECT_EQ(simhash::sort_unique(h.data(), 0), 0u);
}

TEST(HashSort, SortsAsStdSortDoesOnEveryShape) {
    std::mt19937_64 rng(11);
    auto check = [](std::vector<uint64_t> v, const char* what) {
        std::vector<uint64_t> expected = v;
        std::sort(expected.begin(), expected.end());
        size_t ticks = 0;
        simhash::sort_hashes(v.data(), v.size(), [&ticks] { ++ticks; });
        EXPECT_EQ(v, expected) << what << ", " << v.size() << " items";
        return ticks;
    };
    for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(511), size_t(512), size_t(513), size_t(4096), size_t(200000)}) {
        std::vector<uint64_t> random(n), few(n), low_byte(n), high_byte(n);
        for (size_t i = 0; i < n; ++i) {
            random[i] = rng();
            few[i] = rng() % 7 * 0x0101010101010101ULL;  // many repeats of a few values
            low_byte[i] = 0xABCDEF0012345600ULL | (rng() & 0xFF);  // equal but for the last byte
            high_byte[i] = (rng() & 0xFF00000000000000ULL) | 42;
        }
        check(random, "random");
        check(few, "few distinct");
        check(low_byte, "last byte differs");
        check(high_byte, "first byte differs");
        check(std::vector<uint64_t>(n, ~0ULL), "all equal");
    }
}

TEST(HashSort, TicksInProportionToTheWork) {
    // A caller checks for a cancel at each tick: a sort of millions of
    // hashes must tick along the way, whatever their shape.
    const size_t n = 3 * simhash::kSortTickItems;
    std::mt19937_64 rng(12);
    std::vector<uint64_t> random(n), equal(n, 77), two(n);
    for (size_t i = 0; i < n; ++i) two[i] = i % 2 ? ~0ULL : 0;
    for (auto& h : random) h = rng();
    for (auto* v : {&random, &equal, &two}) {
        size_t ticks = 0;
        simhash::sort_hashes(v->data(), v->size(), [&ticks] { ++ticks; });
        EXPECT_TRUE(std::is_sorted(v->begin(), v->end()));
        // at least one tick per 2^20 items looked at: n - 1 when all are equal
        EXPECT_GE(ticks, (n - 1) / simhash::kSortTickItems);
    }
    std::vector<uint64_t> small = {3, 1, 2};
    size_t ticks = 0;
    simhash::sort_hashes(small.data(), small.size(), [&ticks] { ++ticks; });
    EXPECT_EQ(ticks, 0u);
}

TEST(Idf, CountHashesCountsRepeats) {
    std::vector<IdfEntry> t = count_all({9, 2, 9, 9, 4, 2});
    EXPECT_EQ(t, (std::vector<IdfEntry>{{2, 2}, {4, 1}, {9, 3}}));
    EXPECT_TRUE(count_all({}).empty());
}

TEST(Idf, MergeAddsEqualHashesAndKeepsOrder) {
    std::vector<IdfEntry> a = {{1, 2}, {5, 1}, {7, 4}};
    std::vector<IdfEntry> b = {{0, 1}, {5, 3}, {8, 1}};
    EXPECT_EQ(merged(a, b), (std::vector<IdfEntry>{{0, 1}, {1, 2}, {5, 4}, {7, 4}, {8, 1}}));
    EXPECT_EQ(merged(a, {}), a);
    EXPECT_EQ(merged({}, b), b);
    EXPECT_TRUE(merged({}, {}).empty());
}

// Counting documents in any chunking and merge order gives the same table as
// counting them all at once: what the aggregate's flushes and parallel
// combine rely on.
TEST(Idf, ChunkedCountingEqualsCountingAtOnce) {
    std::mt19937_64 rng(42);
    std::vector<uint64_t> all;
    std::vector<std::vector<IdfEntry>> chunks;
    for (int chunk = 0; chunk < 7; ++chunk) {
        std::vector<uint64_t> hashes;
        for (int i = 0; i < 500; ++i) hashes.push_back(rng() % 300);
        all.insert(all.end(), hashes.begin(), hashes.end());
        chunks.push_back(count_all(hashes));
    }
    std::vector<IdfEntry> forwards, backwards;
    for (size_t i = 0; i < chunks.size(); ++i) forwards = merged(forwards, chunks[i]);
    for (size_t i = chunks.size(); i-- > 0;) backwards = merged(chunks[i], backwards);
    std::vector<IdfEntry> at_once = count_all(all);
    EXPECT_EQ(forwards, at_once);
    EXPECT_EQ(backwards, at_once);
    EXPECT_TRUE(simhash::idf_table_valid(at_once.data(), at_once.size(), all.size(), 1));
}

TEST(Idf, KeepCommonDropsRareEntriesInPlace) {
    std::vector<IdfEntry> t = {{1, 1}, {2, 2}, {3, 1}, {4, 5}};
    t.resize(simhash::keep_common(t.data(), t.size(), simhash::kIdfMinStoredDf, t.data()));
    EXPECT_EQ(t, (std::vector<IdfEntry>{{2, 2}, {4, 5}}));
}

TEST(Idf, ValidityChecksOrderAndRange) {
    std::vector<IdfEntry> ok = {{1, 2}, {2, 3}};
    EXPECT_TRUE(simhash::idf_table_valid(ok.data(), ok.size(), 3, 2));
    EXPECT_FALSE(simhash::idf_table_valid(ok.data(), ok.size(), 2, 2));  // df 3 > 2 documents
    EXPECT_FALSE(simhash::idf_table_valid(ok.data(), ok.size(), 3, 3));  // df 2 < min_df 3
    std::vector<IdfEntry> unsorted = {{2, 2}, {1, 2}};
    EXPECT_FALSE(simhash::idf_table_valid(unsorted.data(), unsorted.size(), 5, 1));
    std::vector<IdfEntry> repeated = {{2, 2}, {2, 2}};
    EXPECT_FALSE(simhash::idf_table_valid(repeated.data(), repeated.size(), 5, 1));
    EXPECT_TRUE(simhash::idf_table_valid(nullptr, 0, 0, 2));
}

TEST(Idf, FirstInvalidNamesTheEntry) {
    std::vector<IdfEntry> t = {{1, 2}, {2, 3}, {2, 3}, {4, 9}};
    EXPECT_EQ(simhash::idf_table_first_invalid(t.data(), t.size(), 5, 2), 2u);  // hash 2 repeated
    EXPECT_EQ(simhash::idf_table_first_invalid(t.data(), 2, 5, 2), 2u);         // the first two are valid
    EXPECT_EQ(simhash::idf_table_first_invalid(t.data(), t.size(), 5, 3), 0u);  // df 2 < min_df 3
    t[2].hash = 3;
    EXPECT_EQ(simhash::idf_table_first_invalid(t.data(), t.size(), 5, 2), 3u);  // df 9 > 5 documents
}

TEST(Idf, LookupFindsPresentAndMissesAbsent) {
    std::vector<IdfEntry> t = {{10, 2}, {20, 3}, {30, 4}, {~0ULL, 9}};
    EXPECT_EQ(simhash::idf_lookup(t.data(), t.size(), 10), 2u);
    EXPECT_EQ(simhash::idf_lookup(t.data(), t.size(), 30), 4u);
    EXPECT_EQ(simhash::idf_lookup(t.data(), t.size(), ~0ULL), 9u);
    EXPECT_EQ(simhash::idf_lookup(t.data(), t.size(), 0), 0u);
    EXPECT_EQ(simhash::idf_lookup(t.data(), t.size(), 25), 0u);
    EXPECT_EQ(simhash::idf_lookup(t.data(), t.size(), ~0ULL - 1), 0u);
    EXPECT_EQ(simhash::idf_lookup(nullptr, 0, 10), 0u);
}

// The remembered weights are the ones idf_weight() gives, for hashes that
// share a slot, for hash 0 (which every slot holds at first), and after a
// reset to another table, whose weights must replace the first one's.
TEST(Idf, RememberedWeightsEqualComputedOnes) {
    std::mt19937_64 rng(9);
    std::vector<IdfEntry> a, b;
    for (uint64_t i = 0; i < 20000; ++i) a.push_back({rng(), 2 + rng() % 500});
    a.push_back({0, 7});
    for (uint64_t i = 0; i < 3000; ++i) b.push_back({a[i * 5].hash, 2 + rng() % 50});
    for (auto* t : {&a, &b}) {
        std::sort(t->begin(), t->end(), [](const IdfEntry& x, const IdfEntry& y) { return x.hash < y.hash; });
        t->erase(std::unique(t->begin(), t->end(), [](const IdfEntry& x, const IdfEntry& y) { return x.hash == y.hash; }),
                 t->end());
    }
    auto weights = std::make_unique<simhash::IdfWeights>();
    for (int round = 0; round < 2; ++round) {
        const std::vector<IdfEntry>& t = round == 0 ? a : b;
        const uint64_t documents = round == 0 ? 1000 : 60;
        weights->reset(t.data(), t.size(), documents);
        for (int q = 0; q < 200000; ++q) {
            uint64_t h = q % 3 == 0 ? rng() : a[rng() % 4096].hash;  // many repeats and shared slots
            if (q % 1000 == 1) h = 0;
            if (q % 1000 == 2) h = 4096 * (rng() % 16);  // slot 0, as hash 0
            ASSERT_EQ(weights->weight(h), simhash::idf_weight(documents, simhash::idf_lookup(t.data(), t.size(), h)))
                << "round " << round << ", hash " << h;
        }
    }
}

// The lookup interpolates on the hashes' spread; on tables spread evenly and
// unevenly (every hash in a narrow band, or clustered at both ends, as a
// table built by hand may be) it must find what bisection finds.
TEST(Idf, LookupAgreesWithBisectionOnEvenAndUnevenTables) {
    std::mt19937_64 rng(5);
    auto reference = [](const std::vector<IdfEntry>& t, uint64_t h) -> uint64_t {
        auto it = std::lower_bound(t.begin(), t.end(), h, [](const IdfEntry& e, uint64_t x) { return e.hash < x; });
        return (it != t.end() && it->hash == h) ? it->df : 0;
    };
    for (int shape = 0; shape < 4; ++shape) {
        for (size_t n : {1, 2, 9, 10, 100, 5000, 200000}) {
            std::vector<IdfEntry> t;
            for (size_t i = 0; i < n; ++i) {
                uint64_t h = rng();
                if (shape == 1) h >>= 40;                                        // a narrow band at the bottom
                if (shape == 2) h = (i % 2) ? ~(h >> 50) : (h >> 50);            // both ends
                if (shape == 3) h = (i < n / 2) ? i : uint64_t(1) << 63 | (h >> 1);  // a run, then spread
                t.push_back({h, 2 + i % 7});
            }
            std::sort(t.begin(), t.end(), [](const IdfEntry& a, const IdfEntry& b) { return a.hash < b.hash; });
            t.erase(std::unique(t.begin(), t.end(), [](const IdfEntry& a, const IdfEntry& b) { return a.hash == b.hash; }),
                    t.end());
            for (int q = 0; q < 3000; ++q) {
                uint64_t h = t[rng() % t.size()].hash;
                switch (q % 5) {
                    case 1: h += 1; break;
                    case 2: h -= 1; break;
                    case 3: h = rng() >> (rng() % 64); break;
                    case 4: h = (q % 2) ? 0 : ~0ULL; break;
                }
                ASSERT_EQ(simhash::idf_lookup(t.data(), t.size(), h), reference(t, h))
                    << "shape " << shape << ", " << t.size() << " entries, hash " << h;
            }
        }
    }
}

TEST(Idf, WeightIsTheDocumentedFormula) {
    EXPECT_DOUBLE_EQ(simhash::idf_weight(300, 300), std::log(2.0));  // in every document: the smallest
    EXPECT_EQ(simhash::idf_weight(300, 7), std::log(1.0 + 300.0 / 7.0));
    EXPECT_EQ(simhash::idf_weight(300, 0), simhash::idf_weight(300, 1));  // missing counts as df = 1
    EXPECT_DOUBLE_EQ(simhash::idf_weight(300, 1), std::log(301.0));
    for (uint64_t df = 1; df < 300; ++df) {
        EXPECT_GT(simhash::idf_weight(300, df), simhash::idf_weight(300, df + 1));
        EXPECT_GT(simhash::idf_weight(300, df + 1), 0.0);
    }
}

// The weighted fingerprint the glue computes: one RealVotes vote per
// occurrence, weight idf_weight(N, df).  A word in every document weighs
// least, so two documents sharing only such words are pulled apart.
TEST(Idf, CommonWordsLoseTheirPull) {
    const std::vector<std::string> corpus = {
        "the cat sat on the mat", "the dog ate the bone", "the sun rose over the hill",
        "a bird sang in the tree", "the river ran to the sea"};
    std::vector<uint64_t> hashes;
    for (const std::string& doc : corpus) {
        std::vector<uint64_t> doc_hashes;
        for (const std::string& f : features_of(doc, simhash::TokenizerKind::kWords, 1)) doc_hashes.push_back(simhash::feature_hash(f.data(), f.size()));
        doc_hashes.resize(simhash::sort_unique(doc_hashes.data(), doc_hashes.size()));
        hashes.insert(hashes.end(), doc_hashes.begin(), doc_hashes.end());
    }
    std::vector<IdfEntry> table = count_all(hashes);
    table.resize(simhash::keep_common(table.data(), table.size(), simhash::kIdfMinStoredDf, table.data()));
    ASSERT_EQ(table.size(), 1u);  // only "the" is in two or more documents
    EXPECT_EQ(table[0].df, 5u);

    auto weight_of = [&](const std::string& f) {
        uint64_t h = simhash::feature_hash(f.data(), f.size());
        return simhash::idf_weight(corpus.size(), simhash::idf_lookup(table.data(), table.size(), h));
    };
    EXPECT_LT(weight_of("the"), weight_of("cat"));
    EXPECT_EQ(weight_of("cat"), weight_of("never-seen"));
}
