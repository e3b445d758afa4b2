#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "features.hpp"
#include "count_ones.hpp"
#include "fingerprint.hpp"
#include "hamming.hpp"

using simhash::TokenizerKind;

static simhash::TextFingerprint fingerprint(const std::string& text, TokenizerKind kind = simhash::kDefaultTokenizer,
                                            int n = simhash::kDefaultNgram) {
    std::vector<char> scratch(simhash::tokenizer_scratch_size(text.size()));
    return simhash::fingerprint_text(text.data(), text.size(), kind, n, scratch.data());
}

static uint64_t hash(const std::string& s) { return simhash::feature_hash(s.data(), s.size()); }

TEST(Fingerprint, FeatureHashIsXxh3WithSeedZero) {
    EXPECT_EQ(hash(""), 0x2D06800538D394C2ULL);  // XXH3_64bits of empty input, from the xxHash reference
}

// The inline formula for 1 to 3 bytes is XXH3's, for every such string.
TEST(Fingerprint, ShortFeatureHashIsXxh3) {
    unsigned char bytes[3];
    const char* feature = reinterpret_cast<const char*>(bytes);
    for (uint32_t v = 0; v < (uint32_t{1} << 24); ++v) {
        bytes[0] = uint8_t(v), bytes[1] = uint8_t(v >> 8), bytes[2] = uint8_t(v >> 16);
        ASSERT_EQ(simhash::feature_hash_1to3(feature, 3), simhash::feature_hash(feature, 3)) << v;
        if (v < (uint32_t{1} << 16)) {
            ASSERT_EQ(simhash::feature_hash_1to3(feature, 2), simhash::feature_hash(feature, 2)) << v;
        }
        if (v < 256) {
            ASSERT_EQ(simhash::feature_hash_1to3(feature, 1), simhash::feature_hash(feature, 1)) << v;
        }
    }
}

// The AVX-512 signs are the portable ones: sums above, below and at zero
// (-0.0 too), every tie-break bit.
TEST(Fingerprint, SignVersionsAgree) {
    if (!simhash::detail::signs_avx512_supported()) {
        std::printf("the AVX-512 signs not tested: this CPU has no AVX-512\n");
        return;
    }
    std::mt19937_64 rng(64);
    for (int trial = 0; trial < 20000; ++trial) {
        const uint64_t n = rng() % 9, tie_break = rng();
        uint64_t ones[64];
        double sums[64];
        for (int i = 0; i < 64; ++i) {
            ones[i] = rng() % (n + 1);
            sums[i] = std::vector<double>{-1.5, -0.0, 0.0, 0.0, 2.25, 1e-300, -1e300}[rng() % 7];
        }
        ASSERT_EQ(simhash::detail::unit_signs_avx512(ones, n, tie_break),
                  simhash::detail::unit_signs_portable(ones, n, tie_break));
        ASSERT_EQ(simhash::detail::double_signs_avx512(sums, tie_break),
                  simhash::detail::double_signs_portable(sums, tie_break));
    }
}

// Rule 5's weighted tallies are added alike in both versions, to the bit:
// the product is rounded before the sum (a fused multiply-add rounds once
// and differs in the last bit for most of these).
TEST(Fingerprint, WeightedTallyVersionsAgree) {
    if (!simhash::detail::signs_avx512_supported()) {
        std::printf("add_weighted_tally_avx512 not tested: this CPU has no AVX-512\n");
        return;
    }
    std::mt19937_64 rng(65);
    std::uniform_real_distribution<double> real(-3000.0, 3000.0);
    for (int trial = 0; trial < 2000; ++trial) {
        double portable[64], avx512[64];
        int32_t tally[64];
        for (int b = 0; b < 64; ++b) {
            portable[b] = avx512[b] = real(rng);
            tally[b] = int32_t(rng() % 5001) - 2500;
        }
        const double weight = std::pow(double(2 + rng() % 7), real(rng) / 8000.0) * double(2 + rng() % 60);
        simhash::detail::add_weighted_tally_portable(portable, weight, tally);
        simhash::detail::add_weighted_tally_avx512(avx512, weight, tally);
        for (int b = 0; b < 64; ++b)
            ASSERT_EQ(std::memcmp(&avx512[b], &portable[b], sizeof(double)), 0) << trial << " bit " << b;
    }
}

// One feature: every bit's vote is the feature's own bit.
TEST(Fingerprint, SingleFeatureIsItsHash) {
    EXPECT_EQ(fingerprint("Hello").fingerprint, hash("hello"));
    EXPECT_EQ(fingerprint("好").fingerprint, hash("好"));
}

// Two features: where they disagree the sum is exactly 0, and the tie-break
// word (sum of tie_mix over the votes) decides.
TEST(Fingerprint, TiesTakeTheTieBreakWord) {
    uint64_t a = hash("alpha"), b = hash("beta");
    uint64_t tie_break = simhash::tie_mix(a) + simhash::tie_mix(b);
    EXPECT_EQ(fingerprint("alpha beta").fingerprint, (a & b) | ((a ^ b) & tie_break));
    EXPECT_EQ(fingerprint("beta alpha").fingerprint, fingerprint("alpha beta").fingerprint);
    EXPECT_EQ(simhash::tie_mix(0), 0u);
    EXPECT_EQ(simhash::tie_mix(1), 0x5692161d100b05e5ULL);  // splitmix64 finalizer reference value
}

// Three features: each bit is the majority vote.
TEST(Fingerprint, BitsAreMajorityVotes) {
    uint64_t x = hash("x"), y = hash("y"), z = hash("z");
    EXPECT_EQ(fingerprint("x y z").fingerprint, (x & y) | (x & z) | (y & z));
    // Term frequency: "x" twice outvotes a single "y" everywhere they differ.
    EXPECT_EQ(fingerprint("x y x").fingerprint, x);
}

TEST(Fingerprint, NoFeaturesMeansNoFingerprint) {
    EXPECT_EQ(fingerprint("").features, 0u);
    EXPECT_EQ(fingerprint(" ,.;!? ").features, 0u);
}

TEST(Fingerprint, PublishedTestVectors) {
    // Kept in sync with README.md ("Test vectors") and sql/fingerprint.sql.
    const std::string fox = "The quick brown fox jumps over the lazy dog";
    EXPECT_EQ(fingerprint(fox).fingerprint, 0x8212868318d29267ULL);
    EXPECT_EQ(fingerprint("我爱北京天安门").fingerprint, 0x6b2111ba53d5c024ULL);
    EXPECT_EQ(fingerprint("PostgreSQL 数据库 is fast 😀").fingerprint, 0x0a468e553be906ceULL);
    EXPECT_EQ(fingerprint("Hello").fingerprint, 0x9555e8555c62dcfdULL);
    EXPECT_EQ(fingerprint(fox, TokenizerKind::kWords, 2).fingerprint, 0x92bf9c0a4e25b7c6ULL);
    EXPECT_EQ(fingerprint(fox, TokenizerKind::kChars, 3).fingerprint, 0x8a3fc5745ddb35fdULL);
    std::string ramp;  // string_agg('w' || (i % 10) * (i % 4), ' ') over i = 1..300
    for (int i = 1; i <= 300; ++i) ramp += (i > 1 ? " w" : "w") + std::to_string((i % 10) * (i % 4));
    EXPECT_EQ(fingerprint(ramp).fingerprint, 0x24883cd4d34fccafULL);
}

// English function words vote once per text with weight count^0.75: four
// "the" (weight 2.83) outvote one other word everywhere, where at full weight
// (4) or at one vote each they would too, but three (2.28) against two
// other words that agree (2) still win, and one "the" is one vote.
TEST(Fingerprint, FunctionWordsWeighCountToTheThreeQuarters) {
    const uint64_t the = hash("the"), x = hash("x"), y = hash("y");
    EXPECT_EQ(fingerprint("the the the the x").fingerprint, the);
    EXPECT_EQ(fingerprint("the the x x").fingerprint & ~(the ^ x), the & x);  // agree where they agree
    // 2^0.75 = 1.68 < 2: two x outvote two "the" wherever they differ
    EXPECT_EQ(fingerprint("the the x x").fingerprint & (the ^ x), x & (the ^ x));
    EXPECT_EQ(fingerprint("the x y").fingerprint, (the & x) | (the & y) | (x & y));
    EXPECT_EQ(fingerprint("the the the x x").features, 5u);
    EXPECT_EQ(fingerprint("The OF").features, 2u);  // function words alone still make a fingerprint
    EXPECT_DOUBLE_EQ(simhash::FunctionWordTally::weight(16), 8.0);
    EXPECT_DOUBLE_EQ(simhash::FunctionWordTally::weight(1), 1.0);
    EXPECT_NEAR(simhash::FunctionWordTally::weight(3), 2.2795070569547775, 1e-15);
}

// Version 6's boost: exponent 0 up to 50 features, 0.35 at 300, 0 from
// 2,500 on, linear in between; the count it raises stops at 8.
TEST(Fingerprint, RepeatBoostRisesAndFallsWithLength) {
    EXPECT_EQ(simhash::repeat_boost_exponent(0), 0.0);
    EXPECT_EQ(simhash::repeat_boost_exponent(50), 0.0);
    EXPECT_DOUBLE_EQ(simhash::repeat_boost_exponent(51), 0.35 / 250);
    EXPECT_DOUBLE_EQ(simhash::repeat_boost_exponent(175), 0.175);
    EXPECT_DOUBLE_EQ(simhash::repeat_boost_exponent(300), 0.35);
    EXPECT_DOUBLE_EQ(simhash::repeat_boost_exponent(1400), 0.175);
    EXPECT_DOUBLE_EQ(simhash::repeat_boost_exponent(2499), 0.35 / 2200);
    EXPECT_EQ(simhash::repeat_boost_exponent(2500), 0.0);
    EXPECT_EQ(simhash::repeat_boost_exponent(1000000), 0.0);
    EXPECT_EQ(simhash::boosted_weight(1, 0.35), 1.0);
    EXPECT_DOUBLE_EQ(simhash::boosted_weight(2, 0.35), 2 * std::pow(2.0, 0.35));
    EXPECT_DOUBLE_EQ(simhash::boosted_weight(8, 0.35), std::pow(8.0, 1.35));
    EXPECT_DOUBLE_EQ(simhash::boosted_weight(40, 0.35), 40 * std::pow(8.0, 0.35));  // capped: not 40^1.35
    EXPECT_EQ(simhash::boosted_weight(40, 0.0), 40.0);
}

// A text of `words` random words from a small vocabulary, with a random
// English function word after about half of them when function_words.
static std::string random_words(std::mt19937_64& rng, int words, bool function_words = true) {
    static const char* content[] = {"window", "apple", "river",  "stone", "cloud",  "paper",
                                    "light",  "green", "north",  "silver", "quiet", "number"};
    static const char* function[] = {"THE", "of", "and", "to", "in", "is"};
    std::string text;
    for (int w = 0; w < words; ++w) {
        text += content[rng() % 12];
        text += " ";
        if (function_words && rng() % 2) text += std::string(function[rng() % 6]) + " ";
    }
    return text;
}

// Each bit is the sign of the sum over distinct features of +-weight:
// boosted_weight(count, repeat_boost_exponent(occurrences of features other
// than function words)) for those, count^0.75 for function words; checked on
// random texts of every length up to 3,000 words, over a vocabulary with
// function words in it, wherever no sum is within rounding of 0 (a tie,
// which the tie-break word decides).
TEST(Fingerprint, BitsAreSignsOfTheWeightedSums) {
    std::mt19937_64 rng(5);
    int checked = 0, boosted = 0;
    for (int trial = 0; trial < 400; ++trial) {
        const int words = 1 + int(rng() % (trial % 2 ? 3000 : 400));
        const std::string text = random_words(rng, words);
        std::map<std::string, std::pair<int, int>> counts;  // feature -> (count, function word index)
        uint64_t occurrences = 0;
        std::vector<char> scratch(simhash::tokenizer_scratch_size(text.size()));
        simhash::tokenize(text.data(), text.size(), TokenizerKind::kMixed, 1, scratch.data(),
                          [&](const char* f, size_t len, int index) {
                              auto& entry = counts[std::string(f, len)];
                              entry.first++;
                              entry.second = index;
                              if (index < 0) ++occurrences;
                          });
        const double exponent = simhash::repeat_boost_exponent(occurrences);
        double sums[64] = {};
        for (const auto& [f, entry] : counts) {
            const double w = entry.second >= 0 ? simhash::FunctionWordTally::weight(entry.first)
                                               : simhash::boosted_weight(entry.first, exponent);
            for (int i = 0; i < 64; ++i) sums[i] += ((hash(f) >> i) & 1) ? w : -w;
        }
        uint64_t expected = 0;
        bool tie = false;
        for (int i = 0; i < 64; ++i) {
            tie |= std::fabs(sums[i]) < 1e-9;
            if (sums[i] > 0) expected |= uint64_t{1} << i;
        }
        if (tie) continue;
        EXPECT_EQ(fingerprint(text).fingerprint, expected) << text;
        ++checked;
        boosted += exponent > 0.0;
    }
    EXPECT_GT(checked, 300);       // the sample really exercises the weights
    EXPECT_GT(boosted, 150);  // and the ramp
}

// A word twice in a text of 300 features weighs 2 * 2^0.35 = 2.55, so it
// outvotes two other words that agree (2) where at version 5's weight it
// tied with them; a word 12 times weighs 12 * 8^0.35 = 24.85, not 12^1.35 = 28.63.
TEST(Fingerprint, RepeatedWordsOutweighTheirCountInTheRamp) {
    for (const int repeats : {2, 12}) {
        // distinct filler words, then "x" repeated and "y z": 300 features in all
        std::string text;
        const int fillers = 300 - repeats - 2;
        simhash::RealVotes reference;
        for (int i = 0; i < fillers; ++i) {
            text += "w" + std::to_string(i) + " ";
            reference.add(hash("w" + std::to_string(i)), 1.0);
        }
        for (int i = 0; i < repeats; ++i) text += "x ";
        text += "y z";
        reference.add(hash("x"), repeats * std::pow(std::min(repeats, 8), 0.35));
        reference.add(hash("y"), 1.0);
        reference.add(hash("z"), 1.0);
        EXPECT_EQ(fingerprint(text).fingerprint, reference.fingerprint()) << repeats;
        simhash::RealVotes uncapped = reference;  // the same votes with x at repeats^1.35
        uncapped.add(hash("x"), std::pow(repeats, 1.35) - repeats * std::pow(std::min(repeats, 8), 0.35));
        simhash::RealVotes plain = reference;  // and at version 5's weight
        plain.add(hash("x"), repeats - repeats * std::pow(std::min(repeats, 8), 0.35));
        EXPECT_NE(fingerprint(text).fingerprint, plain.fingerprint()) << repeats;
        if (repeats > 8) {
            EXPECT_NE(fingerprint(text).fingerprint, uncapped.fingerprint()) << repeats;
        }
    }
}

// Up to 50 and from 2,500 features other than function words, a mixed text
// weighs each occurrence 1 as version 5 did, ties included: the fingerprint
// is the integer votes' (UnitVotes) with the function words added.  (A text
// keeps 2,500 hashes at a time: 5,000 and 5,001 count two full arrays.)
TEST(Fingerprint, PlainCountsOutsideTheRamp) {
    std::mt19937_64 rng(11);
    for (const int words : {1, 2, 7, 50, 2499, 2500, 2501, 4000, 5000, 5001}) {
        for (int trial = 0; trial < 20; ++trial) {
            const std::string text = random_words(rng, words, trial % 2);
            simhash::UnitVotes unit;
            simhash::FunctionWordTally function_words;
            std::vector<char> scratch(simhash::tokenizer_scratch_size(text.size()));
            simhash::tokenize(text.data(), text.size(), TokenizerKind::kMixed, 1, scratch.data(),
                              [&](const char* f, size_t len, int index) {
                                  if (index >= 0) function_words.add(index);
                                  else unit.add(hash(std::string(f, len)));
                              });
            ASSERT_EQ(unit.features(), uint64_t(words));
            EXPECT_EQ(fingerprint(text).fingerprint, unit.fingerprint(function_words)) << words;
        }
    }
}

// Only the mixed tokenizer weighs by length: "words" and "chars" count each
// occurrence once at any length, as the textbook algorithm does.
TEST(Fingerprint, WordsAndCharsTokenizersCountOccurrences) {
    std::mt19937_64 rng(13);
    for (int trial = 0; trial < 20; ++trial) {
        std::string text;  // words of 200 kinds, so most repeat fewer than 8 times, where the boost would tell
        for (int w = 60 + int(rng() % 900); w > 0; --w) text += "w" + std::to_string(rng() % 200) + " ";
        for (const TokenizerKind kind : {TokenizerKind::kWords, TokenizerKind::kChars}) {
            simhash::UnitVotes unit;
            for (const std::string& f : features_of(text, kind, 1)) unit.add(hash(f));
            EXPECT_EQ(fingerprint(text, kind, 1).fingerprint, unit.fingerprint());
        }
    }
}

// The weights depend on the counts, not on the order of the words.
TEST(Fingerprint, WordOrderDoesNotMatterInTheRamp) {
    std::mt19937_64 rng(17);
    for (int trial = 0; trial < 50; ++trial) {
        const int words = 51 + int(rng() % 2449);
        std::string text = random_words(rng, words);
        std::vector<std::string> split = features_of(text, TokenizerKind::kWords, 1);
        std::shuffle(split.begin(), split.end(), rng);
        std::string shuffled;
        for (const std::string& w : split) shuffled += w + " ";
        EXPECT_EQ(fingerprint(text).fingerprint, fingerprint(shuffled).fingerprint) << words;
    }
}

TEST(Fingerprint, VoteCountersAgree) {
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 200; ++trial) {
        simhash::UnitVotes unit;
        simhash::IntegerVotes integer;
        simhash::RealVotes real;
        int count = 1 + int(rng() % 2000);
        for (int i = 0; i < count; ++i) {
            uint64_t h = rng() & rng();  // biased bits, so sums are not all near zero
            unit.add(h);
            integer.add(h, 1);
            real.add(h, 0.5);
        }
        uint64_t expected = integer.fingerprint();
        EXPECT_EQ(unit.fingerprint(), expected);
        EXPECT_EQ(real.fingerprint(), expected);
        EXPECT_EQ(unit.features(), uint64_t(count));
    }
}

// UnitVotes's sums are the plain counts at any number of hashes added one
// at a time, and also when read in the middle of a text and added to after.
TEST(Fingerprint, UnitVoteSumsAreExactCounts) {
    std::mt19937_64 rng(16);
    std::vector<int> sizes;
    for (int n = 1; n <= 40; ++n) sizes.push_back(n);
    for (int flushes : {1, 2, 16, 17})
        for (int d = -2; d <= 2; ++d) sizes.push_back(255 * flushes + d);
    for (int k = 0; k < 40; ++k) sizes.push_back(1 + int(rng() % 20000));
    for (const int mode : {0, 1, 2}) {  // sparse bits; dense bits, which fill a lane; dense, read midway
        for (const int n : sizes) {
            simhash::UnitVotes unit;
            int64_t ones[64] = {};
            double sums[64];
            const bool read_midway = mode == 2;
            for (int count = 1; count <= n; ++count) {
                // sums far from 0 either way, so that a wrong count shows
                const uint64_t h = mode == 0 ? rng() & rng() & rng() : count % 97 == 0 ? rng() : ~uint64_t{0};
                unit.add(h);
                for (int i = 0; i < 64; ++i) ones[i] += (h >> i) & 1;
                if (read_midway && count % 1000 == 999) unit.sums(sums);
            }
            unit.sums(sums);
            ASSERT_EQ(unit.features(), uint64_t(n));
            for (int i = 0; i < 64; ++i) ASSERT_EQ(sums[i], double(2 * ones[i] - n)) << n << " bit " << i;
        }
    }
}

// Every version of count_ones() this machine can run, and count_ones()
// itself, give each bit's plain count and the sum of tie_mix(), across the
// byte lanes' 255-hash blocks, and add to counts already there.
TEST(Fingerprint, BitCountersCountEveryBit) {
    using CountOnes = uint64_t (*)(const uint64_t*, size_t, uint64_t*) noexcept;
    std::vector<std::pair<std::string, CountOnes>> versions = {{"chosen", simhash::detail::count_ones},
                                                               {"portable", simhash::detail::count_ones_portable}};
#if defined(__x86_64__)
    versions.emplace_back("sse2", simhash::detail::count_ones_sse2);
    if (simhash::detail::count_ones_avx2_supported())
        versions.emplace_back("avx2", simhash::detail::count_ones_avx2);
    else
        std::printf("count_ones_avx2 not tested: this CPU has no AVX2\n");
    if (simhash::detail::count_ones_avx512_supported())
        versions.emplace_back("avx512", simhash::detail::count_ones_avx512);
    else
        std::printf("count_ones_avx512 not tested: this CPU has no AVX-512 (F, BW, DQ)\n");
#endif
    std::mt19937_64 rng(18);
    for (const size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{254}, size_t{255},
                           size_t{256}, size_t{510}, size_t{511}, size_t{2499}, size_t{5000}}) {
        for (const int mode : {0, 1}) {  // random bits; every bit set, which fills each lane to 255
            std::vector<uint64_t> hashes(n);
            for (uint64_t& h : hashes) h = mode == 0 ? rng() : ~uint64_t{0};
            uint64_t expected[64];
            uint64_t expected_tie = 0;
            for (int b = 0; b < 64; ++b) expected[b] = uint64_t(b) * 1000;  // counts before
            for (const uint64_t h : hashes) {
                for (int b = 0; b < 64; ++b) expected[b] += (h >> b) & 1;
                expected_tie += simhash::tie_mix(h);
            }
            for (const auto& [name, count_ones] : versions) {
                uint64_t ones[64];
                for (int b = 0; b < 64; ++b) ones[b] = uint64_t(b) * 1000;
                EXPECT_EQ(count_ones(hashes.data(), n, ones), expected_tie) << name << " " << n;
                for (int b = 0; b < 64; ++b) ASSERT_EQ(ones[b], expected[b]) << name << " " << n << " bit " << b;
            }
        }
    }
}

// Every version of tally_bits(), and tally_bits() itself, give each bit's
// ones minus zeros, across the byte lanes' 255-hash blocks.
TEST(Fingerprint, BitTalliesCountEveryBit) {
    using TallyBits = void (*)(const uint64_t*, size_t, int32_t*) noexcept;
    std::vector<std::pair<std::string, TallyBits>> versions = {{"chosen", simhash::detail::tally_bits},
                                                               {"portable", simhash::detail::tally_bits_portable}};
#if defined(__x86_64__)
    if (simhash::detail::count_ones_avx512_supported())
        versions.emplace_back("avx512", simhash::detail::tally_bits_avx512);
    else
        std::printf("tally_bits_avx512 not tested: this CPU has no AVX-512 (F, BW, DQ)\n");
#endif
    std::mt19937_64 rng(19);
    for (const size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{254}, size_t{255}, size_t{256},
                           size_t{257}, size_t{510}, size_t{511}, size_t{1249}}) {
        for (const int mode : {0, 1, 2}) {  // random bits; every bit set (lanes fill to 255); none set
            std::vector<uint64_t> hashes(n);
            for (uint64_t& h : hashes) h = mode == 0 ? rng() : mode == 1 ? ~uint64_t{0} : 0;
            int32_t expected[64] = {};
            for (const uint64_t h : hashes)
                for (int b = 0; b < 64; ++b) expected[b] += ((h >> b) & 1) ? 1 : -1;
            for (const auto& [name, tally_bits] : versions) {
                int32_t tally[64];
                for (int b = 0; b < 64; ++b) tally[b] = 1000 + b;  // overwritten, not added to
                tally_bits(hashes.data(), n, tally);
                for (int b = 0; b < 64; ++b)
                    ASSERT_EQ(tally[b], expected[b]) << name << " " << n << " mode " << mode << " bit " << b;
            }
        }
    }
}

// The function words' vote gives the same sums, to the bit, and the same
// tie-break word in both versions, whatever words occur and how often.
TEST(Fingerprint, FunctionWordVoteVersionsAgree) {
    if (!simhash::FunctionWordTally::vote_avx512_supported()) {
        std::printf("FunctionWordTally::vote_avx512 not tested: this CPU has no AVX-512\n");
        return;
    }
    std::mt19937_64 rng(29);
    for (int trial = 0; trial < 2000; ++trial) {
        simhash::FunctionWordTally tally;
        const int occurrences = int(rng() % 400);
        for (int i = 0; i < occurrences; ++i)
            tally.add(int(rng() % (trial % 3 == 0 ? 4 : simhash::kEnglishStopWordCount)));
        double portable[64], avx512[64];
        for (int b = 0; b < 64; ++b) portable[b] = avx512[b] = double(int64_t(rng() % 41) - 20) / 3.0;
        uint64_t portable_tie = rng(), avx512_tie = portable_tie;
        tally.vote_portable(portable, &portable_tie);
        tally.vote_avx512(avx512, &avx512_tie);
        ASSERT_EQ(avx512_tie, portable_tie) << trial;
        for (int b = 0; b < 64; ++b)
            ASSERT_EQ(std::memcmp(&avx512[b], &portable[b], sizeof(double)), 0) << trial << " bit " << b;
    }
}

// count_ones() runs the fastest version the machine has.
TEST(Fingerprint, BitCounterIsTheFastestThisMachineHas) {
    const std::string version = simhash::detail::count_ones_version();
#if defined(__x86_64__)
    EXPECT_EQ(version, simhash::detail::count_ones_avx512_supported() ? "avx512"
                       : simhash::detail::count_ones_avx2_supported() ? "avx2"
                                                                      : "sse2");
#else
    EXPECT_EQ(version, "portable");
#endif
}

// add_all() of many hashes counts as add() of each would, also after
// other votes.
TEST(Fingerprint, AddAllCountsAsAddDoes) {
    std::mt19937_64 rng(19);
    for (const int before : {0, 1, 254, 300}) {
        for (const int n : {0, 1, 255, 1000}) {
            simhash::UnitVotes one_by_one, in_bulk;
            for (int i = 0; i < before; ++i) {
                const uint64_t h = rng() & rng();
                one_by_one.add(h);
                in_bulk.add(h);
            }
            std::vector<uint64_t> hashes(static_cast<size_t>(n));
            for (uint64_t& h : hashes) h = rng() | rng();
            for (const uint64_t h : hashes) one_by_one.add(h);
            in_bulk.add_all(hashes.data(), hashes.size());
            double sums_one[64], sums_bulk[64];
            one_by_one.sums(sums_one);
            in_bulk.sums(sums_bulk);
            EXPECT_EQ(in_bulk.features(), one_by_one.features());
            EXPECT_EQ(in_bulk.tie_break(), one_by_one.tie_break());
            for (int b = 0; b < 64; ++b) ASSERT_EQ(sums_bulk[b], sums_one[b]) << before << " + " << n << " bit " << b;
        }
    }
}

TEST(Fingerprint, ZeroWeightsAreNotFeatures) {
    simhash::RealVotes real;
    real.add(123, 0.0);
    EXPECT_EQ(real.features(), 0u);
    simhash::IntegerVotes integer;
    integer.add(123, 0);
    EXPECT_TRUE(integer.empty());
}

// Weighted votes of (hash, weight) pairs, added in the order given.
static simhash::RealVotes votes(const std::vector<std::pair<uint64_t, double>>& v) {
    simhash::RealVotes r;
    for (const auto& [h, w] : v) r.add(h, w);
    return r;
}

// A small weight next to two large ones that cancel must still decide the
// bits, whatever order the weights arrive in and however parallel workers
// split them (plain double sums lost it in one order and not the other).
TEST(Fingerprint, WeightedSumsDoNotDependOnOrder) {
    const uint64_t a = 0x0123456789abcdefULL, b = 0xfedcba9876543210ULL;
    simhash::RealVotes alone = votes({{b, 1.0}});
    const uint64_t expected = alone.fingerprint();
    EXPECT_EQ(votes({{a, 1e16}, {b, 1.0}, {a, -1e16}}).fingerprint(), expected);
    EXPECT_EQ(votes({{a, 1e16}, {a, -1e16}, {b, 1.0}}).fingerprint(), expected);
    EXPECT_EQ(votes({{b, 1.0}, {a, 1e16}, {a, -1e16}}).fingerprint(), expected);
    // Split between two "workers", merged in either order.
    simhash::RealVotes left = votes({{a, 1e16}, {b, 1.0}}), right = votes({{a, -1e16}});
    simhash::RealVotes merged_lr = left, merged_rl = right;
    merged_lr.merge(right);
    merged_rl.merge(left);
    EXPECT_EQ(merged_lr.fingerprint(), expected);
    EXPECT_EQ(merged_rl.fingerprint(), expected);
    EXPECT_FALSE(merged_lr.overflowed());
}

// RealVotes::add computes two bits at a time without branches; it must give
// what Neumaier's summation written plainly (rule 5) gives, bit for bit.
// Large weights that cancel leave the small ones to decide each bit, so a
// compensation term computed wrongly (the two addends swapped, say) shows
// in the fingerprint.
TEST(Fingerprint, WeightedVotesMatchPlainCompensatedSums) {
    std::mt19937_64 rng(11);
    int flipped_by_compensation = 0;
    for (int trial = 0; trial < 2000; ++trial) {
        simhash::RealVotes real;
        double sums[64] = {}, compensation[64] = {};
        uint64_t tie_break = 0;
        int count = 1 + int(rng() % 40);
        for (int k = 0; k < count; ++k) {
            const uint64_t h = rng();
            double w = std::ldexp(double(rng() % 1000 + 1), int(rng() % 80) - 40);
            if (rng() % 2) w = -w;
            // half the time, a large weight that a later vote takes back
            const bool cancel = rng() % 2;
            const double big = std::ldexp(1.0, 50 + int(rng() % 20));
            std::vector<std::pair<uint64_t, double>> votes = {{h, w}};
            if (cancel) votes = {{h ^ rng(), big}, {h, w}, {0, 0}};
            for (auto& [vh, vw] : votes) {
                if (cancel && vw == 0) { vh = votes[0].first; vw = -big; }
                real.add(vh, vw);
                for (int i = 0; i < 64; ++i) {
                    const double x = ((vh >> i) & 1) ? vw : -vw, sum = sums[i], t = sum + x;
                    compensation[i] += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
                    sums[i] = t;
                }
                tie_break += simhash::tie_mix(vh);
            }
        }
        uint64_t expected = 0;
        for (int i = 0; i < 64; ++i) {
            const double sum = sums[i] + compensation[i];
            if ((sum > 0) != (sums[i] > 0)) ++flipped_by_compensation;  // the compensation flips the bit
            if (sum > 0 || (sum == 0 && ((tie_break >> i) & 1))) expected |= uint64_t{1} << i;
        }
        ASSERT_EQ(real.fingerprint(), expected) << "trial " << trial;
    }
    EXPECT_GT(flipped_by_compensation, 100) << flipped_by_compensation;
}

// Overflow is decided by the weights, not their order: +1e308 twice and
// -1e308 once overflowed a running sum in one order and not in another.
TEST(Fingerprint, WeightOverflowDoesNotDependOnOrder) {
    const uint64_t a = 0x0123456789abcdefULL, b = 0xfedcba9876543210ULL;
    EXPECT_TRUE(votes({{a, 1e308}, {a, -1e308}, {b, 1e308}}).overflowed());
    EXPECT_TRUE(votes({{a, 1e308}, {b, 1e308}, {a, -1e308}}).overflowed());
    simhash::RealVotes left = votes({{a, 1e308}}), right = votes({{b, 1e308}});
    left.merge(right);
    EXPECT_TRUE(left.overflowed());
    // At the boundary: two weights each below half of DBL_MAX's last place
    // round away one by one after it, and not when they come first (a plain
    // sum of magnitudes overflowed in one order only).
    // Terms that really round away (1 and 2) never overflow.
    const double max = std::numeric_limits<double>::max();
    std::vector<std::pair<uint64_t, double>> boundary = {{a, 6e291}, {b, 6e291}, {a ^ b, max}};
    std::vector<std::pair<uint64_t, double>> rounding = {{a, 1.0}, {b, 2.0}, {a ^ b, max}};
    std::sort(boundary.begin(), boundary.end());
    std::sort(rounding.begin(), rounding.end());
    do EXPECT_TRUE(votes(boundary).overflowed()) << boundary[0].second << " first";
    while (std::next_permutation(boundary.begin(), boundary.end()));
    do EXPECT_FALSE(votes(rounding).overflowed()) << rounding[0].second << " first";
    while (std::next_permutation(rounding.begin(), rounding.end()));
    simhash::RealVotes small = votes({{a, 6e291}, {b, 6e291}}), large = votes({{a ^ b, max}});
    large.merge(small);
    EXPECT_TRUE(large.overflowed());
    // Up to the largest double in all, nothing overflows.
    EXPECT_FALSE(votes({{a, 8e307}, {b, -8e307}, {a, 1e307}}).overflowed());
    EXPECT_FALSE(votes({{a, 1e308}, {a, 7e307}}).overflowed());
}

TEST(Fingerprint, SmallEditsGiveSmallDistances) {
    std::string base, edited;
    for (int i = 0; i < 400; ++i) {
        std::string word = "w" + std::to_string(i % 97);
        base += word + " ";
        edited += (i == 200 ? std::string("changed") : word) + " ";
    }
    EXPECT_LE(simhash::hamming_distance(fingerprint(base).fingerprint, fingerprint(edited).fingerprint), 3);
}

// The pigeonhole index needs every bit to carry information.
static void expect_balanced_bits(const std::vector<uint64_t>& fps, double low = 0.45, double high = 0.55) {
    for (int bit = 0; bit < 64; ++bit) {
        size_t ones = 0;
        for (uint64_t fp : fps) ones += (fp >> bit) & 1;
        double share = double(ones) / fps.size();
        EXPECT_GT(share, low) << "bit " << bit;
        EXPECT_LT(share, high) << "bit " << bit;
    }
}

// Fingerprints of unrelated texts: none within the classic threshold of
// another, and on average more than min_mean bits apart.
static void expect_spread_out(const std::vector<uint64_t>& fps, double min_mean) {
    uint64_t pairs = 0, total = 0, within_threshold = 0;
    for (size_t i = 0; i < fps.size(); ++i)
        for (size_t j = i + 1; j < fps.size(); ++j) {
            int d = simhash::hamming_distance(fps[i], fps[j]);
            ++pairs;
            total += d;
            within_threshold += d <= 3;
        }
    EXPECT_EQ(within_threshold, 0u);
    EXPECT_GT(double(total) / pairs, min_mean);
}

// "Unrelated" means no vocabulary in common: every word is drawn afresh.  A
// shared vocabulary of V words carries a per-bit imbalance of about 1/sqrt(V)
// that a document of L words amplifies by sqrt(L), and real documents share
// function words on top of that; both are measured on real text in test/eval.
TEST(Fingerprint, BitsAreBalancedOverUnrelatedAlphabeticTexts) {
    std::mt19937_64 rng(11);
    std::vector<uint64_t> fps;
    for (int doc = 0; doc < 6000; ++doc) {
        std::string text;
        int words = 1 + int(rng() % 300);
        for (int w = 0; w < words; ++w) {
            int len = 4 + int(rng() % 8);
            for (int c = 0; c < len; ++c) text.push_back(char((rng() % 3 == 0 ? 'A' : 'a') + rng() % 26));
            text += rng() % 10 ? " " : ". ";
        }
        fps.push_back(fingerprint(text).fingerprint);
    }
    expect_balanced_bits(fps);
}

// Random text over 3,500 common Han characters, with a comma now and then.
static std::vector<std::string> chinese_like_texts(int count, int min_chars, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::string> texts;
    char buf[4];
    for (int doc = 0; doc < count; ++doc) {
        std::string text;
        int chars = min_chars + int(rng() % 300);
        for (int c = 0; c < chars; ++c) {
            int len = simhash::encode_utf8(char32_t(0x4E00 + rng() % 3500), buf);
            text.append(buf, len);
            if (rng() % 12 == 0) text += "，";
        }
        texts.push_back(std::move(text));
    }
    return texts;
}

// Character bigrams: a vocabulary of millions, so unrelated texts share
// almost no feature and every bit balances.
TEST(Fingerprint, BitsAreBalancedOverUnrelatedChineseLikeTextsWithBigrams) {
    std::vector<uint64_t> fps;
    for (const std::string& text : chinese_like_texts(6000, 4, 13))
        fps.push_back(fingerprint(text, TokenizerKind::kMixed, 2).fingerprint);
    expect_balanced_bits(fps);
}

// Single characters (the default) all come from one alphabet of 3,500, so by
// the 1/sqrt(V) * sqrt(L) rule above a long text's bits lean the way the
// alphabet's hashes lean (about 0.35 to 0.65 here; test/eval measures real
// text).  What the index and the threshold need still holds: unrelated texts
// spread out and none falls within the classic threshold of another.
TEST(Fingerprint, UnrelatedChineseLikeTextsStayApartWithSingleCharacters) {
    std::vector<uint64_t> fps;
    for (const std::string& text : chinese_like_texts(1500, 50, 17)) fps.push_back(fingerprint(text).fingerprint);
    expect_balanced_bits(fps, 0.25, 0.75);
    expect_spread_out(fps, 28.0);
}

// Regression: mixed 1 once made every kana a feature of its own.  Kana are
// about 90 sounds that every Japanese text repeats, so unrelated pages
// clustered (422 of 29,161 pairs of Japanese man pages within 3).  Random
// kana-heavy texts must spread out like any unrelated texts.
TEST(Fingerprint, UnrelatedKanaHeavyTextsStayApart) {
    std::mt19937_64 rng(19);
    std::vector<uint64_t> fps;
    char buf[4];
    for (int doc = 0; doc < 600; ++doc) {
        std::string text;
        int chars = 200 + int(rng() % 400);
        for (int c = 0; c < chars; ++c) {
            char32_t code = rng() % 10 < 6 ? char32_t(0x3041 + rng() % 86)  // hiragana
                                           : char32_t(0x4E00 + rng() % 2000);
            text.append(buf, simhash::encode_utf8(code, buf));
        }
        fps.push_back(fingerprint(text).fingerprint);
    }
    expect_spread_out(fps, 24.0);
}
