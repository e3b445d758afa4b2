/*
 * Feeding PostgreSQL values (text in any server encoding, tsvector) into the
 * core's vote counters.  Shared by the simhash() functions and the trigger.
 *
 * The vote counters are plain arrays with no destructor, so an ereport
 * longjmp across them loses nothing.
 */
#ifndef SIMHASH_FEATURE_VOTES_H
#define SIMHASH_FEATURE_VOTES_H

#include "simhash_datum.h"
#include "fingerprint.hpp"

extern "C" {
#include "tsearch/ts_type.h"
}

/* Integer weights of tsvector labels, ts_rank's defaults {0.1, 0.2, 0.4, 1.0} scaled to D = 1 occurrence. */
constexpr int64_t kLabelWeight[4] = {1, 2, 4, 10}; /* D, C, B, A as WEP_GETWEIGHT numbers them */

struct TextBytes {
    const char* data;
    size_t length;
    bool converted; /* data was palloc'd by the conversion to UTF-8 */
};

/* The text as UTF-8 (converted from the server encoding when needed). */
TextBytes text_as_utf8(const text* value);
void release_text_bytes(TextBytes bytes);

/*
 * Reports tokenizer arguments that are out of range with an ERROR naming the
 * value; returns the parsed tokenizer otherwise.
 */
simhash::TokenizerKind checked_tokenizer(const text* name, int32 n);

/* Calls sink(feature, length) for every feature of the text. */
template <class Sink>
void for_each_text_feature(const text* value, simhash::TokenizerKind kind, int n, Sink&& sink) {
    TextBytes bytes = text_as_utf8(value);
    char* scratch = (char*) MemoryContextAllocHuge(CurrentMemoryContext,
                                                   simhash::tokenizer_scratch_size(bytes.length));
    simhash::tokenize(bytes.data, bytes.length, kind, n, scratch, sink);
    pfree(scratch);
    release_text_bytes(bytes);
}

/* One vote of weight kLabelWeight[label] per lexeme position (one D vote when stripped). */
void vote_tsvector(TSVector vector, simhash::IntegerVotes* votes);

#endif
