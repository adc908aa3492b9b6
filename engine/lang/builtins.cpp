// builtins.cpp: name -> builtin. Vector builtins come from the isa table.
#include "engine/lang/builtins.h"

#include <string>

namespace wl::lang {

Builtin builtin_of(std::string_view n, Op* op) {
    struct Row { const char* name; Builtin b; };
    static const Row kRows[] = {
        {"send", Builtin::Send}, {"recv", Builtin::Recv}, {"recv_i32", Builtin::RecvI32},
        {"activate", Builtin::Activate}, {"block", Builtin::Block}, {"unblock", Builtin::Unblock},
        {"mem", Builtin::Mem}, {"fabin", Builtin::FabIn}, {"fabout", Builtin::FabOut},
        {"exp", Builtin::Exp}, {"sqrt", Builtin::Sqrt}, {"rsqrt", Builtin::Rsqrt}, {"tanh", Builtin::Tanh},
        {"abs", Builtin::Abs}, {"min", Builtin::Min}, {"max", Builtin::Max},
        {"bits", Builtin::Bits}, {"from_bits", Builtin::FromBits}, {"select", Builtin::Select},
    };
    for (const Row& r : kRows)
        if (n == r.name) return r.b;
    Op o;
    if (n.size() < 16 && op_from_mnemonic(std::string(n), &o) && op_is_vector(o)) {
        if (op) *op = o;
        return Builtin::Vector;
    }
    return Builtin::None;
}

const std::vector<BuiltinDoc>& scalar_builtin_docs() {
    static const std::vector<BuiltinDoc> kScalar = {
        {"send(c, v)", Op::SEND, "stalls while the ramp queue is full"},
        {"recv(c), recv_i32(c)", Op::RECV, "stalls until a wavelet is queued"},
        {"activate(t)", Op::ACTIVATE, ""},
        {"block(t)", Op::BLOCK, ""},
        {"unblock(t)", Op::UNBLOCK, ""},
        {"mem(a), mem(a, start, len[, stride])", Op::DMEM, "plus 2-4 `li`/`ishl`/`iaddi` for its operands"},
        {"fabin(c, n)", Op::DFABIN, "plus the `li` of n"},
        {"fabout(c, n)", Op::DFABOUT, "plus the `li` of n"},
        {"exp(x)", Op::FEXP, ""},
        {"sqrt(x)", Op::FSQRT, ""},
        {"rsqrt(x)", Op::FRSQRT, ""},
        {"tanh(x)", Op::FTANH, ""},
        {"abs(x)", Op::FABS, ""},
        {"min(a, b)", Op::FMIN, ""},
        {"max(a, b)", Op::FMAX, ""},
        {"f32(i)", Op::ITOF, ""},
        {"i32(f), u32(f)", Op::FTOI, "int to int is a `mov`"},
    };
    return kScalar;
}

const char* vector_builtin_args(Op op) {
    switch (op_info(op).fmt) {
    case Fmt::Vec1: return "(dst, src)";
    case Fmt::Vec2: return "(dst, a, b)";
    case Fmt::Vec1S: return "(dst, src, s: f32)";
    case Fmt::Vec2S: return "(dst, a, b, s: f32)";
    case Fmt::VecR: return "(src) -> f32";
    default: return "";
    }
}

std::string builtin_cost_markdown() {
    std::string md = "| builtin | opcode | cycles |\n|---|---|---|\n";
    for (const BuiltinDoc& r : scalar_builtin_docs()) {
        const OpInfo& o = op_info(r.op);
        md += std::string("| `") + r.call + "` | `" + o.mnemonic + "` | " + std::to_string(o.base_cycles) + (r.note[0] ? std::string("; ") + r.note : "") + " |\n";
    }
    md += "\nVector builtins (n elements, SIMD width simd = `MachineConfig::simd_fp32`, default 1; memory-only ops take this time, "
          "fabric ops also wait for wavelets and the ramp):\n\n| builtin | arguments | cycles |\n|---|---|---|\n";
    for (int k = 0; k < op_count(); ++k) {
        Op op = Op(k);
        if (!op_is_vector(op)) continue;
        const OpInfo& o = op_info(op);
        const char* args = vector_builtin_args(op);
        md += std::string("| `") + o.mnemonic + "` | `" + args + "` — " + o.doc + " | " + std::to_string(o.base_cycles) + " + ceil(" +
              std::to_string(o.per_elem) + "·n / simd) |\n";
    }
    return md;
}

}  // namespace wl::lang
