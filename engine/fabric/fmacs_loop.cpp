// fmacs_loop.cpp: find_fmacs_loops (fmacs_loop.h).
#include "engine/fabric/fmacs_loop.h"

#include "engine/fabric/program.h"

#include <algorithm>

namespace wl {

static_assert(sizeof FmacsNest::dsd == kDsdRegs, "a nest may write every DSD");

namespace {

// Whether the loop is affine (fmacs_loop.h), and if so its counter's and address register's steps.
void decode_affine(const Program& p, FmacsLoop& L) {
    const Instr& fm = p.code[L.fmacs];
    const Instr& br = p.code[L.blt];
    uint64_t added = 0;
    for (int k = 0; k < L.nadd; ++k) {
        const FmacsLoopStep& s = L.add[k];
        if (s.a != s.b || (added >> (s.a & 63) & 1)) return;
        added |= 1ull << (s.a & 63);
    }
    auto step_of = [&](uint8_t r) {
        uint32_t c = 0;
        for (int k = 0; k < L.nadd; ++k) c += L.add[k].a == r ? L.add[k].imm : 0;
        return c;
    };
    const uint8_t ri = br.a, rn = br.b, rs = fm.d;
    if ((added >> (rn & 63) & 1) || (added >> (rs & 63) & 1)) return;
    if (L.ld >= 0) {
        const Instr& ld = p.code[size_t(L.ld)];
        if (ld.a != rs || rs == ld.b || rs == ri || rs == rn) return;
        L.address_step = step_of(ld.b);
    }
    L.counter_step = step_of(ri);
    L.affine = true;
}

// Whether a pass of the nest is an affine map of the registers and DSDs (fmacs_loop.h): its straight
// instructions are linear (constants, moves, sums, shifts and products by constants, DSD set-up),
// and the value the inner loop's ld brings from memory is dead when a pass starts (nothing reads
// the scalar's register before the pass writes it).
bool nest_is_affine(const Program& p, const FmacsLoop& L, const FmacsNest& N) {
    const uint8_t rs = p.code[L.fmacs].d;
    bool written = false;   // rs, so far in the pass
    auto reads_rs = [&](const Instr& in) { return (regs_read(in) >> (rs & 63) & 1) != 0; };
    auto linear = [&](const Instr& in) {
        if (!op_is_linear(in.op)) return false;
        if (L.ld >= 0 && !written && reads_rs(in)) return false;
        written = written || (regs_written(in) >> (rs & 63) & 1);
        return true;
    };
    for (uint32_t k = L.blt + 1; k < N.blt; ++k)
        if (!linear(p.code[k])) return false;
    if (L.ld >= 0 && !written && reads_rs(p.code[N.blt])) return false;
    for (uint32_t k = N.lead; k < L.lead_end(); ++k)
        if (!linear(p.code[k])) return false;
    if (N.entry_test && L.ld >= 0 && !written && reads_rs(p.code[L.blt])) return false;   // the entry's test
    return L.ld < 0 || written || p.code[size_t(L.ld)].b != rs;
}

// The nest around L, if its body is straight (fmacs_loop.h): after L's blt, straight instructions
// up to a blt back to straight instructions before L's head, or before a jmp there to L's blt.
void decode_nest(const Program& p, FmacsLoop& L) {
    const uint32_t n = uint32_t(p.code.size()), head = L.head();
    FmacsNest N;
    uint32_t q = L.blt + 1, straight = 0;
    for (; q < n && op_is_straight(p.code[q].op) && straight < kMaxNestStraight; ++q, ++straight)
        N.tail_cycles += op_base_cycles(p.code[q].op);
    if (q >= n || p.code[q].op != Op::BLT) return;
    const int32_t lead = p.code[q].imm;
    N.entry_test = head > 0 && p.code[head - 1].op == Op::JMP && p.code[head - 1].imm == int32_t(L.blt);
    const uint32_t lead_end = head - (N.entry_test ? 1 : 0);
    if (lead < 0 || uint32_t(lead) > lead_end || uint32_t(lead) == head || straight + (head - uint32_t(lead)) > kMaxNestStraight) return;
    N.last_cost = op_base_cycles(Op::BLT);   // the outer blt's, or the entry's test's
    for (uint32_t k = uint32_t(lead); k < lead_end; ++k) {
        if (!op_is_straight(p.code[k].op)) return;
        N.lead_cycles += op_base_cycles(p.code[k].op);
        if (!N.entry_test) N.last_cost = op_base_cycles(p.code[k].op);
    }
    N.lead = uint32_t(lead), N.blt = q;
    L.nest = N;   // lead_end() reads it
    N.affine = L.affine && nest_is_affine(p, L, N);
    // What a pass writes: its straight instructions' targets, the inner loop's iaddi, daddr and ld.
    auto add = [](uint8_t* list, uint8_t& n, uint8_t v) {
        if (std::find(list, list + n, v) == list + n) list[n++] = v;
    };
    for (uint32_t k = N.lead; k < N.blt; ++k) {
        const Instr& in = p.code[k];
        if (op_writes_dsd(in.op)) add(N.dsd, N.ndsd, in.a);
        else if (op_writes(in.op) == op_regs::A) add(N.reg, N.nreg, in.a);
    }
    // The state its map depends on: what it writes, what its instructions read (the fmacs reads only
    // its scalar, data a map does not follow), the fmacs operands.
    for (uint32_t k = N.lead; k <= N.blt; ++k)
        if (k != L.fmacs) N.state_regs |= regs_read(p.code[k]);
    for (uint8_t k = 0; k < N.nreg; ++k) N.state_regs |= 1ull << N.reg[k];
    if (L.ld >= 0) N.state_regs &= ~(1ull << p.code[L.fmacs].d);   // the scalar: data, dead as a pass starts
    const Instr& fm = p.code[L.fmacs];
    N.state_dsds = uint8_t(1u << fm.a | 1u << fm.b | 1u << fm.c);
    for (uint8_t k = 0; k < N.ndsd; ++k) N.state_dsds |= uint8_t(1u << N.dsd[k]);
    L.nest = N;
}

}  // namespace

FmacsLoops find_fmacs_loops(const Program& p) {
    FmacsLoops out;
    const uint32_t n = uint32_t(p.code.size());
    for (uint32_t f = 0; f < n; ++f) {
        const Instr& fm = p.code[f];
        if (fm.op != Op::FMACS || fm.e != 0) continue;
        FmacsLoop L;
        L.fmacs = f;
        uint64_t written = 0, stepped = 0;   // registers the body writes; registers daddr reads
        uint32_t j = f + 1;
        for (; j < n && j - f - 1 < kMaxFmacsLoopPost; ++j) {
            const Instr& in = p.code[j];
            if (in.op == Op::IADDI) {
                written |= 1ull << (in.a & 63);
                L.add[L.nadd++] = FmacsLoopStep{in.a, in.b, uint32_t(in.imm)};
            } else if (in.op == Op::DADDR) {
                stepped |= 1ull << (in.b & 63);
                L.step[L.nstep++] = FmacsLoopStep{in.a, in.b, 0};
            } else {
                break;
            }
            L.post_cycles += op_base_cycles(in.op);
        }
        if (j >= n || p.code[j].op != Op::BLT) continue;
        L.blt = j;
        // The branch goes back to the fmacs, or to one ld just before it. The loop lies in one function:
        // a branch target is in its branch's function (validate_program), and functions are contiguous.
        const int32_t head = p.code[j].imm;
        if (f > 0 && head == int32_t(f) - 1 && p.code[f - 1].op == Op::LD) {
            written |= 1ull << (p.code[f - 1].a & 63);
            L.ld = int32_t(f) - 1;
        } else if (head != int32_t(f)) {
            continue;
        }
        if (written & stepped) continue;   // a daddr's step must not change inside the loop
        decode_affine(p, L);
        decode_nest(p, L);
        if (out.at.empty()) out.at.assign(n, 0);
        out.loops.push_back(L);
        out.at[f] = uint32_t(out.loops.size());
    }
    return out;
}

}  // namespace wl
