#include "text_format.hpp"

namespace simhash {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

bool parse_fingerprint(const char* text, size_t length, uint64_t* out) noexcept {
    size_t begin = 0, end = length;
    while (begin < end && is_space(text[begin])) ++begin;
    while (end > begin && is_space(text[end - 1])) --end;
    const size_t digits = end - begin;
    uint64_t value = 0;
    if (digits == kHexDigits) {
        for (size_t i = begin; i < end; ++i) {
            int v = hex_value(text[i]);
            if (v < 0) return false;
            value = (value << 4) | uint64_t(v);
        }
    } else if (digits == kBinaryDigits) {
        for (size_t i = begin; i < end; ++i) {
            if (text[i] != '0' && text[i] != '1') return false;
            value = (value << 1) | uint64_t(text[i] - '0');
        }
    } else {
        return false;
    }
    *out = value;
    return true;
}

void format_fingerprint(uint64_t fp, char* out) noexcept {
    static const char kDigits[] = "0123456789abcdef";
    for (int i = 15; i >= 0; --i) {
        out[i] = kDigits[fp & 0xF];
        fp >>= 4;
    }
    out[16] = '\0';
}

}  // namespace simhash
