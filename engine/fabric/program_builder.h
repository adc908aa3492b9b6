// program_builder.h: a small C++ API that emits a Program — what tests and
// benches write by hand; the kernel compiler (engine/lang) emits the same format.
//
//   ProgramBuilder b("axpy", "axpy.wl");
//   uint32_t x = b.array("x", 64), y = b.array("y", 64);
//   b.func("main", 8, 0, /*exported=*/true);
//   b.at(3).li(0, x).li(1, 64).dmem(0, 0, 1, 1) ...;  b.ret();
//   Program p = b.finish();   // b.errors() lists what went wrong
//
// Every instruction gets the source location set by at(line, col); without
// at() it gets line = its pc + 1, so faults still point somewhere distinct.
#pragma once
#include "engine/fabric/program.h"

#include <string>
#include <utility>
#include <vector>

namespace wl {

class ProgramBuilder {
public:
    explicit ProgramBuilder(std::string name, std::string file = "");

    // [SECTION] SRAM symbols: allocated in order, 4-aligned; return the byte offset.
    uint32_t array(const std::string& name, uint32_t length, ElemType t = ElemType::F32, bool exported = true);
    void init(uint32_t offset, const std::vector<float>& values);
    void init_u32(uint32_t offset, const std::vector<uint32_t>& words);

    // [SECTION] functions, labels, locations
    ProgramBuilder& func(const std::string& name, int nregs, int nparams = 0, bool exported = false);   // ends the previous one
    int label();                        // a new, unbound label
    ProgramBuilder& bind(int label);    // it points at the next instruction
    ProgramBuilder& at(int line, int col = 1);
    uint32_t pc() const { return uint32_t(p_.code.size()); }

    // [SECTION] tasks
    ProgramBuilder& data_task(int colour, const std::string& fn, int id = -1, bool blocked = false);   // id defaults to the colour
    ProgramBuilder& control_task(int colour, int id, const std::string& fn);
    ProgramBuilder& local_task(int id, const std::string& fn, bool blocked = false);

    // [SECTION] instructions
    ProgramBuilder& emit(Op op, int a = 0, int b = 0, int c = 0, int d = 0, int e = 0, int32_t imm = 0);
    ProgramBuilder& li(int r, int32_t v) { return emit(Op::LI, r, 0, 0, 0, 0, v); }
    ProgramBuilder& lif(int r, float v);
    ProgramBuilder& la(int r, const std::string& symbol);   // r = symbol's byte offset
    ProgramBuilder& mov(int a, int b) { return emit(Op::MOV, a, b); }
    ProgramBuilder& rrr(Op op, int a, int b, int c) { return emit(op, a, b, c); }
    ProgramBuilder& rr(Op op, int a, int b) { return emit(op, a, b); }
    ProgramBuilder& addi(int a, int b, int32_t imm) { return emit(Op::IADDI, a, b, 0, 0, 0, imm); }
    ProgramBuilder& ld(int a, int base, int32_t off = 0) { return emit(Op::LD, a, base, 0, 0, 0, off); }
    ProgramBuilder& st(int base, int32_t off, int v) { return emit(Op::ST, v, base, 0, 0, 0, off); }
    ProgramBuilder& jmp(int label);
    ProgramBuilder& bnz(int r, int label);
    ProgramBuilder& blt(int ra, int rb, int label);   // if ra < rb (signed)
    ProgramBuilder& bz(int r, int label);
    ProgramBuilder& call(int dest, const std::string& fn, int first_arg = 0, int nargs = 0);
    ProgramBuilder& ret(int r = kNoReg) { return emit(Op::RET, r); }
    ProgramBuilder& activate(int task) { return emit(Op::ACTIVATE, 0, 0, 0, 0, 0, task); }
    ProgramBuilder& block(int task) { return emit(Op::BLOCK, 0, 0, 0, 0, 0, task); }
    ProgramBuilder& unblock(int task) { return emit(Op::UNBLOCK, 0, 0, 0, 0, 0, task); }
    ProgramBuilder& peid(int r, int which) { return emit(Op::PEID, r, 0, 0, 0, 0, which); }   // 0 x, 1 y, 2 w, 3 h
    ProgramBuilder& send(int r, int colour) { return emit(Op::SEND, r, 0, 0, 0, 0, colour); }
    ProgramBuilder& sendc(int r, int colour) { return emit(Op::SENDC, r, 0, 0, 0, 0, colour); }
    ProgramBuilder& recv(int r, int colour) { return emit(Op::RECV, r, 0, 0, 0, 0, colour); }
    ProgramBuilder& dmem(int d, int rbase, int rlen, int stride = 1) { return emit(Op::DMEM, d, rbase, rlen, 0, 0, stride); }
    ProgramBuilder& dfabin(int d, int rlen, int colour) { return emit(Op::DFABIN, d, rlen, 0, 0, 0, colour); }
    ProgramBuilder& dfabout(int d, int rlen, int colour) { return emit(Op::DFABOUT, d, rlen, 0, 0, 0, colour); }
    ProgramBuilder& dsetlen(int d, int r) { return emit(Op::DSETLEN, d, r); }
    ProgramBuilder& daddr(int d, int r) { return emit(Op::DADDR, d, r); }
    ProgramBuilder& dstep(int d, int r) { return emit(Op::DSTEP, d, r); }
    // The next instruction (a vector op) rpasses times; rs = the word at raddr, raddr + step bytes a pass (rs = kNoReg: none).
    ProgramBuilder& map(int rs, int rpasses, int raddr = kNoReg, int step = 4) { return emit(Op::MAP, rs, rpasses, raddr, 0, 0, step); }
    // Vector ops: dst, src1, src2 DSD registers, scalar register s; flags = VecFlags, task = completion target.
    ProgramBuilder& vec(Op op, int dst, int a, int b = 0, int s = 0, int flags = 0, int task = 0) { return emit(op, dst, a, b, s, flags, task); }
    ProgramBuilder& fmacs(int dst, int a, int b, int s, int flags = 0, int task = 0) { return vec(Op::FMACS, dst, a, b, s, flags, task); }
    ProgramBuilder& fadds(int dst, int a, int b, int flags = 0, int task = 0) { return vec(Op::FADDS, dst, a, b, 0, flags, task); }
    ProgramBuilder& fmovs(int dst, int a, int flags = 0, int task = 0) { return vec(Op::FMOVS, dst, a, 0, 0, flags, task); }
    ProgramBuilder& fsums(int r, int a) { return vec(Op::FSUMS, 0, a, 0, r); }

    Program finish();                   // resolves labels and calls; errors() says what failed
    const std::vector<std::string>& errors() const { return errors_; }

private:
    void end_func();
    Program p_;
    int cur_fn_ = -1;
    int line_ = 0, col_ = 1;            // 0 = automatic (pc + 1)
    uint32_t next_offset_ = 0;
    std::vector<int32_t> labels_;       // label -> pc, -1 unbound
    std::vector<std::pair<uint32_t, int>> label_fixups_;           // pc -> label
    std::vector<std::pair<uint32_t, std::string>> call_fixups_;    // pc -> function name
    std::vector<std::pair<size_t, std::string>> task_fixups_;      // tasks index -> function name
    std::vector<std::string> errors_;
};

}  // namespace wl
