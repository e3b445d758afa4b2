// Counting the bits of many hashes
// ================================
// count_ones() adds to ones[b], for each bit b, how many of hashes[0..n)
// have bit b set, and returns the sum of their tie_mix() (wrapping): the
// votes of n features that weigh one each.  Every version counts in byte
// lanes, one lane per bit, 255 hashes at a time (a lane holds 255), and
// then adds the lanes to ones[].  They differ in how a hash's 64 bits reach
// 64 lanes.
//
// Portable (count_ones_portable)
// ------------------------------
// Each of 8 64-bit words counts one byte of the hash in its 8 byte lanes,
// through a table (kSpread) whose entry b has byte k set to bit k of b: 8
// loads and 8 additions a hash.
//
// SSE2 (count_ones_sse2), which every x86-64 has
// ----------------------------------------------
// Each of the hash's bytes is copied to 8 lanes by unpacking, which a
// comparison with the lane's bit turns into 0xFF (-1) or 0; subtracting
// that counts the bit: some 20 register operations a hash.  Worked
// example, the hash 0x0102: byte 0 is 0x02 and byte 1 is 0x01, copied to
// lanes 0-7 and 8-15 of the first vector; ANDed with 01 02 04 08 10 20 40
// 80 01 02 ... they give 00 02 00 .. 00 | 01 00 .., equal to the lane's bit
// in lanes 1 and 8: bits 1 and 8 are counted.
//
// AVX2 (count_ones_avx2), where the CPU has it
// --------------------------------------------
// The same comparison over two 32-lane vectors.  The hash is broadcast to
// every 64-bit quarter of both; one byte shuffle each puts byte j in lanes
// 8j to 8j + 7 (bytes 0-3 in the first vector, 4-7 in the second): about
// 10 operations a hash.  Over the benchmark's English text the core took
// 4% less time than with SSE2, over Chinese 8% less.
//
// AVX-512 (count_ones_avx512), where the CPU has it
// -------------------------------------------------
// The hash is itself the mask of a masked subtraction over 64 byte lanes:
// one operation counts it (two vectors take every other hash, so that
// each addition need not wait for the one before).  What is left is
// tie_mix's two multiplications, done eight hashes at a time in 64-bit
// lanes (AVX-512DQ).  The core took 6% less time than with AVX2 on
// English, 5% on Chinese; the masked subtraction with tie_mix one hash at
// a time was no faster than AVX2.
//
// Tallies (tally_bits)
// --------------------
// Rule 5 needs, for each group of repeated features, each bit's ones
// minus zeros: a few groups a text, of a few hashes each.  count_ones()
// would compute tie_mix() for nothing and add into 64 counts that must
// first be zeroed in memory (a string store of 512 bytes a group, a tenth
// of rule 5's time on English).  tally_bits() counts in the same byte
// lanes, widens them to 32 bits in registers and stores 2 * ones - n.
//
// Choosing
// --------
// count_ones() runs AVX-512 (F, BW and DQ) where __builtin_cpu_supports()
// says the CPU and the operating system support it, else AVX2, SSE2 on
// other x86-64 machines and the portable loop elsewhere; the choice is
// made on the first call.  The build never assumes more than the baseline
// of the target (no -march): only count_ones_avx2 and count_ones_avx512
// are compiled for more, by target attributes.
#include "count_ones.hpp"

#include "fingerprint.hpp"  // tie_mix

#include "x86_intrinsics.hpp"

namespace simhash {
namespace detail {

namespace {
// entry[b] has byte k set to bit k of b: adding it counts eight bits at once.
struct SpreadTable {
    uint64_t entry[256];
    constexpr SpreadTable() : entry() {
        for (int b = 0; b < 256; ++b)
            for (int k = 0; k < 8; ++k) entry[b] |= uint64_t((b >> k) & 1) << (8 * k);
    }
};
constexpr SpreadTable kSpread{};
}  // namespace

// Adds to ones[b] how many of hashes[0..n) have bit b set, 255 at a time.
template <class Count>
static void spread_count(const uint64_t* hashes, size_t n, Count ones[64]) noexcept {
    while (n > 0) {
        const size_t block = n < 255 ? n : 255;
        uint64_t lanes[8] = {};  // byte k of lanes[j] counts bit 8j + k
        for (size_t i = 0; i < block; ++i)
            for (int j = 0; j < 8; ++j) lanes[j] += kSpread.entry[(hashes[i] >> (8 * j)) & 0xFF];
        for (int j = 0; j < 8; ++j)
            for (int k = 0; k < 8; ++k) ones[8 * j + k] += Count((lanes[j] >> (8 * k)) & 0xFF);
        hashes += block;
        n -= block;
    }
}

uint64_t count_ones_portable(const uint64_t* hashes, size_t n, uint64_t ones[64]) noexcept {
    spread_count(hashes, n, ones);
    uint64_t tie_break = 0;
    for (size_t i = 0; i < n; ++i) tie_break += tie_mix(hashes[i]);
    return tie_break;
}

void tally_bits_portable(const uint64_t* hashes, size_t n, int32_t tally[64]) noexcept {
    int32_t ones[64] = {};
    spread_count(hashes, n, ones);
    for (int b = 0; b < 64; ++b) tally[b] = 2 * ones[b] - int32_t(n);
}

#if defined(__x86_64__)
uint64_t count_ones_sse2(const uint64_t* hashes, size_t n, uint64_t ones[64]) noexcept {
    const __m128i bit = _mm_set1_epi64x(int64_t(0x8040201008040201ULL));  // lane k: 1 << (k % 8)
    uint64_t tie_break = 0;
    while (n > 0) {
        const size_t block = n < 255 ? n : 255;
        __m128i lanes[4] = {_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128()};
        for (size_t i = 0; i < block; ++i) {
            const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(hashes + i));
            const __m128i twice = _mm_unpacklo_epi8(bytes, bytes);  // byte j of the hash in lanes 2j, 2j + 1
            const __m128i low = _mm_unpacklo_epi16(twice, twice), high = _mm_unpackhi_epi16(twice, twice);
            // lanes[q]'s lane k: bit k % 8 of hash byte 2q + k / 8, that is bit 16q + k
            const __m128i spread[4] = {_mm_unpacklo_epi32(low, low), _mm_unpackhi_epi32(low, low),
                                       _mm_unpacklo_epi32(high, high), _mm_unpackhi_epi32(high, high)};
            for (int q = 0; q < 4; ++q)
                lanes[q] = _mm_sub_epi8(lanes[q], _mm_cmpeq_epi8(_mm_and_si128(spread[q], bit), bit));
            tie_break += tie_mix(hashes[i]);
        }
        for (int q = 0; q < 4; ++q) {
            uint8_t counts[16];
            _mm_storeu_si128(reinterpret_cast<__m128i*>(counts), lanes[q]);
            for (int k = 0; k < 16; ++k) ones[16 * q + k] += counts[k];
        }
        hashes += block;
        n -= block;
    }
    return tie_break;
}

__attribute__((target("avx2"))) uint64_t count_ones_avx2(const uint64_t* hashes, size_t n,
                                                         uint64_t ones[64]) noexcept {
    const __m256i bit = _mm256_set1_epi64x(int64_t(0x8040201008040201ULL));  // lane k: 1 << (k % 8)
    // lane k of the first vector takes hash byte k / 8, of the second byte 4 + k / 8
    const __m256i low_bytes = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,  //
                                               2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i high_bytes = _mm256_setr_epi8(4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5,  //
                                                6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7);
    uint64_t tie_break = 0;
    while (n > 0) {
        const size_t block = n < 255 ? n : 255;
        __m256i low = _mm256_setzero_si256(), high = _mm256_setzero_si256();  // bits 0-31, 32-63
        for (size_t i = 0; i < block; ++i) {
            const __m256i hash = _mm256_set1_epi64x(int64_t(hashes[i]));
            const __m256i low_bits = _mm256_and_si256(_mm256_shuffle_epi8(hash, low_bytes), bit);
            const __m256i high_bits = _mm256_and_si256(_mm256_shuffle_epi8(hash, high_bytes), bit);
            low = _mm256_sub_epi8(low, _mm256_cmpeq_epi8(low_bits, bit));
            high = _mm256_sub_epi8(high, _mm256_cmpeq_epi8(high_bits, bit));
            tie_break += tie_mix(hashes[i]);
        }
        uint8_t counts[64];
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(counts), low);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(counts + 32), high);
        for (int k = 0; k < 64; ++k) ones[k] += counts[k];
        hashes += block;
        n -= block;
    }
    return tie_break;
}

__attribute__((target("avx512f,avx512bw,avx512dq"))) uint64_t count_ones_avx512(const uint64_t* hashes, size_t n,
                                                                                uint64_t ones[64]) noexcept {
    const __m512i minus_one = _mm512_set1_epi8(-1);
    __m512i ties = _mm512_setzero_si512();  // 8 lanes of tie_mix sums
    uint64_t tie_break = 0;
    while (n > 0) {
        const size_t block = n < 255 ? n : 255;
        __m512i even = _mm512_setzero_si512(), odd = _mm512_setzero_si512();  // byte lane b counts bit b
        size_t i = 0;
        for (; i + 8 <= block; i += 8) {
            for (int k = 0; k < 8; k += 2) {
                even = _mm512_mask_sub_epi8(even, _cvtu64_mask64(hashes[i + k]), even, minus_one);
                odd = _mm512_mask_sub_epi8(odd, _cvtu64_mask64(hashes[i + k + 1]), odd, minus_one);
            }
            // tie_mix() of eight hashes
            __m512i x = _mm512_loadu_si512(hashes + i);
            x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 30));
            x = _mm512_mullo_epi64(x, _mm512_set1_epi64(int64_t(0xbf58476d1ce4e5b9ULL)));
            x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 27));
            x = _mm512_mullo_epi64(x, _mm512_set1_epi64(int64_t(0x94d049bb133111ebULL)));
            ties = _mm512_add_epi64(ties, _mm512_xor_si512(x, _mm512_srli_epi64(x, 31)));
        }
        for (; i < block; ++i) {
            even = _mm512_mask_sub_epi8(even, _cvtu64_mask64(hashes[i]), even, minus_one);
            tie_break += tie_mix(hashes[i]);
        }
        uint8_t even_counts[64], odd_counts[64];
        _mm512_storeu_si512(even_counts, even);
        _mm512_storeu_si512(odd_counts, odd);
        for (int b = 0; b < 64; ++b) ones[b] += uint64_t(even_counts[b]) + odd_counts[b];
        hashes += block;
        n -= block;
    }
    // (not _mm512_reduce_add_epi64: GCC adds its lanes as signed integers, whose overflow is undefined)
    uint64_t lanes[8];
    _mm512_storeu_si512(lanes, ties);
    for (const uint64_t lane : lanes) tie_break += lane;  // wraps
    return tie_break;
}

__attribute__((target("avx512f,avx512bw"))) void tally_bits_avx512(const uint64_t* hashes, size_t n,
                                                                   int32_t tally[64]) noexcept {
    const __m512i minus_one = _mm512_set1_epi8(-1);
    __m512i ones[4];  // 32-bit lanes: bits 0-15, 16-31, 32-47, 48-63
    for (__m512i& quarter : ones) quarter = _mm512_setzero_si512();
    for (size_t done = 0; done < n;) {
        const size_t end = done + (n - done < 255 ? n - done : 255);
        __m512i even = _mm512_setzero_si512(), odd = _mm512_setzero_si512();  // byte lane b counts bit b
        size_t i = done;
        for (; i + 2 <= end; i += 2) {
            even = _mm512_mask_sub_epi8(even, _cvtu64_mask64(hashes[i]), even, minus_one);
            odd = _mm512_mask_sub_epi8(odd, _cvtu64_mask64(hashes[i + 1]), odd, minus_one);
        }
        if (i < end) even = _mm512_mask_sub_epi8(even, _cvtu64_mask64(hashes[i]), even, minus_one);
        const __m512i counts = _mm512_add_epi8(even, odd);  // at most 255 in all
        ones[0] = _mm512_add_epi32(ones[0], _mm512_cvtepu8_epi32(_mm512_castsi512_si128(counts)));
        ones[1] = _mm512_add_epi32(ones[1], _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(counts, 1)));
        ones[2] = _mm512_add_epi32(ones[2], _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(counts, 2)));
        ones[3] = _mm512_add_epi32(ones[3], _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(counts, 3)));
        done = end;
    }
    const __m512i count = _mm512_set1_epi32(int32_t(n));
    for (int q = 0; q < 4; ++q)
        _mm512_storeu_si512(tally + 16 * q, _mm512_sub_epi32(_mm512_slli_epi32(ones[q], 1), count));
}

bool count_ones_avx512_supported() noexcept { return cpu_has_avx512(); }

bool count_ones_avx2_supported() noexcept {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}

#endif

namespace {
using CountOnes = uint64_t (*)(const uint64_t*, size_t, uint64_t*) noexcept;
struct CountOnesVersion {
    CountOnes run;
    const char* name;
};

CountOnesVersion choose_count_ones() noexcept {
#if defined(__x86_64__)
    if (count_ones_avx512_supported()) return {count_ones_avx512, "avx512"};
    if (count_ones_avx2_supported()) return {count_ones_avx2, "avx2"};
    return {count_ones_sse2, "sse2"};
#else
    return {count_ones_portable, "portable"};
#endif
}

const CountOnesVersion& chosen_count_ones() noexcept {
    static const CountOnesVersion chosen = choose_count_ones();
    return chosen;
}
}  // namespace

uint64_t count_ones(const uint64_t* hashes, size_t n, uint64_t ones[64]) noexcept {
    return chosen_count_ones().run(hashes, n, ones);
}

const char* count_ones_version() noexcept { return chosen_count_ones().name; }

void tally_bits(const uint64_t* hashes, size_t n, int32_t tally[64]) noexcept {
#if defined(__x86_64__)
    if (cpu_has_avx512()) return tally_bits_avx512(hashes, n, tally);
#endif
    tally_bits_portable(hashes, n, tally);
}

}  // namespace detail
}  // namespace simhash
