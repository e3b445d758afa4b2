#include <cstring>
#include <gtest/gtest.h>

#include "features.hpp"
#include "unicode.hpp"

#include <algorithm>
#include <random>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using simhash::TokenizerKind;

TEST(Unicode, DecodesAndRejectsMalformedSequences) {
    auto decode = [](const std::string& s) {
        auto p = reinterpret_cast<const unsigned char*>(s.data());
        return simhash::decode_utf8(p, p + s.size());
    };
    EXPECT_EQ(decode("A").code, U'A');
    EXPECT_EQ(decode("\xE4\xB8\xAD").code, U'中');
    EXPECT_EQ(decode("\xF0\x9F\x98\x80").code, U'😀');
    for (const std::string& bad : {std::string("\xC0\x80"), std::string("\xED\xA0\x80"),   // overlong, surrogate
                                   std::string("\xF4\x90\x80\x80"), std::string("\xE4\xB8"),  // > U+10FFFF, truncated
                                   std::string("\x80"), std::string("\xFF")}) {
        auto d = decode(bad);
        EXPECT_FALSE(d.valid);
        EXPECT_EQ(d.length, 1) << "a malformed sequence consumes one byte";
    }
}

TEST(Unicode, FoldsCase) {
    EXPECT_EQ(simhash::fold_case(U'Q'), U'q');
    EXPECT_EQ(simhash::fold_case(U'Ä'), U'ä');
    EXPECT_EQ(simhash::fold_case(U'Ğ'), U'ğ');
    EXPECT_EQ(simhash::fold_case(U'Σ'), U'σ');
    EXPECT_EQ(simhash::fold_case(U'ς'), U'σ');
    EXPECT_EQ(simhash::fold_case(U'Ж'), U'ж');
    EXPECT_EQ(simhash::fold_case(U'Ё'), U'ё');
    EXPECT_EQ(simhash::fold_case(U'Ａ'), U'a');  // fullwidth
    EXPECT_EQ(simhash::fold_case(U'中'), U'中');
    EXPECT_EQ(simhash::fold_case(U'×'), U'×');
}

// Unicode simple case folding reaches every cased script, not only the
// Latin-1, Greek and Cyrillic basics (these were missed once).
TEST(Unicode, FoldsCaseBeyondTheBasicBlocks) {
    EXPECT_EQ(simhash::fold_case(U'Ș'), U'ș');    // Romanian, Latin Extended-B
    EXPECT_EQ(simhash::fold_case(U'Ư'), U'ư');    // Vietnamese
    EXPECT_EQ(simhash::fold_case(U'Ơ'), U'ơ');
    EXPECT_EQ(simhash::fold_case(U'Ớ'), U'ớ');    // Latin Extended Additional
    EXPECT_EQ(simhash::fold_case(U'Ə'), U'ə');    // Azerbaijani
    EXPECT_EQ(simhash::fold_case(U'Ǎ'), U'ǎ');    // pinyin
    EXPECT_EQ(simhash::fold_case(U'Ǆ'), U'ǆ');    // digraph and its title case
    EXPECT_EQ(simhash::fold_case(U'ǅ'), U'ǆ');
    EXPECT_EQ(simhash::fold_case(U'Ἀ'), U'ἀ');    // polytonic Greek
    EXPECT_EQ(simhash::fold_case(U'Ӏ'), U'ӏ');    // Cyrillic palochka
    EXPECT_EQ(simhash::fold_case(U'Ꙁ'), U'ꙁ');    // Cyrillic Extended-B
    EXPECT_EQ(simhash::fold_case(U'Ა'), U'ა');    // Georgian Mtavruli
    EXPECT_EQ(simhash::fold_case(U'\u212A'), U'k');  // Kelvin sign
    EXPECT_EQ(simhash::fold_case(U'\u2126'), U'ω');  // Ohm sign
    EXPECT_EQ(simhash::fold_case(U'ſ'), U's');    // long s
    EXPECT_EQ(simhash::fold_case(U'µ'), U'μ');    // micro sign
    EXPECT_EQ(simhash::fold_case(U'ẞ'), U'ß');    // capital sharp s: simple folding
    EXPECT_EQ(simhash::fold_case(U'İ'), U'i');    // no simple folding in Unicode: ours
    EXPECT_EQ(simhash::fold_case(U'𐐀'), U'𐐨');    // Deseret, beyond the BMP
    EXPECT_EQ(simhash::fold_case(U'𞤀'), U'𞤢');    // Adlam
    EXPECT_EQ(simhash::fold_case(U'ı'), U'ı');    // dotless i stays
    EXPECT_EQ(simhash::fold_case(U'ꭰ'), U'Ꭰ');    // Cherokee folds to its capitals
    EXPECT_EQ(simhash::fold_case(U'가'), U'가');
}

// Folding twice changes nothing; a folded letter is never a capital that
// the table would fold further, anywhere in the code space.
TEST(Unicode, FoldingIsIdempotent) {
    for (char32_t c = 0; c <= 0x10FFFF; ++c) {
        if (c >= 0xD800 && c <= 0xDFFF) continue;
        char32_t f = simhash::fold_case(c);
        ASSERT_EQ(simhash::fold_case(f), f) << std::hex << c;
    }
}

// fold_case answers most code points without the table (ASCII, and the
// ranges it returns unchanged because Han, kana and Hangul have no case).
// Read the generated table the slow way, run by run, and check that every
// code point folds as it says: a shortcut range that swallowed a table entry
// would fail here.  The two documented additions are ours, not Unicode's.
namespace table_reading {
struct FoldRun {
    char32_t first, last;
    int32_t offset;
    uint8_t stride;
};
constexpr FoldRun kRuns[] = {
#include "case_folding_table.inc"
};
}  // namespace table_reading

TEST(Unicode, FoldingMatchesTheGeneratedTableEverywhere) {
    std::vector<char32_t> expected(0x110000);
    for (char32_t c = 0; c < expected.size(); ++c) expected[c] = c;
    size_t mapped = 0;
    for (const auto& run : table_reading::kRuns)
        for (char32_t c = run.first; c <= run.last; c += run.stride) {
            expected[c] = static_cast<char32_t>(static_cast<int32_t>(c) + run.offset);
            ++mapped;
        }
    EXPECT_EQ(mapped, 1454u) << "the table's header says it holds 1454 code points";
    for (char32_t c = 0xFF01; c <= 0xFF5E; ++c) expected[c] = expected[c - 0xFEE0];  // fullwidth ASCII
    expected[0x130] = U'i';
    for (char32_t c = 0; c <= 0x10FFFF; ++c) {
        if (c >= 0xD800 && c <= 0xDFFF) continue;
        ASSERT_EQ(simhash::fold_case(c), expected[c]) << std::hex << "U+" << uint32_t(c);
    }
}

TEST(Unicode, AsciiTablesAgreeWithTheGeneralFunctions) {
    for (char32_t c = 0; c < 128; ++c) {
        EXPECT_EQ(char32_t(static_cast<unsigned char>(simhash::kAscii.fold[c])), simhash::fold_case(c)) << int(c);
        EXPECT_EQ(simhash::kAscii.cls[c], simhash::classify(simhash::fold_case(c))) << int(c);
    }
}

// The code points of a Unicode data file ("lo..hi ; value # comment" lines)
// whose value field passes keep().
template <class Keep>
static std::vector<bool> code_points_where(const char* path, Keep keep) {
    std::vector<bool> marked(0x110000);
    std::ifstream data(path);
    EXPECT_TRUE(data.good()) << path << " is missing: install unicode-data";
    for (std::string line; std::getline(data, line);) {
        line = line.substr(0, line.find('#'));
        const size_t semi = line.find(';');
        if (semi == std::string::npos || !keep(line.substr(semi + 1))) continue;
        const size_t dots = line.find("..");
        const unsigned long lo = std::stoul(line.substr(0, semi), nullptr, 16);
        const unsigned long hi = dots < semi ? std::stoul(line.substr(dots + 2), nullptr, 16) : lo;
        for (unsigned long c = lo; c <= hi; ++c) marked[c] = true;
    }
    return marked;
}

// Code points whose Word_Break property (UAX #29) is ALetter.
static std::vector<bool> word_break_letters(const char* path) {
    return code_points_where(path, [](const std::string& value) { return value.find("ALetter") != std::string::npos; });
}

// Code points the machine's Unicode data assigns in a version after 15.0, the
// one the character tables were generated from (DerivedAge.txt, which gives
// each code point the version that assigned it).  A newer unicode-data (as in
// Debian sid) classifies them, where the tables, by design, do not yet.
static std::vector<bool> assigned_after_15(const char* path) {
    return code_points_where(path, [](const std::string& value) { return std::stod(value) > 15.0; });
}

// Rule 2 against Unicode's own data, for every assigned code point: outside
// the blocks the rule names, punctuation, white space and controls separate
// (unless Unicode's word boundaries count them as letters) and letters,
// marks and numbers never do.  (Version 3's hand-made table made
// every code point it did not list a word character: the Armenian comma, the
// Ethiopic full stop and the Ogham space mark joined the words around them.)
TEST(Unicode, ClassesFollowGeneralCategory) {
    const char* path = "/usr/share/unicode/UnicodeData.txt";  // Debian's unicode-data (scripts/install-deps.sh)
    std::ifstream data(path);
    ASSERT_TRUE(data.good()) << path << " is missing: install unicode-data";
    auto in = [](char32_t c, char32_t lo, char32_t hi) { return c >= lo && c <= hi; };
    auto block_rule = [&](char32_t c) {  // the blocks whose class rule 2 fixes whatever their category
        return in(c, 0x2100, 0x218F) || in(c, 0x2600, 0x27BF) || in(c, 0x4DC0, 0x4DFF) || in(c, 0xE000, 0xF8FF) ||
               in(c, 0x1F000, 0x1FFFF) || in(c, 0xF0000, 0x10FFFF) || in(c, 0x2E80, 0x2FDF) ||
               in(c, 0x3005, 0x3007) || in(c, 0x3021, 0x3029) || in(c, 0x3031, 0x3035) || in(c, 0x3038, 0x303C) ||
               in(c, 0x3040, 0x30FA) || in(c, 0x30FC, 0x312F) || in(c, 0x3190, 0x33FF) || in(c, 0x3400, 0x4DBF) ||
               in(c, 0x4E00, 0x9FFF) || in(c, 0xA000, 0xA4CF) || in(c, 0xF900, 0xFAFF) || in(c, 0xFF66, 0xFF9F) ||
               in(c, 0x20000, 0x3FFFF);
    };
    auto dropped = [&](char32_t c) {
        return c == 0xAD || in(c, 0x180B, 0x180D) || c == 0x180F || in(c, 0x200C, 0x200D) || in(c, 0x2060, 0x2064) ||
               c == 0x20E3 || in(c, 0x302A, 0x302D) || in(c, 0xFE00, 0xFE0F) || c == 0xFEFF || in(c, 0x1F3FB, 0x1F3FF) ||
               in(c, 0xE0000, 0xE0FFF);
    };
    const auto letters = word_break_letters("/usr/share/unicode/auxiliary/WordBreakProperty.txt");
    const auto newer = assigned_after_15("/usr/share/unicode/DerivedAge.txt");
    std::string line;
    char32_t first = 0;
    size_t checked = 0;
    while (std::getline(data, line)) {
        std::vector<std::string> f;
        std::stringstream fields(line);
        for (std::string x; std::getline(fields, x, ';');) f.push_back(x);
        ASSERT_GE(f.size(), 3u) << line;
        const char32_t code = static_cast<char32_t>(std::stoul(f[0], nullptr, 16));
        const std::string& name = f[1];
        const char gc = f[2][0];
        if (name.size() > 8 && name.compare(name.size() - 8, 8, ", First>") == 0) {
            first = code;
            continue;
        }
        const char32_t lo = name.size() > 7 && name.compare(name.size() - 7, 7, ", Last>") == 0 ? first : code;
        for (char32_t c = std::max<char32_t>(lo, 0x80); c <= code; ++c) {
            if (block_rule(c) || dropped(c) || newer[c] || simhash::fold_case(c) != c || in(c, 0xD800, 0xDFFF)) continue;
            const auto cls = simhash::classify(c);
            if ((gc == 'P' || gc == 'Z' || f[2] == "Cc") && !letters[c]) {
                ASSERT_EQ(cls, simhash::CharClass::kSeparator) << std::hex << "U+" << uint32_t(c) << " " << f[2];
            }
            if (gc == 'L' || gc == 'M' || gc == 'N') {
                ASSERT_TRUE(cls == simhash::CharClass::kWord || cls == simhash::CharClass::kCjk)
                    << std::hex << "U+" << uint32_t(c) << " " << f[2];
            }
            ++checked;
        }
    }
    EXPECT_GT(checked, 40000u);  // the rest are in the blocks above or fold to another code point
}

TEST(Unicode, CommonHanFastPathMatchesTheGeneralDecoder) {
    char buf[4];
    for (char32_t c = 0x3000; c <= 0xA000; ++c) {
        if (c >= 0xD800 && c <= 0xDFFF) continue;
        int len = simhash::encode_utf8(c, buf);
        auto p = reinterpret_cast<const unsigned char*>(buf);
        bool fast = simhash::detail::is_common_han(p, p + len);
        EXPECT_EQ(fast, c >= 0x4E00 && c <= 0x9FFF) << std::hex << c;
        if (fast) {
            EXPECT_EQ(simhash::detail::decode_utf8_3(p), c);
            EXPECT_EQ(simhash::classify(simhash::fold_case(c)), simhash::CharClass::kCjk);
        }
    }
    // Truncated and malformed sequences are not taken by the fast path.
    const unsigned char truncated[] = {0xE4, 0xB8};
    EXPECT_FALSE(simhash::detail::is_common_han(truncated, truncated + 2));
    const unsigned char bad[] = {0xE4, 0xB8, 0x41};
    EXPECT_FALSE(simhash::detail::is_common_han(bad, bad + 3));
}

// BmpProperties, the tokenizer's table for the BMP, says for every code
// point what classify(), fold_case() and is_ideograph() say.
TEST(Unicode, BmpPropertiesAgreeWithTheGeneralFunctions) {
    const simhash::BmpProperties& table = simhash::bmp_properties();
    size_t folding = 0, ideographs = 0;
    for (char32_t c = 0; c <= 0xFFFF; ++c) {
        if (c >= 0xD800 && c <= 0xDFFF) continue;  // never decoded
        const char32_t folded = simhash::fold_case(c);
        const uint8_t props = table.of[c];
        ASSERT_EQ(simhash::CharClass(props & simhash::BmpProperties::kClass), simhash::classify(folded))
            << std::hex << "U+" << uint32_t(c);
        ASSERT_EQ((props & simhash::BmpProperties::kFolds) != 0, folded != c) << std::hex << "U+" << uint32_t(c);
        ASSERT_EQ((props & simhash::BmpProperties::kIdeograph) != 0, simhash::is_ideograph(folded))
            << std::hex << "U+" << uint32_t(c);
        ASSERT_EQ(props & ~(simhash::BmpProperties::kClass | simhash::BmpProperties::kFolds |
                            simhash::BmpProperties::kIdeograph),
                  0) << std::hex << "U+" << uint32_t(c);
        // the mixed 1 blocks take symbols and ideographs from the text as they are
        const simhash::CharClass cls = simhash::classify(folded);
        if (cls == simhash::CharClass::kSymbol || (cls == simhash::CharClass::kCjk && simhash::is_ideograph(folded))) {
            ASSERT_EQ(folded, c) << std::hex << "U+" << uint32_t(c) << " folds";
        }
        folding += folded != c;
        ideographs += (props & simhash::BmpProperties::kIdeograph) != 0;
    }
    EXPECT_GT(folding, 1000u);      // capitals of many scripts, fullwidth ASCII
    EXPECT_GT(ideographs, 27000u);  // U+4E00..U+9FFF, extension A, compatibility forms
}

// The tokenizer's test for a 2- or 3-byte sequence takes exactly the
// well-formed ones that decode_utf8() takes, and decodes them alike.
TEST(Unicode, BmpSequencesMatchTheGeneralDecoder) {
    for (uint32_t b0 = 0x80; b0 <= 0xFF; ++b0)
        for (uint32_t b1 = 0; b1 <= 0xFF; ++b1)
            for (const uint32_t b2 : {0x00u, 0x41u, 0x80u, 0x9Fu, 0xA0u, 0xBFu, 0xC0u, 0xFFu}) {
                const unsigned char bytes[3] = {uint8_t(b0), uint8_t(b1), uint8_t(b2)};
                for (size_t available = 1; available <= 3; ++available) {
                    const int length = simhash::detail::bmp_sequence_length(bytes, bytes + available);
                    const simhash::DecodedChar general = simhash::decode_utf8(bytes, bytes + available);
                    const bool bmp = general.valid && general.length >= 2 && general.length <= 3;
                    ASSERT_EQ(length, bmp ? general.length : 0) << std::hex << b0 << " " << b1 << " " << b2;
                    if (bmp) {
                        ASSERT_EQ(simhash::detail::decode_bmp(bytes, length), general.code);
                    }
                }
            }
}

// A soft hyphen or a zero-width no-break space inside a word is invisible
// and must not split it (they used to).
TEST(Tokenizer, SoftHyphenAndZeroWidthNoBreakSpaceDoNotSplitWords) {
    EXPECT_EQ(features_of("in\u00ADcredible"), Features{"incredible"});
    EXPECT_EQ(features_of("data\uFEFFbase"), Features{"database"});
    EXPECT_EQ(features_of("\uFEFFhello \u00AD world"), (Features{"hello", "world"}));
    EXPECT_EQ(features_of("ȘTIRI ROMÂNIA"), features_of("știri românia"));
    EXPECT_EQ(features_of("ƯỚC ĐƠN"), features_of("ước đơn"));
}

TEST(Tokenizer, EnglishWordsAreCaseFoldedAndPunctuationDropped) {
    EXPECT_EQ(features_of("Quick, BROWN fox -- jumps!"), (Features{"quick", "brown", "fox", "jumps"}));
    EXPECT_EQ(features_of("e-mail x86_64 3.14"), (Features{"e", "mail", "x86", "64", "3", "14"}));
}

// The mixed tokenizer keeps English function words as features (algorithm
// version 5) and tells a sink that asks which one each is, after case
// folding and only as whole words; no other feature is named one.
TEST(Tokenizer, MixedNamesEnglishFunctionWords) {
    EXPECT_EQ(features_of("The theory of THE thesis is in it's own..."),
              (Features{"the", "theory", "of", "the", "thesis", "is", "in", "it", "s", "own"}));
    auto named = [](const std::string& text, TokenizerKind kind, int n) {
        std::vector<std::pair<std::string, int>> out;
        std::vector<char> scratch(simhash::tokenizer_scratch_size(text.size()));
        simhash::tokenize(text.data(), text.size(), kind, n, scratch.data(),
                          [&](const char* f, size_t len, int index) { out.emplace_back(std::string(f, len), index); });
        return out;
    };
    auto index = [](const char* w) { return simhash::english_stop_word_index(w, std::strlen(w)); };
    using Named = std::vector<std::pair<std::string, int>>;
    EXPECT_EQ(named("The theory OF", TokenizerKind::kMixed, 1),
              (Named{{"the", index("the")}, {"theory", -1}, {"of", index("of")}}));
    EXPECT_EQ(named("北京的 the 天", TokenizerKind::kMixed, 1),
              (Named{{"北", -1}, {"京", -1}, {"的", -1}, {"the", index("the")}, {"天", -1}}));
    EXPECT_EQ(named("yourselves ourselvesx", TokenizerKind::kMixed, 2),
              (Named{{"yourselves", index("yourselves")}, {"ourselvesx", -1}}));
    // Other tokenizers never name one: their features are not weighed down.
    EXPECT_EQ(named("the end", TokenizerKind::kWords, 1), (Named{{"the", -1}, {"end", -1}}));
    EXPECT_EQ(named("the end", TokenizerKind::kChars, 3), (Named{{"the", -1}, {"end", -1}}));
    EXPECT_GE(index("the"), 0);
    EXPECT_GE(index("yourselves"), 0);
}

// Mixed 1: ideographs one by one, kana and Thai (sounds, not meanings) in bigrams.
TEST(Tokenizer, MixedOneSplitsIdeographsButNotSounds) {
    EXPECT_EQ(features_of("東京へ行きました", TokenizerKind::kMixed, 1),
              (Features{"東", "京", "へ", "行", "きま", "まし", "した"}));
    EXPECT_EQ(features_of("カタカナ語", TokenizerKind::kMixed, 1), (Features{"カタ", "タカ", "カナ", "語"}));
    EXPECT_EQ(features_of("ภาษาไทย", TokenizerKind::kMixed, 1), (Features{"ภา", "าษ", "ษา", "าไ", "ไท", "ทย"}));
    // Ideographs outside the common block, and the iteration mark.
    EXPECT_EQ(features_of("\xF0\xA0\x80\x80㐀々", TokenizerKind::kMixed, 1), (Features{"\xF0\xA0\x80\x80", "㐀", "々"}));
    // Other n: every CJK character in the same n-grams, as before.
    EXPECT_EQ(features_of("東京へ", TokenizerKind::kMixed, 2), (Features{"東京", "京へ"}));
    EXPECT_TRUE(simhash::is_ideograph(U'東') && simhash::is_ideograph(0x20000) && simhash::is_ideograph(0x3400));
    EXPECT_FALSE(simhash::is_ideograph(U'へ') || simhash::is_ideograph(U'ภ') || simhash::is_ideograph(U'a') ||
                 simhash::is_ideograph(0xA000));
}

TEST(Tokenizer, StopWordListIsSortedLowerCaseAndUnique) {
    ASSERT_GT(simhash::kEnglishStopWordCount, 100u);
    for (size_t i = 0; i < simhash::kEnglishStopWordCount; ++i) {
        const std::string_view w = simhash::kEnglishStopWords[i];
        for (char c : w) EXPECT_TRUE(c >= 'a' && c <= 'z') << w;
        if (i > 0) {
            EXPECT_LT(simhash::kEnglishStopWords[i - 1], w);
        }
        EXPECT_TRUE(simhash::is_english_stop_word(w.data(), w.size())) << w;
        EXPECT_EQ(simhash::english_stop_word_index(w.data(), w.size()), int(i)) << w;
    }
    EXPECT_EQ(simhash::kEnglishStopWordCount, 126u);  // FunctionWordTally's table
    for (const char* w : {"", "th", "thee", "them2", "z", "yourselvesx", "The", "über", "\xff"})
        EXPECT_FALSE(simhash::is_english_stop_word(w, std::string_view(w).size())) << w;
}

// The lookup (a hash table) agrees with a plain scan of the list on every
// lower-case word of up to three letters and on near misses of every entry.
TEST(Tokenizer, StopWordLookupAgreesWithTheList) {
    auto index_on_list = [](const std::string& w) {
        for (size_t i = 0; i < simhash::kEnglishStopWordCount; ++i)
            if (simhash::kEnglishStopWords[i] == w) return int(i);
        return -1;
    };
    auto on_list = [&](const std::string& w) { return index_on_list(w) >= 0; };
    std::vector<std::string> words;
    std::string w;
    for (char a = 'a'; a <= 'z'; ++a) {
        words.push_back(std::string(1, a));
        for (char b = 'a'; b <= 'z'; ++b) {
            words.push_back(std::string{a, b});
            for (char c = 'a'; c <= 'z'; ++c) words.push_back(std::string{a, b, c});
        }
    }
    for (size_t i = 0; i < simhash::kEnglishStopWordCount; ++i) {
        const std::string entry(simhash::kEnglishStopWords[i]);
        words.push_back(entry + "s");
        words.push_back(entry.substr(0, entry.size() - 1));
        words.push_back(entry.substr(1));
    }
    size_t found = 0;
    for (const std::string& word : words) {
        EXPECT_EQ(simhash::is_english_stop_word(word.data(), word.size()), on_list(word)) << word;
        const std::string padded = word + "\xff\xff\xff\xff\xff\xff\xff\xff";  // bytes the mask must ignore
        EXPECT_EQ(simhash::english_stop_word_index_padded(padded.data(), word.size()), index_on_list(word)) << word;
        EXPECT_EQ(simhash::english_stop_word_index(word.data(), word.size()), index_on_list(word)) << word;
        found += on_list(word);
    }
    EXPECT_GT(found, 50u);  // the sample really holds list entries
}

TEST(Tokenizer, NoFeaturesInEmptyOrPunctuationOnlyText) {
    EXPECT_TRUE(features_of("").empty());
    EXPECT_TRUE(features_of("  \t\n ... !!! ，。！？ —— ").empty());
    EXPECT_TRUE(features_of("", TokenizerKind::kWords, 3).empty());
    EXPECT_TRUE(features_of("?!", TokenizerKind::kChars, 3).empty());
}

TEST(Tokenizer, ChineseRunsGiveCharacterBigrams) {
    EXPECT_EQ(features_of("我爱北京天安门"), (Features{"我爱", "爱北", "北京", "京天", "天安", "安门"}));
    // Punctuation ends a run; a one-character run is a feature by itself.
    EXPECT_EQ(features_of("你好，世界。好"), (Features{"你好", "世界", "好"}));
    EXPECT_EQ(features_of("我爱北京", TokenizerKind::kMixed, 1), (Features{"我", "爱", "北", "京"}));
}

TEST(Tokenizer, MixedTextSwitchesBetweenWordsAndBigrams) {
    EXPECT_EQ(features_of("PostgreSQL数据库很快abc中def"),
              (Features{"postgresql", "数据", "据库", "库很", "很快", "abc", "中", "def"}));
    EXPECT_EQ(features_of("ひらがなカタカナ"), (Features{"ひら", "らが", "がな", "なカ", "カタ", "タカ", "カナ"}));
}

TEST(Tokenizer, EmojiAreTokensAndModifiersAreDropped) {
    EXPECT_EQ(features_of("hi😀👍🏽 ok"), (Features{"hi", "😀", "👍", "ok"}));
    // Joined sequences fall apart into their pictographs, the joiner is ignored.
    EXPECT_EQ(features_of("👨‍👩‍👧"), (Features{"👨", "👩", "👧"}));
}

// Version 4: punctuation of every script separates, letters of the scripts
// without spaces are CJK wherever their block is, and combining marks stay
// in their word.
TEST(Tokenizer, PunctuationOfEveryScriptSeparates) {
    EXPECT_EQ(features_of("x\u055Dy x\u1362y x\u0F0By x\u1680y x\u1803y x\uA4FFy", TokenizerKind::kWords, 1),
              (Features{"x", "y", "x", "y", "x", "y", "x", "y", "x", "y", "x", "y"}));
    EXPECT_EQ(features_of("ሰላም።"), features_of("ሰላም"));                      // Ethiopic full stop
    EXPECT_EQ(features_of("Բարեւ՝ ինչպե՞ս ես։", TokenizerKind::kMixed, 1),       // Armenian comma, full stop
              (Features{"բարեւ", "ինչպե՞ս", "ես"}));  // the question mark over a vowel is a letter (UAX #29)
    EXPECT_EQ(features_of("မင်္ဂလာပါ။"), features_of("မင်္ဂလာပါ"));       // Myanmar section mark
    EXPECT_EQ(features_of("\u1780\u1781\u17D4"), Features{"\u1780\u1781"});       // Khmer khan
    EXPECT_EQ(features_of("ภาษา๚ไทย", TokenizerKind::kMixed, 2), (Features{"ภา", "าษ", "ษา", "ไท", "ทย"}));
    // Kana of the supplement blocks and Myanmar Extended-A are CJK like their main blocks.
    EXPECT_EQ(features_of("\U0001B001\U0001B002\U0001B003"), (Features{"\U0001B001\U0001B002", "\U0001B002\U0001B003"}));
    EXPECT_EQ(features_of("\uAA60\uAA61\uAA62"), (Features{"\uAA60\uAA61", "\uAA61\uAA62"}));
    // Combining marks for symbols and half marks are marks: they stay in the word.
    EXPECT_EQ(features_of("v\u20D7 t\uFE20s\uFE21", TokenizerKind::kWords, 1), (Features{"v\u20D7", "t\uFE20s\uFE21"}));
    // An ideographic tone mark is dropped (the ideograph keeps its feature); a
    // Hangul tone mark stays in its word like any other combining mark.
    EXPECT_EQ(features_of("北\u302A京", TokenizerKind::kMixed, 1), (Features{"北", "京"}));
    EXPECT_EQ(features_of("가\u302E나", TokenizerKind::kMixed, 1), Features{"가\u302E나"});
    // Numbers of every kind are word characters, letter modifiers too.
    EXPECT_EQ(features_of("H\u2082O m\u00B2 \u2460 x\u2E2Fy", TokenizerKind::kWords, 1),
              (Features{"h\u2082o", "m\u00B2", "\u2460", "x\u2E2Fy"}));
}

TEST(Tokenizer, InvalidBytesSeparateAndNeverCrash) {
    EXPECT_EQ(features_of("abc\xFF" "def\xC0\x80ghi\xE4\xB8"), (Features{"abc", "def", "ghi"}));
    std::string noise;
    for (int i = 0; i < 4096; ++i) noise.push_back(static_cast<char>((i * 131 + 7) & 0xFF));
    for (auto kind : {TokenizerKind::kWords, TokenizerKind::kChars, TokenizerKind::kMixed})
        for (int n : {1, 2, 5, simhash::kMaxNgram}) features_of(noise, kind, n);  // sanitizers watch the buffer
}

TEST(Tokenizer, WordShinglesCrossPunctuationAndIncludeCjkCharacters) {
    EXPECT_EQ(features_of("a b, c. d", TokenizerKind::kWords, 2), (Features{"a b", "b c", "c d"}));
    EXPECT_EQ(features_of("one 二三", TokenizerKind::kWords, 2), (Features{"one 二", "二 三"}));
    EXPECT_EQ(features_of("a b c", TokenizerKind::kWords, 3), (Features{"a b c"}));
    // Fewer tokens than n: the whole text is one feature.
    EXPECT_EQ(features_of("Hello, world", TokenizerKind::kWords, 3), (Features{"hello world"}));
}

TEST(Tokenizer, CharacterNgramsStayInsideRuns) {
    EXPECT_EQ(features_of("Hello, 世界!", TokenizerKind::kChars, 3), (Features{"hel", "ell", "llo", "世界"}));
    EXPECT_EQ(features_of("ab", TokenizerKind::kChars, 1), (Features{"a", "b"}));
}

TEST(Tokenizer, ScratchBoundHoldsForWorstCaseExpansion) {
    // Adjacent CJK characters each gain a separating space in words mode.
    std::string text;
    for (int i = 0; i < 1000; ++i) text += "中😀";
    auto f = features_of(text, TokenizerKind::kWords, simhash::kMaxNgram);
    EXPECT_EQ(f.size(), 2000u - simhash::kMaxNgram + 1);
}

// Features and ticks of a text tokenized with a tick counter.
static std::pair<Features, size_t> features_and_ticks(const std::string& text, TokenizerKind kind, int n) {
    std::vector<char> scratch(simhash::tokenizer_scratch_size(text.size()));
    Features out;
    size_t ticks = 0;
    simhash::tokenize(
        text.data(), text.size(), kind, n, scratch.data(), [&out](const char* f, size_t len) { out.emplace_back(f, len); },
        [&ticks] { ++ticks; });
    return {out, ticks};
}

TEST(Tokenizer, TicksEveryMegabyteOfTextWithoutFeatures) {
    // A caller checks for a cancel at each tick: text with no feature for
    // hundreds of megabytes (separators, soft hyphens) must still tick.
    const size_t mb = simhash::kTokenizerTickBytes;
    for (const std::string& unit : {std::string(" "), std::string("\xC2\xAD"), std::string("\xE3\x80\x81")}) {
        std::string text;
        while (text.size() < 3 * mb + 100) text += unit;
        for (TokenizerKind kind : {TokenizerKind::kMixed, TokenizerKind::kWords, TokenizerKind::kChars}) {
            auto [features, ticks] = features_and_ticks(text, kind, 1);
            EXPECT_TRUE(features.empty());
            EXPECT_EQ(ticks, 3u) << "unit of " << unit.size() << " bytes";
        }
    }
    auto [features, ticks] = features_and_ticks("short text", TokenizerKind::kMixed, 1);
    EXPECT_EQ(ticks, 0u);
    EXPECT_EQ(features.size(), 2u);
}

TEST(Tokenizer, TicksDoNotSplitFeatures) {
    // One ASCII word of 2.5 MB ticks twice and stays one feature; so do
    // words and runs that straddle a tick, in every tokenizer.
    const size_t mb = simhash::kTokenizerTickBytes;
    std::string word(mb * 5 / 2, 'x');
    auto [one, ticks] = features_and_ticks(word, TokenizerKind::kMixed, 1);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0], word);
    EXPECT_EQ(ticks, 2u);

    std::string text;
    int i = 0;
    while (text.size() < 2 * mb + 1000) text += "Word" + std::to_string(i++) + " \xE4\xB8\xAD\xE6\x96\x87\xE3\x81\x8B\xE3\x81\xAA, ";
    for (TokenizerKind kind : {TokenizerKind::kMixed, TokenizerKind::kWords, TokenizerKind::kChars}) {
        for (int n : {1, 2, 3}) {
            auto [with_ticks, count] = features_and_ticks(text, kind, n);
            EXPECT_EQ(with_ticks, features_of(text, kind, n)) << "kind " << int(kind) << " n " << n;
            EXPECT_EQ(count, 2u);
        }
    }
}

// The features, each with its function word index, and after each tick the
// number of features so far: of tokenize() with or without its fast paths.
struct Trace {
    std::vector<std::pair<std::string, int>> features;
    std::vector<size_t> ticks;
    bool operator==(const Trace& o) const { return features == o.features && ticks == o.ticks; }
};
template <bool kFastPaths>
static Trace trace(const std::string& text, TokenizerKind kind, int n) {
    // exactly the text's bytes, so that a read past its end trips the sanitizer
    std::vector<char> bytes(text.begin(), text.end());
    std::vector<char> scratch(simhash::tokenizer_scratch_size(text.size()));
    Trace t;
    simhash::detail::tokenize_text<kFastPaths>(
        bytes.data(), bytes.size(), kind, n, scratch.data(),
        [&t](const char* f, size_t len, int index) { t.features.emplace_back(std::string(f, len), index); },
        [&t] { t.ticks.push_back(t.features.size()); });
    return t;
}

// The same with a sink that takes the features in any order, as TextVotes
// does (kSinkTakesAnyOrder).
struct AnyOrderTrace {
    static constexpr bool kAnyOrder = true;
    Trace* trace;
    void operator()(const char* f, size_t len, int index) const {
        trace->features.emplace_back(std::string(f, len), index);
    }
};
static Trace trace_any_order(const std::string& text, TokenizerKind kind, int n) {
    std::vector<char> bytes(text.begin(), text.end());
    std::vector<char> scratch(simhash::tokenizer_scratch_size(text.size()));
    Trace t;
    simhash::detail::tokenize_text<true>(bytes.data(), bytes.size(), kind, n, scratch.data(), AnyOrderTrace{&t},
                                         [&t] { t.ticks.push_back(t.features.size()); });
    return t;
}

static void expect_fast_paths_change_nothing(const std::string& text, bool mixed_only = false) {
    for (TokenizerKind kind : {TokenizerKind::kMixed, TokenizerKind::kWords, TokenizerKind::kChars})
        for (int n : {1, 2}) {
            if (mixed_only && kind != TokenizerKind::kMixed) continue;  // the fast paths are the mixed tokenizer's
            const Trace fast = trace<true>(text, kind, n), plain = trace<false>(text, kind, n);
            ASSERT_EQ(fast.features, plain.features) << "kind " << int(kind) << " n " << n << ": " << text;
            ASSERT_EQ(fast.ticks, plain.ticks) << "kind " << int(kind) << " n " << n;
        }
}

// The ASCII word and common Han fast paths give the plain loop's features:
// words of every length around the 16-byte windows, capitals anywhere,
// function words, non-ASCII letters and ignorables inside and next to ASCII
// words, ideographs next to kana and words, invalid bytes, at every
// distance from the end of the text.
TEST(Tokenizer, FastPathsMatchThePlainPath) {
    const std::vector<std::string> pieces = {
        " ", "  ", "\n", ", ", ".", "-", "_", "'", "\t", "0", "7", "a", "Z", "x", "Q",
        "the", "The", "THE", "of", "and", "ourselves", "Yourselves", "themselves", "between",
        "é", "É", "ß", "\xC2\xAD" /* soft hyphen */, "\xE2\x80\x8D" /* ZWJ */, "\xEF\xBB\xBF" /* U+FEFF */,
        "中", "文", "\xE4\xB8\x80" /* U+4E00 */, "\xE9\xBF\xBF" /* U+9FFF */, "\xE3\x81\x8B" /* か */,
        "\xE3\x80\x82" /* 。 */, "😀", "Ａ" /* fullwidth */, "\xFF", "\x80", "\xE4\xB8" /* cut Han */, "\x7F",
        "слово", "Слово", "ΣΟΦΙΑ", "한국어", "ひらがな", "カタカナ", "हिन्दी", "\xE3\x90\x80" /* U+3400 */,
        "\xEF\xA4\x80" /* U+F900 */, "\xE0\x80\x80" /* overlong */, "\xED\xA0\x80" /* surrogate */,
        "\xD0" /* cut Cyrillic */, "\xE2\x80" /* cut 3 bytes */, "İ", "ǅ", "\xF0\x9D\x90\x80" /* U+1D400 */};
    std::mt19937_64 rng(35);
    for (int trial = 0; trial < 1000; ++trial) {
        std::string text;
        const int parts = int(rng() % 40);
        for (int i = 0; i < parts; ++i) {
            if (rng() % 3 == 0) {  // an ASCII word of 1 to 40 bytes, sometimes with capitals
                const size_t length = 1 + rng() % 40;
                for (size_t k = 0; k < length; ++k) {
                    const int c = int(rng() % 36);
                    char b = c < 26 ? char('a' + c) : char('0' + c - 26);
                    if (c < 26 && rng() % 8 == 0) b = char(b - 32);
                    text += b;
                }
            } else {
                text += pieces[rng() % pieces.size()];
            }
        }
        expect_fast_paths_change_nothing(text);
    }
    // every word length from 1 to 40, starting at every offset of a window, ending at every distance from the end
    for (size_t length = 1; length <= 40; ++length)
        for (size_t before = 0; before < 18; ++before)
            for (const char* after : {"", " ", " x", "é", ". and the rest of the text, long enough"}) {
                std::string word(length, 'w');
                word[length / 2] = 'W';
                expect_fast_paths_change_nothing(std::string(before, ' ') + std::string(length, 'w') + after);
                expect_fast_paths_change_nothing(std::string(before, '.') + word + after);
                expect_fast_paths_change_nothing(std::string(before, 'a') + " " + word + "中文" + after);
            }
}

// Words of other scripts, which the fast paths read through BmpProperties
// and copy in one loop: letters of 2 and 3 bytes, with capitals (which the
// loop leaves to the general one), combining marks, ignorables, ASCII, and
// separators of every kind between and inside them, at every length.
TEST(Tokenizer, NonAsciiWordsMatchThePlainPath) {
    const std::vector<std::string> letters = {
        "а", "я", "ё", "Ж", "Ё", "і", "Ї", "ß", "é", "É", "ω", "Ω", "ς", "ա", "Ա", "ა", "Ა", "ℵ", "ﬀ",
        "가", "힣", "ᄀ", "क", "ि", "्", "ก", "ั", "ա", "\xCC\x81" /* combining acute */, "a", "Z", "7", "İ"};
    const std::vector<std::string> between = {
        " ", "\xC2\xAD" /* soft hyphen */, "\xE2\x80\x8D" /* ZWJ */, "\xC2\xA0" /* no-break space */,
        "\xE2\x80\x94" /* em dash */, "、", "。", "中", "か", "😀", "\xD0", "\xE0\xA4", "\xFF", ","};
    std::mt19937_64 rng(36);
    for (int trial = 0; trial < 3000; ++trial) {
        std::string text;
        const int words = int(rng() % 12);
        for (int w = 0; w < words; ++w) {
            const size_t length = rng() % 4 == 0 ? 1 + rng() % 40 : 1 + rng() % 8;
            for (size_t k = 0; k < length; ++k) text += letters[rng() % letters.size()];
            text += between[rng() % between.size()];
        }
        expect_fast_paths_change_nothing(text);
    }
}

// Runs of kana and other sounds, whose bigrams the fast path takes from the
// text: hiragana, katakana (halfwidth too), the prolonged sound mark, Thai,
// between and next to kanji of every kind, ignorables inside a run,
// characters that folding changes, 4-byte characters, ASCII, punctuation,
// malformed and cut sequences, at every run length.
TEST(Tokenizer, KanaRunsMatchThePlainPath) {
    const std::vector<std::string> sounds = {"あ", "ん", "っ", "ア", "ン", "ー", "ｶ", "ﾟ", "ก", "ไ", "ꀀ" /* Yi */};
    const std::vector<std::string> others = {
        "中", "\xE3\x90\x80" /* U+3400 */, "\xEF\xA4\x80" /* U+F900 */, "\xF0\xA0\x80\x8B" /* U+2000B */,
        "\xE2\x80\x8D" /* ZWJ */, "\xEF\xB8\x8F" /* VS16 */, "\xE3\x82\x99" /* combining dakuten */,
        "、", "。", "Ａ", "a", "Word", " ", "\n", "\xE3\x81" /* cut kana */, "\xFF", "😀", "가"};
    std::mt19937_64 rng(37);
    for (int trial = 0; trial < 3000; ++trial) {
        std::string text;
        const int parts = int(rng() % 16);
        for (int i = 0; i < parts; ++i) {
            const size_t run = rng() % 4 == 0 ? rng() % 40 : rng() % 5;
            for (size_t k = 0; k < run; ++k) text += sounds[rng() % sounds.size()];
            text += others[rng() % others.size()];
        }
        expect_fast_paths_change_nothing(text);
    }
}

// The 64-byte blocks of the ASCII fast path (tokenizer_fast_path.hpp): texts of
// hundreds of bytes, so that most words are found by a block, with words of
// 1 to 100 bytes (past the 16 bytes that fold_ascii16 covers, and past a
// whole block), capitals, and non-ASCII characters, which cut a block, at
// every position.
TEST(Tokenizer, BlockScanMatchesThePlainPath) {
    const std::vector<std::string> others = {"é", "中", "\xE2\x80\x94" /* em dash */, "\xC2\xAD" /* soft hyphen */, "\xFF"};
    std::mt19937_64 rng(64);
    for (int trial = 0; trial < 3000; ++trial) {
        std::string text;
        const size_t size = 64 + rng() % 600;
        while (text.size() < size) {
            const uint64_t kind = rng() % 20;
            if (kind == 0) {
                text += others[rng() % others.size()];
            } else if (kind < 4) {
                text += " .,-\n("[rng() % 6];
            } else {
                // mostly short words, some up to 100 bytes
                const size_t length = rng() % 8 == 0 ? 1 + rng() % 100 : 1 + rng() % 10;
                for (size_t k = 0; k < length; ++k) {
                    const int c = int(rng() % 36);
                    char b = c < 26 ? char('a' + c) : char('0' + c - 26);
                    if (c < 26 && rng() % 6 == 0) b = char(b - 32);
                    text += b;
                }
                if (rng() % 4 != 0) text += ' ';
            }
        }
        expect_fast_paths_change_nothing(text, true);
    }
}

// Chinese in 64-byte blocks (tokenizer_fast_path.hpp, "Characters that are
// features by themselves"): common Han characters, separators, symbols and
// other ideographs, which the blocks take, among ASCII words and the
// characters that cut a block (letters, kana, characters that folding
// changes, ignorables, 4-byte, malformed and cut sequences), so that every
// kind falls at every offset of a block and across its end.  In text order
// the features are the plain loop's; in any order, the same multiset, and
// the blocks do reorder some texts (the test reaches that path).
TEST(Tokenizer, ChineseBlocksMatchThePlainPath) {
    const std::vector<std::string> han = {"中", "文", "的", "\xE4\xB8\x80" /* U+4E00 */, "\xE9\xBF\xBF" /* U+9FFF */};
    // characters the blocks take (separators, symbols, ideographs beyond U+4E00..U+9FFF), and others
    const std::vector<std::string> taken = {
        "，", "。", "、", "“", "”", "《", "》", "：", "\xC2\xA0" /* no-break space */, "\xE3\x80\x80" /* ideographic space */,
        "─", "│", "©", "\xE4\xB7\x80" /* U+4DC0, a symbol led by E4 */, "\xE4\xB6\xB5" /* U+4DB5, an ideograph */,
        "\xE3\x90\x80" /* U+3400 */, "\xEF\xA4\x80" /* U+F900 */};
    const std::vector<std::string> cutting = {
        "々", "Ⓐ", "ⓐ", "か", "カ", "é", "É", "Ａ" /* folds */, "\xC2\xAD" /* soft hyphen */, "\xE2\x80\x8D" /* ZWJ */,
        "😀", "\xF0\xA0\x80\x80" /* U+20000 */, "\xFF", "\x80", "\xE4\xB8" /* cut Han */, "\xE2\x80" /* cut */,
        "\xE0\x80\x80" /* overlong */};
    std::mt19937_64 rng(35);
    int reordered = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        std::string text;
        const size_t size = 64 + rng() % 600;
        // some texts hold only what the blocks take
        const bool blocks_only = trial % 4 == 0;
        while (text.size() < size) {
            const uint64_t kind = rng() % 20;
            if (kind < 10) {
                text += han[rng() % han.size()];
            } else if (kind < 12 || (kind < 13 && blocks_only)) {
                text += taken[rng() % taken.size()];
            } else if (kind < 13) {
                text += cutting[rng() % cutting.size()];
            } else if (kind < 15) {
                text += " \n."[rng() % 3];
            } else {
                const size_t length = 1 + rng() % (rng() % 8 == 0 ? 40 : 8);
                for (size_t k = 0; k < length; ++k) {
                    const int c = int(rng() % 36);
                    char b = c < 26 ? char('a' + c) : char('0' + c - 26);
                    if (c < 26 && rng() % 6 == 0) b = char(b - 32);
                    text += b;
                }
            }
        }
        expect_fast_paths_change_nothing(text, true);
        for (int n : {1, 2}) {
            const Trace plain = trace<false>(text, TokenizerKind::kMixed, n);
            Trace any = trace_any_order(text, TokenizerKind::kMixed, n);
            reordered += any.features != plain.features;
            std::vector<std::pair<std::string, int>> sorted_plain = plain.features;
            std::sort(sorted_plain.begin(), sorted_plain.end());
            std::sort(any.features.begin(), any.features.end());
            ASSERT_EQ(any.features, sorted_plain) << "n " << n << ": " << text;
            ASSERT_EQ(any.ticks, plain.ticks);
        }
    }
    EXPECT_GT(reordered, 100);
}

// A word or a run of ideographs across the tick boundary: the ticks come at
// the same features with and without the fast paths.
TEST(Tokenizer, FastPathsTickWhereThePlainPathDoes) {
    const size_t mb = simhash::kTokenizerTickBytes;
    for (size_t shift : {0, 5, 11, 17, 40}) {
        std::string text(mb - 20 + shift, ' ');
        text += "straddling the tick boundary With Capitals and words 中文中文中文 then more words ";
        while (text.size() < mb + 200) text += "Filler word" + std::to_string(text.size() % 97) + " 中国 ";
        expect_fast_paths_change_nothing(text, true);
        EXPECT_EQ(trace_any_order(text, TokenizerKind::kMixed, 1).ticks,
                  trace<false>(text, TokenizerKind::kMixed, 1).ticks);
        // a run of kana across it
        std::string kana(mb - 20 + shift, ' ');
        while (kana.size() < mb + 200) kana += "ひらがなカタカナ";
        expect_fast_paths_change_nothing(kana, true);
    }
}

TEST(Tokenizer, ParsesTokenizerNames) {
    simhash::TokenizerKind kind;
    EXPECT_TRUE(simhash::parse_tokenizer("words", 5, &kind));
    EXPECT_EQ(kind, TokenizerKind::kWords);
    EXPECT_TRUE(simhash::parse_tokenizer("chars", 5, &kind));
    EXPECT_TRUE(simhash::parse_tokenizer("mixed", 5, &kind));
    EXPECT_FALSE(simhash::parse_tokenizer("Words", 5, &kind));
    EXPECT_FALSE(simhash::parse_tokenizer("word", 4, &kind));
    EXPECT_FALSE(simhash::parse_tokenizer("", 0, &kind));
}
