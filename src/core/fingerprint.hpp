// SimHash (Charikar 2002): every feature is hashed to 64 bits with XXH3-64
// (seed 0); for every bit position the feature's weight is added where its
// hash has a 1 and subtracted where it has a 0; fingerprint bit i is 1 when
// that sum is > 0 and 0 when it is < 0.  Bit 0 is the least significant bit,
// so hash bit i always votes on fingerprint bit i.
//
// Ties (a sum of exactly 0) are common in short texts: "a b" ties wherever the
// two hashes differ.  A fixed tie bit would bias short texts towards it, so a
// tied bit i takes bit i of the tie-break word: the wrapping 64-bit sum, over
// every vote, of tie_mix(hash) (the splitmix64 finalizer).  The sum does not
// depend on the order of the features.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "tokenizer.hpp"
#include "word_batch.hpp"

namespace simhash {

// The version of the published algorithm (tokenizers, hash, weighting, tie
// rule).  Bump it whenever a stored fingerprint could change.
// Version 2 made simhash(text) mixed 1 and took English function words out of
// the mixed tokenizer; version 1 was mixed 2 with every word.  Version 3
// folds case by Unicode simple case folding for every script and drops the
// soft hyphen and U+FEFF inside words.  Version 4 takes the character
// classes from General_Category (scripts/gen-char-classes.py): the
// punctuation and symbols of scripts the hand-made table did not list
// separate instead of joining words.  Version 5 takes English function
// words back into the mixed tokenizer, each voting once per text with
// weight count^0.75 in simhash(text) (FunctionWordTally).  Version 6
// weighs the repeated features of a mixed text of 51 to 2,499 others above
// their count (repeat_boost_exponent).
constexpr int kAlgorithmVersion = 6;

// What simhash(text) uses: words, English function words weighed down, and
// single ideographs (they gave the best recall on test/eval's Chinese set; kana keep bigrams).
constexpr TokenizerKind kDefaultTokenizer = TokenizerKind::kMixed;
constexpr int kDefaultNgram = 1;

uint64_t feature_hash(const char* feature, size_t length) noexcept;

namespace detail {
// XXH3's constants for 1 to 3 bytes (xxhash.h, XXH3_len_1to3_64b, seed 0):
// the first two 32-bit words of its default secret XORed, and XXH64's
// avalanche primes.
constexpr uint64_t kXxh3Secret1to3 = 0x87275a9bULL;
constexpr uint64_t kXxhPrime64_2 = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t kXxhPrime64_3 = 0x165667B19E3779F9ULL;
}  // namespace detail

// feature_hash() of 1 to 3 bytes (a character of the BMP, or a short
// word), inline: XXH3's formula for these lengths.  The unit tests compare
// every such string with the library.
inline uint64_t feature_hash_1to3(const char* feature, size_t length) noexcept {
    const auto* bytes = reinterpret_cast<const unsigned char*>(feature);
    uint64_t h = (uint64_t(bytes[0]) << 16) | (uint64_t(bytes[length >> 1]) << 24) | uint64_t(bytes[length - 1]) |
                 (uint64_t(length) << 8);
    h ^= detail::kXxh3Secret1to3;
    h = (h ^ (h >> 33)) * detail::kXxhPrime64_2;
    h = (h ^ (h >> 29)) * detail::kXxhPrime64_3;
    return h ^ (h >> 32);
}

namespace detail {
// The bits of a fingerprint from its sums (fingerprint.cpp, "The signs of
// the 64 sums"): bit i is 1 when 2 * ones[i] > n (UnitVotes: ones[i] of n
// hashes have bit i) or sums[i] > 0, and bit i of tie_break on a tie.  The
// AVX-512 versions, for machines where signs_avx512_supported(), give the
// same bits.
uint64_t unit_signs_portable(const uint64_t ones[64], uint64_t n, uint64_t tie_break) noexcept;
uint64_t unit_signs_avx512(const uint64_t ones[64], uint64_t n, uint64_t tie_break) noexcept;
uint64_t double_signs_portable(const double sums[64], uint64_t tie_break) noexcept;
uint64_t double_signs_avx512(const double sums[64], uint64_t tie_break) noexcept;
bool signs_avx512_supported() noexcept;
// Rule 5's extra weight of a group (fingerprint.cpp): sums[b] += weight *
// double(tally[b]), the product and the sum each rounded; the AVX-512
// version, where signs_avx512_supported(), gives the same sums to the bit.
void add_weighted_tally_portable(double sums[64], double weight, const int32_t tally[64]) noexcept;
void add_weighted_tally_avx512(double sums[64], double weight, const int32_t tally[64]) noexcept;
}  // namespace detail

// The splitmix64 finalizer: decorrelates the tie-break word from the votes.
constexpr uint64_t tie_mix(uint64_t hash) noexcept {
    hash = (hash ^ (hash >> 30)) * 0xbf58476d1ce4e5b9ULL;
    hash = (hash ^ (hash >> 27)) * 0x94d049bb133111ebULL;
    return hash ^ (hash >> 31);
}

// How a feature that occurs tf times in a mixed text weighs:
// tf * min(tf, kBoostCountCap)^x, where x = repeat_boost_exponent(n) and n
// counts the text's features other than English function words.  x is 0
// (plain term frequency) up to 50 features, rises linearly to 0.35 at 300
// and falls linearly back to 0 at 2,500 and beyond.
//
// Why: in a text of a few hundred features most features occur once, and
// every edit moves several of the 64 sums, which sit close to 0; weighing
// the repeated features up, which edits rarely remove, holds those texts'
// fingerprints steady (test/eval: at 2% edits, 0.96 -> 0.97 of the copies
// within 3).  A long text's repeated features are the language's commonest
// words and characters, which unrelated long texts share, so the same weight
// would pull them together (tf^1.2 everywhere put unrelated Chinese pages of
// 1,600 to 10,000 characters within 3); they need no help (0.98 and more).
// Titles and one-liners keep the count too: with one word in a few repeated,
// that word would decide the fingerprint.  The boost stops growing at 8
// occurrences: without the cap a short text's topic word ("savepoint" in a
// SAVEPOINT reference page), or a tag on every line, decided its
// fingerprint alone (6 unrelated pairs of Debian manual sections within 3,
// none with it).  Where x is 0 the rule is version 5's, to the bit.
constexpr uint64_t kBoostFrom = 50;
constexpr uint64_t kBoostPeak = 300;
constexpr uint64_t kBoostTo = 2500;
constexpr double kBoostMaxExponent = 0.35;
constexpr uint64_t kBoostCountCap = 8;
double repeat_boost_exponent(uint64_t occurrences) noexcept;
// tf * min(tf, kBoostCountCap)^exponent, in double precision with C's pow.
double boosted_weight(uint64_t tf, double exponent) noexcept;

// Votes of features that all weigh the same (one vote per occurrence, which is
// term-frequency weighting), counted by detail::count_ones (count_ones.hpp).
class UnitVotes {
public:
    void add(uint64_t hash) noexcept { add_all(&hash, 1); }
    // add() of each of hashes[0..n): the way to count many.
    void add_all(const uint64_t* hashes, size_t n) noexcept;
    uint64_t features() const noexcept { return features_; }
    uint64_t tie_break() const noexcept { return tie_break_; }
    uint64_t fingerprint() const noexcept;
    // With the function words' votes (mixed tokenizer) added.
    uint64_t fingerprint(const class FunctionWordTally& function_words) const noexcept;
    // Each bit's sum of +1 and -1 votes (exact: they are integers).
    void sums(double out[64]) const noexcept;

private:
    uint64_t ones_[64] = {};  // how many of the hashes have each bit set
    uint64_t features_ = 0;
    uint64_t tie_break_ = 0;
};

// Votes with an integer weight per feature (tsvector labels); a weight of w
// counts as w votes, exactly as w occurrences would in UnitVotes.
class IntegerVotes {
public:
    void add(uint64_t hash, int64_t weight) noexcept;
    bool empty() const noexcept { return features_ == 0; }
    uint64_t features() const noexcept { return features_; }
    uint64_t fingerprint() const noexcept;
    // Adds each bit's sum to out[i] and the tie-break votes to *tie_break.
    void add_to(double out[64], uint64_t* tie_break) const noexcept;

private:
    int64_t sums_[64] = {};
    uint64_t features_ = 0;
    uint64_t tie_break_ = 0;
};

// Votes with a real weight per feature (arrays, the aggregate).  Zero weights
// are not features; each add() is one vote for the tie-break word, so equal
// weights give the same fingerprint as UnitVotes.  The caller rejects
// non-finite weights.
class RealVotes {
public:
    void add(uint64_t hash, double weight) noexcept;
    void merge(const RealVotes& other) noexcept;
    uint64_t features() const noexcept { return features_; }
    uint64_t fingerprint() const noexcept;
    // True when the weights' absolute values add up past DBL_MAX: their sum,
    // compensated, rounds to infinity.  The compensation keeps the order of
    // the weights from mattering (a plain sum kept DBL_MAX + 6e291 + 6e291
    // at DBL_MAX in that order and not in the other), except within a few
    // units in the last place of DBL_MAX (2^971 each): a running sum that
    // rounded up can reach infinity before a later weight is added that the
    // compensation would have brought it back under (2^1023,
    // then 2^970 + 2^918, then 2^1023 - 2^971 - 2^970 overflows; backwards
    // it does not).
    bool overflowed() const noexcept;

private:
    double sums_[64] = {};
    double compensation_[64] = {};  // rounding error of each sum so far
    double magnitude_ = 0;  // sum of |weight| so far
    double magnitude_compensation_ = 0;  // its rounding error, as compensation_ is the sums'
    uint64_t features_ = 0;
    uint64_t tie_break_ = 0;
};

// The English function words of a text (the mixed tokenizer's features that
// stop_words.hpp lists), counted apart: each listed word votes once, with
// weight count^0.75, computed as sqrt(c) * sqrt(sqrt(c)) so that every IEEE
// machine rounds it alike, and adds count votes' worth of tie-break.  A
// weight that grows more slowly than the count keeps "the" and "of" from
// outvoting what a text is about, as full weight did, while still letting
// them hold the fingerprint of prose steady (stop_words.hpp).
class FunctionWordTally {
public:
    void add(int index) noexcept {
        ++counts_[index];
        ++occurrences_;
        present_[index >> 6] |= uint64_t{1} << (index & 63);
    }
    // add() of each of indexes[0..n), with no branch on which word each is.
    void add_all(const uint8_t* indexes, size_t n) noexcept {
        uint64_t present[2] = {present_[0], present_[1]};
        for (size_t i = 0; i < n; ++i) {
            const unsigned index = indexes[i];
            ++counts_[index];
            present[index >> 6] |= uint64_t{1} << (index & 63);
        }
        present_[0] = present[0];
        present_[1] = present[1];
        occurrences_ += n;
    }
    uint64_t occurrences() const noexcept { return occurrences_; }
    // Adds each word's signed weight to sums[i], in list order, and its
    // tie-break votes to *tie_break.
    void vote(double sums[64], uint64_t* tie_break) const noexcept;
    static double weight(uint64_t count) noexcept;
    // The versions vote() chooses from, with the same sums to the bit:
    // AVX-512 where the CPU has it, else the portable loop.
    void vote_portable(double sums[64], uint64_t* tie_break) const noexcept;
    void vote_avx512(double sums[64], uint64_t* tie_break) const noexcept;
    static bool vote_avx512_supported() noexcept;

private:
    static const uint64_t* word_hashes() noexcept;  // the words' feature_hash(), computed once
    static constexpr size_t kWords = 126;
    uint64_t counts_[kWords] = {};
    uint64_t occurrences_ = 0;
    uint64_t present_[2] = {};  // which words occur: vote() visits only those, in list order
};

// The votes of a text's features as simhash(text) counts them: each
// occurrence one vote, English function words (the tokenizer names them) in
// a FunctionWordTally; in a mixed text of more than kBoostFrom and fewer
// than kBoostTo other features, each of them votes once with weight
// boosted_weight(tf, repeat_boost_exponent()) instead.  Trivially destructible (an ereport
// may longjmp over it), so the hashes it keeps are an array.
//
// The hashes are kept, kBoostTo at a time, and counted when the array is
// full or the text ends, in a loop over an array rather than one feature
// at a time (UnitVotes::add_all).  A text of fewer than kBoostTo
// features, nearly every text, is counted once; where the length
// weighting applies, its repeated features are then found in the kept
// hashes and their extra weight added (fingerprint.cpp, "Rule 5's extra
// weight").  Where the CPU has AVX-512, the mixed tokenizer's words of up
// to 16 bytes wait in a WordBatch, which split_words_avx512() sorts into
// function words and hashes, eight at a time (word_batch.cpp); elsewhere
// each is looked up and hashed as it comes.  The votes do not depend on
// the order the features come in.
class TextVotes {
public:
    // The votes are a sum: the tokenizer may give the features in any order (tokenizer.hpp).
    static constexpr bool kAnyOrder = true;
    // avx512: batch words and hash a block's characters with AVX-512 where
    // the CPU can (the tests ask for either way).
    explicit TextVotes(TokenizerKind kind, bool avx512 = true) noexcept
        : length_weighted_(kind == TokenizerKind::kMixed),
          batch_words_(avx512 && detail::split_words_avx512_supported()),
          hash_chars_avx512_(avx512 && detail::hash_block_chars_avx512_supported()) {}
    // A tokenizer sink's arguments (tokenizer.hpp): function_word is -1 for other features.
    void add(const char* feature, size_t length, int function_word) noexcept {
        if (function_word >= 0) {
            function_words_.add(function_word);
            return;
        }
        hashes_[kept_] = length <= 3 ? feature_hash_1to3(feature, length) : feature_hash(feature, length);
        if (++kept_ >= kBoostTo) count_kept();
    }
    // The tokenizer's sink: a feature, or a word it leaves to be looked up.
    void operator()(const char* feature, size_t length, int function_word) noexcept {
        add(feature, length, function_word);
    }
    void operator()(ShortWord word) noexcept {
        if (!batch_words_) {
            add(word.bytes, word.length, english_stop_word_index_padded(word.bytes, word.length));
            return;
        }
        std::memcpy(batch_.bytes[batch_.count], word.bytes, 16);
        batch_.lengths[batch_.count] = uint8_t(word.length);
        if (++batch_.count == detail::kWordBatch) split_batch();
    }
    // A block's characters (tokenizer.hpp), hashed together.
    void operator()(BlockChars chars) noexcept {
        kept_ += uint32_t(hash_chars_avx512_ ? detail::hash_block_chars_avx512(chars, hashes_ + kept_)
                                             : detail::hash_block_chars_portable(chars, hashes_ + kept_));
        if (kept_ >= kBoostTo) count_kept();
    }
    uint64_t features() const noexcept {
        return votes_.features() + kept_ + function_words_.occurrences() + batch_.count;
    }
    uint64_t fingerprint() noexcept { return fingerprint(nullptr); }
    // With a tsvector's votes added too (the trigger's sources), when also is not null.
    uint64_t fingerprint(const IntegerVotes* also) noexcept;

private:
    // Adds the kept hashes to votes_ and empties the array.
    void count_kept() noexcept {
        votes_.add_all(hashes_, kept_);
        kept_ = 0;
    }
    // Counts the batch's function words and keeps the others' hashes.
    void split_batch() noexcept;

    UnitVotes votes_;  // the votes of the hashes counted so far
    FunctionWordTally function_words_;
    bool length_weighted_;
    bool batch_words_;          // words wait in batch_ (AVX-512), or are looked up as they come
    bool hash_chars_avx512_;    // a block's characters are hashed eight at a time (AVX-512 VBMI)
    detail::WordBatch batch_;  // words not yet looked up
    // The hashes of the features other than function words since the last
    // count_kept(): every one of a text with fewer than kBoostTo, which are
    // the texts whose weights may not be their counts.
    uint32_t kept_ = 0;
    // (a batch's hashes, or a block's 32 characters at most, can take kept_
    // past kBoostTo, and both store whole vectors)
    uint64_t hashes_[kBoostTo + detail::kWordBatch + detail::kWordBatchSlack];
    static_assert(detail::kWordBatch >= 32, "a block's characters fit after kBoostTo - 1 hashes");
};

struct TextFingerprint {
    uint64_t fingerprint;
    uint64_t features;  // 0 means the text has no features: no fingerprint
};

// Requires 1 <= n <= kMaxNgram and scratch of tokenizer_scratch_size(length) bytes.
TextFingerprint fingerprint_text(const char* text, size_t length, TokenizerKind kind, int n,
                                 char* scratch) noexcept;

}  // namespace simhash
