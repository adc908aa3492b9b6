// program.h: the compute-engine program format — what the builder and the
// kernel compiler (engine/lang) emit, what the host loads onto a rectangle of PEs.
//
// A Program is code (Instr + a parallel SrcLoc per instruction), functions
// (entry pc, register count, exported or not), a symbol table (name -> SRAM
// byte offset, element type, length), task bindings and initial SRAM data.
// It is immutable once loaded; every PE of a rectangle shares one copy, and PEs whose
// programs differ only in `place ... with` values share one too (their values are per-PE
// constants that `ldp` reads: engine/lang/shared_images.h).
#pragma once
#include "engine/fabric/dot_loop.h"
#include "engine/fabric/fmacs_loop.h"
#include "engine/fabric/isa.h"
#include "engine/fabric/map_nest.h"
#include "engine/fabric/wafer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wl {

constexpr int kMaxTasks = 32;         // task ids 0..31; data task id = its colour by convention
constexpr int kRegs = 64;             // register file per PE, shared by stacked frames
constexpr int kMaxFrameRegs = 32;     // one function's registers
constexpr int kMaxDepth = 8;          // call depth per PE
constexpr int kDsdRegs = 8;           // d0..d7
constexpr uint8_t kNoReg = 255;
constexpr int kPeConsts = 16;         // per-PE constants an image may read with ldp (Core::konst)

struct SrcLoc {
    int32_t file = -1;                // index into Program::files; -1 = unknown
    int32_t line = 0, col = 0;
};

struct Instr {
    Op op = Op::NOP;
    uint8_t a = 0, b = 0, c = 0, d = 0, e = 0;
    uint16_t pad = 0;
    int32_t imm = 0;
};
static_assert(sizeof(Instr) == 12, "keep instructions compact");

// The frame registers (a bit each, r0..r63) an instruction reads or writes, from WL_ISA's columns;
// a call's arguments count as every register.
constexpr uint64_t instr_regs(const Instr& in, uint8_t fields) {
    if (fields & op_regs::Args) return ~uint64_t(0);
    const auto r = [](uint8_t k) { return uint64_t(1) << (k & 63); };
    return (fields & op_regs::A ? r(in.a) : 0) | (fields & op_regs::B ? r(in.b) : 0) | (fields & op_regs::C ? r(in.c) : 0) |
           (fields & op_regs::D ? r(in.d) : 0);
}
constexpr uint64_t regs_read(const Instr& in) { return instr_regs(in, op_reads(in.op)); }
constexpr uint64_t regs_written(const Instr& in) { return instr_regs(in, op_writes(in.op)); }

struct Function {
    std::string name;
    uint32_t entry = 0, end = 0;      // code range [entry, end)
    uint8_t nregs = 1;                // registers r0..nregs-1
    uint8_t nparams = 0;              // arguments arrive in r0..
    bool exported = false;            // callable by Host::launch
};

enum class ElemType : uint8_t { F32, I32, U32 };

struct Symbol {
    std::string name;
    uint32_t offset = 0;              // SRAM byte offset (4-aligned)
    ElemType type = ElemType::F32;
    uint32_t length = 1;              // elements (4 bytes each)
    bool exported = true;             // host memcpy allowed
};

enum class TaskKind : uint8_t { Data, Local, Control };

struct TaskBinding {
    uint8_t id = 0;                   // 0..kMaxTasks-1
    TaskKind kind = TaskKind::Local;
    int8_t colour = -1;               // Data/Control: the colour that triggers it
    uint16_t function = 0;            // runs with the wavelet payload in r0 (data/control)
    bool blocked = false;             // initial state
};

struct InitData {
    uint32_t offset = 0;
    int32_t konst = -1;               // >= 0: one word, the PE's constant of this slot (a shared image's
                                      // per-PE initial value, shared_images.h), in place of words[0]
    std::vector<uint32_t> words;
};

struct Program {
    std::string name;
    std::vector<std::string> files;
    std::vector<Instr> code;
    std::vector<SrcLoc> locs;         // locs[pc] for code[pc]
    std::vector<Function> functions;
    std::vector<Symbol> symbols;
    std::vector<TaskBinding> tasks;
    std::vector<InitData> init;
    uint32_t sram_used = 0;           // bytes the symbols need
    uint8_t nconsts = 0;              // per-PE constants its ldp instructions read: Machine::load takes this many values

    const Symbol* symbol(const std::string& n) const;
    int function_index(const std::string& n) const;   // -1 if absent
    std::string where(uint32_t pc) const;             // "file:line:col"
    std::string disassemble() const;                  // one line per instruction
    std::string disassemble(uint32_t pc) const;
};

// What the machine precomputes per loaded program (checked once, shared).
struct LoadedProgram {
    std::shared_ptr<const Program> prog;
    int8_t task_of_colour[kColours];  // data task per colour, -1 none
    int8_t ctrl_task_of_colour[kColours];
    uint32_t consumed_colours = 0;    // colours a data/control task or a recv/fabin may read
    FmacsLoops fmacs_loops;           // fmacs_loop.h: fast mode's macro-op
    DotLoops dot_loops;               // dot_loop.h: fast mode's macro-op for a GEMV's rows
    MapNests map_nests;               // map_nest.h: fast mode's macro-op for a loop around an fmacs map
};

// The validator Machine::load runs (program.cpp): every operand, task binding, symbol and initial
// datum checked against the program's own tables and an SRAM of sram_bytes. "" when sound, else
// why (*bad_pc: the instruction at fault, or -1).
std::string validate_program(const Program& p, uint32_t sram_bytes, int32_t* bad_pc);

}  // namespace wl
