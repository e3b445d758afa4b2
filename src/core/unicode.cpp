#include "unicode.hpp"

namespace simhash {

DecodedChar decode_utf8(const unsigned char* p, const unsigned char* end) noexcept {
    const unsigned char b0 = p[0];
    if (b0 < 0x80) return {b0, 1, true};
    const DecodedChar invalid{0xFFFD, 1, false};
    int length;
    char32_t code;
    char32_t min;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        length = 2, code = b0 & 0x1F, min = 0x80;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        length = 3, code = b0 & 0x0F, min = 0x800;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        length = 4, code = b0 & 0x07, min = 0x10000;
    } else {
        return invalid;
    }
    if (end - p < length) return invalid;
    for (int i = 1; i < length; ++i) {
        if ((p[i] & 0xC0) != 0x80) return invalid;
        code = (code << 6) | (p[i] & 0x3F);
    }
    if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return invalid;
    return {code, static_cast<uint8_t>(length), true};
}

int encode_utf8(char32_t code, char* out) noexcept {
    if (code < 0x80) {
        out[0] = static_cast<char>(code);
        return 1;
    }
    if (code < 0x800) {
        out[0] = static_cast<char>(0xC0 | (code >> 6));
        out[1] = static_cast<char>(0x80 | (code & 0x3F));
        return 2;
    }
    if (code < 0x10000) {
        out[0] = static_cast<char>(0xE0 | (code >> 12));
        out[1] = static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out[2] = static_cast<char>(0x80 | (code & 0x3F));
        return 3;
    }
    out[0] = static_cast<char>(0xF0 | (code >> 18));
    out[1] = static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out[2] = static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out[3] = static_cast<char>(0x80 | (code & 0x3F));
    return 4;
}

namespace {

constexpr bool in(char32_t c, char32_t lo, char32_t hi) noexcept { return c >= lo && c <= hi; }

// Unicode simple case folding as runs: first, first + stride, ... last fold
// to code + offset.
struct FoldRun {
    char32_t first, last;
    int32_t offset;
    uint8_t stride;
};
constexpr FoldRun kFoldRuns[] = {
#include "case_folding_table.inc"
};

}  // namespace

char32_t fold_case(char32_t c) noexcept {
    if (c < 0x80) return in(c, 'A', 'Z') ? c + 32 : c;
    // Han, kana and Hangul have no case: most non-ASCII text leaves here
    // (up to U+FF00: the fullwidth forms after it are ASCII's).
    if (in(c, 0x2D00, 0xA63F) || in(c, 0xABC0, 0xFF00)) return c;
    if (in(c, 0xFF01, 0xFF5E)) return fold_case(c - 0xFEE0);  // fullwidth ASCII is ASCII
    if (c == 0x130) return 'i';  // dotted capital I: no simple folding in Unicode; Turkish text means i
    size_t lo = 0, hi = sizeof(kFoldRuns) / sizeof(kFoldRuns[0]);
    while (lo < hi) {  // first run ending at or after c
        size_t mid = (lo + hi) / 2;
        if (kFoldRuns[mid].last < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == sizeof(kFoldRuns) / sizeof(kFoldRuns[0])) return c;
    const FoldRun& run = kFoldRuns[lo];
    if (c < run.first || (c - run.first) % run.stride != 0) return c;
    return static_cast<char32_t>(static_cast<int32_t>(c) + run.offset);
}

namespace {

constexpr CharClass S = CharClass::kSeparator;
constexpr CharClass W = CharClass::kWord;
constexpr CharClass C = CharClass::kCjk;
constexpr CharClass Y = CharClass::kSymbol;
constexpr CharClass I = CharClass::kIgnorable;

struct Range {
    char32_t lo, hi;
    CharClass cls;
};

// U+0080..U+10FFFF by General_Category and a few block rules (README,
// "The algorithm", rule 2; the rules are in the generator's docstring).
constexpr Range kRanges[] = {
#include "char_class_table.inc"
};

// ASCII: letters and digits are word characters, everything else separates.
constexpr bool ascii_is_word(char32_t c) { return in(c, '0', '9') || in(c, 'a', 'z') || in(c, 'A', 'Z'); }

}  // namespace

CharClass classify(char32_t c) noexcept {
    if (c < 0x80) return ascii_is_word(c) ? W : S;
    if (in(c, 0x4E00, 0x9FFF)) return C;  // the common Han block, most of Chinese text
    size_t lo = 0, hi = sizeof(kRanges) / sizeof(kRanges[0]);
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c < kRanges[mid].lo)
            hi = mid;
        else if (c > kRanges[mid].hi)
            lo = mid + 1;
        else
            return kRanges[mid].cls;
    }
    return S;  // surrogates: never decoded
}

bool is_ideograph(char32_t c) noexcept {
    if (in(c, 0x4E00, 0x9FFF)) return true;
    return in(c, 0x2E80, 0x2FDF)     // radicals, Kangxi radicals
           || in(c, 0x3005, 0x3007)  // iteration mark, closing mark, ideographic zero
           || in(c, 0x3021, 0x3029)  // Hangzhou numerals
           || in(c, 0x3038, 0x303C)  // Hangzhou numerals, vertical iteration mark, masu mark
           || in(c, 0x3190, 0x319F)  // kanbun
           || in(c, 0x31C0, 0x31EF)  // strokes
           || in(c, 0x3200, 0x33FF)  // enclosed and compatibility ideographs
           || in(c, 0x3400, 0x4DBF)  // extension A
           || in(c, 0xF900, 0xFAFF)  // compatibility ideographs
           || in(c, 0x20000, 0x3FFFF);  // extensions B and later
}

// Classes first, from the runs of the class table; then each code point
// that folding changes (the folding runs, ASCII capitals, fullwidth ASCII
// and U+0130: every case fold_case() does not return unchanged) takes the
// properties of its folding.  Folding is idempotent, so no folding's
// target is itself changed here.
BmpProperties::BmpProperties() noexcept : of() {
    for (char32_t c = 0; c < 0x80; ++c) of[c] = uint8_t(classify(c));
    for (const Range& r : kRanges) {
        if (r.lo > 0xFFFF) break;
        for (char32_t c = r.lo; c <= r.hi && c <= 0xFFFF; ++c)
            of[c] = uint8_t(uint8_t(r.cls) | (r.cls == C && is_ideograph(c) ? kIdeograph : 0));
    }
    auto take_folding = [this](char32_t c) {
        const char32_t f = fold_case(c);
        if (f == c) return;
        const uint8_t target = f <= 0xFFFF ? of[f]
                                           : uint8_t(uint8_t(classify(f)) | (is_ideograph(f) ? kIdeograph : 0));
        of[c] = uint8_t(target | kFolds);
    };
    for (char32_t c = 'A'; c <= 'Z'; ++c) take_folding(c);
    for (const FoldRun& r : kFoldRuns) {
        if (r.first > 0xFFFF) break;
        for (char32_t c = r.first; c <= r.last && c <= 0xFFFF; c += r.stride) take_folding(c);
    }
    for (char32_t c = 0xFF01; c <= 0xFF5E; ++c) take_folding(c);
    take_folding(0x130);
}

}  // namespace simhash
