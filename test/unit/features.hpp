// Test helper: the features of a text as strings.
#pragma once

#include <string>
#include <vector>

#include "tokenizer.hpp"

inline std::vector<std::string> features_of(const std::string& text,
                                            simhash::TokenizerKind kind = simhash::TokenizerKind::kMixed,
                                            int n = 2) {
    std::vector<char> scratch(simhash::tokenizer_scratch_size(text.size()));
    std::vector<std::string> out;
    simhash::tokenize(text.data(), text.size(), kind, n, scratch.data(),
                      [&out](const char* f, size_t len) { out.emplace_back(f, len); });
    return out;
}

using Features = std::vector<std::string>;
