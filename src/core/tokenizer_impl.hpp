// Template body of tokenize(); included by tokenizer.hpp only.
#pragma once

#include <type_traits>

#include "tokenizer_fast_path.hpp"

namespace simhash {
namespace detail {

// Offsets of the last n unit starts (tokens or characters) in a run, so that
// the n-gram ending at the current unit is one contiguous span of scratch.
class StartRing {
public:
    explicit StartRing(int n) noexcept : n_(n) {}
    void reset() noexcept { count_ = 0; }
    void push(size_t start) noexcept {
        starts_[count_ % n_] = start;
        ++count_;
    }
    size_t count() const noexcept { return count_; }
    // Start of the n-gram that ends with the most recent unit (needs count() >= n).
    size_t ngram_start() const noexcept { return starts_[count_ % n_]; }
    size_t first_start() const noexcept { return count_ >= size_t(n_) ? ngram_start() : starts_[0]; }

private:
    int n_;
    size_t count_ = 0;
    size_t starts_[kMaxNgram] = {};
};

// tokenize() with its fast paths (the mixed tokenizer's 64-byte blocks of
// ASCII words and, in mixed 1, of ideographs and symbols; common Han
// characters and, in mixed 1, the bigrams of kana runs taken straight from
// the text; the other characters of the BMP looked up in BmpProperties,
// and the words they make up copied in one loop) or without them, to test
// that they change nothing.
template <bool kFastPaths, class Sink, class Tick>
void tokenize_text(const char* text, size_t length, TokenizerKind kind, int n, char* scratch, Sink&& sink,
                   Tick&& tick) {
    const auto* p = reinterpret_cast<const unsigned char*>(text);
    const auto* end = p + length;
    // The next point at which to call tick(); never past end.
    auto tick_after = [end](const unsigned char* from) {
        return size_t(end - from) > kTokenizerTickBytes ? from + kTokenizerTickBytes : end;
    };
    const unsigned char* next_tick = tick_after(p);
    size_t out = 0;  // bytes of scratch in use
    // Mixed 1 makes single ideographs features, but sounds are too few to tell
    // texts apart one by one: kana and alphabets written without spaces still
    // give bigrams there.
    const bool single_ideographs = kind == TokenizerKind::kMixed && n == 1;
    const int run_n = single_ideographs ? 2 : n;
    detail::StartRing ring(run_n);  // unit starts of the current run (or token stream, for words)
    bool in_word = false;       // inside a word of a space-delimited script
    bool in_run = false;        // inside a run that produces n-grams

    // Every other feature, in a mode or of a kind that holds no function word.
    auto emit = [&](const char* feature, size_t feature_length) {
        if constexpr (std::is_invocable_v<Sink&, const char*, size_t, int>)
            sink(feature, feature_length, -1);
        else
            sink(feature, feature_length);
    };
    // Mixed 1's characters that are features by themselves, a block at a
    // time: to a sink that takes them so, else one by one.
    auto block_chars = [&](BlockChars chars) {
        if constexpr (std::is_invocable_v<Sink&, BlockChars>)
            sink(chars);
        else
            for_each_block_char(chars, emit);
    };
    // A run (chars mode: any non-separators; mixed: CJK characters) ends: a
    // run shorter than n still yields itself as one feature.
    auto close_run = [&]() {
        if (!in_run) return;
        if (ring.count() < size_t(run_n)) emit(scratch + ring.first_start(), out - ring.first_start());
        in_run = false;
        ring.reset();
        out = 0;
    };
    // A unit of an n-gram sequence just ended at `out`.
    auto unit_done = [&]() {
        if (ring.count() >= size_t(run_n)) emit(scratch + ring.ngram_start(), out - ring.ngram_start());
    };
    // Mixed mode: a word; a sink that asks is told which function word it
    // is, or given the word to look up itself.  padded: 8 bytes are
    // readable from word on (english_stop_word_index_padded); padded16: 16.
    auto word_feature = [&](const char* word, size_t word_length, bool padded, bool padded16) {
        if constexpr (std::is_invocable_v<Sink&, ShortWord>) {
            if (padded16 && word_length <= 16) {
                sink(ShortWord{word, word_length});
                return;
            }
        }
        if constexpr (std::is_invocable_v<Sink&, const char*, size_t, int>)
            sink(word, word_length,
                 padded ? english_stop_word_index_padded(word, word_length)
                        : english_stop_word_index(word, word_length));
        else
            sink(word, word_length);
    };
    // Mixed mode: a word just ended at `out`.  It starts at scratch[0], and
    // scratch is at least 16 bytes.
    auto word_done = [&]() { word_feature(scratch, out, true, true); };
    // The fast path's words, folded into scratch (at its start) or straight from the text.
    auto ascii_word = [&](const char* word, size_t word_length, bool folded) {
        word_feature(word, word_length, folded || size_t(end - reinterpret_cast<const unsigned char*>(word)) >= 8,
                     folded);
    };
    // Words mode: tokens are separated by one space in scratch.
    auto begin_token = [&]() {
        if (ring.count() > 0) scratch[out++] = ' ';
        ring.push(out);
    };

    const BmpProperties& bmp = bmp_properties();
    while (p < end) {
        if (p >= next_tick) {
            tick();
            next_tick = tick_after(p);
        }
        if constexpr (kFastPaths) {
            // Between features, an ASCII byte ends any run (ASCII is never
            // CJK) and starts no word yet: the fast path takes over from here.
            if (kind == TokenizerKind::kMixed && !in_word && *p < 0x80) {
                close_run();
                out = 0;
                const unsigned char* stopped =
                    single_ideographs
                        ? detail::scan_fast_path<true, kSinkTakesAnyOrder<Sink>>(p, next_tick, end, scratch,
                                                                                 ascii_word, block_chars)
                        : detail::scan_fast_path<false, false>(p, next_tick, end, scratch, ascii_word,
                                                               block_chars);
                if (stopped != p) {
                    p = stopped;
                    continue;
                }
            }
        }
        const unsigned char* char_bytes = p;
        DecodedChar ch;
        char32_t folded;
        CharClass cls;
        bool common_han = false;       // U+4E00..U+9FFF: no folding, always an ideograph
        bool ideograph_known = false;  // ideograph is the answer to is_ideograph(folded)
        bool ideograph = false;        // asked for by mixed 1 only
        int bmp_length;
        if (*p < 0x80) {
            ch = {*p, 1, true};
            folded = static_cast<unsigned char>(kAscii.fold[*p]);
            cls = kAscii.cls[*p];
        } else if (detail::is_common_han(p, end)) {  // most of Chinese text: no case, always CJK
            ch = {detail::decode_utf8_3(p), 3, true};
            folded = ch.code;
            cls = CharClass::kCjk;
            common_han = ideograph_known = ideograph = true;
        } else if (kFastPaths && (bmp_length = detail::bmp_sequence_length(p, end)) != 0) {
            // the rest of the BMP: one table load (unicode.hpp, BmpProperties)
            ch = {detail::decode_bmp(p, bmp_length), uint8_t(bmp_length), true};
            const uint8_t props = bmp.of[ch.code];
            cls = CharClass(props & BmpProperties::kClass);
            folded = (props & BmpProperties::kFolds) != 0 ? fold_case(ch.code) : ch.code;
            ideograph_known = true;
            ideograph = (props & BmpProperties::kIdeograph) != 0;
        } else {
            ch = decode_utf8(p, end);
            folded = ch.valid ? fold_case(ch.code) : 0xFFFD;
            cls = ch.valid ? classify(folded) : CharClass::kSeparator;
        }
        p += ch.length;
        if (cls == CharClass::kIgnorable) continue;

        // Append the folded character; unchanged characters are copied as they are.
        auto append = [&]() {
            if (folded < 0x80) {
                scratch[out++] = static_cast<char>(folded);
            } else if (folded == ch.code) {
                for (int i = 0; i < ch.length; ++i) scratch[out++] = static_cast<char>(char_bytes[i]);
            } else {
                out += encode_utf8(folded, scratch + out);
            }
        };

        // The rest of a word, in one tight loop: ASCII, and (fast paths)
        // 2- and 3-byte word characters that folding leaves as they are,
        // copied as they are.  The general loop takes anything else: a
        // capital outside ASCII, an ignorable character, the word's end.
        // Local cursors: a char store could otherwise alias p and out,
        // forcing reloads.  It stops at the next tick too; the word goes on
        // in the next character.
        auto append_word_tail = [&]() {
            const unsigned char* in = p;
            char* dst = scratch + out;
            while (in < next_tick) {
                if (*in < 0x80) {
                    if (kAscii.cls[*in] != CharClass::kWord) break;
                    *dst++ = kAscii.fold[*in++];
                    continue;
                }
                if constexpr (!kFastPaths) break;
                const int char_length = detail::bmp_sequence_length(in, end);
                if (char_length == 0 || bmp.of[detail::decode_bmp(in, char_length)] != uint8_t(CharClass::kWord))
                    break;
                for (int i = 0; i < char_length; ++i) *dst++ = static_cast<char>(*in++);
            }
            p = in;
            out = size_t(dst - scratch);
        };

        switch (kind) {
            case TokenizerKind::kWords:
                if (cls == CharClass::kWord) {
                    if (!in_word) begin_token();
                    in_word = true;
                    append();
                    append_word_tail();
                    continue;
                }
                if (in_word) unit_done();
                in_word = false;
                if (cls == CharClass::kSeparator) continue;
                begin_token();  // a CJK character or an emoji is a token by itself
                append();
                unit_done();
                continue;

            case TokenizerKind::kChars:
                if (cls == CharClass::kSeparator) {
                    close_run();
                    continue;
                }
                in_run = true;
                ring.push(out);
                append();
                unit_done();
                continue;

            case TokenizerKind::kMixed:
                if (cls == CharClass::kCjk) {
                    if (in_word) word_done();
                    in_word = false;
                    if (single_ideographs && (ideograph_known ? ideograph : is_ideograph(folded))) {
                        close_run();  // a run of kana before it
                        out = 0;
                        if constexpr (kFastPaths) {
                            if (common_han) {
                                // A common Han character needs no folding: it and those right
                                // after it are features straight from the text.
                                emit(reinterpret_cast<const char*>(char_bytes), 3);
                                while (p < next_tick && detail::is_common_han(p, end)) {
                                    emit(reinterpret_cast<const char*>(p), 3);
                                    p += 3;
                                }
                                continue;
                            }
                        }
                        append();
                        emit(scratch, out);
                        out = 0;
                        continue;
                    }
                    if (!in_run) out = 0;
                    in_run = true;
                    ring.push(out);
                    append();
                    unit_done();
                    if constexpr (kFastPaths) {
                        if (single_ideographs && ch.length == 3 && folded == ch.code) {
                            // Kana (and the other sounds written without spaces) of 3
                            // bytes that folding leaves alone: each bigram of the run
                            // is 6 bytes of the text, taken from there.
                            const unsigned char* last = char_bytes;  // the run's last unit
                            while (p < next_tick && detail::bmp_sequence_length(p, end) == 3 &&
                                   bmp.of[detail::decode_utf8_3(p)] == uint8_t(CharClass::kCjk)) {
                                emit(reinterpret_cast<const char*>(last), 6);
                                last = p;
                                p += 3;
                            }
                            if (last != char_bytes) {
                                // The general loop goes on from the run's last unit: it
                                // alone in scratch, two starts in the ring (run_n is 2),
                                // so that the next unit makes a bigram with it and the
                                // run is not taken for one shorter than a bigram.
                                ring.reset();
                                ring.push(0);
                                ring.push(0);
                                for (int i = 0; i < 3; ++i) scratch[i] = static_cast<char>(last[i]);
                                out = 3;
                            }
                        }
                    }
                    continue;
                }
                close_run();
                if (cls == CharClass::kWord) {
                    in_word = true;
                    append();
                    append_word_tail();
                    continue;
                }
                if (in_word) word_done();
                in_word = false;
                out = 0;
                if (cls == CharClass::kSymbol) {
                    append();
                    emit(scratch, out);
                    out = 0;
                }
                continue;
        }
    }

    switch (kind) {
        case TokenizerKind::kWords:
            if (in_word) unit_done();
            // Fewer tokens than n: the whole text is one feature.
            if (ring.count() > 0 && ring.count() < size_t(n)) emit(scratch, out);
            break;
        case TokenizerKind::kChars:
            close_run();
            break;
        case TokenizerKind::kMixed:
            if (in_word) word_done();
            close_run();
            break;
    }
}

}  // namespace detail

template <class Sink>
void tokenize(const char* text, size_t length, TokenizerKind kind, int n, char* scratch, Sink&& sink) {
    detail::tokenize_text<true>(text, length, kind, n, scratch, sink, [] {});
}

template <class Sink, class Tick>
void tokenize(const char* text, size_t length, TokenizerKind kind, int n, char* scratch, Sink&& sink, Tick&& tick) {
    detail::tokenize_text<true>(text, length, kind, n, scratch, sink, tick);
}

}  // namespace simhash
