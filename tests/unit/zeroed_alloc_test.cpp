// zeroed_alloc_test.cpp: a block is all zeros, whether its memory is fresh or was used and freed
// (in WebAssembly only the part below the heap's break is cleared: this holds that split).
#include "engine/core/zeroed_alloc.h"
#include "engine/fabric/wafer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {
bool all_zero(const void* p, size_t n) {
    const unsigned char* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i)
        if (b[i]) return false;
    return true;
}
}  // namespace

TEST(ZeroedAlloc, FreshReusedAndStraddlingBlocksAreZero) {
    constexpr size_t kBig = 3u << 20;
    for (int round = 0; round < 3; ++round) {
        void* dirty = std::malloc(kBig);   // written, then freed: the next block may reuse it,
        ASSERT_NE(dirty, nullptr);         // and grow past it into fresh memory
        std::memset(dirty, 0xA5, kBig);
        std::free(dirty);
        const size_t n = kBig + (size_t(round) << 20);
        void* p = wl::zeroed_alloc(n / 4, 4);
        ASSERT_NE(p, nullptr);
        EXPECT_TRUE(all_zero(p, n)) << "round " << round;
        std::memset(p, 0x5A, n);
        wl::zeroed_free(p, n / 4, 4);
    }
    EXPECT_EQ(wl::zeroed_alloc(SIZE_MAX / 2, 4), nullptr);   // count * size overflows: refused, as calloc
}

// A whole WSE-2's SRAM (757 x 996 PEs of 48 KiB, 37 GB) is more than this machine has, yet natively
// it is asked for up front and costs only the pages touched (docs/scale.md).
TEST(ZeroedAlloc, AWholeWafersSramCostsOnlyWhatIsTouched) {
#ifdef __EMSCRIPTEN__
    GTEST_SKIP() << "a 32-bit heap holds 4 GiB at most";
#else
    const size_t pes = size_t(wl::wse2_facts().grid_w) * size_t(wl::wse2_facts().grid_h), per_pe = wl::kSramBytesPerPe;
    auto* p = static_cast<unsigned char*>(wl::zeroed_alloc(pes, per_pe));
    ASSERT_NE(p, nullptr);
    for (size_t pe = 0; pe < pes; pe += 997) p[pe * per_pe + 7] = 1;   // a page here and there
    EXPECT_EQ(p[(pes - 1) * per_pe], 0);
    EXPECT_EQ(p[997 * per_pe + 7], 1);
    wl::zeroed_free(p, pes, per_pe);
#endif
}
