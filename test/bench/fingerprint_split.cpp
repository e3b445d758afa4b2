// Where simhash(text)'s time goes, outside PostgreSQL: the core alone, over
// the rows of test/bench/corpus.pl (read from standard input), in four
// stages that each add one part of the work to the one before:
//
//   tokenize   the mixed 1 tokenizer, its features only looked at
//   + hash     and every feature other than a function word hashed (XXH3)
//   + votes    and the votes counted as simhash(text) counts them, but
//              every feature weighing its count (TextVotes without the
//              length weighting: rule 5's ramp left out)
//   full       fingerprint_text(), what simhash(text) runs
//
// Where the CPU has AVX-512, + votes and full look the words up and hash
// them eight at a time (word_batch.cpp), so they can take less time than
// + hash, which does it word by word.
//
// Each stage is timed over all the rows of one language, the median of the
// rounds; the differences between stages are what each part costs.  Built
// and run by fingerprint_split.sh.  Not a test: it asserts nothing.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "count_ones.hpp"
#include "fingerprint.hpp"
#include "tokenizer.hpp"

namespace {

using simhash::TokenizerKind;

// A COPY text field as corpus.pl writes it: \\ and \n escaped.
std::string unescape(const std::string& field) {
    std::string out;
    out.reserve(field.size());
    for (size_t i = 0; i < field.size(); ++i) {
        if (field[i] == '\\' && i + 1 < field.size()) {
            const char c = field[++i];
            out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
        } else {
            out += field[i];
        }
    }
    return out;
}

// The median over `rounds` runs of work() over every text, in milliseconds.
template <class Work>
double median_ms(const std::vector<std::string>& texts, int rounds, Work&& work) {
    std::vector<double> times;
    for (int r = 0; r <= rounds; ++r) {  // round 0 warms the caches
        const auto start = std::chrono::steady_clock::now();
        for (const std::string& text : texts) work(text);
        const auto stop = std::chrono::steady_clock::now();
        if (r > 0) times.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
    // each language's texts, the languages in the order they come
    std::vector<std::pair<std::string, std::vector<std::string>>> languages;
    std::string line;
    while (std::getline(std::cin, line)) {
        const size_t t1 = line.find('\t'), t2 = line.find('\t', t1 + 1), t3 = line.find('\t', t2 + 1);
        if (t3 == std::string::npos) continue;
        const std::string language = line.substr(0, t1);
        auto known = std::find_if(languages.begin(), languages.end(), [&](const auto& l) { return l.first == language; });
        if (known == languages.end()) known = languages.emplace(languages.end(), language, std::vector<std::string>());
        known->second.push_back(unescape(line.substr(t3 + 1)));
    }
    std::printf("Votes counted by count_ones_%s (src/core/count_ones.cpp).\n\n", simhash::detail::count_ones_version());
    std::printf("| language | MB | features | tokenize ms | + hash ms | + votes ms | full ms | full MB/s |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    uint64_t keep = 0;  // every result feeds it, so that no stage is optimized away
    for (const auto& [language, texts_of_language] : languages) {
        const std::vector<std::string>* texts = &texts_of_language;
        size_t bytes = 0, longest = 0;
        for (const std::string& text : *texts) {
            bytes += text.size();
            longest = std::max(longest, text.size());
        }
        std::vector<char> scratch(simhash::tokenizer_scratch_size(longest));
        // Results go to a local of each text first: a captured `keep` would be
        // written back after every feature (a char store may alias it), a chain
        // of store-to-load forwarding that the stage would measure instead.
        const double tokenize = median_ms(*texts, rounds, [&](const std::string& text) {
            uint64_t seen = 0;
            simhash::tokenize(text.data(), text.size(), TokenizerKind::kMixed, 1, scratch.data(),
                              [&seen](const char* feature, size_t length, int function_word) {
                                  seen += uint64_t(feature[length - 1]) + uint64_t(function_word);
                              });
            keep += seen;
        });
        uint64_t total_features = 0;
        for (const std::string& text : *texts)
            simhash::tokenize(text.data(), text.size(), TokenizerKind::kMixed, 1, scratch.data(),
                              [&](const char*, size_t, int) { ++total_features; });
        const double hash = median_ms(*texts, rounds, [&](const std::string& text) {
            uint64_t hashes = 0;
            simhash::tokenize(text.data(), text.size(), TokenizerKind::kMixed, 1, scratch.data(),
                              [&hashes](const char* feature, size_t length, int function_word) {
                                  if (function_word < 0) hashes += simhash::feature_hash(feature, length);
                              });
            keep += hashes;
        });
        const double votes = median_ms(*texts, rounds, [&](const std::string& text) {
            simhash::TextVotes counted(TokenizerKind::kWords);  // the kind only turns the length weighting off
            simhash::tokenize(text.data(), text.size(), TokenizerKind::kMixed, 1, scratch.data(), counted);
            keep += counted.fingerprint();
        });
        const double full = median_ms(*texts, rounds, [&](const std::string& text) {
            keep += simhash::fingerprint_text(text.data(), text.size(), simhash::kDefaultTokenizer,
                                              simhash::kDefaultNgram, scratch.data())
                        .fingerprint;
        });
        const double mb = double(bytes) / 1048576.0;
        std::printf("| %s | %.1f | %llu | %.1f | %.1f | %.1f | %.1f | %.0f |\n", language.c_str(), mb,
                    static_cast<unsigned long long>(total_features), tokenize, hash, votes, full,
                    mb / (full / 1000.0));
    }
    std::fprintf(stderr, "(%llu)\n", static_cast<unsigned long long>(keep & 1));
    return 0;
}
