// UTF-8 decoding, character classes and case folding for the tokenizer.
//
// No ICU and no locale: the classes and folding rules below are fixed tables,
// so a fingerprint never depends on the server's locale or library versions.
#pragma once

#include <cstddef>
#include <cstdint>

namespace simhash {

enum class CharClass : uint8_t {
    kSeparator,  // white space, punctuation, symbols, controls, invalid bytes
    kWord,       // letters, marks and numbers of space-delimited scripts
    kCjk,        // Han, Kana, Yi and scripts written without spaces (Thai, Lao, Khmer, Myanmar)
    kSymbol,     // emoji and pictographs: each one is a token of its own
    kIgnorable,  // joiners, soft hyphen, variation selectors, skin-tone modifiers, tags:
                 // dropped, never split a token
                 // (which code point is which: scripts/gen-char-classes.py)
};

// One decoded code point.  `length` is the number of bytes consumed (>= 1);
// `valid` is false for a malformed sequence, which consumes exactly one byte.
struct DecodedChar {
    char32_t code;
    uint8_t length;
    bool valid;
};

DecodedChar decode_utf8(const unsigned char* p, const unsigned char* end) noexcept;

// Writes the UTF-8 encoding of `code` (a valid scalar value) and returns its length.
int encode_utf8(char32_t code, char* out) noexcept;

namespace detail {

// Decoders of the sequences the tokenizer's fast paths take, inline; the
// unit tests check them against decode_utf8().

// U+4E00..U+9FFF is E4 B8 80 .. E9 BF BF in UTF-8.
inline bool is_common_han(const unsigned char* p, const unsigned char* end) noexcept {
    if (end - p < 3 || p[0] < 0xE4 || p[0] > 0xE9 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return false;
    return p[0] != 0xE4 || p[1] >= 0xB8;
}

inline char32_t decode_utf8_3(const unsigned char* p) noexcept {
    return (char32_t(p[0] & 0x0F) << 12) | (char32_t(p[1] & 0x3F) << 6) | char32_t(p[2] & 0x3F);
}

// The length of the well-formed 2- or 3-byte UTF-8 sequence at p (a code
// point of U+0080..U+FFFF other than a surrogate), or 0 for anything else:
// ASCII, 4 bytes, or malformed, which decode_utf8() takes.
inline int bmp_sequence_length(const unsigned char* p, const unsigned char* end) noexcept {
    const unsigned char b0 = p[0];
    if (b0 >= 0xC2 && b0 <= 0xDF) return end - p >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
    if (b0 < 0xE0 || b0 > 0xEF || end - p < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
    if ((b0 == 0xE0 && p[1] < 0xA0) || (b0 == 0xED && p[1] >= 0xA0)) return 0;  // overlong, or a surrogate
    return 3;
}

// The code point of a sequence that bmp_sequence_length() measured as length.
inline char32_t decode_bmp(const unsigned char* p, int length) noexcept {
    return length == 2 ? (char32_t(p[0] & 0x1F) << 6) | char32_t(p[1] & 0x3F) : decode_utf8_3(p);
}

}  // namespace detail

// Unicode simple case folding (CaseFolding.txt, statuses C and S: one code
// point to one), plus fullwidth ASCII to ASCII and capital I with dot to i.
char32_t fold_case(char32_t code) noexcept;

// Class of an already folded code point.
CharClass classify(char32_t code) noexcept;

// True for the kCjk characters that are ideographs (Han and its radicals,
// strokes, numerals and compatibility forms): each one carries a meaning.
// The other kCjk characters (kana, bopomofo, Yi, and the letters of Thai,
// Lao, Khmer and Myanmar) stand for sounds.
bool is_ideograph(char32_t code) noexcept;

// Every character of the Basic Multilingual Plane (U+0000..U+FFFF) as the
// tokenizer asks about it, in one byte: the class of its case folding,
// whether folding changes it, and whether its folding is an ideograph.  A
// table load instead of binary searches through the class and folding runs,
// which make a byte of Russian text three times as slow to tokenize as one
// of English.  Built from classify(), fold_case() and is_ideograph() on
// first use, in well under a millisecond, and checked against them for
// every code point by the unit tests.
struct BmpProperties {
    static constexpr uint8_t kClass = 0x07;      // the CharClass of fold_case(c)
    static constexpr uint8_t kFolds = 0x08;      // fold_case(c) != c
    static constexpr uint8_t kIdeograph = 0x10;  // is_ideograph(fold_case(c))
    uint8_t of[0x10000];                         // indexed by code point
    BmpProperties() noexcept;
};

// The table, built by the first call (thread-safe, as every function-local static).
inline const BmpProperties& bmp_properties() noexcept {
    static const BmpProperties table;
    return table;
}

// ASCII is most of most text: its folding and classes as inline tables, for
// the tokenizer's fast path.  They agree with fold_case() and classify().
struct AsciiTables {
    char fold[128];
    CharClass cls[128];
    constexpr AsciiTables() : fold(), cls() {
        for (int c = 0; c < 128; ++c) {
            const bool upper = c >= 'A' && c <= 'Z';
            const bool word = upper || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
            fold[c] = static_cast<char>(upper ? c + 32 : c);
            cls[c] = word ? CharClass::kWord : CharClass::kSeparator;
        }
    }
};
inline constexpr AsciiTables kAscii{};

}  // namespace simhash
