// parse_number_test.cpp: the one number parser (engine/core/parse_number.h): the whole text, in
// its exact type and range; nothing wraps, NaN, infinities, hex and trailing words are refused.
#include "engine/core/parse_number.h"
#include "engine/fabric/mesh.h"

#include <gtest/gtest.h>

using wl::NumberRange;

TEST(ParseNumber, IntegersAreExactAndInRange) {
    long long v = 0;
    EXPECT_EQ(wl::parse_integer("256", NumberRange::closed(1, 256), &v), "");
    EXPECT_EQ(v, 256);
    EXPECT_EQ(wl::parse_integer("-3", NumberRange::closed(-5, 5), &v), "");
    EXPECT_EQ(v, -3);
    for (const char* bad : {"257", "0", "4294967328", "99999999999999999999", "12x", " 1", "1 ", "+1", "0x10", "1e3", "", "nan"})
        EXPECT_EQ(wl::parse_integer(bad, NumberRange::closed(1, 256), &v), "an integer in 1..256") << bad;
    EXPECT_EQ(v, -3) << "a refused text leaves the value alone";
    uint64_t u = 0;
    EXPECT_EQ(wl::parse_u64("18446744073709551615", &u), "");
    EXPECT_EQ(u, UINT64_MAX);
    EXPECT_NE(wl::parse_u64("-1", &u), "");
    EXPECT_NE(wl::parse_u64("18446744073709551616", &u), "");
}

TEST(ParseNumber, RealsAreFiniteAndInRange) {
    double v = 0;
    EXPECT_EQ(wl::parse_real("1e-3", NumberRange::closed(0, 10), &v), "");
    EXPECT_EQ(v, 1e-3);
    EXPECT_EQ(wl::parse_real(".5", NumberRange::open(0, 1), &v), "");
    EXPECT_EQ(v, 0.5);
    for (const char* bad : {"inf", "-inf", "+0.5", "nan", "NaN", "infinity", "1e400", "0x1p3", "1.5", "0", "1", "", " 0.5", "0.5x"})
        EXPECT_EQ(wl::parse_real(bad, NumberRange::open(0, 1), &v), "a number in (0, 1)") << bad;
    EXPECT_EQ(wl::parse_real("1e300", NumberRange::any(), &v), "");
    EXPECT_EQ(wl::parse_real("1e400", NumberRange::any(), &v), "a finite number");
    // Below the smallest normal double the value is the nearest subnormal (or 0), not out of range.
    EXPECT_EQ(wl::parse_real("1e-320", NumberRange::closed(0, 100), &v), "");
    EXPECT_GT(v, 0.0);
    EXPECT_EQ(wl::parse_real("1e-400", NumberRange::above(0), &v), "a number > 0");
}

TEST(ParseNumber, RangesSayThemselves) {
    EXPECT_EQ(NumberRange::closed(1, 1024).text(), "1..1024");
    EXPECT_EQ(NumberRange::half_open(0, 1).text(), "[0, 1)");
    EXPECT_EQ(NumberRange::above(0).text(), "> 0");
    EXPECT_EQ(NumberRange::at_least(0).text(), ">= 0");
    EXPECT_EQ(NumberRange::closed(0, 0.95).text(), "0..0.95");
    EXPECT_EQ(wl::quote_prefix("abc"), "'abc'");
    EXPECT_EQ(wl::quote_prefix(std::string(100, 'x'), 4), "'xxxx...' (100 bytes)");
}

TEST(ParseNumber, AMeshSideDoesNotWrap) {
    wl::Mesh m;
    EXPECT_TRUE(wl::parse_mesh("32x16", &m));
    EXPECT_EQ(m.w, 32);
    EXPECT_EQ(m.h, 16);
    for (const char* bad : {"4294967328x32", "32x4294967328", "0x4", "257x1", "32x", "x32", "32x32x", "32 x 32", "-1x4", "32x16 "})
        EXPECT_FALSE(wl::parse_mesh(bad, &m)) << bad;
}
