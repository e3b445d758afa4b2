/*
 * Feeding PostgreSQL values (text in any server encoding, tsvector) into the
 * core's vote counters.  Shared by the simhash() functions and the trigger.
 *
 * The vote counters are plain arrays with no destructor, so an ereport
 * longjmp across them loses nothing.
 */
#ifndef SIMHASH_FEATURE_VOTES_H
#define SIMHASH_FEATURE_VOTES_H

#include <type_traits>

#include "simhash_datum.h"
#include "fingerprint.hpp"

extern "C" {
#include "miscadmin.h"
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
 * A user's value (a feature, a tokenizer name) as an error message quotes
 * it: cut to about kMessageExcerptBytes bytes with "..." after, so that a
 * 20 MB feature does not become a 20 MB message in the server log.  In a
 * SQL_ASCII database, whose text is read as UTF-8, it is valid UTF-8: bytes
 * that are not are shown as \xNN.
 */
constexpr int kMessageExcerptBytes = 64;
char* message_excerpt(const text* value);
char* message_excerpt(const char* data, int length);

/*
 * The hash of one feature given as text (array element, aggregate row);
 * false for the empty string, which is no feature: splitting an empty
 * document yields it, and counting it would give every such document the
 * same fingerprint.
 */
bool feature_text_hash(const text* feature, uint64_t* hash);

/* A weight must be finite: an ERROR naming it and its feature otherwise. */
void check_feature_weight(double weight, const text* feature);

/*
 * ERROR 22003 of function for weights whose absolute values add up past
 * DBL_MAX (RealVotes::overflowed); where names the weight that took the sum
 * past it (" at feature ..."), or is "" when no single one did (parallel
 * workers' shares combined).
 */
[[noreturn]] void report_weight_overflow(const char* function, const char* where);

/*
 * Reports tokenizer arguments that are out of range with an ERROR naming the
 * value; returns the parsed tokenizer otherwise.
 */
simhash::TokenizerKind checked_tokenizer(const text* name, int32 n);

/*
 * The tick the core's long loops (the tokenizer, the hash sort) call: a
 * cancel is honoured there (their frames own nothing with a destructor).
 */
inline void check_for_interrupts() { CHECK_FOR_INTERRUPTS(); }

/*
 * Calls sink(feature, length) for every feature of the text.  A text can be
 * hundreds of megabytes, so a cancel is honoured between features and at
 * the tokenizer's ticks, every megabyte of text, which also cover text with
 * no features (the tokenizer's frames own nothing with a destructor for the
 * longjmp to skip).
 */
template <class Sink>
struct InterruptibleSink {
    static constexpr bool kAnyOrder = simhash::kSinkTakesAnyOrder<Sink>;
    Sink& sink;
    void operator()(const char* feature, size_t length, int function_word) {
        CHECK_FOR_INTERRUPTS();
        /* a sink that takes the function word's index gets it (simhash::tokenize) */
        if constexpr (std::is_invocable_v<Sink&, const char*, size_t, int>)
            sink(feature, length, function_word);
        else
            sink(feature, length);
    }
    /* only for a sink that takes the words it looks up itself (simhash::ShortWord) */
    template <class Word, class = std::enable_if_t<std::is_invocable_v<Sink&, Word>>>
    void operator()(Word word) {
        CHECK_FOR_INTERRUPTS();
        sink(word);
    }
};

template <class Sink>
void for_each_text_feature(const text* value, simhash::TokenizerKind kind, int n, Sink&& sink) {
    TextBytes bytes = text_as_utf8(value);
    char* scratch = (char*) MemoryContextAllocHuge(CurrentMemoryContext,
                                                   simhash::tokenizer_scratch_size(bytes.length));
    simhash::tokenize(bytes.data, bytes.length, kind, n, scratch, InterruptibleSink<std::remove_reference_t<Sink>>{sink},
                      check_for_interrupts);
    pfree(scratch);
    release_text_bytes(bytes);
}

/* One vote of weight kLabelWeight[label] per lexeme position (one D vote when stripped). */
void vote_tsvector(TSVector vector, simhash::IntegerVotes* votes);

#endif
