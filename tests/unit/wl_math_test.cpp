#include "engine/core/simd.h"
#include "engine/core/wl_math.h"
#include "engine/core/vecmath.h"
#include "engine/gpt/rng.h"

#include <gtest/gtest.h>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

uint32_t float_bits(float f) {   // std::bit_cast is missing from the WASM toolchain's libc++
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

// Distance in units in the last place between two finite floats.
int64_t ulps(float a, float b) {
    int32_t ia, ib;
    std::memcpy(&ia, &a, 4);
    std::memcpy(&ib, &b, 4);
    if (ia < 0) ia = INT32_MIN - ia;
    if (ib < 0) ib = INT32_MIN - ib;
    return std::llabs(int64_t(ia) - int64_t(ib));
}

template <class F, class G>
int64_t max_ulps(F ours, G ref, float lo, float hi, int n) {
    int64_t worst = 0;
    for (int i = 0; i <= n; ++i) {
        float x = lo + (hi - lo) * float(i) / float(n);
        float want = float(ref(double(x)));
        worst = std::max(worst, ulps(ours(x), want));
    }
    return worst;
}

}  // namespace

TEST(WlMath, ExpWithinOneUlpOfDoubleLibm) {
    EXPECT_LE(max_ulps(wl::math::expf, [](double x) { return std::exp(x); }, -87.f, 88.f, 200000), 1);
    EXPECT_EQ(wl::math::expf(0.f), 1.f);
    EXPECT_EQ(wl::math::expf(-200.f), 0.f);
    EXPECT_TRUE(std::isinf(wl::math::expf(100.f)));
}

TEST(WlMath, LogWithinOneUlpOfDoubleLibm) {
    EXPECT_LE(max_ulps(wl::math::logf, [](double x) { return std::log(x); }, 1e-6f, 1e6f, 200000), 1);
    EXPECT_LE(max_ulps(wl::math::logf, [](double x) { return std::log(x); }, 0.5f, 2.f, 200000), 1);
    EXPECT_EQ(wl::math::logf(1.f), 0.f);
    EXPECT_TRUE(std::isnan(wl::math::logf(-1.f)));
}

// The PE's flog/flogs against libm's double log rounded to float, over the positive floats,
// denormals included: one bit pattern in 251 (8.5 million, every binade). Measured once over
// all 2,139,095,039 positive finite floats: the worst is 1 ulp, at 2 of them; the rest agree.
TEST(WlMath, LogWithinOneUlpOverEveryBinade) {
    int64_t worst = 0, off = 0, n = 0;
    for (uint32_t u = 1; u <= 0x7f7fffffu; u += 251) {
        float x;
        std::memcpy(&x, &u, 4);
        const int64_t d = ulps(wl::math::logf(x), float(std::log(double(x))));
        worst = std::max(worst, d);
        off += d != 0;
        n++;
    }
    EXPECT_LE(worst, 1) << off << " of " << n << " inputs differ";
    EXPECT_LT(off, n / 1000) << "more than 1 in 1000 inputs off by an ulp";
    std::printf("[ info ] flog: max %lld ulp over %lld inputs, %lld off by one\n", (long long)worst, (long long)n,
                (long long)off);
}

TEST(WlMath, LogSpecialValues) {
    EXPECT_EQ(wl::math::logf(0.f), -INFINITY);
    EXPECT_EQ(wl::math::logf(-0.f), -INFINITY);
    EXPECT_EQ(wl::math::logf(INFINITY), INFINITY);
    EXPECT_EQ(wl::math::logf(1.f), 0.f);
    EXPECT_EQ(float_bits(wl::math::logf(1.f)), 0u);   // +0, not -0
    // A negative number, -inf included, gives the one quiet NaN, positive: the same bits everywhere.
    for (float x : {-1.f, -1e-40f, -INFINITY, -FLT_MAX}) EXPECT_EQ(float_bits(wl::math::logf(x)), 0x7fc00000u) << x;
    // A NaN comes back as it came (sign and payload).
    for (uint32_t b : {0x7fc00000u, 0xffc00000u, 0x7fc12345u}) {
        float x;
        std::memcpy(&x, &b, 4);
        EXPECT_EQ(float_bits(wl::math::logf(x)), b);
    }
    // Denormals: the smallest, the largest, and one in between, each within an ulp of libm.
    for (uint32_t b : {0x00000001u, 0x007fffffu, 0x00012345u}) {
        float x;
        std::memcpy(&x, &b, 4);
        EXPECT_LE(ulps(wl::math::logf(x), float(std::log(double(x)))), 1) << b;
    }
    EXPECT_NEAR(wl::math::logf(1.4e-45f), -103.27893f, 1e-4f);
    EXPECT_NEAR(wl::math::logf(FLT_MAX), 88.7228391f, 1e-5f);
}

TEST(WlMath, TanhWithinOneUlpOfDoubleLibm) {
    EXPECT_LE(max_ulps(wl::math::tanhf, [](double x) { return std::tanh(x); }, -10.f, 10.f, 200000), 1);
    EXPECT_LE(max_ulps(wl::math::tanhf, [](double x) { return std::tanh(x); }, -1e-3f, 1e-3f, 20000), 1);
    EXPECT_EQ(wl::math::tanhf(0.f), 0.f);
    EXPECT_EQ(wl::math::tanhf(50.f), 1.f);
}

TEST(WlMath, RsqrtAndPowi) {
    EXPECT_EQ(wl::math::rsqrtf(4.f), 0.5f);
    EXPECT_DOUBLE_EQ(wl::math::powi_d(0.9, 3), 0.9 * 0.9 * 0.9);
    EXPECT_EQ(wl::math::powi_d(2.0, 10), 1024.0);
    EXPECT_EQ(wl::math::powi_d(0.5, 0), 1.0);
}

// The GPT's array exp/tanh (lanes of doubles, in every SIMD copy this CPU runs) and the PE's
// fexp/ftanh are one definition: every value agrees bit for bit, so the mesh and the reference
// differ only in their order of summation.
TEST(WlMath, ArraysAndScalarsAreOneDefinition) {
    std::vector<float> x;
    for (float v = -120.f; v <= 120.f; v += 0.0137f) x.push_back(v);
    for (float v : {0.f, -0.f, 1e-30f, -1e-8f, 0.0625f, 20.f, -20.5f, 700.f, -710.f, INFINITY, -INFINITY, NAN, -NAN})
        x.push_back(v);
    const wl::Simd detected = wl::simd_level();
    for (wl::Simd level : {wl::Simd::Generic, wl::Simd::Avx2, wl::Simd::Avx512}) {
        if (!wl::set_simd_level(level)) continue;
        SCOPED_TRACE(wl::simd_name(level));
        for (int n : {int(x.size()), int(x.size()) - 3}) {   // tails of every length the lanes leave
            std::vector<float> e(static_cast<size_t>(n)), t(static_cast<size_t>(n));
            wl::math::exp_array(e.data(), x.data(), n);
            wl::math::tanh_array(t.data(), x.data(), n);
            for (size_t i = 0; i < size_t(n); i++) {
                ASSERT_EQ(float_bits(e[i]), float_bits(wl::math::expf(x[i]))) << "exp(" << x[i] << ")";
                ASSERT_EQ(float_bits(t[i]), float_bits(wl::math::tanhf(x[i]))) << "tanh(" << x[i] << ")";
                if (x[i] != x[i]) {   // a NaN comes back with its own sign and payload, natively and in WASM
                    EXPECT_EQ(float_bits(e[i]), float_bits(x[i]));
                    EXPECT_EQ(float_bits(t[i]), float_bits(x[i]));
                }
            }
        }
    }
    wl::set_simd_level(detected);
}

// Box-Muller: box_muller_lanes (frexp from u1's bits) gives log_d's and cos_small_d's value, and
// Rng::normals (lanes, in every SIMD copy this CPU runs, tails of every length) gives the bits of
// n calls of Rng::normal, leaving the stream where they leave it: a seed's initial weights do not
// depend on the path.
TEST(WlMath, NormalsInLanesAreRngNormal) {
    constexpr double kPi = 3.14159265358979323846;
    for (double u1 : {0x1p-53, 0x1.8p-40, 1e-9, 0.5, 0.70710678118654752, 0.7071067811865476, 0.75, 1.0 - 0x1p-53, 1.0})
        for (double u2 : {0.0, 0x1p-53, 0.25, 0.5, 0.9, 1.0 - 0x1p-53}) {
            const double want = -std::sqrt(-2.0 * wl::math::log_d(u1)) * wl::math::cos_small_d(2.0 * kPi * u2 - kPi);
            const double got = wl::math::box_muller_lanes(u1, u2);
            EXPECT_EQ(std::memcmp(&want, &got, sizeof got), 0) << u1 << " " << u2;
        }
    const wl::Simd detected = wl::simd_level();
    for (wl::Simd level : {wl::Simd::Generic, wl::Simd::Avx2, wl::Simd::Avx512}) {
        if (!wl::set_simd_level(level)) continue;
        SCOPED_TRACE(wl::simd_name(level));
        for (size_t n : {size_t(1), size_t(7), size_t(255), size_t(256), size_t(1000)}) {
            wl::gpt::Rng a(42 + n), b(42 + n);
            std::vector<float> block(n);
            a.normals(block.data(), n, 0.02f);
            for (size_t i = 0; i < n; i++) ASSERT_EQ(float_bits(block[i]), float_bits(float(b.normal()) * 0.02f)) << "n " << n << ", i " << i;
            EXPECT_EQ(a.state, b.state);
        }
    }
    wl::set_simd_level(detected);
}
