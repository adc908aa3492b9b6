// fmacs_loop.cpp: find_fmacs_loops (fmacs_loop.h).
#include "engine/fabric/fmacs_loop.h"

namespace wl {

std::vector<uint32_t> find_fmacs_loops(const Program& p) {
    std::vector<uint32_t> at;
    const uint32_t n = uint32_t(p.code.size());
    for (uint32_t f = 0; f < n; ++f) {
        const Instr& fm = p.code[f];
        if (fm.op != Op::FMACS || fm.e != 0) continue;
        uint64_t written = 0, stepped = 0;   // registers the body writes; registers daddr reads
        uint32_t j = f + 1;
        for (; j < n && j - f - 1 < kMaxFmacsLoopPost; ++j) {
            const Instr& in = p.code[j];
            if (in.op == Op::IADDI) written |= 1ull << (in.a & 63);
            else if (in.op == Op::DADDR) stepped |= 1ull << (in.b & 63);
            else break;
        }
        if (j >= n || p.code[j].op != Op::BLT) continue;
        // The branch goes back to the fmacs, or to one ld just before it. The loop lies in one function:
        // a branch target is in its branch's function (validate_program), and functions are contiguous.
        const int32_t head = p.code[j].imm;
        if (f > 0 && head == int32_t(f) - 1 && p.code[f - 1].op == Op::LD) written |= 1ull << (p.code[f - 1].a & 63);
        else if (head != int32_t(f)) continue;
        if (written & stepped) continue;   // a daddr's step must not change inside the loop
        if (at.empty()) at.assign(n, 0);
        at[f] = j;
    }
    return at;
}

}  // namespace wl
