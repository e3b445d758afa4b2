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
