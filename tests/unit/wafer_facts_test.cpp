// wafer_facts_test.cpp: the wafer's facts have one definition (engine/fabric/wafer.h), and every
// part that uses one reads it there: the emulator's defaults, the GPU comparison's wafers, the
// streaming edge links and SwarmX. tests/check_wafer_facts.cmake refuses the figures typed elsewhere.
#include "engine/fabric/machine.h"
#include "engine/fabric/wafer.h"
#include "engine/gpu/compare.h"
#include "engine/gpu/wafer_estimate.h"
#include "engine/model/swarmx.h"
#include "engine/model/weight_stream.h"

#include <gtest/gtest.h>

namespace wl {
namespace {

TEST(WaferFacts, TheEmulatorsDefaultsAreThePEs) {
    EXPECT_EQ(MachineConfig{}.sram_bytes, kSramBytesPerPe);
    EXPECT_EQ(kSramBytesPerPe, 48u * 1024);   // 8 banks of 6 KiB (the SDK)
    EXPECT_EQ(kColours, 24);
    EXPECT_EQ(gpu::WaferSpec{}.clock_hz, kClockHz);
    EXPECT_EQ(gpu::CompareOptions{}.clock_hz, kClockHz);
    EXPECT_EQ(gpu::emulated_wafer().sram_bytes_per_pe, kSramBytesPerPe);
}

TEST(WaferFacts, ThePublishedWafersAreTheirFacts) {
    for (const auto& [spec, facts] : {std::pair{gpu::wse2(), &wse2_facts()}, std::pair{gpu::wse3(), &wse3_facts()}}) {
        EXPECT_EQ(spec.id, facts->id);
        EXPECT_EQ(spec.w, facts->grid_w);
        EXPECT_EQ(spec.h, facts->grid_h);
        EXPECT_EQ(spec.clock_hz, kClockHz);
        EXPECT_EQ(spec.sram_bytes_per_pe, kSramBytesPerPe);
        EXPECT_EQ(spec.io_bytes_per_s, facts->io_bytes_per_s);
        ASSERT_FALSE(spec.sources.empty());
        for (const Sourced& s : spec.sources) {
            EXPECT_FALSE(s.source.empty()) << s.what;
            EXPECT_EQ(s.source.find("BRIEF"), std::string::npos) << s.what << ": cite the original source";
        }
    }
    EXPECT_EQ(wse2_facts().grid_w, 757);
    EXPECT_EQ(wse3_facts().grid_h, 1176);
}

TEST(WaferFacts, StreamingAndSwarmXUseTheSystemsIO) {
    const WaferFacts& w = wse2_facts();
    EXPECT_DOUBLE_EQ(model::EdgeLink::wse2().bytes_per_cycle, w.io_bytes_per_s / (2.0 * (w.grid_w + w.grid_h)) / kClockHz);
    const model::SwarmXLinks l = model::cs_links();
    EXPECT_EQ(l.bytes_per_s, w.io_bytes_per_s);
    EXPECT_EQ(l.clock_hz, kClockHz);
}

}  // namespace
}  // namespace wl
