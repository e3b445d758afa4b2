// The tokenizer's fast path for ASCII words (mixed mode): most of most text.
// Included by tokenizer_impl.hpp only.
//
// Bytes are classified 16 at a time (SSE2, which every x86-64 has; a table
// loop elsewhere), 64 to a block whose words are read off one mask (see
// "Words of 64-byte blocks" below), and each word is folded into scratch
// with one 16-byte operation, capitals or not; a long word without capitals
// that the blocks leave is handed to the sink straight from the text.  The
// features are exactly the general loop's: whatever the fast path does not
// finish (a word that reaches a non-ASCII byte, which may continue it, or
// the tick limit, or the last 15 bytes of the text) it leaves to that loop,
// at the start of the word.
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
// Only words that an ASCII separator ends inside the block are taken.  The
// block is cut at its first non-ASCII byte (the general loop decides what
// that character is, and whether it continues a word), and a last word that
// reaches the cut may go on past it: the next block starts at that word, or
// the 16-byte loop below takes over there.  Worked example, one block of
// "Use the -f flag\xE2\x80\x94or not" (the cut at the em dash, byte 15):
// word bytes 1110 1110 0101 1110 from byte 0, so the words are "Use",
// "the", "f" and "flag"; "flag" ends at the cut, so the block gives "Use",
// "the" and "f" and stops at byte 11, where the 16-byte loop finds "flag"
// reaching a non-ASCII byte and leaves it to the general loop.
template <class WordSink>
inline const unsigned char* scan_ascii_blocks(const unsigned char* p, const unsigned char* limit,
                                              const unsigned char* end, char* scratch, WordSink&& word) {
    // 16 more bytes than the block: fold_ascii16 reads 16 from a word's start
    while (limit - p >= 64 && end - p >= 64 + 16) {
        uint64_t words, high;
        classify_ascii64(p, &words, &high);
        const int cut = high != 0 ? __builtin_ctzll(high) : 64;
        const uint64_t before_cut = cut == 64 ? ~uint64_t{0} : (uint64_t{1} << cut) - 1;
        uint64_t complete = words & before_cut;
        int resume = cut;  // where the next block, or the 16-byte loop, starts
        if (cut > 0 && ((complete >> (cut - 1)) & 1) != 0) {
            // the last word reaches the cut: leave it, from just after the last separator
            const uint64_t separators = ~words & before_cut;
            resume = separators != 0 ? 64 - __builtin_clzll(separators) : 0;
            complete &= resume == 0 ? 0 : ~uint64_t{0} >> (64 - resume);
        }
        uint64_t starts = complete & ~(complete << 1);
        uint64_t lasts = complete & ~(complete >> 1);
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
        p += resume;
        if (cut < 64 || resume == 0) break;  // a non-ASCII byte, or a word of 64 bytes or more
    }
    return p;
}

// From p, between two features, calls word(const char* w, size_t length,
// bool folded) for every ASCII word that an ASCII separator ends before
// limit, and consumes the separators between them (and that one).  A word
// of at most 16 bytes, or one with capital letters, is folded into scratch,
// and w points there (folded is true); otherwise w points into the text.
// Returns where it stopped: limit, a non-ASCII byte, the start of a word it
// leaves to the general loop, or a point less than 16 bytes before end.
// Requires limit <= end.  The blocks (scan_ascii_blocks) go first; this
// loop, one word at a time, finishes what they leave.
template <class WordSink>
inline const unsigned char* scan_ascii_words(const unsigned char* p, const unsigned char* limit,
                                             const unsigned char* end, char* scratch, WordSink&& word) {
    p = scan_ascii_blocks(p, limit, end, scratch, word);
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
