// pe_report.h: what the PE inspector shows about one PE, derived from engine
// state when asked — SRAM cells formatted and labelled with the program's
// symbols, the task table, the CE input queues, router buffers and routes,
// and the current instruction with its source line.
//
// No ImGui: the inspector window (pe_inspector.cpp), the "inspect" JSON method
// and the tests share it. Nothing here keeps a copy of the machine; every
// function reads it when called, so the view is never stale.
//
// Index of this file:
//   [SECTION] SRAM: cell formats, the symbol map, address labels
//   [SECTION] tasks
//   [SECTION] colours: routes, router buffers, CE queues
//   [SECTION] the thread: current instruction and source line
//   [SECTION] everything as JSON
#pragma once
#include "engine/fabric/machine.h"
#include "engine/fabric/pe_status.h"
#include "engine/lang/run.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace wlui {

// [SECTION] SRAM: cell formats, the symbol map, address labels

enum class CellFormat : uint8_t { F32, I32, U32, Hex };
const char* cell_format_name(CellFormat f);            // "f32", "i32", "u32", "hex"
std::string format_cell(uint32_t bits, CellFormat f);  // 0x3fc00000 -> "1.5" | "1069547520" | "0x3fc00000"
CellFormat natural_format(wl::ElemType t);             // how a symbol's own type reads

// A run of SRAM words: one symbol, or bytes no symbol names.
struct SramRegion {
    const wl::Symbol* symbol = nullptr;   // nullptr: unlabelled
    uint32_t offset = 0;                  // bytes, 4-aligned
    uint32_t words = 0;
};
// All of [0, sram_bytes) in address order: symbols, the gaps between them and the free tail.
std::vector<SramRegion> sram_map(const wl::Program* p, uint32_t sram_bytes);
// The symbol element at byte `addr`: "y", "A[5]", or "" when no symbol covers it.
std::string label_address(const wl::Program* p, uint32_t addr);

// [SECTION] tasks

using wl::TaskState;                        // the engine's words for a task (engine/fabric/pe_status.h)
using wl::task_state_name;
const char* task_kind_name(wl::TaskKind k); // "data", "local", "control"

struct TaskRow {
    int id = 0;
    wl::TaskKind kind = wl::TaskKind::Local;
    int colour = -1;        // data/control: the colour that triggers it
    std::string name;       // the function it runs
    TaskState state = TaskState::Idle;
    int queued = 0;         // data/control: wavelets waiting at the CE on its colour
};
// The loaded program's task bindings at PE (x, y), by id; empty without a program.
std::vector<TaskRow> task_table(const wl::Machine& m, int x, int y);

// [SECTION] colours: routes, router buffers, CE queues

struct ColourRow {
    int colour = 0;
    int npos = 0, cur = 0;                         // switch positions (0 = no route) and the current one
    wl::SwitchPos pos[wl::kMaxSwitchPositions];    // rx -> tx port masks per position
    int buffered[wl::kPorts] = {};                 // wavelets in the router's input queue per port
    std::vector<uint32_t> ce;                      // the CE input queue, head first
    uint64_t forwarded = 0;                        // wavelets the router forwarded on this colour
};
// Colours in use at PE (x, y): routed, holding a wavelet, or with traffic so far.
std::vector<ColourRow> colour_table(const wl::Machine& m, int x, int y);

// [SECTION] the thread: current instruction and source line

struct ThreadView {
    std::string state;                 // "idle", "running main (task 2)", "stalled in f: waits for ...", "stopped: out_of_bounds: ..."
    bool faulted = false;              // the machine's fault is on this PE: `state` says what it was
    bool has_pc = false;               // false while idle: the last pc means nothing
    uint32_t pc = 0;
    std::string disasm;                // Program::disassemble(pc)
    wl::SrcLoc loc;
    std::string where;                 // Program::where(pc): "file:line:col"
    std::string line;                  // that line's text from `source`, "" when unknown
    std::vector<std::string> microthreads;   // one line per busy microthread
};
ThreadView thread_view(const wl::Machine& m, int x, int y, std::string_view source);

// "mem y[0..4)", "fabin colour 1", "fabout colour 2".
std::string describe_dsd(const wl::Dsd& d, const wl::Program* p);
// Line `line` (1-based) of `source` without its newline; "" outside.
std::string_view source_line(std::string_view source, int line);

// [SECTION] everything as JSON

// What the inspector shows for PE (x, y): symbols with their values, tasks, colours
// (routes, buffers, queues), the thread and its instruction, counters. `source` is the
// compiled kernel's text (for the line), or "". Throws std::invalid_argument outside the mesh.
nlohmann::json pe_json(const wl::lang::KernelRun& run, int x, int y, std::string_view source);

}  // namespace wlui
