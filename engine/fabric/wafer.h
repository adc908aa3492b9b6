// wafer.h: the wafer the emulator models, as its makers published it: one definition of each
// fact, with its source (docs/engine.md, "The hardware"). The emulator's defaults
// (MachineConfig), the planner's edge links, SwarmX, the GPU comparison's wafers and the app's
// help, glossary and tooltips read them here.
//
//   wl::kSramBytesPerPe                 // 48 KiB, every PE
//   wl::wse2_facts().grid_w             // 757
//   wl::wafer_facts_sources(wse3_facts())   // {what, value, source} rows for a table
//   wl::find_machine_profile("wse3")->simd_fp16   // 8: a machine profile, what differs by generation
#pragma once
#include "engine/core/sourced.h"

#include <cstdint>
#include <string>
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
// The largest fabric a machine profile has: the WSE-3's user grid, 762 x 1176 PEs (the SDK's GEMV
// tutorial: wafer.cpp). A kernel's grid may be a whole wafer's (kMaxGridSide, mesh.h).
inline constexpr int kWse3GridW = 762, kWse3GridH = 1176;
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

// [SECTION] machine profiles
// What differs between wafer generations as the emulator runs them: the clock, SRAM per PE and
// the SIMD lanes of vector ops on 32-bit and on 16-bit floats (docs/fidelity.md, "Machine
// profiles", gives each number's source and says which could not be found). One table,
// machine_profiles(); machine_config() (machine.h) makes a MachineConfig of one. "default" is
// WaferLab's own teaching machine, exactly MachineConfig{}: one element of any type a cycle.
// Chosen by `--arch NAME` and the config key `wafer.arch`.
enum class Lanes : uint8_t { Fp32, Fp16 };   // which lane count a kernel's vector ops run at
const char* lanes_name(Lanes l);             // "fp32", "fp16"
bool lanes_from_name(const std::string& s, Lanes* out);

struct MachineProfile {
    const char* id;              // "default", "wse2", "wse3": --arch, wafer.arch
    const char* name;            // "Cerebras WSE-3"
    double clock_hz;             // the clock its cycles are converted to seconds at
    uint32_t sram_bytes_per_pe;
    int simd_fp32;               // fp32 elements a vector op with memory operands does a cycle
    int simd_fp16;               // fp16 elements a cycle (the SIMD width of the 16-bit ops)
    int lanes(Lanes l) const { return l == Lanes::Fp16 ? simd_fp16 : simd_fp32; }
};

const std::vector<MachineProfile>& machine_profiles();   // default, wse2, wse3
const MachineProfile& default_profile();                 // machine_profiles()[0]
const MachineProfile* find_machine_profile(const std::string& id);   // nullptr: no such profile
const char* machine_profile_choices();                   // "default|wse2|wse3" (the CLI's choices)
std::string machine_profile_list();                      // "default, wse2 or wse3" (errors)
// Each of p's numbers with its source, for the docs' table (docs/fidelity.md) and `info`.
std::vector<Sourced> machine_profile_sources(const MachineProfile& p);

}  // namespace wl
