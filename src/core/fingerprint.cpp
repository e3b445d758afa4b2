#include "fingerprint.hpp"

#include <cmath>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace simhash {

uint64_t feature_hash(const char* feature, size_t length) noexcept {
    return XXH3_64bits_withSeed(feature, length, 0);
}

void UnitVotes::flush() noexcept {
    for (int j = 0; j < 8; ++j) {
        for (int k = 0; k < 8; ++k) ones_[8 * j + k] += (lanes_[j] >> (8 * k)) & 0xFF;
        lanes_[j] = 0;
    }
    pending_ = 0;
}

uint64_t UnitVotes::fingerprint() noexcept {
    flush();
    uint64_t fp = 0;
    for (int i = 0; i < 64; ++i) {
        const uint64_t bit = uint64_t{1} << i;
        if (2 * ones_[i] > features_ || (2 * ones_[i] == features_ && (tie_break_ & bit))) fp |= bit;
    }
    return fp;
}

void IntegerVotes::add(uint64_t hash, int64_t weight) noexcept {
    if (weight == 0) return;
    for (int i = 0; i < 64; ++i) sums_[i] += ((hash >> i) & 1) ? weight : -weight;
    ++features_;
    tie_break_ += tie_mix(hash) * uint64_t(weight);  // wraps, as w separate votes would
}

uint64_t IntegerVotes::fingerprint() const noexcept {
    uint64_t fp = 0;
    for (int i = 0; i < 64; ++i) {
        const uint64_t bit = uint64_t{1} << i;
        if (sums_[i] > 0 || (sums_[i] == 0 && (tie_break_ & bit))) fp |= bit;
    }
    return fp;
}

// Neumaier's compensated summation: the running error of each sum is kept
// apart, so small weights are not lost next to large ones and the sign of a
// sum does not depend on the order the weights come in (or on how parallel
// workers split them), short of cancellation beyond double-double precision.
void RealVotes::accumulate(int i, double x) noexcept {
    const double s = sums_[i];
    const double t = s + x;
    compensation_[i] += std::fabs(s) >= std::fabs(x) ? (s - t) + x : (x - t) + s;
    sums_[i] = t;
}

void RealVotes::add(uint64_t hash, double weight) noexcept {
    if (weight == 0.0) return;
    for (int i = 0; i < 64; ++i) accumulate(i, ((hash >> i) & 1) ? weight : -weight);
    magnitude_ += std::fabs(weight);
    ++features_;
    tie_break_ += tie_mix(hash);
}

void RealVotes::merge(const RealVotes& other) noexcept {
    for (int i = 0; i < 64; ++i) {
        accumulate(i, other.sums_[i]);
        compensation_[i] += other.compensation_[i];
    }
    magnitude_ += other.magnitude_;
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

bool RealVotes::overflowed() const noexcept { return !std::isfinite(magnitude_); }

TextFingerprint fingerprint_text(const char* text, size_t length, TokenizerKind kind, int n,
                                 char* scratch) noexcept {
    UnitVotes votes;
    tokenize(text, length, kind, n, scratch,
             [&votes](const char* feature, size_t len) { votes.add(feature_hash(feature, len)); });
    uint64_t features = votes.features();
    return {features ? votes.fingerprint() : 0, features};
}

}  // namespace simhash
