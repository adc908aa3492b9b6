// program_file.cpp: see program_file.h.
#include "engine/fabric/program_file.h"

#include <utility>
#include <vector>

namespace wl {

namespace {

bool same(const Instr& a, const Instr& b) {
    return a.op == b.op && a.a == b.a && a.b == b.b && a.c == b.c && a.d == b.d && a.e == b.e && a.pad == b.pad && a.imm == b.imm;
}
bool same(const SrcLoc& a, const SrcLoc& b) { return a.file == b.file && a.line == b.line && a.col == b.col; }

// v against base, as runs of (k items equal to base's at the same index, then m written out).
template <class T, class Put>
void put_runs(ByteWriter& w, const std::vector<T>& v, const std::vector<T>* base, Put put) {
    size_t i = 0;
    while (i < v.size()) {
        size_t k = 0, m = 0;
        while (base && i + k < v.size() && i + k < base->size() && same(v[i + k], (*base)[i + k])) k++;
        while (i + k + m < v.size() && !(base && i + k + m < base->size() && same(v[i + k + m], (*base)[i + k + m]))) m++;
        w.var(uint32_t(k));
        w.var(uint32_t(m));
        for (size_t j = i + k; j < i + k + m; j++) put(v[j]);
        i += k + m;
    }
}

template <class T, class Get>
std::vector<T> get_runs(ByteReader& r, uint32_t n, const std::vector<T>* base, const char* what, Get get) {
    std::vector<T> v;
    v.reserve(n);
    while (v.size() < n) {
        const uint32_t k = r.var(what), m = r.var(what);
        if ((k == 0 && m == 0) || k > n - v.size() || m > n - v.size() - k || (k && (!base || v.size() + k > base->size())))
            throw ByteError(std::string("a run of ") + what + " is out of range");
        if (k) v.insert(v.end(), base->begin() + long(v.size()), base->begin() + long(v.size() + k));
        for (uint32_t j = 0; j < m; j++) v.push_back(get());
    }
    return v;
}

}  // namespace

void write_program(ByteWriter& w, const Program& p, const Program* base) {
    w.str(p.name);
    w.u32(uint32_t(p.files.size()));
    for (const std::string& f : p.files) w.str(f);
    w.u32(uint32_t(p.code.size()));
    put_runs(w, p.code, base ? &base->code : nullptr, [&](const Instr& in) {   // about 9 bytes: small operands
        w.put(in.op);
        for (uint8_t v : {in.a, in.b, in.c, in.d, in.e}) w.u8(v);
        w.var(in.pad);
        w.svar(in.imm);
    });
    w.u32(uint32_t(p.locs.size()));
    put_runs(w, p.locs, base ? &base->locs : nullptr, [&](const SrcLoc& l) {
        w.svar(l.file);
        w.svar(l.line);
        w.svar(l.col);
    });
    w.u32(uint32_t(p.functions.size()));
    for (const Function& f : p.functions) {
        w.str(f.name);
        w.u32(f.entry);
        w.u32(f.end);
        w.u8(f.nregs);
        w.u8(f.nparams);
        w.u8(f.exported);
    }
    w.u32(uint32_t(p.symbols.size()));
    for (const Symbol& s : p.symbols) {
        w.str(s.name);
        w.u32(s.offset);
        w.put(s.type);
        w.u32(s.length);
        w.u8(s.exported);
    }
    w.u32(uint32_t(p.tasks.size()));
    for (const TaskBinding& t : p.tasks) {
        w.u8(t.id);
        w.put(t.kind);
        w.put(t.colour);
        w.put(t.function);
        w.u8(t.blocked);
    }
    w.u32(uint32_t(p.init.size()));
    for (const InitData& d : p.init) {
        w.u32(d.offset);
        w.put(d.konst);
        w.u32(uint32_t(d.words.size()));
        for (uint32_t v : d.words) w.u32(v);
    }
    w.u32(p.sram_used);
    w.u8(p.nconsts);
}

std::shared_ptr<const Program> read_program(ByteReader& r, uint32_t sram_bytes, const Program* base) {
    auto p = std::make_shared<Program>();
    p->name = r.str("program name");
    const std::string who = "program " + p->name + ": ";
    p->files.resize(r.count("program files", 4));
    for (std::string& f : p->files) f = r.str("program file name");
    // Each instruction takes at least 8 bytes unless copied from the base.
    const uint32_t ncode = r.u32("instructions");
    if (ncode > (base ? base->code.size() : 0) + r.left() / 8) throw ByteError(who + "more instructions than the file holds");
    p->code = get_runs<Instr>(r, ncode, base ? &base->code : nullptr, "instructions", [&] {
        Instr in;
        in.op = r.get<Op>("opcode");
        if (size_t(in.op) >= size_t(Op::kCount)) throw ByteError(who + "unknown opcode " + std::to_string(int(in.op)));
        in.a = r.u8("operand");
        in.b = r.u8("operand");
        in.c = r.u8("operand");
        in.d = r.u8("operand");
        in.e = r.u8("operand");
        const uint32_t pad = r.var("instruction padding");
        if (pad > 0xffff) throw ByteError(who + "an instruction's padding is out of range");
        in.pad = uint16_t(pad);
        in.imm = r.svar("immediate");
        return in;
    });
    const uint32_t nlocs = r.u32("source locations");
    if (nlocs > (base ? base->locs.size() : 0) + r.left() / 3) throw ByteError(who + "more source locations than the file holds");
    p->locs = get_runs<SrcLoc>(r, nlocs, base ? &base->locs : nullptr, "source locations", [&] {
        SrcLoc l;
        l.file = r.svar("source file");
        l.line = r.svar("source line");
        l.col = r.svar("source column");
        if (l.file < -1 || (l.file >= 0 && size_t(l.file) >= p->files.size()))
            throw ByteError(who + "a source location names file " + std::to_string(l.file) + " of " +
                            std::to_string(p->files.size()));
        return l;
    });
    p->functions.resize(r.count("functions", 15));
    for (Function& f : p->functions) {
        f.name = r.str("function name");
        f.entry = r.u32("function entry");
        f.end = r.u32("function end");
        f.nregs = r.u8("function registers");
        f.nparams = r.u8("function parameters");
        f.exported = r.boolean("function exported");
    }
    p->symbols.resize(r.count("symbols", 18));
    for (Symbol& s : p->symbols) {
        s.name = r.str("symbol name");
        s.offset = r.u32("symbol offset");
        s.type = r.get<ElemType>("symbol type");
        if (uint8_t(s.type) > uint8_t(ElemType::U32)) throw ByteError(who + "symbol " + s.name + " has an unknown type");
        s.length = r.u32("symbol length");
        s.exported = r.boolean("symbol exported");
    }
    p->tasks.resize(r.count("tasks", 6));
    for (TaskBinding& t : p->tasks) {
        t.id = r.u8("task id");
        t.kind = r.get<TaskKind>("task kind");
        if (uint8_t(t.kind) > uint8_t(TaskKind::Control)) throw ByteError(who + "a task has an unknown kind");
        t.colour = r.get<int8_t>("task colour");
        t.function = r.get<uint16_t>("task function");
        t.blocked = r.boolean("task blocked");
    }
    p->init.resize(r.count("initial data", 8));
    for (InitData& d : p->init) {
        d.offset = r.u32("initial data offset");
        d.konst = r.get<int32_t>("initial data constant");
        d.words.resize(r.count("initial data words", 4));
        for (uint32_t& v : d.words) v = r.u32("initial data word");
    }
    p->sram_used = r.u32("program SRAM use");
    if (p->sram_used > sram_bytes)
        throw ByteError(who + "uses " + std::to_string(p->sram_used) + " bytes of SRAM; the PE has " + std::to_string(sram_bytes));
    p->nconsts = r.u8("per-PE constants");
    int32_t pc = -1;
    const std::string bad = validate_program(*p, sram_bytes, &pc);
    if (!bad.empty()) throw ByteError(who + bad + (pc >= 0 ? " at pc " + std::to_string(pc) : ""));
    return p;
}

}  // namespace wl
