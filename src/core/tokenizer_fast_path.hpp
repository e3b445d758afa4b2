// The mixed tokenizer's fast path: ASCII words, most of most text, and in
// mixed 1 the characters that are features by themselves (ideographs and
// symbols), most of Chinese text.  Included by tokenizer_impl.hpp only.
//
// Bytes are classified 16 at a time (SSE2, which every x86-64 has; a table
// loop elsewhere), 64 to a block whose words are read off one mask (see
// "Words of 64-byte blocks" below), and each word is folded into scratch
// with one 16-byte operation, capitals or not; a long word without capitals
// that the blocks leave is handed to the sink straight from the text.  In
// mixed 1 a block also takes its common Han characters, found by masks too,
// and the other characters it can decide alone (see "Characters that are
// features by themselves").  The features are exactly the general loop's:
// whatever the fast path does not finish (a word that reaches a non-ASCII
// letter, which may continue it, a character it does not take, the tick
// limit, or the last bytes of the text) it leaves to that loop, at the
// start of the word or character.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "unicode.hpp"

namespace simhash {
namespace detail {

// Bit i of each mask describes byte i of a 16-byte window.
struct AsciiMasks {
    uint32_t word;   // an ASCII letter or digit (kAscii.cls is kWord)
    uint32_t high;   // not ASCII (>= 0x80)
    uint32_t upper;  // an ASCII capital letter, which folding changes
};

// Requires 16 readable bytes at p.
inline AsciiMasks classify_ascii16(const unsigned char* p) noexcept {
#if defined(__SSE2__)
    // b in [lo, lo + n) as a signed comparison: b + (128 - lo) < -128 + n,
    // which no byte >= 0x80 passes for these ranges.
    auto in_range = [](__m128i b, char lo, int n) {
        return _mm_cmplt_epi8(_mm_add_epi8(b, _mm_set1_epi8(static_cast<char>(128 - lo))),
                              _mm_set1_epi8(static_cast<char>(-128 + n)));
    };
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i letter = in_range(_mm_or_si128(bytes, _mm_set1_epi8(0x20)), 'a', 26);
    const __m128i digit = in_range(bytes, '0', 10);
    return {uint32_t(_mm_movemask_epi8(_mm_or_si128(letter, digit))), uint32_t(_mm_movemask_epi8(bytes)),
            uint32_t(_mm_movemask_epi8(in_range(bytes, 'A', 26)))};
#else
    AsciiMasks m{0, 0, 0};
    for (int i = 0; i < 16; ++i) {
        const unsigned char b = p[i];
        if (b >= 0x80) {
            m.high |= 1u << i;
        } else {
            m.word |= uint32_t(kAscii.cls[b] == CharClass::kWord) << i;
            m.upper |= uint32_t(kAscii.fold[b] != static_cast<char>(b)) << i;
        }
    }
    return m;
#endif
}

// Copies the 16 bytes at p to out with ASCII capitals made small: the case
// folding of a word of ASCII letters and digits, whatever bytes follow it.
inline void fold_ascii16(const unsigned char* p, char* out) noexcept {
#if defined(__SSE2__)
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i upper = _mm_cmplt_epi8(_mm_add_epi8(bytes, _mm_set1_epi8(static_cast<char>(128 - 'A'))),
                                         _mm_set1_epi8(static_cast<char>(-128 + 26)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_or_si128(bytes, _mm_and_si128(upper, _mm_set1_epi8(0x20))));
#else
    for (int i = 0; i < 16; ++i) out[i] = static_cast<char>(p[i] < 0x80 ? kAscii.fold[p[i]] : p[i]);
#endif
}

// Which of the 64 bytes at p are ASCII word bytes, and which are not ASCII
// (bit i describes byte i).  Requires 64 readable bytes at p.
inline void classify_ascii64(const unsigned char* p, uint64_t* word, uint64_t* high) noexcept {
    uint64_t w = 0, h = 0;
    for (int i = 0; i < 4; ++i) {
        const AsciiMasks m = classify_ascii16(p + 16 * i);
        w |= uint64_t(m.word) << (16 * i);
        h |= uint64_t(m.high) << (16 * i);
    }
    *word = w;
    *high = h;
}

// Which of the 64 bytes at p start a common Han character (U+4E00..U+9FFF,
// E4 B8 80 .. E9 BF BF, as is_common_han() reads it) whose three bytes are
// all in the block.  Requires 64 readable bytes at p.
inline uint64_t common_han_starts64(const unsigned char* p) noexcept {
    uint64_t lead = 0;       // E4..E9
    uint64_t cont = 0;       // a continuation byte, 80..BF
    uint64_t e4 = 0;         // E4, whose second byte must be B8 or more
    uint64_t before_b8 = 0;  // 80..B7
    for (int i = 0; i < 4; ++i) {
#if defined(__SSE2__)
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
        // b in [lo, lo + n) as an unsigned comparison: min(b - lo, n - 1) == b - lo
        auto in_range = [b](int lo, int n) {
            const __m128i d = _mm_sub_epi8(b, _mm_set1_epi8(static_cast<char>(lo)));
            const __m128i in = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(static_cast<char>(n - 1))), d);
            return uint64_t(uint32_t(_mm_movemask_epi8(in)));
        };
        lead |= in_range(0xE4, 6) << (16 * i);
        cont |= in_range(0x80, 0x40) << (16 * i);
        e4 |= in_range(0xE4, 1) << (16 * i);
        before_b8 |= in_range(0x80, 0x38) << (16 * i);
#else
        for (int j = 0; j < 16; ++j) {
            const unsigned char c = p[16 * i + j];
            const uint64_t bit = uint64_t{1} << (16 * i + j);
            lead |= c >= 0xE4 && c <= 0xE9 ? bit : 0;
            cont |= (c & 0xC0) == 0x80 ? bit : 0;
            e4 |= c == 0xE4 ? bit : 0;
            before_b8 |= c >= 0x80 && c < 0xB8 ? bit : 0;
        }
#endif
    }
    return lead & (cont >> 1) & (cont >> 2) & ~(e4 & (before_b8 >> 1));
}

// Characters that are features by themselves
// ------------------------------------------
// In mixed 1 an ideograph is a feature by itself, and so is a symbol, so a
// block of Chinese need not stop at its first non-ASCII byte.  Its common
// Han characters, which folding leaves alone, are found by masks; each
// other non-ASCII character of the block is looked up in BmpProperties: a
// separator (most often CJK punctuation) is skipped, an ideograph or a
// symbol is a feature (none of the BMP's folds), and anything else cuts the
// block there, as any non-ASCII byte does in the other modes: a letter,
// which may continue a word, kana, which make bigrams, an ignorable
// character, a 4-byte or malformed sequence.  Each feature is the
// character's bytes in the text, marked in masks of starts and last bytes
// as the words are.  A character that the block's end splits cuts it too,
// but the next block starts there.
//
// Worked example, one block from "用 ls，列─": 用 is common Han (bytes 0-2),
// "ls" a word, ， (U+FF0C) a separator, 列 Han, ─ (U+2500) a symbol: the
// features are 用, ls, 列 and ─, starts at bytes 0, 4, 9 and 12, last
// bytes 2, 5, 11 and 14.
struct BlockSingles {
    uint64_t starts = 0;     // the first byte of each character that is a feature
    uint64_t lasts = 0;      // the last byte of each
    bool straddles = false;  // the cut is a character that the block's end splits
};

// What a block does with the non-ASCII character at byte `at` of the block at p.
enum class BlockChar { kSeparator, kFeature, kCut, kStraddles };
inline BlockChar block_char(const unsigned char* p, int at, const unsigned char* end, const BmpProperties& bmp,
                            int* length) noexcept {
    const unsigned char* c = p + at;
    *length = bmp_sequence_length(c, end);
    if (*length == 0) return BlockChar::kCut;
    if (at + *length > 64) return BlockChar::kStraddles;
    const uint8_t props = bmp.of[decode_bmp(c, *length)];
    const CharClass cls = CharClass(props & BmpProperties::kClass);
    if (cls == CharClass::kSeparator) return BlockChar::kSeparator;
    // (no symbol or ideograph of the BMP folds: the unit tests check)
    if (cls == CharClass::kSymbol || (cls == CharClass::kCjk && (props & BmpProperties::kIdeograph) != 0))
        return BlockChar::kFeature;
    return BlockChar::kCut;
}

// Finds the block's single-character features; takes the bytes of those
// and of the separators out of high (the block's non-ASCII bytes), whose
// lowest remaining bit is then the cut.  Features past the cut are left in
// the masks, for the caller to cut off.
inline BlockSingles find_block_singles(const unsigned char* p, const unsigned char* end, const BmpProperties& bmp,
                                       uint64_t* high) noexcept {
    BlockSingles singles;
    int length;
    // A block of Russian or German is cut at its first letter: it needs no masks.
    const int first = __builtin_ctzll(*high);
    if (!is_common_han(p + first, end) && block_char(p, first, end, bmp, &length) == BlockChar::kCut) return singles;
    singles.starts = common_han_starts64(p);
    singles.lasts = singles.starts << 2;
    uint64_t other = *high & ~(singles.starts | (singles.starts << 1) | singles.lasts);
    while (other != 0) {
        const int at = __builtin_ctzll(other);
        const BlockChar kind = block_char(p, at, end, bmp, &length);
        if (kind == BlockChar::kCut) break;
        if (kind == BlockChar::kStraddles) {
            singles.straddles = true;
            break;
        }
        if (kind == BlockChar::kFeature) {
            singles.starts |= uint64_t{1} << at;
            singles.lasts |= uint64_t{1} << (at + length - 1);
        }
        other &= ~(((uint64_t{1} << length) - 1) << at);
    }
    *high = other;
    return singles;
}

// Words of 64-byte blocks
// -----------------------
// Finding each word's end from its start makes every word wait for the one
// before it: the next window's load, its classification and two ctz are a
// chain of some 20 cycles a word, which no out-of-order core can overlap.
// Here the bytes of a block are classified once, into a mask of word bytes,
// and its words are read off the mask: starts = words & ~(words << 1), last
// bytes = words & ~(words >> 1), the n-th word running from the n-th set bit
// of one to that of the other.  Stepping to the next word is clearing a
// lowest set bit, so the words' folding, lookups and hashes overlap.
//
// Only words that a separator ends inside the block are taken.  The block
// is cut at its first non-ASCII byte, or in mixed 1 the first it does not
// take (the general loop decides what that character is, and whether it
// continues a word), and a last word that reaches the cut may go on past
// it: the next block starts at that word, or the 16-byte loop below takes
// over there.  Worked example, one block of
// "Use the -f flag\xE2\x80\x94or not" (the cut at the em dash, byte 15):
// word bytes 1110 1110 0101 1110 from byte 0, so the words are "Use",
// "the", "f" and "flag"; "flag" ends at the cut, so the block gives "Use",
// "the" and "f" and stops at byte 11, where the 16-byte loop finds "flag"
// reaching a non-ASCII byte and leaves it to the general loop.
template <bool kSingles, bool kAnyOrder, class WordSink, class CharsSink>
inline const unsigned char* scan_blocks(const unsigned char* p, const unsigned char* limit, const unsigned char* end,
                                        char* scratch, WordSink&& word, CharsSink&& chars) {
    const BmpProperties& bmp = bmp_properties();
    // 16 more bytes than the block: fold_ascii16 reads 16 from a word's start
    while (limit - p >= 64 && end - p >= 64 + 16) {
        uint64_t words, high;
        classify_ascii64(p, &words, &high);
        BlockSingles singles;
        if (kSingles && high != 0) singles = find_block_singles(p, end, bmp, &high);
        const int cut = high != 0 ? __builtin_ctzll(high) : 64;
        uint64_t before = cut == 64 ? ~uint64_t{0} : (uint64_t{1} << cut) - 1;  // the bytes taken
        uint64_t complete = words & before;
        int resume = cut;  // where the next block, or the 16-byte loop, starts
        if (cut > 0 && ((complete >> (cut - 1)) & 1) != 0) {
            // the last word reaches the cut: leave it, from just after the last separator
            const uint64_t separators = ~words & before;
            resume = separators != 0 ? 64 - __builtin_clzll(separators) : 0;
            before = resume == 0 ? 0 : ~uint64_t{0} >> (64 - resume);
            complete &= before;
        }
        uint64_t starts = complete & ~(complete << 1);
        uint64_t lasts = complete & ~(complete >> 1);
        uint64_t single_starts = singles.starts & before, single_lasts = singles.lasts & before;
        if constexpr (!kAnyOrder) {
            // in text order: each character goes with the words, as a word
            // would (it is no function word), and 16 bytes fold it unchanged
            starts |= single_starts;
            lasts |= single_lasts;
            single_starts = 0;
        }
        while (starts != 0) {
            const unsigned char* w = p + __builtin_ctzll(starts);
            const size_t length = size_t(p + __builtin_ctzll(lasts) + 1 - w);
            starts &= starts - 1;
            lasts &= lasts - 1;
            if (length <= 16) {
                fold_ascii16(w, scratch);
            } else {
                for (size_t i = 0; i < length; ++i) scratch[i] = kAscii.fold[w[i]];
            }
            word(static_cast<const char*>(scratch), length, true);
        }
        // a sink that takes any order: the characters after the words, with no branch between
        if (single_starts != 0) chars(BlockChars{reinterpret_cast<const char*>(p), single_starts, single_lasts});
        p += resume;
        if (resume == 0) break;                      // a word of 64 bytes or more
        if (cut < 64 && !singles.straddles) break;  // a non-ASCII byte for the general loop
    }
    return p;
}

// From p, between two features, calls word(const char* w, size_t length,
// bool folded) for every ASCII word that a separator ends before limit,
// and consumes the separators between them (and that one).  A word of at
// most 16 bytes, or one with capital letters, is folded into scratch, and
// w points there (folded is true); otherwise w points into the text.  With
// kSingles (mixed 1), the blocks also take the characters that are
// features by themselves, and give them to chars(BlockChars) after each
// block's words where kAnyOrder, else to word() as words in text order.
// Returns where it stopped: limit, a non-ASCII byte, the start of a word
// it leaves to the general loop, or a point less than 16 bytes before end.
// Requires limit <= end.  The blocks (scan_blocks) go first; the loop
// here, one ASCII word at a time, finishes what they leave.
template <bool kSingles, bool kAnyOrder, class WordSink, class CharsSink>
inline const unsigned char* scan_fast_path(const unsigned char* p, const unsigned char* limit,
                                           const unsigned char* end, char* scratch, WordSink&& word,
                                           CharsSink&& chars) {
    p = scan_blocks<kSingles, kAnyOrder>(p, limit, end, scratch, word, chars);
    while (p < limit && end - p >= 16) {
        const size_t left = size_t(limit - p);
        const uint32_t valid = left >= 16 ? 0xFFFFu : (1u << left) - 1;
        const AsciiMasks m = classify_ascii16(p);
        const uint32_t stop = (m.word | m.high) & valid;
        if (stop == 0) {  // separators only
            p += left >= 16 ? 16 : left;
            continue;
        }
        const int start = __builtin_ctz(stop);
        if ((m.high >> start) & 1) return p + start;
        const unsigned char* w = p + start;
        // The word's end: its first byte that is not a word byte, in this
        // window or the ones after; a capital letter before it means folding.
        // (rest & -rest) - 1 masks the bytes before the lowest bit of rest, or all when rest is 0.
        uint32_t rest = ~m.word & ~((1u << start) - 1) & 0xFFFFu;
        bool has_upper = (m.upper & ~((1u << start) - 1) & ((rest & -rest) - 1)) != 0;
        const unsigned char* window = p;
        while (rest == 0) {
            window += 16;
            if (window >= limit || end - window < 16) return w;
            const AsciiMasks next = classify_ascii16(window);
            rest = ~next.word & 0xFFFFu;
            has_upper |= (next.upper & ((rest & -rest) - 1)) != 0;
        }
        const unsigned char* e = window + __builtin_ctz(rest);
        if (e >= limit || *e >= 0x80) return w;  // the general loop: limit, or a word going on in non-ASCII
        const size_t length = size_t(e - w);
        if (length <= 16 && end - w >= 16) {
            // most words: folded whether or not they have a capital (no branch to mispredict)
            fold_ascii16(w, scratch);
            word(static_cast<const char*>(scratch), length, true);
        } else if (has_upper) {
            for (size_t i = 0; i < length; ++i) scratch[i] = kAscii.fold[w[i]];
            word(static_cast<const char*>(scratch), length, true);
        } else {
            word(reinterpret_cast<const char*>(w), length, false);
        }
        p = e + 1;  // the separator that ended it
    }
    return p;
}

}  // namespace detail
}  // namespace simhash
