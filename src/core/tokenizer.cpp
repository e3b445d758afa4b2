#include "tokenizer.hpp"

#include <cstring>

namespace simhash {

namespace {
struct NamedKind {
    const char* name;
    TokenizerKind kind;
};
constexpr NamedKind kKinds[] = {
    {"words", TokenizerKind::kWords},
    {"chars", TokenizerKind::kChars},
    {"mixed", TokenizerKind::kMixed},
};
}  // namespace

bool parse_tokenizer(const char* name, size_t length, TokenizerKind* out) noexcept {
    for (const auto& k : kKinds) {
        if (std::strlen(k.name) == length && std::memcmp(k.name, name, length) == 0) {
            *out = k.kind;
            return true;
        }
    }
    return false;
}

const char* tokenizer_name(TokenizerKind kind) noexcept {
    for (const auto& k : kKinds)
        if (k.kind == kind) return k.name;
    return "?";
}

}  // namespace simhash
