// The tokenizer's fast path for ASCII words (mixed mode): most of most text.
// Included by tokenizer_impl.hpp only.
//
// Bytes are classified 16 at a time (SSE2, which every x86-64 has; a table
// loop elsewhere), and a word that case folding leaves as it is (no capital
// letter) is handed to the sink straight from the text, without the copy
// into scratch.  The features are exactly the general loop's: whatever the
// fast path does not finish (a word that reaches a non-ASCII byte, which may
// continue it, or the tick limit, or the last 15 bytes of the text) it
// leaves to that loop, at the start of the word.
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

// From p, between two features, calls word(const char* w, size_t length,
// bool folded) for every ASCII word that an ASCII separator ends before
// limit, and consumes the separators between them (and that one).  A word
// with capital letters is folded into scratch, and w points there (folded is
// true); otherwise w points into the text.  Returns where it stopped: limit,
// a non-ASCII byte, the start of a word it leaves to the general loop, or a
// point less than 16 bytes before end.  Requires limit <= end.
template <class WordSink>
inline const unsigned char* scan_ascii_words(const unsigned char* p, const unsigned char* limit,
                                             const unsigned char* end, char* scratch, WordSink&& word) {
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
        if (has_upper) {
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
