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
const char* kIo = "Argonne ALCF SC24 tutorial (github.com/argonne-lcf/AIaccelerators-SC24-tutorial, Cerebras/README.MD): "
                  "each CS system \"provides 1.2 Tbps I/O to and from the chip\"; taken as 150 GB/s each way";

}  // namespace

const WaferFacts& wse2_facts() {
    static const WaferFacts w{"wse2", "Cerebras WSE-2", 757, 996, 850e3, 40e9, 150e9};
    return w;
}

const WaferFacts& wse3_facts() {
    static const WaferFacts w{"wse3", "Cerebras WSE-3", 762, 1176, 900e3, 44e9, 150e9};
    return w;
}

Sourced clock_source() { return {"clock", "1.1 GHz", kHotChips}; }

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
