// Turns UTF-8 text into the features SimHash votes with.
//
// The text is decoded, case folded (unicode.hpp) and classified.  Characters
// that separate (whitespace, punctuation, invalid bytes) never belong to a
// feature.  The three tokenizers:
//
//   words n  Tokens are words of space-delimited scripts, single CJK characters
//            and single emoji.  Features are n consecutive tokens joined by one
//            space; across punctuation too, since shingles follow the reading order.
//   chars n  Runs are maximal spans of non-separator characters.  Features are
//            the character n-grams of each run (a run shorter than n is one feature).
//   mixed n  Words and emoji are features by themselves (English function
//            words too, which simhash(text) weighs down: stop_words.hpp); runs
//            of CJK characters contribute their character n-grams (a shorter
//            run is one feature).  With
//            n = 1 only ideographs are single features: runs of kana and of
//            other scripts written without spaces still give bigrams.
//            simhash(text) is mixed 1: Chinese and Japanese need no segmenter.
//
// Features are byte spans of a normalized copy of the text, written into a
// caller-provided scratch buffer, so tokenizing allocates nothing; or, where
// normalizing changes nothing (an ASCII word without capitals, a common Han
// character), spans of the text itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "stop_words.hpp"
#include "unicode.hpp"

namespace simhash {

enum class TokenizerKind { kWords, kChars, kMixed };

constexpr int kMaxNgram = 32;

// A word of the mixed tokenizer, not yet looked up among the function
// words: 1 to 16 bytes, with 16 bytes readable from bytes on.
struct ShortWord {
    const char* bytes;
    size_t length;
};

// The characters of a 64-byte block of text that are features by
// themselves (mixed 1's ideographs and symbols, each of 2 or 3 bytes): each
// runs from a set bit of starts to the matching set bit of lasts, counted
// in bytes from `bytes`, a 64-byte block.  Given, a block at a time, to a
// sink that takes any order and asks for them (TextVotes, which hashes
// eight at a time).
struct BlockChars {
    const char* bytes;
    uint64_t starts;
    uint64_t lasts;
};

// Calls f(const char* c, size_t length) for each character of chars, in text order.
template <class F>
inline void for_each_block_char(BlockChars chars, F&& f) {
    for (uint64_t s = chars.starts, l = chars.lasts; s != 0; s &= s - 1, l &= l - 1) {
        const int first = __builtin_ctzll(s);
        f(chars.bytes + first, size_t(__builtin_ctzll(l) + 1 - first));
    }
}

// Accepts "words", "chars" and "mixed" (exact, lower case).
bool parse_tokenizer(const char* name, size_t length, TokenizerKind* out) noexcept;
const char* tokenizer_name(TokenizerKind kind) noexcept;

// Bytes of scratch the tokenizer needs for a text of `length` bytes.
inline size_t tokenizer_scratch_size(size_t length) noexcept { return 2 * length + 16; }

// A sink that counts its features as a multiset, heedless of their order
// (TextVotes), may say so with a member `static constexpr bool kAnyOrder =
// true`: the fast path then gives it the characters that are features by
// themselves after the words of the same 64-byte block, not among them,
// which saves a branch per feature (tokenizer_fast_path.hpp), and as one
// BlockChars if it takes that.
template <class Sink, class = void>
constexpr bool kSinkTakesAnyOrder = false;
template <class Sink>
constexpr bool kSinkTakesAnyOrder<Sink, std::void_t<decltype(std::remove_reference_t<Sink>::kAnyOrder)>> =
    std::remove_reference_t<Sink>::kAnyOrder;

// Calls sink(const char* feature, size_t feature_length) for every feature, in
// text order (but see kSinkTakesAnyOrder).  Requires 1 <= n <= kMaxNgram
// and scratch of tokenizer_scratch_size(length).
// A sink that also takes an int is called as sink(feature, length, index):
// in mixed mode index is the feature's position in kEnglishStopWords when it
// is an English function word, else -1 (the lookup is the tokenizer's, which
// has the word in a padded buffer).  A sink that also takes a ShortWord is
// given the mixed tokenizer's words of up to 16 bytes that way, to look up
// itself (TextVotes gathers them in batches), and the other features as
// above.
template <class Sink>
void tokenize(const char* text, size_t length, TokenizerKind kind, int n, char* scratch, Sink&& sink);

// Bytes of text between two calls of a tokenizer's tick: the features alone
// do not pace a caller that must stay responsive, since text may hold none
// for hundreds of megabytes (separators, ignorable characters, one word).
constexpr size_t kTokenizerTickBytes = size_t(1) << 20;

// As tokenize(), and also calls tick() after every kTokenizerTickBytes of
// text read (between two characters, possibly inside a word).  The
// features are the same as tokenize()'s.
template <class Sink, class Tick>
void tokenize(const char* text, size_t length, TokenizerKind kind, int n, char* scratch, Sink&& sink, Tick&& tick);

}  // namespace simhash

#include "tokenizer_impl.hpp"
