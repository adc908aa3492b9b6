// builtins.cpp: the WL_BUILTINS table as data, name lookup and the docs' cost table.
#include "engine/lang/builtins.h"

#include <string>

namespace wl::lang {

static const BuiltinInfo kBuiltins[] = {
#define WL_X(name, str, sig, result, op, call, note) {str, Sig::sig, Ty::result, Op::op, call, note},
    WL_BUILTINS(WL_X)
#undef WL_X
};
static constexpr int kBuiltinCount = int(sizeof(kBuiltins) / sizeof(kBuiltins[0]));

const BuiltinInfo& builtin_info(Builtin b) { return kBuiltins[int(b) - 1]; }

Builtin builtin_of(std::string_view n, Op* op) {
    for (int k = 0; k < kBuiltinCount; ++k)
        if (n == kBuiltins[k].name) return Builtin(k + 1);
    Op o;
    if (n.size() < 16 && op_from_mnemonic(std::string(n), &o) && op_is_vector(o)) {
        if (op) *op = o;
        return Builtin::Vector;
    }
    return Builtin::None;
}

bool builtin_sends(Builtin b) {
    Op op = builtin_info(b).op;
    return op == Op::SEND || op == Op::DFABOUT;
}

VectorArgs vector_args(Fmt f) {
    switch (f) {
    case Fmt::Vec1: return {2, true, false, "(dst, src)"};
    case Fmt::Vec2: return {3, true, false, "(dst, a, b)"};
    case Fmt::Vec1S: return {2, true, true, "(dst, src, s: f32)"};
    case Fmt::Vec2S: return {3, true, true, "(dst, a, b, s: f32)"};
    case Fmt::VecR: return {1, false, false, "(src) -> f32"};
    default: return {};
    }
}

std::string builtin_names() {
    std::string s;
    for (const BuiltinInfo& b : kBuiltins) s += (s.empty() ? "" : " ") + std::string(b.name);
    return s;
}

std::string builtin_cost_markdown() {
    std::string md = "| builtin | opcode | cycles |\n|---|---|---|\n";
    auto row = [&](const char* call, Op op, const char* note) {
        const OpInfo& o = op_info(op);
        std::string cycles = op == Op::NOP ? "0" : std::to_string(o.base_cycles);
        md += std::string("| `") + call + "` | " + (op == Op::NOP ? std::string("—") : "`" + std::string(o.mnemonic) + "`") + " | " + cycles +
              (note[0] ? std::string("; ") + note : "") + " |\n";
    };
    for (const BuiltinInfo& b : kBuiltins) row(b.call, b.op, b.note);
    // Conversions are type keywords, not builtins; codegen lowers them to these opcodes.
    row("f32(i)", Op::ITOF, "");
    row("i32(f), u32(f)", Op::FTOI, "int to int is a `mov`");
    md += "\nVector builtins (n elements, SIMD width simd = `MachineConfig::simd_fp32`, default 1; memory-only ops take this time, "
          "fabric ops also wait for wavelets and the ramp):\n\n| builtin | arguments | cycles |\n|---|---|---|\n";
    for (int k = 0; k < op_count(); ++k) {
        Op op = Op(k);
        if (!op_is_vector(op)) continue;
        const OpInfo& o = op_info(op);
        md += std::string("| `") + o.mnemonic + "` | `" + vector_args(o.fmt).doc + "` — " + o.doc + " | " + std::to_string(o.base_cycles) + " + ceil(" +
              std::to_string(o.per_elem) + "·n / simd) |\n";
    }
    return md;
}

}  // namespace wl::lang
