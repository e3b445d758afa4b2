// Words of up to 16 bytes in batches: which are English function words,
// and the hashes of the others, eight words at a time with AVX-512
// (word_batch.cpp explains how); and the hashes of a block's characters,
// eight at a time too.  TextVotes gathers the mixed tokenizer's
// words here where the CPU has AVX-512, and looks each word up and hashes
// it as it comes elsewhere; both give the same votes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tokenizer.hpp"

namespace simhash {
namespace detail {

// Words of a batch.
constexpr size_t kWordBatch = 64;

struct WordBatch {
    // Each word's bytes, then whatever followed it, 16 in all.  The rows
    // after the last word are read (a vector holds 4 rows) but not used.
    char bytes[kWordBatch + 8][16];
    uint8_t lengths[kWordBatch + 8];  // each word's length, 1 to 16
    size_t count = 0;                 // words in the batch
};

// The function words of a batch: room for a batch and one vector more,
// as the AVX-512 version stores whole vectors.
struct BatchFunctionWords {
    uint8_t index[kWordBatch + 16];  // kEnglishStopWords positions, in no set order (a tally)
    size_t count;
};

// Splits the batch's words into function words and the others'
// feature_hash()es, which go to hashes in batch order: returns how many.
// hashes needs room for batch.count + kWordBatchSlack (whole vectors
// again).  The portable version looks each word up and hashes it in turn;
// the AVX-512 version, for machines where split_words_avx512_supported(),
// gives the same results.
constexpr size_t kWordBatchSlack = 8;
size_t split_words_portable(const WordBatch& batch, BatchFunctionWords* function_words, uint64_t* hashes) noexcept;
size_t split_words_avx512(const WordBatch& batch, BatchFunctionWords* function_words, uint64_t* hashes) noexcept;
bool split_words_avx512_supported() noexcept;

// feature_hash() of each character of a block (BlockChars, tokenizer.hpp:
// 2 or 3 bytes each, at most 32), in text order, into hashes: returns how
// many.  hashes needs room for 32.  The AVX-512 version (VBMI and VBMI2,
// where hash_block_chars_avx512_supported()) hashes eight at a time and
// gives the same hashes.
size_t hash_block_chars_portable(BlockChars chars, uint64_t* hashes) noexcept;
size_t hash_block_chars_avx512(BlockChars chars, uint64_t* hashes) noexcept;
bool hash_block_chars_avx512_supported() noexcept;

}  // namespace detail
}  // namespace simhash
