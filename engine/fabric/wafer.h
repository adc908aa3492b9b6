// wafer.h: the wafer the emulator models, as its makers published it: one definition of each
// fact, with its source (docs/engine.md, "The hardware"). The emulator's defaults
// (MachineConfig), the planner's edge links, SwarmX, the GPU comparison's wafers and the app's
// help, glossary and tooltips read them here.
//
//   wl::kSramBytesPerPe                 // 48 KiB, every PE
//   wl::wse2_facts().grid_w             // 757
//   wl::wafer_facts_sources(wse3_facts())   // {what, value, source} rows for a table
#pragma once
#include "engine/core/sourced.h"

#include <cstdint>
#include <vector>

namespace wl {

// A PE (Cerebras SDK documentation, sdk.cerebras.net: the CSL language guide and its appendix
// on the PE's memory; "Task IDs" for the colours). The same on the WSE-2 and the WSE-3.
inline constexpr uint32_t kSramBytesPerPe = 48 * 1024;   // 8 banks of 6 KiB
inline constexpr int kSramBytesPerCycle = 12;            // 2 x 32-bit reads + 1 x 32-bit write a cycle
inline constexpr int kColours = 24;                      // routable colours (virtual channels) 0..23
// The clock every wafer time in the product is converted at: 1.1 GHz (Sean Lie, "Cerebras
// Architecture Deep Dive", Hot Chips 34, 2022). The SDK's examples convert cycles at 0.85 GHz.
inline constexpr double kClockHz = 1.1e9;
// The emulated PE's own choices, not published figures (docs/engine.md).
inline constexpr int kMicrothreads = 4;                  // async DSD ops in flight per PE

struct WaferFacts {
    const char* id;              // "wse2", "wse3"
    const char* name;            // "Cerebras WSE-2"
    int grid_w, grid_h;          // the user grid of PEs (the SDK's fabric)
    double cores;                // PEs on the wafer, as announced
    double sram_bytes;           // the wafer's SRAM, as announced
    double io_bytes_per_s;       // the system's I/O each way: weight streaming (MemoryX), SwarmX
};

const WaferFacts& wse2_facts();
const WaferFacts& wse3_facts();
// Every fact of w and of the PE with its source, for the docs' and the app's tables.
std::vector<Sourced> wafer_facts_sources(const WaferFacts& w);
Sourced clock_source();   // kClockHz's row of it

}  // namespace wl
