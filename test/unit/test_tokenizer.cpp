#include <gtest/gtest.h>

#include "features.hpp"
#include "unicode.hpp"

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

// The mixed tokenizer drops English function words, after case folding and
// only as whole words; words and chars keep every word.
TEST(Tokenizer, MixedDropsEnglishStopWords) {
    EXPECT_EQ(features_of("The theory of THE thesis is in it's own..."), (Features{"theory", "thesis", "s"}));
    EXPECT_EQ(features_of("the", TokenizerKind::kMixed, 1), Features{});
    EXPECT_EQ(features_of("北京的 the 天安门", TokenizerKind::kMixed, 1),
              (Features{"北", "京", "的", "天", "安", "门"}));
    EXPECT_EQ(features_of("the end", TokenizerKind::kWords, 1), (Features{"the", "end"}));
    EXPECT_EQ(features_of("the end", TokenizerKind::kChars, 3), (Features{"the", "end"}));
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
    }
    for (const char* w : {"", "th", "thee", "them2", "z", "yourselvesx", "The", "über", "\xff"})
        EXPECT_FALSE(simhash::is_english_stop_word(w, std::string_view(w).size())) << w;
}

// The lookup (a hash table) agrees with a plain scan of the list on every
// lower-case word of up to three letters and on near misses of every entry.
TEST(Tokenizer, StopWordLookupAgreesWithTheList) {
    auto on_list = [](const std::string& w) {
        for (size_t i = 0; i < simhash::kEnglishStopWordCount; ++i)
            if (simhash::kEnglishStopWords[i] == w) return true;
        return false;
    };
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
        EXPECT_EQ(simhash::is_english_stop_word_padded(padded.data(), word.size()), on_list(word)) << word;
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
