// SimHash (Charikar 2002): every feature is hashed to 64 bits with XXH3-64
// (seed 0); for every bit position the feature's weight is added where its
// hash has a 1 and subtracted where it has a 0; fingerprint bit i is 1 exactly
// when that sum is > 0 (a sum of exactly 0 gives 0).  Bit 0 is the least
// significant bit, so hash bit i always votes on fingerprint bit i.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tokenizer.hpp"

namespace simhash {

// The version of the published algorithm (tokenizers, hash, weighting, tie
// rule).  Bump it whenever a stored fingerprint could change.
constexpr int kAlgorithmVersion = 1;

// What simhash(text) uses: words, and character bigrams inside CJK runs.
constexpr TokenizerKind kDefaultTokenizer = TokenizerKind::kMixed;
constexpr int kDefaultNgram = 2;

uint64_t feature_hash(const char* feature, size_t length) noexcept;

// Votes of features that all weigh the same (one vote per occurrence, which is
// term-frequency weighting).  Counts bits eight at a time in byte lanes.
class UnitVotes {
public:
    void add(uint64_t hash) noexcept;
    uint64_t features() const noexcept { return features_; }
    uint64_t fingerprint() noexcept;

private:
    void flush() noexcept;
    uint64_t lanes_[8] = {};  // byte k of lanes_[j] counts ones of bit 8*j+k since the last flush
    uint32_t pending_ = 0;
    uint64_t ones_[64] = {};
    uint64_t features_ = 0;
};

// Votes with an integer weight per feature (tsvector labels).
class IntegerVotes {
public:
    void add(uint64_t hash, int64_t weight) noexcept;
    bool empty() const noexcept { return features_ == 0; }
    uint64_t features() const noexcept { return features_; }
    uint64_t fingerprint() const noexcept;

private:
    int64_t sums_[64] = {};
    uint64_t features_ = 0;
};

// Votes with a real weight per feature (arrays, the aggregate).  Zero weights
// are not features.  The caller rejects non-finite weights.
class RealVotes {
public:
    void add(uint64_t hash, double weight) noexcept;
    void merge(const RealVotes& other) noexcept;
    uint64_t features() const noexcept { return features_; }
    uint64_t fingerprint() const noexcept;
    // True when some running sum stopped being finite (weights near DBL_MAX).
    bool overflowed() const noexcept;

private:
    double sums_[64] = {};
    uint64_t features_ = 0;
};

struct TextFingerprint {
    uint64_t fingerprint;
    uint64_t features;  // 0 means the text has no features: no fingerprint
};

// Requires 1 <= n <= kMaxNgram and scratch of tokenizer_scratch_size(length) bytes.
TextFingerprint fingerprint_text(const char* text, size_t length, TokenizerKind kind, int n,
                                 char* scratch) noexcept;

}  // namespace simhash
