#include "stop_words.hpp"

#include <cstring>

namespace simhash {

// Pronouns, articles, auxiliaries, prepositions and conjunctions; chosen
// short on purpose: words that can carry content ("first", "system", "new")
// stay features.
constexpr std::string_view kStopWords[] = {
    "a",       "about",   "above",   "after",      "again",  "against",   "all",     "am",       "an",
    "and",     "any",     "are",     "as",         "at",     "be",        "because", "been",     "before",
    "being",   "below",   "between", "both",       "but",    "by",        "can",     "could",    "did",
    "do",      "does",    "doing",   "down",       "during", "each",      "few",     "for",      "from",
    "further", "had",     "has",     "have",       "having", "he",        "her",     "here",     "hers",
    "herself", "him",     "himself", "his",        "how",    "i",         "if",      "in",       "into",
    "is",      "it",      "its",     "itself",     "just",   "me",        "more",    "most",     "my",
    "myself",  "no",      "nor",     "not",        "now",    "of",        "off",     "on",       "once",
    "only",    "or",      "other",   "our",        "ours",   "ourselves", "out",     "over",     "own",
    "same",    "she",     "should",  "so",         "some",   "such",      "than",    "that",     "the",
    "their",   "theirs",  "them",    "themselves", "then",   "there",     "these",   "they",     "this",
    "those",   "through", "to",      "too",        "under",  "until",     "up",      "very",     "was",
    "we",      "were",    "what",    "when",       "where",  "which",     "while",   "who",      "whom",
    "why",     "will",    "with",    "would",      "you",    "your",      "yours",   "yourself", "yourselves",
};
const std::string_view* const kEnglishStopWords = kStopWords;
const size_t kEnglishStopWordCount = sizeof(kStopWords) / sizeof(kStopWords[0]);

namespace detail {

namespace {
// Fails to compile (a constexpr evaluation cannot throw) if two words share a slot.
constexpr std::array<uint64_t, kStopTableSize> packed_table() {
    std::array<uint64_t, kStopTableSize> keys{};
    for (std::string_view w : kStopWords) {
        if (w.size() > kPackedStopWordLength) continue;
        const uint64_t key = pack_word(w.data(), w.size());
        if (keys[stop_slot(key)] != 0) throw "kStopWordMultiplier maps two stop words to one slot";
        keys[stop_slot(key)] = key;
    }
    return keys;
}

constexpr std::array<int16_t, kStopTableSize> packed_index_table() {
    std::array<int16_t, kStopTableSize> index{};
    for (int16_t& i : index) i = -1;
    for (size_t k = 0; k < sizeof(kStopWords) / sizeof(kStopWords[0]); ++k) {
        if (kStopWords[k].size() > kPackedStopWordLength) continue;
        index[stop_slot(pack_word(kStopWords[k].data(), kStopWords[k].size()))] = int16_t(k);
    }
    return index;
}
}  // namespace

constexpr std::array<uint64_t, kStopTableSize> kPackedStopWords = packed_table();
constexpr std::array<int16_t, kStopTableSize> kPackedStopWordIndex = packed_index_table();

namespace {
constexpr std::array<LongStopWord, kLongStopWordCount> long_stop_words() {
    std::array<LongStopWord, kLongStopWordCount> out{};
    size_t next = 0;
    for (size_t k = 0; k < sizeof(kStopWords) / sizeof(kStopWords[0]); ++k) {
        const std::string_view w = kStopWords[k];
        if (w.size() <= kPackedStopWordLength) continue;
        if (w.size() > 2 * kPackedStopWordLength || next == kLongStopWordCount) throw "kLongStopWordCount is wrong";
        out[next++] = {pack_word(w.data(), 8), pack_word(w.data() + w.size() - 8, 8), w.size(), int(k)};
    }
    if (next != kLongStopWordCount) throw "kLongStopWordCount is wrong";
    return out;
}
}  // namespace

constexpr std::array<LongStopWord, kLongStopWordCount> kLongStopWords = long_stop_words();

namespace {
// The word's key for the 16-byte table (stop_words.hpp).
constexpr uint64_t word16_key_of(std::string_view w) {
    const uint64_t head = pack_word(w.data(), w.size() < kPackedStopWordLength ? w.size() : kPackedStopWordLength);
    const uint64_t tail = w.size() > kPackedStopWordLength ? pack_word(w.data() + w.size() - 8, 8) : 0;
    return word16_key(head, tail);
}

// Fails to compile if two words share a slot, or a word is longer than 16 bytes.
constexpr std::array<uint64_t, kStopTableSize> word16_keys() {
    std::array<uint64_t, kStopTableSize> keys{};
    std::array<bool, kStopTableSize> used{};
    for (std::string_view w : kStopWords) {
        if (w.size() > 16) throw "a function word of more than 16 bytes";
        const size_t slot = word16_slot(word16_key_of(w));
        if (used[slot]) throw "kWord16Multiplier maps two stop words to one slot";
        used[slot] = true;
        keys[slot] = word16_key_of(w);
    }
    return keys;
}

constexpr std::array<uint32_t, kStopTableSize> word16_entries() {
    std::array<uint32_t, kStopTableSize> entries{};
    for (size_t k = 0; k < sizeof(kStopWords) / sizeof(kStopWords[0]); ++k)
        entries[word16_slot(word16_key_of(kStopWords[k]))] = uint32_t(k) | uint32_t(kStopWords[k].size() << 8);
    return entries;
}

constexpr std::array<uint16_t, kLongStopWordCount> word16_long_slots() {
    std::array<uint16_t, kLongStopWordCount> slots{};
    size_t next = 0;
    for (std::string_view w : kStopWords)
        if (w.size() > kPackedStopWordLength) slots[next++] = uint16_t(word16_slot(word16_key_of(w)));
    return slots;
}
}  // namespace

constexpr std::array<uint64_t, kStopTableSize> kWord16Keys = word16_keys();
constexpr std::array<uint32_t, kStopTableSize> kWord16Entries = word16_entries();
constexpr std::array<uint16_t, kLongStopWordCount> kWord16LongSlots = word16_long_slots();

}  // namespace detail
}  // namespace simhash
