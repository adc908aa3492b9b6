// fmacs_loop.cpp: find_fmacs_loops (fmacs_loop.h).
#include "engine/fabric/fmacs_loop.h"

#include "engine/fabric/program.h"

namespace wl {

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
        if (out.at.empty()) out.at.assign(n, 0);
        out.loops.push_back(L);
        out.at[f] = uint32_t(out.loops.size());
    }
    return out;
}

}  // namespace wl
