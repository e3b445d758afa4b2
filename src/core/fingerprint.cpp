#include "fingerprint.hpp"

#include "count_ones.hpp"
#include "x86_intrinsics.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace simhash {

uint64_t feature_hash(const char* feature, size_t length) noexcept {
    return XXH3_64bits_withSeed(feature, length, 0);
}

void UnitVotes::add_all(const uint64_t* hashes, size_t n) noexcept {
    tie_break_ += detail::count_ones(hashes, n, ones_);
    features_ += n;
}

// The signs of the 64 sums
// ------------------------
// Bit i of a fingerprint is 1 when sum i is > 0, else bit i of the
// tie-break word when the sum is exactly 0.  The bits are set with & and
// |, not && and ||: the signs are as good as random, and a branch on each
// was mispredicted half the time (about 500 cycles a text).  Where the CPU
// has AVX-512, eight sums are compared at once, for > and for ==: the loop
// of 64 took some 200 cycles, half the fixed cost of a short text.
// (The versions are file-local so that calls inline; the detail::
// functions below, which the unit tests compare, call them.  A library
// built with -fPIC calls its own exported functions through its PLT.)
static uint64_t unit_signs_portable(const uint64_t ones[64], uint64_t n, uint64_t tie_break) noexcept {
    uint64_t fp = 0;
    for (int i = 0; i < 64; ++i) {
        const uint64_t tie = (tie_break >> i) & 1;
        fp |= uint64_t((2 * ones[i] > n) | ((2 * ones[i] == n) & tie)) << i;
    }
    return fp;
}

template <class Sum>
static uint64_t signs_portable(const Sum sums[64], uint64_t tie_break) noexcept {
    uint64_t fp = 0;
    for (int i = 0; i < 64; ++i) {
        const uint64_t tie = (tie_break >> i) & 1;
        fp |= uint64_t((sums[i] > 0) | ((sums[i] == 0) & tie)) << i;
    }
    return fp;
}

#if defined(__x86_64__)
// Whether this file's AVX-512 versions (the signs, rule 5's weighted tallies) run here.
static bool use_avx512() noexcept { return detail::cpu_has_avx512(); }

__attribute__((target("avx512f"))) static uint64_t unit_signs_avx512(const uint64_t ones[64], uint64_t n,
                                                                     uint64_t tie_break) noexcept {
    const __m512i count = _mm512_set1_epi64(int64_t(n));
    uint64_t fp = 0;
    for (int j = 0; j < 8; ++j) {
        const __m512i twice = _mm512_slli_epi64(_mm512_loadu_si512(ones + 8 * j), 1);
        const unsigned bits = _mm512_cmpgt_epu64_mask(twice, count) |
                              (_mm512_cmpeq_epu64_mask(twice, count) & unsigned(tie_break >> (8 * j)));
        fp |= uint64_t(bits & 0xFF) << (8 * j);
    }
    return fp;
}

__attribute__((target("avx512f"))) static uint64_t double_signs_avx512(const double sums[64],
                                                                       uint64_t tie_break) noexcept {
    const __m512d zero = _mm512_setzero_pd();
    uint64_t fp = 0;
    for (int j = 0; j < 8; ++j) {
        const __m512d sum = _mm512_loadu_pd(sums + 8 * j);
        const unsigned bits = _mm512_cmp_pd_mask(sum, zero, _CMP_GT_OQ) |
                              (_mm512_cmp_pd_mask(sum, zero, _CMP_EQ_OQ) & unsigned(tie_break >> (8 * j)));
        fp |= uint64_t(bits & 0xFF) << (8 * j);
    }
    return fp;
}
#else
static bool use_avx512() noexcept { return false; }
static uint64_t unit_signs_avx512(const uint64_t ones[64], uint64_t n, uint64_t tie_break) noexcept {
    return unit_signs_portable(ones, n, tie_break);
}
static uint64_t double_signs_avx512(const double sums[64], uint64_t tie_break) noexcept {
    return signs_portable(sums, tie_break);
}
#endif

namespace detail {
uint64_t unit_signs_portable(const uint64_t ones[64], uint64_t n, uint64_t tie_break) noexcept {
    return simhash::unit_signs_portable(ones, n, tie_break);
}
uint64_t unit_signs_avx512(const uint64_t ones[64], uint64_t n, uint64_t tie_break) noexcept {
    return simhash::unit_signs_avx512(ones, n, tie_break);
}
uint64_t double_signs_portable(const double sums[64], uint64_t tie_break) noexcept {
    return signs_portable(sums, tie_break);
}
uint64_t double_signs_avx512(const double sums[64], uint64_t tie_break) noexcept {
    return simhash::double_signs_avx512(sums, tie_break);
}
bool signs_avx512_supported() noexcept { return use_avx512(); }
}  // namespace detail

uint64_t UnitVotes::fingerprint() const noexcept {
    return use_avx512() ? unit_signs_avx512(ones_, features_, tie_break_)
                          : unit_signs_portable(ones_, features_, tie_break_);
}

// Rule 5's groups: sums[b] += weight * double(tally[b]), eight at a time
// with AVX-512.  Each product is rounded before its sum, as in the
// portable loop: the AVX-512 version multiplies and adds with the
// intrinsics that name a rounding mode, builtins that GCC does not fuse
// into a multiply-add (it fuses a plain _mm512_mul_pd and _mm512_add_pd in
// C++, whose default is -ffp-contract=fast).
static void add_weighted_tally_portable(double sums[64], double weight, const int32_t tally[64]) noexcept {
    for (int b = 0; b < 64; ++b) sums[b] += weight * double(tally[b]);
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) static void add_weighted_tally_avx512(double sums[64], double weight,
                                                                         const int32_t tally[64]) noexcept {
    const __m512d w = _mm512_set1_pd(weight);
    for (int j = 0; j < 8; ++j) {
        const __m512d t = _mm512_cvtepi32_pd(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(tally + 8 * j)));
        const __m512d product = _mm512_mul_round_pd(w, t, _MM_FROUND_CUR_DIRECTION);
        _mm512_storeu_pd(sums + 8 * j, _mm512_add_round_pd(_mm512_loadu_pd(sums + 8 * j), product,
                                                           _MM_FROUND_CUR_DIRECTION));
    }
}
#else
static void add_weighted_tally_avx512(double sums[64], double weight, const int32_t tally[64]) noexcept {
    add_weighted_tally_portable(sums, weight, tally);
}
#endif

namespace detail {
void add_weighted_tally_portable(double sums[64], double weight, const int32_t tally[64]) noexcept {
    simhash::add_weighted_tally_portable(sums, weight, tally);
}
void add_weighted_tally_avx512(double sums[64], double weight, const int32_t tally[64]) noexcept {
    simhash::add_weighted_tally_avx512(sums, weight, tally);
}
}  // namespace detail

static void add_weighted_tally(double sums[64], double weight, const int32_t tally[64]) noexcept {
    if (use_avx512())
        add_weighted_tally_avx512(sums, weight, tally);
    else
        add_weighted_tally_portable(sums, weight, tally);
}

static uint64_t signs(const int64_t sums[64], uint64_t tie_break) noexcept { return signs_portable(sums, tie_break); }

static uint64_t signs(const double sums[64], uint64_t tie_break) noexcept {
    return use_avx512() ? double_signs_avx512(sums, tie_break) : signs_portable(sums, tie_break);
}

void UnitVotes::sums(double out[64]) const noexcept {
    for (int i = 0; i < 64; ++i) out[i] = 2 * double(ones_[i]) - double(features_);
}

uint64_t UnitVotes::fingerprint(const FunctionWordTally& function_words) const noexcept {
    if (function_words.occurrences() == 0) return fingerprint();
    double sums[64];
    this->sums(sums);
    uint64_t tie_break = tie_break_;
    function_words.vote(sums, &tie_break);
    return signs(sums, tie_break);
}

double FunctionWordTally::weight(uint64_t count) noexcept {
    const double c = double(count);
    return std::sqrt(c) * std::sqrt(std::sqrt(c));
}

// weight(), from a table for the counts a text mostly has: its three
// square roots were a third of the function words' voting on English.
static double function_word_weight(uint64_t count) noexcept {
    static const auto kWeights = [] {
        std::array<double, 256> w{};
        for (size_t c = 0; c < w.size(); ++c) w[c] = FunctionWordTally::weight(c);
        return w;
    }();
    return count < kWeights.size() ? kWeights[count] : FunctionWordTally::weight(count);
}

const uint64_t* FunctionWordTally::word_hashes() noexcept {
    static const auto hashes = [] {
        std::array<uint64_t, kWords> h{};
        for (size_t k = 0; k < kWords; ++k) h[k] = feature_hash(kEnglishStopWords[k].data(), kEnglishStopWords[k].size());
        return h;
    }();
    return hashes.data();
}

void FunctionWordTally::vote_portable(double sums[64], uint64_t* tie_break) const noexcept {
    static_assert(kWords == 126, "the list of stop_words.cpp");
    const uint64_t* hashes = word_hashes();
    // kSign[b][t] is +1 where bit t of b is 1, else -1: w * kSign adds +-w exactly, in a loop the
    // compiler vectorizes (a branch per bit made this a sixth of English fingerprinting).
    static const auto kSign = [] {
        std::array<std::array<double, 8>, 256> t{};
        for (int b = 0; b < 256; ++b)
            for (int k = 0; k < 8; ++k) t[b][k] = ((b >> k) & 1) ? 1.0 : -1.0;
        return t;
    }();
    double fw[64] = {};
    for (int half = 0; half < 2; ++half) {
        for (uint64_t bits = present_[half]; bits != 0; bits &= bits - 1) {
            const size_t k = size_t(64 * half + __builtin_ctzll(bits));
            const double w = function_word_weight(counts_[k]);
            const uint64_t h = hashes[k];
            for (int j = 0; j < 8; ++j) {
                const double* sign = kSign[(h >> (8 * j)) & 0xFF].data();
                for (int t = 0; t < 8; ++t) fw[8 * j + t] += w * sign[t];
            }
            *tie_break += tie_mix(h) * counts_[k];  // wraps, as count separate votes would
        }
    }
    for (int i = 0; i < 64; ++i) sums[i] += fw[i];
}

#if defined(__x86_64__)
// The same sums: each byte of the hash masks an addition of w over eight
// lanes and a subtraction elsewhere, and x - w is x + (-w) to the bit.
__attribute__((target("avx512f"))) void FunctionWordTally::vote_avx512(double sums[64],
                                                                       uint64_t* tie_break) const noexcept {
    const uint64_t* hashes = word_hashes();
    __m512d fw[8];
    for (__m512d& lanes : fw) lanes = _mm512_setzero_pd();
    for (int half = 0; half < 2; ++half) {
        for (uint64_t bits = present_[half]; bits != 0; bits &= bits - 1) {
            const size_t k = size_t(64 * half + __builtin_ctzll(bits));
            const __m512d w = _mm512_set1_pd(function_word_weight(counts_[k]));
            const uint64_t h = hashes[k];
            for (int j = 0; j < 8; ++j)
                fw[j] = _mm512_mask_add_pd(_mm512_sub_pd(fw[j], w), __mmask8(h >> (8 * j)), fw[j], w);
            *tie_break += tie_mix(h) * counts_[k];  // wraps, as count separate votes would
        }
    }
    for (int j = 0; j < 8; ++j) _mm512_storeu_pd(sums + 8 * j, _mm512_add_pd(_mm512_loadu_pd(sums + 8 * j), fw[j]));
}

bool FunctionWordTally::vote_avx512_supported() noexcept { return detail::cpu_has_avx512(); }
#else
void FunctionWordTally::vote_avx512(double sums[64], uint64_t* tie_break) const noexcept {
    vote_portable(sums, tie_break);
}
bool FunctionWordTally::vote_avx512_supported() noexcept { return false; }
#endif

void FunctionWordTally::vote(double sums[64], uint64_t* tie_break) const noexcept {
    if (vote_avx512_supported())
        vote_avx512(sums, tie_break);
    else
        vote_portable(sums, tie_break);
}

void IntegerVotes::add(uint64_t hash, int64_t weight) noexcept {
    if (weight == 0) return;
    for (int i = 0; i < 64; ++i) sums_[i] += ((hash >> i) & 1) ? weight : -weight;
    ++features_;
    tie_break_ += tie_mix(hash) * uint64_t(weight);  // wraps, as w separate votes would
}

uint64_t IntegerVotes::fingerprint() const noexcept { return signs(sums_, tie_break_); }

void IntegerVotes::add_to(double out[64], uint64_t* tie_break) const noexcept {
    for (int i = 0; i < 64; ++i) out[i] += double(sums_[i]);
    *tie_break += tie_break_;
}

// Neumaier's compensated summation: the running error of each sum is kept
// apart, so small weights are not lost next to large ones and the sign of a
// sum does not depend on the order the weights come in (or on how parallel
// workers split them), short of cancellation beyond double-double precision.
static void compensated_add(double& sum, double& compensation, double x) noexcept {
    const double t = sum + x;
    compensation += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
}

namespace {
typedef double Doubles2 __attribute__((vector_size(16)));
typedef uint64_t Bits2 __attribute__((vector_size(16)));
constexpr uint64_t kSignBit = uint64_t{1} << 63;
}  // namespace

// compensated_add() on the 64 bit sums, two at a time and without a branch:
// the same operations on the same values, so the same sums to the last bit.
// Written with branches, as compensated_add() is, the random bits of the hash
// and the comparison of magnitudes were mispredicted half the time: 250 ns a
// vote, five times this, which made an IDF fingerprint five times a plain one.
void RealVotes::add(uint64_t hash, double weight) noexcept {
    if (weight == 0.0) return;
    uint64_t negative;
    std::memcpy(&negative, &weight, sizeof negative);
    negative ^= kSignBit;
    const Bits2 minus_weight = {negative, negative};
    const Bits2 magnitude_bits = {~kSignBit, ~kSignBit};
    const double magnitude = std::fabs(weight);
    const Doubles2 weight_magnitude = {magnitude, magnitude};
    for (int i = 0; i < 64; i += 2) {
        // +weight where the hash has a 1, -weight where it has a 0
        const Bits2 sign = {((hash >> i) & 1) << 63, ((hash >> (i + 1)) & 1) << 63};
        const Doubles2 x = (Doubles2) (minus_weight ^ sign);
        Doubles2 s, c;
        std::memcpy(&s, &sums_[i], sizeof s);
        std::memcpy(&c, &compensation_[i], sizeof c);
        const Doubles2 t = s + x;
        // all ones in a lane where |s| >= |x|: s is the larger addend there
        const Bits2 s_larger = (Bits2) ((Doubles2) ((Bits2) s & magnitude_bits) >= weight_magnitude);
        const Doubles2 larger = (Doubles2) (((Bits2) s & s_larger) | ((Bits2) x & ~s_larger));
        const Doubles2 smaller = (Doubles2) (((Bits2) x & s_larger) | ((Bits2) s & ~s_larger));
        c += (larger - t) + smaller;
        std::memcpy(&sums_[i], &t, sizeof t);
        std::memcpy(&compensation_[i], &c, sizeof c);
    }
    compensated_add(magnitude_, magnitude_compensation_, magnitude);
    ++features_;
    tie_break_ += tie_mix(hash);
}

void RealVotes::merge(const RealVotes& other) noexcept {
    for (int i = 0; i < 64; ++i) {
        compensated_add(sums_[i], compensation_[i], other.sums_[i]);
        compensation_[i] += other.compensation_[i];
    }
    compensated_add(magnitude_, magnitude_compensation_, other.magnitude_);
    magnitude_compensation_ += other.magnitude_compensation_;
    features_ += other.features_;
    tie_break_ += other.tie_break_;
}

uint64_t RealVotes::fingerprint() const noexcept {
    uint64_t fp = 0;
    for (int i = 0; i < 64; ++i) {
        const uint64_t bit = uint64_t{1} << i;
        const double sum = sums_[i] + compensation_[i];
        if (sum > 0.0 || (sum == 0.0 && (tie_break_ & bit))) fp |= bit;
    }
    return fp;
}

// The magnitudes are summed with compensation too: a plain sum kept DBL_MAX +
// 6e291 + 6e291 at DBL_MAX (each small term below half its last place) and
// overflowed when the small terms came first, so the error depended on the
// order after all.  Once the sum is infinite, its compensation
// is not finite either, nor is their total.
bool RealVotes::overflowed() const noexcept { return !std::isfinite(magnitude_ + magnitude_compensation_); }

double repeat_boost_exponent(uint64_t occurrences) noexcept {
    if (occurrences <= kBoostFrom || occurrences >= kBoostTo) return 0.0;
    const double rise = occurrences < kBoostPeak ? double(occurrences - kBoostFrom) / double(kBoostPeak - kBoostFrom)
                                                 : double(kBoostTo - occurrences) / double(kBoostTo - kBoostPeak);
    return kBoostMaxExponent * rise;
}

double boosted_weight(uint64_t tf, double exponent) noexcept {
    return double(tf) * std::pow(double(std::min(tf, kBoostCountCap)), exponent);
}

// Rule 5's extra weight
// ---------------------
// In a mixed text of 51 to 2,499 other features, a feature that occurs tf
// times weighs boosted_weight(tf) instead of tf.  Its sums are the integer
// sums of every occurrence voting once (UnitVotes, as when every feature
// weighs its count), to which, for each count tf >= 2 in increasing order,
// boosted_weight(tf) - tf times the integer tally of the features that
// occur tf times is added: every rounding comes after the exact integer
// sums, so votes that cancel exactly still tie, and the features that
// occur once, most of them, add nothing.
//
// The counts come from an open-addressing table of the hashes, at most half
// full.  Each insertion writes its key, adds one to its count and appends
// its slot to the list of repeated features, which grows only when the
// count has become 2: no branch on whether the key is new or repeated,
// which the features make as good as random; the probe branches only on a
// collision.  The repeated features are then grouped by count: a counting
// sort for the counts below kSmallCounts, which are nearly all of them, and
// std::sort for the few above.  (Sorting all the hashes instead, by
// std::sort or by a radix sort, was no faster.)  Each group's tally is
// counted once, so a feature that occurs tf times is counted once for its
// extra weight, not tf times.
//
// Worked example: in "a b a c a b" (and enough other features to be in the
// ramp) a occurs 3 times and b twice.  The integer sums count all six
// occurrences; then b's tally is added (boosted_weight(2) - 2) times, and
// a's (boosted_weight(3) - 3) times; c adds nothing more.
namespace {
struct Repeated {
    uint64_t count;
    uint64_t hash;
};
constexpr uint32_t kSmallCounts = 64;
}  // namespace

// Adds to sums the extra weight of the repeated features among the n
// hashes of a text whose length exponent is exponent (see above).
static void add_repeat_boost(const uint64_t* hashes, uint64_t n, double exponent, double sums[64]) noexcept {
    constexpr size_t kMaxSlots = 8192;  // a power of two at least 2 * kBoostTo
    static_assert(kMaxSlots >= 2 * kBoostTo, "the table stays at most half full");
    static_assert(kBoostTo <= UINT16_MAX, "a count fits in 16 bits");
    constexpr size_t kMaxRepeated = kBoostTo / 2;  // n < kBoostTo hashes hold at most n / 2 repeated features
    size_t slots = 64;
    while (slots < 2 * n) slots *= 2;
    uint64_t keys[kMaxSlots];
    uint16_t counts[kMaxSlots];            // 0: an empty slot
    uint16_t repeated[kMaxRepeated + 1];   // the slots of the repeated features, each once (+1: the last write)
    size_t nrepeated = 0;
    std::memset(counts, 0, slots * sizeof counts[0]);
    for (uint64_t i = 0; i < n; ++i) {
        size_t slot = size_t(hashes[i]) & (slots - 1);
        // One branch, taken only on a collision: another key in the slot.  (With
        // && the compiler branched on new or repeated first, as good as random.)
        auto other_key = [&](size_t at) { return (keys[at] ^ hashes[i]) & (0 - uint64_t(counts[at] != 0)); };
        while (other_key(slot) != 0) slot = (slot + 1) & (slots - 1);
        keys[slot] = hashes[i];
        repeated[nrepeated] = uint16_t(slot);
        nrepeated += ++counts[slot] == 2;
    }
    // The repeated features sorted by count: a counting sort with a bucket
    // for each count below kSmallCounts and one for all the others, which
    // are few (a count of 64 takes 64 of fewer than kBoostTo features) and
    // are then sorted by std::sort.  No branch on the count.
    uint64_t by_count[kMaxRepeated];
    uint32_t below[kSmallCounts + 2] = {};  // below[b]: features in the buckets before bucket b
    for (size_t r = 0; r < nrepeated; ++r) ++below[std::min<uint32_t>(counts[repeated[r]], kSmallCounts) + 1];
    for (uint32_t b = 1; b <= kSmallCounts + 1; ++b) below[b] += below[b - 1];
    uint32_t next[kSmallCounts + 1];
    std::memcpy(next, below, sizeof next);
    Repeated large[kBoostTo / kSmallCounts + 1];
    for (size_t r = 0; r < nrepeated; ++r) {
        const uint32_t count = counts[repeated[r]];
        const uint64_t key = keys[repeated[r]];
        const uint32_t bucket = std::min(count, kSmallCounts);
        if (bucket == kSmallCounts) large[next[bucket] - below[kSmallCounts]] = {count, key};
        by_count[next[bucket]++] = key;
    }
    uint64_t* const large_hashes = by_count + below[kSmallCounts];
    const size_t nlarge = below[kSmallCounts + 1] - below[kSmallCounts];
    std::sort(large, large + nlarge, [](const Repeated& a, const Repeated& b) { return a.count < b.count; });
    for (size_t i = 0; i < nlarge; ++i) large_hashes[i] = large[i].hash;

    // Each group's extra weight, in increasing count: tf *
    // min(tf, kBoostCountCap)^exponent with C's pow, as boosted_weight()
    // computes it, pow once per capped count instead of once per group.
    double capped_pow[kBoostCountCap + 1] = {};
    auto add_group = [&](const uint64_t* begin, const uint64_t* end, uint64_t tf) {
        int32_t tally[64];
        detail::tally_bits(begin, size_t(end - begin), tally);
        const uint64_t capped = std::min(tf, kBoostCountCap);
        if (capped_pow[capped] == 0.0) capped_pow[capped] = std::pow(double(capped), exponent);
        const double extra = double(tf) * capped_pow[capped] - double(tf);
        add_weighted_tally(sums, extra, tally);
    };
    for (uint32_t tf = 2; tf < kSmallCounts; ++tf)
        if (below[tf + 1] != below[tf]) add_group(by_count + below[tf], by_count + below[tf + 1], tf);
    for (size_t i = 0; i < nlarge;) {
        size_t group_end = i;  // the features occurring large[i].count times
        while (group_end < nlarge && large[group_end].count == large[i].count) ++group_end;
        add_group(large_hashes + i, large_hashes + group_end, large[i].count);
        i = group_end;
    }
}

// Only called with batch_words_ set, where the CPU has AVX-512.
void TextVotes::split_batch() noexcept {
    detail::BatchFunctionWords found;
    kept_ += uint32_t(detail::split_words_avx512(batch_, &found, hashes_ + kept_));  // kept_ < kBoostTo before
    batch_.count = 0;
    function_words_.add_all(found.index, found.count);
    if (kept_ >= kBoostTo) count_kept();
}

// The integer sums of every occurrence (version 5's fingerprints, to the
// bit, where every feature weighs its count), with rule 5's extra weight
// added where the length weighting asks for it; the tie-break word counts
// every occurrence.
uint64_t TextVotes::fingerprint(const IntegerVotes* also) noexcept {
    if (batch_.count > 0) split_batch();
    const uint64_t occurrences = votes_.features() + kept_;
    const double exponent = length_weighted_ ? repeat_boost_exponent(occurrences) : 0.0;
    // With an exponent there are fewer than kBoostTo occurrences: all are
    // kept, and stay in hashes_ after count_kept().
    const uint32_t kept = kept_;
    count_kept();
    if (exponent == 0.0 && also == nullptr) return votes_.fingerprint(function_words_);
    double sums[64];
    votes_.sums(sums);
    uint64_t tie_break = votes_.tie_break();
    if (exponent != 0.0) add_repeat_boost(hashes_, kept, exponent, sums);
    if (also != nullptr) also->add_to(sums, &tie_break);
    function_words_.vote(sums, &tie_break);
    return signs(sums, tie_break);
}

TextFingerprint fingerprint_text(const char* text, size_t length, TokenizerKind kind, int n,
                                 char* scratch) noexcept {
    TextVotes votes(kind);
    tokenize(text, length, kind, n, scratch, votes);
    uint64_t features = votes.features();
    return {features ? votes.fingerprint() : 0, features};
}

}  // namespace simhash
