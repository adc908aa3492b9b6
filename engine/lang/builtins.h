// builtins.h: the builtin functions of WaferKernel, in ONE table (WL_BUILTINS)
// that the lexer, the checker (sema), code generation and the docs all read.
// Vector builtins are the engine's vector opcodes, taken from the instruction
// table (isa.h), so the language, the emulator, the disassembler and the docs
// cannot disagree.
#pragma once
#include "engine/fabric/isa.h"
#include "engine/lang/types.h"

#include <string>
#include <string_view>

namespace wl::lang {

// The argument signature of a builtin: what sema checks, and how codegen reads the arguments.
enum class Sig : uint8_t {
    ColourValue,   // (colour, f32 | i32 | u32)
    Colour,        // (colour)
    Task,          // (task): a local or data task of this program
    Array,         // (array) or (array, start: i32, len: i32[, stride: constant i32])
    ColourLen,     // (colour, length: i32)
    F32,           // (f32)
    F32F32,        // (f32, f32)
    Int,           // (u32 or i32)
    Select,        // (bool, T, T), all constants: chosen at compile time
};

// X(Name, "name", Sig, result Ty, opcode (NOP: no instruction, the bits pass through
//   or the value is a constant), "call as the docs show it", "cost note for the docs")
// clang-format off
#define WL_BUILTINS(X) \
    X(Send,     "send",      ColourValue, Void,  SEND,     "send(c, v)",         "stalls while the ramp queue is full") \
    X(Recv,     "recv",      Colour,      F32,   RECV,     "recv(c)",            "stalls until a wavelet is queued") \
    X(RecvI32,  "recv_i32",  Colour,      I32,   RECV,     "recv_i32(c)",        "stalls until a wavelet is queued") \
    X(Activate, "activate",  Task,        Void,  ACTIVATE, "activate(t)",        "") \
    X(Block,    "block",     Task,        Void,  BLOCK,    "block(t)",           "") \
    X(Unblock,  "unblock",   Task,        Void,  UNBLOCK,  "unblock(t)",         "") \
    X(Mem,      "mem",       Array,       Dsd,   DMEM,     "mem(a), mem(a, start, len[, stride])", "plus 2-4 `li`/`ishl`/`iaddi` for its operands") \
    X(FabIn,    "fabin",     ColourLen,   Dsd,   DFABIN,   "fabin(c, n)",        "plus the `li` of n") \
    X(FabOut,   "fabout",    ColourLen,   Dsd,   DFABOUT,  "fabout(c, n)",       "plus the `li` of n") \
    X(Exp,      "exp",       F32,         F32,   FEXP,     "exp(x)",             "") \
    X(Sqrt,     "sqrt",      F32,         F32,   FSQRT,    "sqrt(x)",            "") \
    X(Rsqrt,    "rsqrt",     F32,         F32,   FRSQRT,   "rsqrt(x)",           "") \
    X(Tanh,     "tanh",      F32,         F32,   FTANH,    "tanh(x)",            "") \
    X(Log,      "log",       F32,         F32,   FLOG,     "log(x)",             "natural log") \
    X(Abs,      "abs",       F32,         F32,   FABS,     "abs(x)",             "") \
    X(Min,      "min",       F32F32,      F32,   FMIN,     "min(a, b)",          "") \
    X(Max,      "max",       F32F32,      F32,   FMAX,     "max(a, b)",          "") \
    X(Bits,     "bits",      F32,         U32,   NOP,      "bits(f)",            "no instruction: the same 32 bits, read as u32") \
    X(FromBits, "from_bits", Int,         F32,   NOP,      "from_bits(u)",       "no instruction: the same 32 bits, read as f32") \
    X(Select,   "select",    Select,      Error, NOP,      "select(cond, a, b)", "no instruction: chosen at compile time (any type, e.g. colours)")
// clang-format on

enum class Builtin : uint8_t {
    None,                              // not a builtin
#define WL_X(name, str, sig, result, op, call, note) name,
    WL_BUILTINS(WL_X)
#undef WL_X
    Vector,                            // a vector opcode of the isa table (see Expr::vop)
};

struct BuiltinInfo {
    const char* name;                  // as written in a kernel
    Sig sig;
    Ty result;                         // Error: the type of the chosen value (select)
    Op op;                             // the instruction it compiles to; NOP = none
    const char* call;                  // for the docs
    const char* note;                  // for the docs
};

// Looks a name up; for Builtin::Vector, *op is the opcode (fmacs, fadds, ...).
Builtin builtin_of(std::string_view name, Op* op = nullptr);

// The table row of a builtin other than None and Vector.
const BuiltinInfo& builtin_info(Builtin b);

// The arguments of a vector builtin, from its opcode's format: DSDs first (the
// destination, unless the op returns a value), then an f32 scalar for the *S forms.
struct VectorArgs {
    int dsds = 0;                      // DSD arguments, the destination included
    bool has_dst = true;               // false: the op returns an f32 (fsums)
    bool scalar = false;               // a trailing f32 argument
    const char* doc = "";              // "(dst, a, b, s: f32)"
};
VectorArgs vector_args(Fmt f);

// True when the builtin sends on its colour argument (send, fabout); else it reads it.
bool builtin_sends(Builtin b);

// The names of the scalar builtins, space-separated, in table order (docs/kernel-language.md lists them).
std::string builtin_names();

// The builtins' table for docs/kernel-language.md: each builtin, the opcode it
// compiles to and its cycle cost, read from the isa table (a test keeps the doc current).
std::string builtin_cost_markdown();

}  // namespace wl::lang
