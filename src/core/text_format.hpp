// Text forms of a fingerprint: 16 hex digits (output, and input in any case)
// or 64 binary digits, most significant bit first (input only).
#pragma once

#include <cstddef>
#include <cstdint>

namespace simhash {

constexpr size_t kHexDigits = 16;
constexpr size_t kBinaryDigits = 64;

// Surrounding ASCII whitespace is allowed; anything else that is not exactly
// 16 hex or 64 binary digits is rejected.
bool parse_fingerprint(const char* text, size_t length, uint64_t* out) noexcept;

// Writes 16 lower-case hex digits and a terminating NUL (17 bytes).
void format_fingerprint(uint64_t fp, char* out) noexcept;

}  // namespace simhash
