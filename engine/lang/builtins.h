// builtins.h: the builtin functions of WaferKernel. Vector builtins are the
// engine's vector opcodes, taken from the ONE instruction table (isa.h), so the
// language, the emulator, the disassembler and the docs cannot disagree.
#pragma once
#include "engine/fabric/isa.h"

#include <string>
#include <string_view>
#include <vector>

namespace wl::lang {

enum class Builtin : uint8_t {
    None,
    Send, Recv, RecvI32,                  // send(colour, v); recv(colour) -> f32; recv_i32(colour) -> i32
    Activate, Block, Unblock,             // activate(task)
    Mem, FabIn, FabOut,                   // DSD constructors
    Exp, Sqrt, Rsqrt, Tanh, Abs, Min, Max,// scalar maths (f32)
    CastF32, CastI32, CastU32,            // f32(x) i32(x) u32(x): numeric conversion
    Bits, FromBits,                       // bits(f) -> u32, from_bits(u) -> f32: reinterpret
    Select,                               // select(cond, a, b): compile-time choice (any type, e.g. colours)
    Vector,                               // a vector opcode (see vector_op)
};

// Looks a name up; for Builtin::Vector, *op is the opcode (fmacs, fadds, ...).
Builtin builtin_of(std::string_view name, Op* op = nullptr);

// The scalar builtins as documented: the call, the opcode it compiles to, a note.
struct BuiltinDoc {
    const char* call;   // "recv(c), recv_i32(c)"
    Op op;
    const char* note;   // "" or "stalls until a wavelet is queued"
};
const std::vector<BuiltinDoc>& scalar_builtin_docs();
// A vector opcode's arguments as a builtin: "(dst, a, b, s: f32)".
const char* vector_builtin_args(Op op);

// The builtins' table for docs/kernel-language.md: each builtin, the opcode it
// compiles to and its cycle cost, read from the isa table (a test keeps the doc current).
std::string builtin_cost_markdown();

}  // namespace wl::lang
