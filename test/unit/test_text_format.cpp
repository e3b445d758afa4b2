#include <gtest/gtest.h>

#include <string>

#include "text_format.hpp"

using simhash::format_fingerprint;
using simhash::parse_fingerprint;

static bool parse(const std::string& s, uint64_t* out) { return parse_fingerprint(s.data(), s.size(), out); }

TEST(TextFormat, HexAnyCaseRoundTrips) {
    uint64_t fp = 0;
    ASSERT_TRUE(parse("0123456789abcdef", &fp));
    EXPECT_EQ(fp, 0x0123456789abcdefULL);
    ASSERT_TRUE(parse("0123456789ABCDEF", &fp));
    EXPECT_EQ(fp, 0x0123456789abcdefULL);
    char out[17];
    format_fingerprint(0xFEDCBA9876543210ULL, out);
    EXPECT_STREQ(out, "fedcba9876543210");
    format_fingerprint(0, out);
    EXPECT_STREQ(out, "0000000000000000");
}

TEST(TextFormat, BinaryIsMostSignificantBitFirst) {
    uint64_t fp = 0;
    ASSERT_TRUE(parse("1" + std::string(62, '0') + "1", &fp));
    EXPECT_EQ(fp, 0x8000000000000001ULL);
    ASSERT_TRUE(parse(std::string(64, '1'), &fp));
    EXPECT_EQ(fp, ~uint64_t{0});
}

TEST(TextFormat, SurroundingWhitespaceIsAllowed) {
    uint64_t fp = 0;
    ASSERT_TRUE(parse("  00000000000000ff\n", &fp));
    EXPECT_EQ(fp, 0xffu);
}

TEST(TextFormat, RejectsEverythingElse) {
    uint64_t fp = 42;
    for (const std::string& bad :
         {std::string(""), std::string("abc"), std::string(15, 'a'), std::string(17, 'a'),
          std::string("0x0123456789abcd"), std::string("0123456789abcdeg"), std::string(63, '1'),
          std::string(65, '0'), std::string(63, '0') + "2", std::string("0123 456789abcdef"),
          std::string("0123456789abcdef\0", 17)}) {
        EXPECT_FALSE(parse(bad, &fp)) << bad;
        EXPECT_EQ(fp, 42u) << "output must stay untouched on failure";
    }
}
