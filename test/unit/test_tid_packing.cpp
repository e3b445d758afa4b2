// Unit tests for the index leaves' tid packing (tid_packing.hpp).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "tid_packing.hpp"

using namespace simhash;

static uint64_t tid(uint32_t block, uint16_t offset) { return ((uint64_t) block << 16) | offset; }

TEST(TidPacking, WidthFollowsTheSpan) {
    TidSpan s;
    EXPECT_EQ(s.packing().width(), 1u);  // nothing yet: never a width of 0
    s.add(tid(54000, 1));
    EXPECT_EQ(s.packing().base, 54000u);
    EXPECT_EQ(s.packing().block_bits, 0);
    EXPECT_EQ(s.packing().offset_bits, 1);
    s.add(tid(54000, 185));
    EXPECT_EQ(s.packing().offset_bits, 8);
    s.add(tid(0, 3));
    EXPECT_EQ(s.packing().base, 0u);
    EXPECT_EQ(s.packing().block_bits, 16);  // 54000 < 2^16
    EXPECT_EQ(s.packing().width(), 24u);
    EXPECT_EQ(s.width_with(tid(65536, 1)), 25u);
    EXPECT_EQ(s.packing().width(), 24u);  // width_with does not add
    EXPECT_EQ(s.count(), 3u);
    s.add(tid(0xFFFFFFFEu, 0xFFFF));
    EXPECT_EQ(s.packing().width(), 48u);
    EXPECT_TRUE(tid_packing_valid(s.packing()));
}

TEST(TidPacking, Bytes) {
    EXPECT_EQ(packed_tid_bytes(0, 24), 0u);
    EXPECT_EQ(packed_tid_bytes(1, 24), 3u);
    EXPECT_EQ(packed_tid_bytes(3, 17), 7u);  // 51 bits
    EXPECT_EQ(packed_tid_bytes(8, 1), 1u);
    EXPECT_EQ(packed_tid_bytes(9, 1), 2u);
}

TEST(TidPacking, ValidityOfDamagedHeaders) {
    EXPECT_TRUE(tid_packing_valid(TidPacking{0, 32, 16}));
    EXPECT_FALSE(tid_packing_valid(TidPacking{0, 33, 8}));
    EXPECT_FALSE(tid_packing_valid(TidPacking{0, 8, 0}));
    EXPECT_FALSE(tid_packing_valid(TidPacking{0, 8, 17}));
    EXPECT_TRUE(tid_packing_valid(TidPacking{0xFFFFFF00u, 8, 8}));
}

// The blocks of a table past 16 TiB: a leaf's span can need block bits whose
// range from its base passes 2^32 - 1, though its tids do not.  Such a
// packing was refused as damaged, and scans skipped the leaf.
TEST(TidPacking, SpansNearTheLastBlock) {
    const std::vector<std::vector<uint64_t>> leaves = {
        {tid(1, 1), tid(0x80000001u, 1)},
        {tid(0x90000000u, 5), tid(0xFFFFFFFEu, 7), tid(0xA0000000u, 291)},
        {tid(0xFFFFFF01u, 1), tid(0xFFFFFFFEu, 1)},
    };
    for (const auto& tids : leaves) {
        TidSpan s;
        for (uint64_t t : tids) s.add(t);
        TidPacking p = s.packing();
        EXPECT_TRUE(tid_packing_valid(p));
        std::vector<unsigned char> buf(packed_tid_bytes(tids.size(), p.width()) + 7, 0);
        for (size_t i = 0; i < tids.size(); i++) {
            ASSERT_TRUE(tid_fits(p, tids[i]));
            put_packed_tid(buf.data(), i, p, tids[i]);
        }
        for (size_t i = 0; i < tids.size(); i++) EXPECT_EQ(get_packed_tid(buf.data(), i, p), tids[i]);
    }
}

TEST(TidPacking, Fits) {
    TidPacking p{100, 4, 8};
    EXPECT_TRUE(tid_fits(p, tid(100, 255)));
    EXPECT_TRUE(tid_fits(p, tid(115, 1)));
    EXPECT_FALSE(tid_fits(p, tid(99, 1)));
    EXPECT_FALSE(tid_fits(p, tid(116, 1)));
    EXPECT_FALSE(tid_fits(p, tid(100, 256)));
}

// Every width from 1 to 48 bits, tids at both ends of their span, written
// into a buffer that is exactly as long as they need plus the 7 bytes a read
// may run past: each reads back as written, and no write touches a
// neighbour's bits or a byte past the entries.
TEST(TidPacking, RoundTripAtEveryWidth) {
    std::mt19937_64 rng(11);
    for (unsigned bb = 0; bb <= 32; bb++) {
        for (unsigned ob = 1; ob <= 16; ob++) {
            uint32_t span = bb == 0 ? 0 : (uint32_t) ((uint64_t(1) << bb) - 1);
            uint32_t base = (uint32_t) (rng() % (uint64_t(UINT32_MAX) - span + 1));
            uint32_t maxoff = (uint32_t) ((1u << ob) - 1);
            std::vector<uint64_t> tids;
            tids.push_back(tid(base + span, (uint16_t) maxoff));
            tids.push_back(tid(base, (uint16_t) (ob == 1 ? 1 : (1u << (ob - 1)))));
            for (int i = 0; i < 61; i++)
                tids.push_back(tid(base + (span == 0 ? 0 : (uint32_t) (rng() % ((uint64_t) span + 1))),
                                   (uint16_t) (1 + rng() % maxoff)));
            TidSpan s;
            for (uint64_t t : tids) s.add(t);
            TidPacking p = s.packing();
            ASSERT_EQ(p.base, base);
            ASSERT_EQ(p.block_bits, bb);
            ASSERT_EQ(p.offset_bits, ob);
            ASSERT_TRUE(tid_packing_valid(p));
            size_t bytes = packed_tid_bytes(tids.size(), p.width());
            std::vector<unsigned char> buf(bytes + 7, 0);
            for (size_t i = 0; i < tids.size(); i++) {
                ASSERT_TRUE(tid_fits(p, tids[i]));
                put_packed_tid(buf.data(), i, p, tids[i]);
            }
            for (size_t k = bytes; k < buf.size(); k++) ASSERT_EQ(buf[k], 0) << "bb " << bb << " ob " << ob;
            for (size_t i = 0; i < tids.size(); i++)
                ASSERT_EQ(get_packed_tid(buf.data(), i, p), tids[i]) << "bb " << bb << " ob " << ob << " i " << i;
        }
    }
}
