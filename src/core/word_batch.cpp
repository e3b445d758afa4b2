// Function words and hashes of a batch of words
// =============================================
// Two things happen to each word of running text: it is looked up among
// the English function words, and, when it is not one, hashed with XXH3.
// Word by word, whether a word is a function word is a branch as good as
// random (about 3 words in 10 of English are), and XXH3 branches again on
// the length (1-3, 4-8 or 9-16 bytes).  split_words_avx512() does both
// for eight words at once, with no branch on either: over the benchmark's
// English text the core takes a quarter less time than word by word.
//
// Loading eight words
// -------------------
// A batch row is a word's 16 bytes (WordBatch).  Two 64-byte loads hold
// eight rows; one permutation gathers their first 8 bytes (lo) into a
// vector and another their last 8 (hi).  A word's bytes past its end are
// masked off with a shift by its length; for a word of 9 to 16 bytes,
// the 8 bytes that end it (tail) are lo and hi shifted together.
//
// The lookup
// ----------
// Each word's key (stop_words.hpp, word16_key: its first 8 bytes, XORed
// with a multiple of its tail when it is longer) picks one slot by a
// multiplication, and one gather reads the slots' keys.  A word of up to 8
// bytes is its key, so an equal key is the word, unless the slot is one
// of a longer word's or the word ends in zero bytes (its key is then
// shorter than it, which a count of the key's leading zero bits shows): a
// compress stores the slots of the hits, which become positions in the
// list (kWord16Entries) once the batch is done, in no set order since
// they are only counted.  (A second gather of each hit's entry, to
// compare lengths, cost English 3% more.)  Any other equal key (a longer
// word, or one on a longer word's slot) is checked one word at a time by
// english_stop_word_index(): "ourselves", "themselves" and "yourselves"
// are the only listed words of more than 8 bytes.
//
// Looking ahead
// -------------
// The gather's result is needed two comparisons after it is issued, and
// waiting for it left the rest of the work idle: the loop loads the next
// eight words and issues their gather before it compares and hashes the
// current eight (English 127.3 -> 124.1 ms in alternating runs).  Past the
// last word it loads rows the batch has room for and gathers nothing.
//
// XXH3 without its length branch
// ------------------------------
// XXH3-64 (seed 0) of 1 to 16 bytes is one of three short formulas, by
// the length; every lane computes all three from lo, tail and the length,
// and the length picks one (a blend).  The 9-16 formula's 128-bit product
// is four 32-bit multiplications.  The constants are XXH3's default
// secret's words XORed as its short formulas XOR them (xxhash.h,
// XXH3_len_1to3_64b and the two after it), a part of the hash its authors
// keep fixed since version 0.8.0; the tests compare every length with the
// library's XXH3_64bits_withSeed.  A compress stores the hashes of the
// words that are not function words.
//
// Worked example: the batch "the", "cat", "sat", "on", "the", "mat",
// "quietly", "ourselves".  The keys of "the" (twice) and "on" equal their
// slots' keys, of words of their lengths: three function words.
// "ourselves" (9 bytes) finds its slot's key too, and
// english_stop_word_index() confirms it.  The other four lanes' hashes
// are stored: "cat", "sat" and "mat" by the 1-3 formula, "quietly" by the
// 4-8 one.
#include "word_batch.hpp"

#include "fingerprint.hpp"
#include "stop_words.hpp"

#include "x86_intrinsics.hpp"

namespace simhash {
namespace detail {

size_t split_words_portable(const WordBatch& batch, BatchFunctionWords* function_words, uint64_t* hashes) noexcept {
    function_words->count = 0;
    size_t hash_count = 0;
    for (size_t i = 0; i < batch.count; ++i) {
        const int index = english_stop_word_index(batch.bytes[i], batch.lengths[i]);
        if (index >= 0)
            function_words->index[function_words->count++] = uint8_t(index);
        else
            hashes[hash_count++] = feature_hash(batch.bytes[i], batch.lengths[i]);
    }
    return hash_count;
}

size_t hash_block_chars_portable(BlockChars chars, uint64_t* hashes) noexcept {
    size_t count = 0;
    for_each_block_char(chars, [&](const char* c, size_t length) { hashes[count++] = feature_hash_1to3(c, length); });
    return count;
}

#if defined(__x86_64__)

bool split_words_avx512_supported() noexcept { return cpu_has_avx512(); }

namespace {
// XXH3's default secret, its words XORed as the short formulas XOR them
// (those of 1 to 3 bytes, and the primes they share, in fingerprint.hpp).
constexpr uint64_t kSecret4to8 = 0xc73ab174c5ecd5a2ULL;   // 64-bit words at bytes 8 and 16
constexpr uint64_t kSecret9to16a = 0x6782737bea4239b9ULL;  // at bytes 24 and 32
constexpr uint64_t kSecret9to16b = 0xaf56bc3b0996523aULL;  // at bytes 40 and 48
constexpr uint64_t kRrmxmx = 0x9FB21C651E98DF25ULL;
constexpr uint64_t kAvalanche = 0x165667919E3779F9ULL;
}  // namespace

#define SIMHASH_AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512cd")))

namespace {
SIMHASH_AVX512 inline __m512i broadcast(uint64_t v) { return _mm512_set1_epi64(int64_t(v)); }
SIMHASH_AVX512 inline __m512i xorshift(__m512i v, int shift) { return _mm512_xor_si512(v, _mm512_srli_epi64(v, shift)); }

// The low and high 64 bits of each lane's 128-bit product a * b, XORed.
SIMHASH_AVX512 inline __m512i mul128_fold64(__m512i a, __m512i b) {
    const __m512i low32 = broadcast(0xFFFFFFFFULL);
    const __m512i a_high = _mm512_srli_epi64(a, 32), b_high = _mm512_srli_epi64(b, 32);
    const __m512i ll = _mm512_mul_epu32(a, b), lh = _mm512_mul_epu32(a, b_high);
    const __m512i hl = _mm512_mul_epu32(a_high, b), hh = _mm512_mul_epu32(a_high, b_high);
    const __m512i middle = _mm512_add_epi64(_mm512_add_epi64(_mm512_srli_epi64(ll, 32), _mm512_and_si512(lh, low32)),
                                            _mm512_and_si512(hl, low32));
    const __m512i low = _mm512_or_si512(_mm512_and_si512(ll, low32), _mm512_slli_epi64(middle, 32));
    const __m512i high = _mm512_add_epi64(_mm512_add_epi64(hh, _mm512_srli_epi64(lh, 32)),
                                          _mm512_add_epi64(_mm512_srli_epi64(hl, 32), _mm512_srli_epi64(middle, 32)));
    return _mm512_xor_si512(low, high);
}

// XXH3-64 (seed 0) of 1 to 3 bytes, from each lane's combination of them
// (the last byte, the length, the first byte and the middle one, from the
// lowest byte up), as XXH3_len_1to3_64b and feature_hash_1to3 make it.
SIMHASH_AVX512 inline __m512i xxh3_1to3(__m512i combined) {
    const __m512i h = xorshift(_mm512_xor_si512(combined, broadcast(kXxh3Secret1to3)), 33);
    return xorshift(_mm512_mullo_epi64(xorshift(_mm512_mullo_epi64(h, broadcast(kXxhPrime64_2)), 29),
                                       broadcast(kXxhPrime64_3)),
                    32);
}

// XXH3-64 (seed 0) of each lane's word: length bytes, lo its first 8
// (bytes past the end are ignored), tail its last 8 where it is longer.
SIMHASH_AVX512 inline __m512i xxh3_short(__m512i lo, __m512i tail, __m512i length) {
    const __m512i byte = broadcast(0xFF), low32 = broadcast(0xFFFFFFFFULL);
    // 1 to 3 bytes: the first, middle and last byte and the length
    const __m512i first = _mm512_and_si512(lo, byte);
    const __m512i middle = _mm512_and_si512(_mm512_srlv_epi64(lo, _mm512_slli_epi64(_mm512_srli_epi64(length, 1), 3)), byte);
    const __m512i last = _mm512_and_si512(
        _mm512_srlv_epi64(lo, _mm512_slli_epi64(_mm512_sub_epi64(length, broadcast(1)), 3)), byte);
    const __m512i h1 = xxh3_1to3(_mm512_or_si512(
        _mm512_or_si512(_mm512_slli_epi64(first, 16), _mm512_slli_epi64(middle, 24)),
        _mm512_or_si512(last, _mm512_slli_epi64(length, 8))));
    // 4 to 8 bytes: the first 4 and the last 4, and rrmxmx
    const __m512i head4 = _mm512_and_si512(lo, low32);
    const __m512i last4 = _mm512_and_si512(
        _mm512_srlv_epi64(lo, _mm512_slli_epi64(_mm512_sub_epi64(length, broadcast(4)), 3)), low32);
    __m512i h4 = _mm512_xor_si512(_mm512_add_epi64(last4, _mm512_slli_epi64(head4, 32)), broadcast(kSecret4to8));
    h4 = _mm512_xor_si512(h4, _mm512_xor_si512(_mm512_rol_epi64(h4, 49), _mm512_rol_epi64(h4, 24)));
    h4 = _mm512_mullo_epi64(h4, broadcast(kRrmxmx));
    h4 = _mm512_xor_si512(h4, _mm512_add_epi64(_mm512_srli_epi64(h4, 35), length));
    h4 = xorshift(_mm512_mullo_epi64(h4, broadcast(kRrmxmx)), 28);
    // 9 to 16 bytes: the first 8 and the last 8, their 128-bit product, and an avalanche
    const __m512i reverse_bytes = _mm512_set_epi8(
        8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7,  //
        8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
    const __m512i input_lo = _mm512_xor_si512(lo, broadcast(kSecret9to16a));
    const __m512i input_hi = _mm512_xor_si512(tail, broadcast(kSecret9to16b));
    __m512i h9 = _mm512_add_epi64(_mm512_add_epi64(length, _mm512_shuffle_epi8(input_lo, reverse_bytes)),
                                  _mm512_add_epi64(input_hi, mul128_fold64(input_lo, input_hi)));
    h9 = xorshift(_mm512_mullo_epi64(xorshift(h9, 37), broadcast(kAvalanche)), 32);

    const __m512i h = _mm512_mask_blend_epi64(_mm512_cmpgt_epu64_mask(length, broadcast(3)), h1, h4);
    return _mm512_mask_blend_epi64(_mm512_cmpgt_epu64_mask(length, broadcast(8)), h, h9);
}
}  // namespace

namespace {
// Eight rows of a batch, loaded, with their lookup's gather issued.
struct EightWords {
    __m512i lo;        // each word's first 8 bytes (and what follows a shorter word)
    __m512i tail;      // the last 8 bytes of a word longer than 8 bytes, else 0
    __m512i length;    // each word's length in bytes
    __m512i key;       // word16_key() of each word
    __m512i slot;      // the key's slot in kWord16Keys
    __m512i slot_key;  // the key that slot holds (0 in lanes without a word)
    __mmask8 valid;    // the lanes that hold a word
    __mmask8 longer;   // the lanes of words longer than 8 bytes
};
static_assert(sizeof(WordBatch::bytes) / 16 >= kWordBatch + 8 && sizeof(WordBatch::lengths) >= kWordBatch + 8,
              "the eight rows after a full batch can be loaded");

// Rows base to base + 7 of the batch; those at or past batch.count are
// loaded (the batch has room) but are not valid.
SIMHASH_AVX512 inline EightWords load_eight_words(const WordBatch& batch, size_t base) {
    const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
    const __m512i all_ones = broadcast(~uint64_t{0}), eight = broadcast(8), sixty_four = broadcast(64);
    EightWords words;
    const size_t left = batch.count > base ? batch.count - base : 0;
    words.valid = left >= 8 ? 0xFF : __mmask8((1u << left) - 1);
    const __m512i rows_a = _mm512_loadu_si512(batch.bytes[base]), rows_b = _mm512_loadu_si512(batch.bytes[base + 4]);
    words.lo = _mm512_permutex2var_epi64(rows_a, even, rows_b);
    const __m512i hi = _mm512_permutex2var_epi64(rows_a, odd, rows_b);
    words.length = _mm512_cvtepu8_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(batch.lengths + base)));
    // head: the first min(length, 8) bytes; tail: the last 8 of a longer word, else 0
    const __m512i head_bits = _mm512_slli_epi64(_mm512_min_epu64(words.length, eight), 3);
    const __m512i head = _mm512_and_si512(words.lo, _mm512_srlv_epi64(all_ones, _mm512_sub_epi64(sixty_four, head_bits)));
    words.longer = _mm512_cmpgt_epu64_mask(words.length, eight);
    const __m512i tail_shift = _mm512_slli_epi64(_mm512_sub_epi64(words.length, eight), 3);
    words.tail = _mm512_maskz_or_epi64(words.longer, _mm512_srlv_epi64(words.lo, tail_shift),
                                       _mm512_sllv_epi64(hi, _mm512_sub_epi64(sixty_four, tail_shift)));
    words.key = _mm512_xor_si512(head, _mm512_mullo_epi64(words.tail, broadcast(kTailMix)));
    words.slot = _mm512_srli_epi64(_mm512_mullo_epi64(words.key, broadcast(kWord16Multiplier)), 64 - kStopTableBits);
    words.slot_key = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), words.valid, words.slot, kWord16Keys.data(), 8);
    return words;
}
}  // namespace

SIMHASH_AVX512 size_t split_words_avx512(const WordBatch& batch, BatchFunctionWords* function_words,
                                         uint64_t* hashes) noexcept {
    const __m512i eight = broadcast(8);
    static_assert(kLongStopWordCount == 3, "one comparison for each slot of a longer word");
    const __m512i long_slot0 = broadcast(kWord16LongSlots[0]), long_slot1 = broadcast(kWord16LongSlots[1]),
                  long_slot2 = broadcast(kWord16LongSlots[2]);
    uint16_t slots[kWordBatch + 8];  // the function words' slots, whole vectors stored
    size_t found = 0, hashed = 0;    // function words, hashes
    EightWords words = load_eight_words(batch, 0);
    for (size_t base = 0; base < batch.count; base += 8) {
        // The next eight words' gather is issued before these are hashed
        // (see "Looking ahead").
        const EightWords next = load_eight_words(batch, base + 8);
        const __mmask8 hit = _mm512_mask_cmpeq_epi64_mask(words.valid, words.slot_key, words.key);
        const __mmask8 on_long_slot = _mm512_cmpeq_epi64_mask(words.slot, long_slot0) |
                                      _mm512_cmpeq_epi64_mask(words.slot, long_slot1) |
                                      _mm512_cmpeq_epi64_mask(words.slot, long_slot2);
        // A word of up to 8 bytes is its key, unless it ends in zero bytes,
        // which an empty slot's key or a shorter word's would match: its
        // key's length in bytes must be its own.
        const __m512i key_bytes = _mm512_sub_epi64(eight, _mm512_srli_epi64(_mm512_lzcnt_epi64(words.key), 3));
        const __mmask8 exact =
            _mm512_mask_cmpeq_epi64_mask(hit & ~words.longer & ~on_long_slot, key_bytes, words.length);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(slots + found),
                         _mm512_cvtepi64_epi16(_mm512_maskz_compress_epi64(exact, words.slot)));
        found += size_t(__builtin_popcount(exact));
        __mmask8 others = words.valid & ~exact;
        for (unsigned check = hit & ~exact; check != 0; check &= check - 1) {  // rare: see above
            const int lane = __builtin_ctz(check);
            if (english_stop_word_index(batch.bytes[base + lane], batch.lengths[base + lane]) >= 0) {
                uint64_t lane_slots[8];
                _mm512_storeu_si512(lane_slots, words.slot);
                slots[found++] = uint16_t(lane_slots[lane]);  // the word is the one of its slot
                others &= __mmask8(~(1u << lane));
            }
        }

        _mm512_storeu_si512(hashes + hashed,
                            _mm512_maskz_compress_epi64(others, xxh3_short(words.lo, words.tail, words.length)));
        hashed += size_t(__builtin_popcount(others));
        words = next;
    }
    for (size_t i = 0; i < found; ++i) function_words->index[i] = uint8_t(kWord16Entries[slots[i]]);
    function_words->count = found;
    return hashed;
}

// Characters of a block
// ---------------------
// Mixed 1's characters that are features by themselves come a 64-byte
// block at a time (BlockChars): masks of their first and last bytes.  Two
// compressions of the byte offsets 0..63 by those masks list each
// character's first and last offset, in order; three permutations of the
// block by them give its first, second and last byte, and the length is
// last - first + 1.  For eight characters at a time two more permutations
// gather those four bytes of each into a 64-bit lane, as XXH3 combines
// them, and xxh3_1to3() hashes the lanes.
//
// Worked example: a block that starts with "中文" has starts 1001 and
// lasts 001001 (bits from byte 0); the first offsets are 0 and 3, the
// last ones 2 and 5, and lane 0 combines 0xAD (last byte), 3 (length),
// 0xE4 and 0xB8 into 0xB8E403AD.
#define SIMHASH_AVX512_VBMI __attribute__((target("avx512f,avx512dq,avx512bw,avx512cd,avx512vbmi,avx512vbmi2")))

namespace {
// Bytes 0..63.
alignas(64) constexpr uint8_t kByteOffsets[64] = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
    22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
    44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};
// For lane j of eight: bytes j, 64 + j, j, 64 + j (which of two tables'
// byte j each permutation takes), then four that are masked off.
alignas(64) constexpr uint8_t kLaneCharacter[64] = {
    0, 64, 0, 64, 0, 0, 0, 0, 1, 65, 1, 65, 0, 0, 0, 0, 2, 66, 2, 66, 0, 0, 0, 0, 3, 67, 3, 67, 0, 0, 0, 0,
    4, 68, 4, 68, 0, 0, 0, 0, 5, 69, 5, 69, 0, 0, 0, 0, 6, 70, 6, 70, 0, 0, 0, 0, 7, 71, 7, 71, 0, 0, 0, 0};
constexpr uint64_t kLowTwoBytes = 0x0303030303030303ULL;   // bytes 0 and 1 of each lane
constexpr uint64_t kHighTwoBytes = 0x0C0C0C0C0C0C0C0CULL;  // bytes 2 and 3
}  // namespace

bool hash_block_chars_avx512_supported() noexcept { return cpu_has_avx512_vbmi(); }

SIMHASH_AVX512_VBMI size_t hash_block_chars_avx512(BlockChars chars, uint64_t* hashes) noexcept {
    const __m512i block = _mm512_loadu_si512(chars.bytes), offsets = _mm512_load_si512(kByteOffsets);
    const __m512i one = _mm512_set1_epi8(1);
    const __m512i first = _mm512_maskz_compress_epi8(chars.starts, offsets);
    const __m512i last = _mm512_maskz_compress_epi8(chars.lasts, offsets);
    const __m512i first_byte = _mm512_permutexvar_epi8(first, block);
    const __m512i middle_byte = _mm512_permutexvar_epi8(_mm512_add_epi8(first, one), block);  // length >> 1 is 1
    const __m512i last_byte = _mm512_permutexvar_epi8(last, block);
    const __m512i length = _mm512_add_epi8(_mm512_sub_epi8(last, first), one);
    const size_t count = size_t(__builtin_popcountll(chars.starts));
    const __m512i lanes = _mm512_load_si512(kLaneCharacter);
    for (size_t group = 0; group < count; group += 8) {
        const __m512i pick = _mm512_add_epi8(lanes, _mm512_set1_epi8(static_cast<char>(group)));
        const __m512i low = _mm512_maskz_permutex2var_epi8(kLowTwoBytes, last_byte, pick, length);
        const __m512i high = _mm512_maskz_permutex2var_epi8(kHighTwoBytes, first_byte, pick, middle_byte);
        _mm512_storeu_si512(hashes + group, xxh3_1to3(_mm512_or_si512(low, high)));
    }
    return count;
}

#undef SIMHASH_AVX512_VBMI
#undef SIMHASH_AVX512

#else

bool split_words_avx512_supported() noexcept { return false; }
size_t split_words_avx512(const WordBatch& batch, BatchFunctionWords* function_words, uint64_t* hashes) noexcept {
    return split_words_portable(batch, function_words, hashes);
}
bool hash_block_chars_avx512_supported() noexcept { return false; }
size_t hash_block_chars_avx512(BlockChars chars, uint64_t* hashes) noexcept {
    return hash_block_chars_portable(chars, hashes);
}

#endif

}  // namespace detail
}  // namespace simhash
