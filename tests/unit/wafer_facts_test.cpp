// wafer_facts_test.cpp: the wafer's facts have one definition (engine/fabric/wafer.h), and every
// part that uses one reads it there: the emulator's defaults, the GPU comparison's wafers, the
// streaming edge links and SwarmX. tests/check_wafer_facts.cmake refuses the figures typed elsewhere.
#include "engine/fabric/host.h"
#include "engine/fabric/machine.h"
#include "engine/fabric/program_builder.h"
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

// [SECTION] machine profiles (wafer.h): what differs by generation, one table.

TEST(MachineProfiles, TheDefaultIsTheEmulatorsDefaultMachine) {
    const MachineProfile& d = default_profile();
    EXPECT_STREQ(d.id, "default");
    const MachineConfig mc = machine_config(d), plain;
    EXPECT_EQ(mc.sram_bytes, plain.sram_bytes);   // so no lesson's or golden cycle count moves
    EXPECT_EQ(mc.simd_fp32, plain.simd_fp32);
    EXPECT_EQ(machine_config(d, Lanes::Fp16).simd_fp32, plain.simd_fp32);   // one element of any type a cycle
    EXPECT_EQ(d.clock_hz, kClockHz);
    EXPECT_EQ(d.sram_bytes_per_pe, kSramBytesPerPe);
}

TEST(MachineProfiles, EachGenerationHasItsLanesAndEveryNumberASource) {
    ASSERT_NE(find_machine_profile("wse2"), nullptr);
    ASSERT_NE(find_machine_profile("wse3"), nullptr);
    EXPECT_EQ(find_machine_profile("wse9"), nullptr);
    EXPECT_EQ(find_machine_profile("wse2")->simd_fp16, 4);   // The Next Platform, 14 March 2024
    EXPECT_EQ(find_machine_profile("wse3")->simd_fp16, 8);
    EXPECT_EQ(machine_config(*find_machine_profile("wse3"), Lanes::Fp16).simd_fp32, 8);
    EXPECT_EQ(machine_config(*find_machine_profile("wse3"), Lanes::Fp32).simd_fp32, 1);
    EXPECT_STREQ(machine_profile_choices(), "default|wse2|wse3");
    EXPECT_EQ(machine_profile_list(), "default, wse2 or wse3");
    for (const MachineProfile& p : machine_profiles()) {
        const std::vector<Sourced> s = machine_profile_sources(p);
        ASSERT_EQ(s.size(), 4u) << p.id;   // clock, SRAM, fp32 lanes, fp16 lanes
        for (const Sourced& x : s) {
            EXPECT_FALSE(x.source.empty()) << p.id << ": " << x.what;
            EXPECT_EQ(x.source.find("BRIEF"), std::string::npos) << p.id << ": " << x.what << ": cite the original source";
        }
    }
    Lanes l;
    EXPECT_TRUE(lanes_from_name("fp16", &l));
    EXPECT_EQ(l, Lanes::Fp16);
    EXPECT_FALSE(lanes_from_name("fp8", &l));
}

// The mesh GPT builds its machine from the plan (mesh and SRAM, which wafer.arch sets) with the
// default's lanes, and its times print at kClockHz: right while every profile has one fp32 lane
// and that clock. A profile that differs must be passed to MeshGPT (engine/model/mesh_gpt.cpp) and
// the CLI's seconds first; this fails until it is.
TEST(MachineProfiles, TheMeshGptsMachineHoldsForEveryProfile) {
    for (const MachineProfile& p : machine_profiles()) {
        EXPECT_EQ(p.simd_fp32, MachineConfig{}.simd_fp32) << p.id;
        EXPECT_EQ(p.clock_hz, kClockHz) << p.id;
    }
}

// A memory vector op on n elements costs base + ceil(n * per_elem / lanes): fp16 lanes time the
// same op at their width (the cost depends on elements a cycle, not on their bits).
TEST(MachineProfiles, Fp16LanesTimeTheSameOpAtTheirWidth) {
    auto cycles = [](const MachineConfig& mc, int n) {
        ProgramBuilder b("v");
        const uint32_t x = b.array("x", uint32_t(n));
        b.func("main", 4, 0, true).li(0, int32_t(x)).li(1, n).dmem(0, 0, 1).li(2, 0x3f800000).vec(Op::FMACS, 0, 0, 0, 2).ret();
        MachineConfig c = mc;
        c.w = c.h = 1;
        Host h(c);
        EXPECT_FALSE(h.load(b.finish(), {0, 0, 1, 1}));
        EXPECT_FALSE(h.launch({0, 0, 1, 1}, "main"));
        const RunResult r = h.run_until_quiescent(100000);
        EXPECT_TRUE(r.ok());
        return r.cycles;
    };
    const MachineProfile& wse3 = *find_machine_profile("wse3");
    const uint64_t one = cycles(machine_config(wse3, Lanes::Fp32), 64), eight = cycles(machine_config(wse3, Lanes::Fp16), 64);
    EXPECT_EQ(one - eight, 64u - 64u / 8);   // 64 elements: 64 cycles at one lane, 8 at eight
}

}  // namespace
}  // namespace wl
