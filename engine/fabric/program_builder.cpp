// program_builder.cpp: emits instructions with locations, resolves labels,
// calls and task bindings when the program is finished.
#include "engine/fabric/program_builder.h"

#include <cstring>

namespace wl {

ProgramBuilder::ProgramBuilder(std::string name, std::string file) {
    p_.name = std::move(name);
    p_.files.push_back(file.empty() ? p_.name : std::move(file));
}

uint32_t ProgramBuilder::array(const std::string& name, uint32_t length, ElemType t, bool exported) {
    uint32_t off = next_offset_;
    p_.symbols.push_back(Symbol{name, off, t, length, exported});
    next_offset_ += length * 4;
    p_.sram_used = next_offset_;
    return off;
}

void ProgramBuilder::init(uint32_t offset, const std::vector<float>& values) {
    InitData d;
    d.offset = offset;
    d.words.resize(values.size());
    if (!values.empty()) std::memcpy(d.words.data(), values.data(), values.size() * 4);
    p_.init.push_back(std::move(d));
}

void ProgramBuilder::init_u32(uint32_t offset, const std::vector<uint32_t>& words) {
    InitData d;
    d.offset = offset;
    d.words = words;
    p_.init.push_back(std::move(d));
}

void ProgramBuilder::end_func() {
    if (cur_fn_ >= 0) p_.functions[cur_fn_].end = pc();
}

ProgramBuilder& ProgramBuilder::func(const std::string& name, int nregs, int nparams, bool exported) {
    end_func();
    if (p_.function_index(name) >= 0) errors_.push_back("function " + name + " defined twice");
    Function f;
    f.name = name;
    f.entry = f.end = pc();
    f.nregs = uint8_t(nregs);
    f.nparams = uint8_t(nparams);
    f.exported = exported;
    p_.functions.push_back(f);
    cur_fn_ = int(p_.functions.size()) - 1;
    return *this;
}

int ProgramBuilder::label() {
    labels_.push_back(-1);
    return int(labels_.size()) - 1;
}

ProgramBuilder& ProgramBuilder::bind(int label) {
    if (label < 0 || size_t(label) >= labels_.size()) errors_.push_back("bind: no such label");
    else labels_[label] = int32_t(pc());
    return *this;
}

ProgramBuilder& ProgramBuilder::at(int line, int col) {
    line_ = line;
    col_ = col;
    return *this;
}

ProgramBuilder& ProgramBuilder::data_task(int colour, const std::string& fn, int id, bool blocked) {
    p_.tasks.push_back(TaskBinding{uint8_t(id < 0 ? colour : id), TaskKind::Data, int8_t(colour), 0, blocked});
    task_fixups_.push_back({p_.tasks.size() - 1, fn});
    return *this;
}

ProgramBuilder& ProgramBuilder::control_task(int colour, int id, const std::string& fn) {
    p_.tasks.push_back(TaskBinding{uint8_t(id), TaskKind::Control, int8_t(colour), 0, false});
    task_fixups_.push_back({p_.tasks.size() - 1, fn});
    return *this;
}

ProgramBuilder& ProgramBuilder::local_task(int id, const std::string& fn, bool blocked) {
    p_.tasks.push_back(TaskBinding{uint8_t(id), TaskKind::Local, -1, 0, blocked});
    task_fixups_.push_back({p_.tasks.size() - 1, fn});
    return *this;
}

ProgramBuilder& ProgramBuilder::emit(Op op, int a, int b, int c, int d, int e, int32_t imm) {
    if (cur_fn_ < 0) errors_.push_back("instruction outside a function");
    Instr in;
    in.op = op;
    in.a = uint8_t(a), in.b = uint8_t(b), in.c = uint8_t(c), in.d = uint8_t(d), in.e = uint8_t(e);
    in.imm = imm;
    p_.code.push_back(in);
    SrcLoc l;
    l.file = 0;
    l.line = line_ ? line_ : int32_t(p_.code.size());
    l.col = line_ ? col_ : 1;
    p_.locs.push_back(l);
    return *this;
}

ProgramBuilder& ProgramBuilder::lif(int r, float v) {
    int32_t bits;
    std::memcpy(&bits, &v, 4);
    return li(r, bits);
}

ProgramBuilder& ProgramBuilder::la(int r, const std::string& symbol) {
    const Symbol* s = p_.symbol(symbol);
    if (!s) errors_.push_back("la: no symbol " + symbol);
    return li(r, s ? int32_t(s->offset) : 0);
}

ProgramBuilder& ProgramBuilder::jmp(int label) {
    label_fixups_.push_back({pc(), label});
    return emit(Op::JMP);
}
ProgramBuilder& ProgramBuilder::bnz(int r, int label) {
    label_fixups_.push_back({pc(), label});
    return emit(Op::BNZ, r);
}
ProgramBuilder& ProgramBuilder::blt(int ra, int rb, int label) {
    label_fixups_.push_back({pc(), label});
    return emit(Op::BLT, ra, rb);
}
ProgramBuilder& ProgramBuilder::bz(int r, int label) {
    label_fixups_.push_back({pc(), label});
    return emit(Op::BZ, r);
}
ProgramBuilder& ProgramBuilder::call(int dest, const std::string& fn, int first_arg, int nargs) {
    call_fixups_.push_back({pc(), fn});
    return emit(Op::CALL, dest, first_arg, nargs);
}

Program ProgramBuilder::finish() {
    end_func();
    for (auto& [at, l] : label_fixups_) {
        if (l < 0 || size_t(l) >= labels_.size() || labels_[l] < 0) errors_.push_back("unbound label at pc " + std::to_string(at));
        else p_.code[at].imm = labels_[l];
    }
    for (auto& [at, name] : call_fixups_) {
        int f = p_.function_index(name);
        if (f < 0) errors_.push_back("call to unknown function " + name);
        else p_.code[at].imm = f;
    }
    for (auto& [k, name] : task_fixups_) {
        int f = p_.function_index(name);
        if (f < 0) errors_.push_back("task bound to unknown function " + name);
        else p_.tasks[k].function = uint16_t(f);
    }
    label_fixups_.clear();
    call_fixups_.clear();
    task_fixups_.clear();
    return p_;
}

}  // namespace wl
