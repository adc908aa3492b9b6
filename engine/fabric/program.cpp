// program.cpp: symbol lookup, source locations, the disassembler and the
// validator every program passes before the machine accepts it.
#include "engine/fabric/program.h"

#include <cstdio>

namespace wl {

const Symbol* Program::symbol(const std::string& n) const {
    for (const Symbol& s : symbols)
        if (s.name == n) return &s;
    return nullptr;
}

int Program::function_index(const std::string& n) const {
    for (size_t k = 0; k < functions.size(); ++k)
        if (functions[k].name == n) return int(k);
    return -1;
}

std::string Program::where(uint32_t pc) const {
    if (pc >= locs.size()) return name + ":?";
    const SrcLoc& l = locs[pc];
    std::string f = l.file >= 0 && size_t(l.file) < files.size() ? files[l.file] : name;
    return f + ":" + std::to_string(l.line) + ":" + std::to_string(l.col);
}

std::string Program::disassemble(uint32_t pc) const {
    if (pc >= code.size()) return "?";
    const Instr& in = code[pc];
    const OpInfo& o = op_info(in.op);
    char b[160];
    auto r = [](int k) { return k == kNoReg ? std::string("_") : "r" + std::to_string(k); };
    auto d = [](int k) { return "d" + std::to_string(k); };
    std::string ops;
    switch (o.fmt) {
    case Fmt::None: break;
    case Fmt::R: ops = r(in.a); break;
    case Fmt::RR: ops = r(in.a) + ", " + r(in.b); break;
    case Fmt::RRR: ops = r(in.a) + ", " + r(in.b) + ", " + r(in.c); break;
    case Fmt::RI: ops = r(in.a) + ", " + std::to_string(in.imm); break;
    case Fmt::RRI: ops = r(in.a) + ", " + r(in.b) + ", " + std::to_string(in.imm); break;
    case Fmt::Load: ops = r(in.a) + ", [" + r(in.b) + " + " + std::to_string(in.imm) + "]"; break;
    case Fmt::Store: ops = "[" + r(in.b) + " + " + std::to_string(in.imm) + "], " + r(in.a); break;
    case Fmt::Jump: ops = "@" + std::to_string(in.imm); break;
    case Fmt::Branch: ops = r(in.a) + ", @" + std::to_string(in.imm); break;
    case Fmt::Branch2: ops = r(in.a) + ", " + r(in.b) + ", @" + std::to_string(in.imm); break;
    case Fmt::Call: {
        std::string fn = in.imm >= 0 && size_t(in.imm) < functions.size() ? functions[in.imm].name : "?";
        ops = r(in.a) + " = " + fn + "(" + (in.c ? r(in.b) + ".." + r(in.b + in.c - 1) : std::string()) + ")";
        break;
    }
    case Fmt::Ret: ops = r(in.a); break;
    case Fmt::Task: ops = "task " + std::to_string(in.imm); break;
    case Fmt::Colour: ops = r(in.a) + ", colour " + std::to_string(in.imm); break;
    case Fmt::DsdMem: ops = d(in.a) + ", base " + r(in.b) + ", len " + r(in.c) + ", stride " + std::to_string(in.imm); break;
    case Fmt::DsdFab: ops = d(in.a) + ", len " + r(in.b) + ", colour " + std::to_string(in.imm); break;
    case Fmt::DsdReg: ops = d(in.a) + ", " + r(in.b); break;
    case Fmt::Vec1: ops = d(in.a) + ", " + d(in.b); break;
    case Fmt::Vec2: ops = d(in.a) + ", " + d(in.b) + ", " + d(in.c); break;
    case Fmt::Vec1S: ops = d(in.a) + ", " + d(in.b) + ", " + r(in.d); break;
    case Fmt::Vec2S: ops = d(in.a) + ", " + d(in.b) + ", " + d(in.c) + ", " + r(in.d); break;
    case Fmt::VecR: ops = r(in.d) + ", " + d(in.b); break;
    case Fmt::Map: ops = r(in.a) + ", passes " + r(in.b) + (in.a == kNoReg ? std::string() : ", from [" + r(in.c) + "] step " + std::to_string(in.imm)); break;
    }
    if (op_is_vector(in.op) && in.e) {
        if (in.e & kVecAsync) ops += " async";
        if (in.e & kVecActivate) ops += " then activate " + std::to_string(in.imm);
        if (in.e & kVecUnblock) ops += " then unblock " + std::to_string(in.imm);
    }
    std::snprintf(b, sizeof b, "%5u  %-8s %s", pc, o.mnemonic, ops.c_str());
    return b;
}

std::string Program::disassemble() const {
    std::string s;
    for (const Function& f : functions) {
        s += f.name + (f.exported ? " (exported)" : "") + ":  ; " + std::to_string(f.nregs) + " regs, " + std::to_string(f.nparams) + " params\n";
        for (uint32_t pc = f.entry; pc < f.end && pc < code.size(); ++pc) s += disassemble(pc) + "    ; " + where(pc) + "\n";
    }
    return s;
}

// Every operand of every instruction is checked once here, so the interpreter can trust them.
std::string validate_program(const Program& p, uint32_t sram_bytes, int32_t* bad_pc) {
    *bad_pc = -1;
    if (p.locs.size() != p.code.size()) return "every instruction needs a source location";
    if (p.functions.empty()) return "no functions";
    if (p.nconsts > kPeConsts) return "reads " + std::to_string(p.nconsts) + " per-PE constants; at most " + std::to_string(kPeConsts);
    std::vector<int> owner(p.code.size(), -1);
    for (size_t k = 0; k < p.functions.size(); ++k) {
        const Function& f = p.functions[k];
        if (f.entry >= f.end || f.end > p.code.size()) return "function " + f.name + " has a bad code range";
        if (f.nregs < 1 || f.nregs > kMaxFrameRegs || f.nparams > f.nregs) return "function " + f.name + " uses 1.." + std::to_string(kMaxFrameRegs) + " registers";
        for (uint32_t pc = f.entry; pc < f.end; ++pc) {
            if (owner[pc] >= 0) return "functions " + p.functions[owner[pc]].name + " and " + f.name + " overlap";
            owner[pc] = int(k);
        }
    }
    for (size_t pc = 0; pc < p.code.size(); ++pc) {
        *bad_pc = int32_t(pc);
        const Instr& in = p.code[pc];
        if (size_t(in.op) >= size_t(Op::kCount)) return "unknown opcode";
        if (owner[pc] < 0) return "instruction outside any function";
        const Function& f = p.functions[owner[pc]];
        const OpInfo& o = op_info(in.op);
        auto reg = [&](int r) { return r < f.nregs; };
        auto dsd = [&](int d) { return d < kDsdRegs; };
        auto colour = [&] { return in.imm >= 0 && in.imm < kColours; };
        auto label = [&] { return in.imm >= int32_t(f.entry) && in.imm < int32_t(f.end); };
        std::string m = std::string(o.mnemonic) + ": ";
        switch (o.fmt) {
        case Fmt::None: break;
        case Fmt::R: case Fmt::RI:
            if (!reg(in.a)) return m + "register out of range";
            if (in.op == Op::LDP && (in.imm < 0 || in.imm >= int32_t(p.nconsts)))
                return m + "constant " + std::to_string(in.imm) + " of " + std::to_string(int(p.nconsts));
            break;
        case Fmt::RR: if (!reg(in.a) || !reg(in.b)) return m + "register out of range"; break;
        case Fmt::RRR: if (!reg(in.a) || !reg(in.b) || !reg(in.c)) return m + "register out of range"; break;
        case Fmt::RRI: case Fmt::Load: case Fmt::Store: if (!reg(in.a) || !reg(in.b)) return m + "register out of range"; break;
        case Fmt::Jump: if (!label()) return m + "jump target outside the function"; break;
        case Fmt::Branch: if (!reg(in.a)) return m + "register out of range"; if (!label()) return m + "branch target outside the function"; break;
        case Fmt::Branch2:
            if (!reg(in.a) || !reg(in.b)) return m + "register out of range";
            if (!label()) return m + "branch target outside the function";
            break;
        case Fmt::Call: {
            if (in.imm < 0 || size_t(in.imm) >= p.functions.size()) return m + "no such function";
            const Function& g = p.functions[in.imm];
            if (in.a != kNoReg && !reg(in.a)) return m + "result register out of range";
            if (in.c != g.nparams) return m + g.name + " takes " + std::to_string(g.nparams) + " arguments";
            if (in.c && !reg(in.b + in.c - 1)) return m + "argument registers out of range";
            break;
        }
        case Fmt::Ret: if (in.a != kNoReg && !reg(in.a)) return m + "register out of range"; break;
        case Fmt::Task: if (in.imm < 0 || in.imm >= kMaxTasks) return m + "task id must be 0..31"; break;
        case Fmt::Colour: if (!reg(in.a)) return m + "register out of range"; if (!colour()) return m + "colour must be 0..23"; break;
        case Fmt::DsdMem:
            if (!dsd(in.a) || !reg(in.b) || !reg(in.c)) return m + "operand out of range";
            if (in.imm < -32768 || in.imm > 32767) return m + "stride out of range";
            break;
        case Fmt::DsdFab: if (!dsd(in.a) || !reg(in.b)) return m + "operand out of range"; if (!colour()) return m + "colour must be 0..23"; break;
        case Fmt::DsdReg: if (!dsd(in.a) || !reg(in.b)) return m + "operand out of range"; break;
        case Fmt::Vec1: case Fmt::Vec2: case Fmt::Vec1S: case Fmt::Vec2S: case Fmt::VecR:
            if (!dsd(in.a) || !dsd(in.b) || !dsd(in.c)) return m + "DSD register out of range";
            if ((o.fmt == Fmt::Vec1S || o.fmt == Fmt::Vec2S || o.fmt == Fmt::VecR) && !reg(in.d)) return m + "register out of range";
            if (in.e & ~(kVecAsync | kVecActivate | kVecUnblock)) return m + "unknown flags";
            if ((in.e & (kVecActivate | kVecUnblock)) && (in.imm < 0 || in.imm >= kMaxTasks)) return m + "completion task id must be 0..31";
            break;
        case Fmt::Map: {
            if (!reg(in.b) || (in.a != kNoReg && (!reg(in.a) || !reg(in.c)))) return m + "register out of range";
            const Instr* op = pc + 1 < f.end ? &p.code[pc + 1] : nullptr;
            if (!op || !op_is_vector(op->op) || op->e != 0) return m + "the next instruction must be a vector op without async or then";
            const Fmt of = op_fmt(op->op);
            if (of == Fmt::VecR) return m + "the next instruction must be an element-wise vector op";
            if (in.a != kNoReg && ((of != Fmt::Vec1S && of != Fmt::Vec2S) || in.a != op->d))
                return m + "the scalar it loads goes to the op's scalar register, and only an op with a scalar takes one";
            break;
        }
        }
        if (pc + 1 == f.end && in.op != Op::RET && in.op != Op::JMP) return "function " + f.name + " must end with ret or jmp";
    }
    std::vector<bool> map_op(p.code.size());   // a map's op issues only from its map: nothing jumps to it
    for (size_t pc = 1; pc < p.code.size(); ++pc) map_op[pc] = p.code[pc - 1].op == Op::MAP;
    for (size_t pc = 0; pc < p.code.size(); ++pc) {
        const Instr& in = p.code[pc];
        const Fmt f = op_fmt(in.op);
        if ((f == Fmt::Jump || f == Fmt::Branch || f == Fmt::Branch2) && map_op[size_t(in.imm)]) {   // labels checked above
            *bad_pc = int32_t(pc);
            return std::string(op_info(in.op).mnemonic) + ": jumps to the op of the map before it";
        }
    }
    *bad_pc = -1;
    uint32_t seen = 0;
    for (const TaskBinding& t : p.tasks) {
        if (t.id >= kMaxTasks) return "task id must be 0..31";
        if (seen >> t.id & 1) return "task " + std::to_string(t.id) + " bound twice";
        seen |= 1u << t.id;
        if (t.function >= p.functions.size()) return "task " + std::to_string(t.id) + " binds no function";
        if (t.kind != TaskKind::Local && (t.colour < 0 || t.colour >= kColours)) return "task " + std::to_string(t.id) + " needs a colour 0..23";
    }
    for (const Symbol& s : p.symbols) {
        if (s.offset % 4) return "symbol " + s.name + " is not 4-aligned";
        if (uint64_t(s.offset) + uint64_t(s.length) * 4 > sram_bytes)
            return "symbol " + s.name + " ends at byte " + std::to_string(uint64_t(s.offset) + uint64_t(s.length) * 4) + ", beyond SRAM (" +
                   std::to_string(sram_bytes) + ")";
    }
    for (const InitData& d : p.init) {
        if (d.offset % 4 || uint64_t(d.offset) + d.words.size() * 4 > sram_bytes) return "initial data beyond SRAM";
        if (d.konst >= 0 && (d.konst >= int32_t(p.nconsts) || d.words.size() != 1))
            return "initial data reads constant " + std::to_string(d.konst) + " of " + std::to_string(int(p.nconsts));
    }
    return "";
}

}  // namespace wl
