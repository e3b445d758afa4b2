// Counting the bits of many hashes: the inner loop of simhash(text)'s votes
// (UnitVotes), and the tallies of rule 5's groups.  count_ones.cpp explains how.
#pragma once

#include <cstddef>
#include <cstdint>

namespace simhash {
namespace detail {

// Adds to ones[b], for each bit b, how many of hashes[0..n) have bit b
// set; returns the wrapping sum of their tie_mix().  Runs the fastest of
// the versions below that this machine has, chosen on the first call.
uint64_t count_ones(const uint64_t* hashes, size_t n, uint64_t ones[64]) noexcept;

// The name of the version count_ones() runs: "avx512", "avx2", "sse2" or "portable".
const char* count_ones_version() noexcept;

// The versions, each giving exactly the same counts.  Without SIMD, for
// any machine:
uint64_t count_ones_portable(const uint64_t* hashes, size_t n, uint64_t ones[64]) noexcept;
#if defined(__x86_64__)
// SSE2, which every x86-64 has:
uint64_t count_ones_sse2(const uint64_t* hashes, size_t n, uint64_t ones[64]) noexcept;
// AVX2, only where the CPU has it (count_ones_avx2_supported()):
uint64_t count_ones_avx2(const uint64_t* hashes, size_t n, uint64_t ones[64]) noexcept;
bool count_ones_avx2_supported() noexcept;
// AVX-512 F, BW and DQ, only where the CPU has them (count_ones_avx512_supported()):
uint64_t count_ones_avx512(const uint64_t* hashes, size_t n, uint64_t ones[64]) noexcept;
bool count_ones_avx512_supported() noexcept;
#endif

// Each bit's tally, ones minus zeros, of hashes[0..n) (n below 2^31): the
// groups of rule 5 (fingerprint.cpp), which are small, so no tie_mix() is
// computed and no counts in memory are zeroed first.  Runs AVX-512 where
// count_ones_avx512_supported(), else the portable loop; both give the
// same tallies.
void tally_bits(const uint64_t* hashes, size_t n, int32_t tally[64]) noexcept;
void tally_bits_portable(const uint64_t* hashes, size_t n, int32_t tally[64]) noexcept;
#if defined(__x86_64__)
void tally_bits_avx512(const uint64_t* hashes, size_t n, int32_t tally[64]) noexcept;
#endif

}  // namespace detail
}  // namespace simhash
