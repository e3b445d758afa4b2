// English function words, which simhash(text) weighs down (fingerprint.hpp,
// FunctionWordTally).
//
// Every English text is full of them, so at full weight they pull unrelated
// documents' fingerprints together and outvote the words that say what a
// document is about (algorithm versions 2 to 4 left them out, which raised
// recall of lightly edited man pages and pushed unrelated pairs apart).  Left
// out, prose loses the words that hold its fingerprint steady: at a weight
// of count^0.75 per document, recall of edited English prose rose from 0.89
// to 0.94 with no unrelated pair brought within 3 (README, "Choosing a
// threshold").  The list is fixed: changing it changes stored fingerprints,
// so it is part of the algorithm version.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace simhash {

// The list, sorted, lower case (the tokenizer folds case before asking).
extern const std::string_view* const kEnglishStopWords;
extern const size_t kEnglishStopWordCount;

namespace detail {

// Every word is looked up, and in running English text about every other one
// is on the list, so the lookup must cost next to nothing: a word of up to 8
// bytes is packed into a 64-bit key (no word holds a zero byte, so the packing
// is unique) and one multiplication sends it to the only slot its key can be
// in.  kStopWordMultiplier was searched for (by trying random odd numbers) so
// that no two listed words share a slot; stop_words.cpp checks that at compile time.
constexpr size_t kPackedStopWordLength = 8;
constexpr int kStopTableBits = 10;
constexpr size_t kStopTableSize = size_t{1} << kStopTableBits;
constexpr uint64_t kStopWordMultiplier = 0x400e67ed8c9cf441ULL;
constexpr bool kLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

constexpr size_t stop_slot(uint64_t key) noexcept {
    return size_t((key * kStopWordMultiplier) >> (64 - kStopTableBits));
}

constexpr uint64_t pack_word(const char* word, size_t length) noexcept {
    uint64_t key = 0;
    for (size_t i = 0; i < length; ++i) key |= uint64_t(static_cast<unsigned char>(word[i])) << (8 * i);
    return key;
}

// Slot i holds the key of the listed word that maps to it, or 0, and
// kPackedStopWordIndex[i] that word's position in kEnglishStopWords.
extern const std::array<uint64_t, kStopTableSize> kPackedStopWords;
extern const std::array<int16_t, kStopTableSize> kPackedStopWordIndex;

// The three longer ones, "ourselves", "themselves" and "yourselves", as
// their first and their last 8 bytes (packed as pack_word packs them): any
// word of 9 or 10 bytes is two loads within itself and three comparisons,
// without a call or a branch (every such word of English is looked up, and
// a call comparing it with memcmp was a tenth of tokenizing English text).
struct LongStopWord {
    uint64_t head;   // the first 8 bytes
    uint64_t tail;   // the last 8 bytes
    size_t length;   // 9 or 10
    int index;       // position in kEnglishStopWords
};
constexpr size_t kLongStopWordCount = 3;
extern const std::array<LongStopWord, kLongStopWordCount> kLongStopWords;

// The 8 bytes at p, packed as pack_word packs them.
inline uint64_t load_packed8(const char* p) noexcept {
    if constexpr (kLittleEndian) {
        uint64_t bytes;
        std::memcpy(&bytes, p, sizeof bytes);
        return bytes;
    } else {
        return pack_word(p, 8);
    }
}

// Requires 9 <= length <= 10.
inline int long_english_stop_word_index(const char* word, size_t length) noexcept {
    const uint64_t head = load_packed8(word), tail = load_packed8(word + length - 8);
    int index = -1;
    for (const LongStopWord& w : kLongStopWords)
        index = w.head == head && w.tail == tail && w.length == length ? w.index : index;
    return index;
}

// Words of up to 16 bytes, for the word batches of word_batch.cpp: a
// word's key is its first 8 bytes packed (the bytes past a shorter word's
// end zero), XORed with kTailMix times its last 8 bytes when it is longer
// than 8 bytes.  A word of up to 8 bytes is its key, as with pack_word; a
// longer one's key can be another word's, so a match on a longer word or
// on a slot of a longer word is checked with english_stop_word_index().
// kWord16Multiplier sends the 126 words' keys to 126 slots (searched as
// kStopWordMultiplier was; stop_words.cpp checks it at compile time).
constexpr uint64_t kTailMix = 0x9E3779B97F4A7C15ULL;
constexpr uint64_t kWord16Multiplier = 0xcd6772b2cc154d35ULL;

constexpr uint64_t word16_key(uint64_t head, uint64_t tail) noexcept { return head ^ (tail * kTailMix); }
constexpr size_t word16_slot(uint64_t key) noexcept {
    return size_t((key * kWord16Multiplier) >> (64 - kStopTableBits));
}

// Slot i holds the key of the listed word that maps to it, or 0, and
// kWord16Entries[i] that word's position in kEnglishStopWords plus its
// length times 256 (0: an empty slot, which no word's length matches).
extern const std::array<uint64_t, kStopTableSize> kWord16Keys;
extern const std::array<uint32_t, kStopTableSize> kWord16Entries;
// The slots of the listed words of more than 8 bytes.
extern const std::array<uint16_t, kLongStopWordCount> kWord16LongSlots;

inline int packed_stop_word_index(uint64_t key) noexcept {
    const size_t slot = stop_slot(key);
    return kPackedStopWords[slot] == key ? kPackedStopWordIndex[slot] : -1;
}

}  // namespace detail

// The case-folded word's position in kEnglishStopWords, or -1 when it is not
// on the list.
inline int english_stop_word_index(const char* word, size_t length) noexcept {
    if (length - 1 >= 10) return -1;  // empty, or longer than "yourselves"
    if (length > detail::kPackedStopWordLength) return detail::long_english_stop_word_index(word, length);
    return detail::packed_stop_word_index(detail::pack_word(word, length));
}

inline bool is_english_stop_word(const char* word, size_t length) noexcept {
    return english_stop_word_index(word, length) >= 0;
}

// The same, for a word followed by at least 8 - length readable bytes (the
// tokenizer's scratch buffer): one unaligned load instead of a byte loop.
inline int english_stop_word_index_padded(const char* word, size_t length) noexcept {
    // empty or longer than a packed key, or no cheap load: the plain check
    if (!detail::kLittleEndian || length - 1 >= detail::kPackedStopWordLength)
        return english_stop_word_index(word, length);
    // little-endian packing (pack_word) is the load itself
    uint64_t bytes;
    std::memcpy(&bytes, word, sizeof bytes);
    return detail::packed_stop_word_index(bytes & (~uint64_t{0} >> (64 - 8 * length)));
}

}  // namespace simhash
