// zeroed_alloc_test.cpp: a block is all zeros, whether its memory is fresh or was used and freed
// (in WebAssembly only the part below the heap's break is cleared: this holds that split).
#include "engine/core/zeroed_alloc.h"

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
        std::free(p);
    }
    EXPECT_EQ(wl::zeroed_alloc(SIZE_MAX / 2, 4), nullptr);   // count * size overflows: refused, as calloc
}
