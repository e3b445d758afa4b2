#include <gtest/gtest.h>

#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "fingerprint.hpp"
#include "stop_words.hpp"
#include "word_batch.hpp"

using simhash::detail::BatchFunctionWords;
using simhash::detail::kWordBatch;
using simhash::detail::kWordBatchSlack;
using simhash::detail::WordBatch;

namespace {

bool have_avx512() {
    if (simhash::detail::split_words_avx512_supported()) return true;
    std::printf("split_words_avx512 not tested: this CPU has no AVX-512\n");
    return false;
}

// A word of 1 to 16 bytes meant to find every path of the lookup: function
// words, function words one byte longer or shorter, the three of 9 and 10
// bytes and words that share their first or last 8 bytes, words of one
// repeated byte (whose head and tail agree at every length), words with
// bytes outside ASCII or zero bytes, and random lower-case words.
std::string tricky_word(std::mt19937_64& rng) {
    const auto stop = [&rng] {
        return std::string(simhash::kEnglishStopWords[rng() % simhash::kEnglishStopWordCount]);
    };
    std::string w;
    switch (rng() % 9) {
        case 0: w = stop(); break;
        case 1: w = stop() + char('a' + rng() % 26); break;
        case 2: w = stop(); if (w.size() > 1) w.pop_back(); break;
        case 3: w = std::vector<std::string>{"ourselves", "themselves", "yourselves"}[rng() % 3]; break;
        case 4: w = std::vector<std::string>{"ourselvesx", "xourselves", "themselvesx", "yourselve", "themselve"}[rng() % 5]; break;
        case 5: w.assign(1 + rng() % 16, char('a' + rng() % 3)); break;
        case 6: for (size_t i = 1 + rng() % 16; i > 0; --i) w += char(rng() % 256); break;
        default: for (size_t i = 1 + rng() % 16; i > 0; --i) w += char('a' + rng() % 26); break;
    }
    return w.substr(0, 16);
}

void fill(WordBatch* batch, const std::vector<std::string>& words, std::mt19937_64& rng) {
    batch->count = words.size();
    for (size_t i = 0; i < words.size(); ++i) {
        for (char& c : batch->bytes[i]) c = char(rng());  // whatever follows a word
        std::memcpy(batch->bytes[i], words[i].data(), words[i].size());
        batch->lengths[i] = uint8_t(words[i].size());
    }
}

}  // namespace

// The portable split is the lookup and XXH3 itself, word by word.
TEST(WordBatch, PortableSplitLooksUpAndHashesEachWord) {
    std::mt19937_64 rng(5);
    WordBatch batch;
    std::vector<std::string> words;
    for (size_t i = 0; i < kWordBatch; ++i) words.push_back(tricky_word(rng));
    fill(&batch, words, rng);
    BatchFunctionWords found;
    uint64_t hashes[kWordBatch + kWordBatchSlack];
    const size_t hashed = simhash::detail::split_words_portable(batch, &found, hashes);
    size_t f = 0, h = 0;
    for (const std::string& w : words) {
        const int index = simhash::english_stop_word_index(w.data(), w.size());
        if (index >= 0) {
            ASSERT_LT(f, found.count);
            EXPECT_EQ(found.index[f++], index) << w;
        } else {
            ASSERT_LT(h, hashed);
            EXPECT_EQ(hashes[h++], XXH3_64bits_withSeed(w.data(), w.size(), 0)) << w;
        }
    }
    EXPECT_EQ(f, found.count);
    EXPECT_EQ(h, hashed);
}

// AVX-512 finds the same function words (in any order: they are counted)
// and the same hashes in the same order, for batches of every size.
TEST(WordBatch, Avx512SplitMatchesPortable) {
    if (!have_avx512()) return;
    std::mt19937_64 rng(11);
    for (int trial = 0; trial < 20000; ++trial) {
        std::vector<std::string> words(1 + rng() % kWordBatch);
        for (std::string& w : words) w = tricky_word(rng);
        WordBatch batch;
        fill(&batch, words, rng);
        BatchFunctionWords expected_found, found;
        uint64_t expected[kWordBatch + kWordBatchSlack], hashes[kWordBatch + kWordBatchSlack];
        const size_t expected_hashed = simhash::detail::split_words_portable(batch, &expected_found, expected);
        const size_t hashed = simhash::detail::split_words_avx512(batch, &found, hashes);
        ASSERT_EQ(hashed, expected_hashed) << trial;
        for (size_t i = 0; i < hashed; ++i) ASSERT_EQ(hashes[i], expected[i]) << trial << " " << i;
        ASSERT_EQ(found.count, expected_found.count) << trial;
        std::sort(found.index, found.index + found.count);
        std::sort(expected_found.index, expected_found.index + expected_found.count);
        for (size_t i = 0; i < found.count; ++i) ASSERT_EQ(found.index[i], expected_found.index[i]) << trial;
    }
}

// Every length XXH3 branches on, every byte value, against the library.
TEST(WordBatch, Avx512HashIsXxh3OfEveryLength) {
    if (!have_avx512()) return;
    std::mt19937_64 rng(3);
    for (int trial = 0; trial < 2000; ++trial) {
        std::vector<std::string> words;
        for (size_t length = 1; length <= 16; ++length) {
            std::string w;
            for (size_t i = 0; i < length; ++i) w += char(trial < 256 ? trial : int(rng() % 256));
            if (simhash::english_stop_word_index(w.data(), w.size()) < 0) words.push_back(w);
        }
        WordBatch batch;
        fill(&batch, words, rng);
        BatchFunctionWords found;
        uint64_t hashes[kWordBatch + kWordBatchSlack];
        ASSERT_EQ(simhash::detail::split_words_avx512(batch, &found, hashes), words.size());
        for (size_t i = 0; i < words.size(); ++i)
            ASSERT_EQ(hashes[i], XXH3_64bits_withSeed(words[i].data(), words[i].size(), 0)) << words[i].size();
    }
}

// Text fingerprints with the words batched and word by word: the same,
// on both sides of rule 5's ramp and of kBoostTo, where the kept hashes
// are counted (a batch can take them past it).
// A block's characters (BlockChars) hashed eight at a time are
// feature_hash() of each, for random blocks holding 0 to 32 characters of
// 2 and 3 bytes anywhere, the last ending at byte 63 too.
TEST(WordBatch, Avx512BlockCharsMatchPortable) {
    if (!simhash::detail::hash_block_chars_avx512_supported()) {
        std::printf("hash_block_chars_avx512 not tested: this CPU has no AVX-512 VBMI2\n");
        return;
    }
    std::mt19937_64 rng(64);
    for (int trial = 0; trial < 100000; ++trial) {
        char block[64];
        for (char& c : block) c = char(rng());
        simhash::BlockChars chars{block, 0, 0};
        std::vector<std::string> expected;
        const int density = 1 + int(rng() % 4);  // from a few characters to a block full of them
        for (int at = int(rng() % 3); at < 64;) {
            const int length = 2 + int(rng() % 2);
            if (at + length > 64) break;
            if (int(rng() % 4) < density) {
                chars.starts |= uint64_t{1} << at;
                chars.lasts |= uint64_t{1} << (at + length - 1);
                expected.emplace_back(block + at, size_t(length));
            }
            at += length + (rng() % 3 == 0 ? 1 : 0);
        }
        uint64_t portable[32], vector[32 + 8];
        const size_t count = simhash::detail::hash_block_chars_portable(chars, portable);
        ASSERT_EQ(count, expected.size());
        ASSERT_EQ(simhash::detail::hash_block_chars_avx512(chars, vector), count);
        for (size_t i = 0; i < count; ++i) {
            ASSERT_EQ(portable[i], simhash::feature_hash(expected[i].data(), expected[i].size())) << trial << " " << i;
            ASSERT_EQ(vector[i], portable[i]) << trial << " " << i;
        }
    }
}

TEST(WordBatch, BatchedWordsVoteAsWordByWord) {
    if (!have_avx512()) return;
    std::mt19937_64 rng(23);
    const std::vector<std::string> vocabulary = {"The",    "of",        "and",       "ourselves", "Themselves",
                                                 "window", "apple",     "rivers",    "über",      "straße",
                                                 "ПРИВЕТ", "configure", "ab",        "x",         "interoperability", "core", "cat",
                                                 "世界",   "かな",      "internationalization", "，", "─"};
    for (int trial = 0; trial < 400; ++trial) {
        const int words = trial < 200 ? 2400 + int(rng() % 200) : 1 + int(rng() % 6000);
        std::string text;
        for (int w = 0; w < words; ++w) text += vocabulary[rng() % vocabulary.size()] + (rng() % 8 ? " " : ", ");
        std::vector<char> scratch(simhash::tokenizer_scratch_size(text.size()));
        simhash::TextVotes batched(simhash::kDefaultTokenizer, true), single(simhash::kDefaultTokenizer, false);
        simhash::tokenize(text.data(), text.size(), simhash::kDefaultTokenizer, simhash::kDefaultNgram, scratch.data(),
                          batched);
        simhash::tokenize(text.data(), text.size(), simhash::kDefaultTokenizer, simhash::kDefaultNgram, scratch.data(),
                          single);
        ASSERT_EQ(batched.features(), single.features()) << words;
        ASSERT_EQ(batched.fingerprint(), single.fingerprint()) << words;
    }
}
