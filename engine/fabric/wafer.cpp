// wafer.cpp: see wafer.h. The sources, cited once.
#include "engine/fabric/wafer.h"

#include <cstdio>
#include <string>

namespace wl {

namespace {

const char* kSdk = "Cerebras SDK documentation (sdk.cerebras.net): the CSL language guide's PE memory, the Task IDs page";
const char* kHotChips = "Sean Lie, \"Cerebras Architecture Deep Dive\", Hot Chips 34 (2022); the SDK's examples use 0.85 GHz";
// The grids: the SDK's GEMV tutorial (github.com/Cerebras/csl-examples, tutorials/gemv-01-complete-program):
// "Most CS-2s will have a fabric dimension of 757 x 996"; "the CS-3, which has a fabric dimension of 762 x 1176".
const char* kWse2 = "Cerebras, \"Cerebras Systems Smashes the 2.5 Trillion Transistor Mark with New Second Generation "
                    "Wafer Scale Engine\" (press release, 20 April 2021); the grid: the SDK's GEMV tutorial (csl-examples)";
const char* kWse3 = "Cerebras, \"Cerebras Systems Unveils World's Fastest AI Chip with Whopping 4 Trillion Transistors\" "
                    "(press release, 13 March 2024); the grid: the SDK's GEMV tutorial (csl-examples)";
// The machine profiles' sources (docs/fidelity.md, "Machine profiles").
const char* kNextPlatform = "The Next Platform, \"Cerebras Goes Hyperscale With Third Gen Waferscale Supercomputers\" (14 March 2024): "
                            "\"the WSE-3 has an eight-wide FP16 SIMD math unit, up from a four-wide SIMD engine used in the WSE-1 and "
                            "WSE-2 compute engines\"";
const char* kWse2Clock = "Sean Lie, \"Cerebras Architecture Deep Dive\", Hot Chips 34 (2022), on the WSE-2; WaferLLM's WSE-2 "
                         "launch_device.py (github.com/MeshInfra/WaferLLM) converts at freq_ghz = 1.1; the SDK's examples "
                         "convert simfabric cycles at 0.85 GHz";
const char* kWse3Clock = "not published: The Next Platform (14 March 2024) says Cerebras does not tell; WaferLLM's launch_wse3.py "
                         "(github.com/MeshInfra/WaferLLM, github.com/FxPiGaAo/WaferLLM) converts WSE-3 hardware cycles at freq_ghz = 1.1";
const char* kFp32One = "the SDK's memory ports (2 x 32-bit reads + 1 x 32-bit write a cycle) feed one fp32 multiply-add a cycle";
const char* kWse2Fp32 = "no published figure found; one a cycle is what csl-examples' single-tile matvec takes on WSE-2 simfabric "
                        "(docs/fidelity.md, figure 1: N fmacs of pad(N) elements cost about N (1 + pad(N)) cycles)";
const char* kWse3Fp32 = "no published figure found; taken as the WSE-2's (Cerebras announced only the fp16 width as doubled)";
const char* kOwnFp16 = "WaferLab's own: one element of any type a cycle (the default machine has no 16-bit ops)";
const char* kIo = "Argonne ALCF SC24 tutorial (github.com/argonne-lcf/AIaccelerators-SC24-tutorial, Cerebras/README.MD): "
                  "each CS system \"provides 1.2 Tbps I/O to and from the chip\"; taken as 150 GB/s each way";

}  // namespace

const WaferFacts& wse2_facts() {
    static const WaferFacts w{"wse2", "Cerebras WSE-2", 757, 996, 850e3, 40e9, 150e9};
    return w;
}

const WaferFacts& wse3_facts() {
    static const WaferFacts w{"wse3", "Cerebras WSE-3", kWse3GridW, kWse3GridH, 900e3, 44e9, 150e9};
    return w;
}

Sourced clock_source() { return {"clock", "1.1 GHz", kHotChips}; }

// [SECTION] machine profiles

const char* lanes_name(Lanes l) { return l == Lanes::Fp16 ? "fp16" : "fp32"; }

bool lanes_from_name(const std::string& s, Lanes* out) {
    if (s == "fp32") *out = Lanes::Fp32;
    else if (s == "fp16") *out = Lanes::Fp16;
    else return false;
    return true;
}

const std::vector<MachineProfile>& machine_profiles() {
    // id, name, clock, SRAM per PE, fp32 lanes, fp16 lanes. "default" must stay MachineConfig{}'s (a test holds it).
    static const std::vector<MachineProfile> p = {
        {"default", "WaferLab's default machine", kClockHz, kSramBytesPerPe, 1, 1},
        {"wse2", "Cerebras WSE-2", kClockHz, kSramBytesPerPe, 1, 4},
        {"wse3", "Cerebras WSE-3", kClockHz, kSramBytesPerPe, 1, 8},
    };
    return p;
}

const MachineProfile& default_profile() { return machine_profiles()[0]; }

const MachineProfile* find_machine_profile(const std::string& id) {
    for (const MachineProfile& p : machine_profiles())
        if (id == p.id) return &p;
    return nullptr;
}

const char* machine_profile_choices() {
    static const std::string s = [] {
        std::string c;
        for (const MachineProfile& p : machine_profiles()) c += (c.empty() ? "" : "|") + std::string(p.id);
        return c;
    }();
    return s.c_str();
}

std::string machine_profile_list() {
    const auto& ps = machine_profiles();
    std::string s;
    for (size_t i = 0; i < ps.size(); i++) s += std::string(i == 0 ? "" : i + 1 == ps.size() ? " or " : ", ") + ps[i].id;
    return s;
}

std::vector<Sourced> machine_profile_sources(const MachineProfile& p) {
    const std::string id = p.id;
    const bool own = id == "default", wse2 = id == "wse2";
    char clock[32];
    std::snprintf(clock, sizeof clock, "%.2f GHz", p.clock_hz / 1e9);
    return {{"clock", clock, own ? kHotChips : wse2 ? kWse2Clock : kWse3Clock},
            {"SRAM per PE", std::to_string(p.sram_bytes_per_pe / 1024) + " KiB", kSdk},
            {"fp32 lanes", std::to_string(p.simd_fp32), own ? kFp32One : wse2 ? kWse2Fp32 : kWse3Fp32},
            {"fp16 lanes", std::to_string(p.simd_fp16), own ? kOwnFp16 : kNextPlatform}};
}

std::vector<Sourced> wafer_facts_sources(const WaferFacts& w) {
    char grid[96], sram[96];
    std::snprintf(grid, sizeof grid, "%d x %d user grid (%.0f,000 cores on the wafer)", w.grid_w, w.grid_h, w.cores / 1e3);
    std::snprintf(sram, sizeof sram, "%u KiB per PE (%.0f GB on the wafer)", kSramBytesPerPe / 1024, w.sram_bytes / 1e9);
    return {{"grid", grid, w.id == std::string("wse2") ? kWse2 : kWse3},
            {"SRAM", sram, kSdk},
            {"SRAM bandwidth", std::to_string(kSramBytesPerCycle) + " bytes per PE per cycle (2 reads + 1 write of 32 bits)", kSdk},
            {"colours", std::to_string(kColours) + " routable colours per router", kSdk},
            clock_source(),
            {"I/O for weight streaming", "150 GB/s (1.2 Tb/s) each way", kIo}};
}

}  // namespace wl
