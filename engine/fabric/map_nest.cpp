// map_nest.cpp: find_map_nests (map_nest.h).
#include "engine/fabric/map_nest.h"

#include "engine/fabric/program.h"

#include <algorithm>

namespace wl {

static_assert(sizeof MapNest::dsd == kDsdRegs, "a nest may write every DSD");

namespace {

// A map nest's lead and tail may also set a map's steps (dstep: a register's copy, which the
// state tracks).
bool linear(Op op) { return op_is_linear(op) || op == Op::DSTEP; }

// The affine nest around the map at pc m (map_nest.h), if there is one: false otherwise.
bool decode(const Program& p, uint32_t m, MapNest* out) {
    const uint32_t n = uint32_t(p.code.size());
    const Instr& map = p.code[m];
    const Instr& fm = p.code[m + 1];   // validate_program: a map's op follows it
    // An fmacs y += b s on memory, its scalar loaded by the map (so the passes' scalars are data).
    if (fm.op != Op::FMACS || fm.e != 0 || fm.a != fm.b || fm.c == fm.a || map.a == kNoReg || fm.d != map.a || map.b == map.a ||
        map.c == map.a)
        return false;
    MapNest N;
    N.map = m;
    uint32_t q = m + 2, straight = 0;
    for (; q < n && op_is_straight(p.code[q].op) && straight < kMaxMapNestStraight; ++q, ++straight) {
        if (!linear(p.code[q].op)) return false;
        N.tail_cycles += op_base_cycles(p.code[q].op);
    }
    if (q >= n || p.code[q].op != Op::BLT) return false;
    const int32_t lead = p.code[q].imm;
    if (lead < 0 || uint32_t(lead) > m || straight + (m - uint32_t(lead)) > kMaxMapNestStraight) return false;
    N.last_cost = op_base_cycles(Op::BLT);
    for (uint32_t k = uint32_t(lead); k < m; ++k) {
        if (!linear(p.code[k].op)) return false;
        N.lead_cycles += op_base_cycles(p.code[k].op);
        N.last_cost = op_base_cycles(p.code[k].op);
    }
    N.lead = uint32_t(lead), N.blt = q;
    // The scalar is dead as a pass starts: from the fmacs on (tail, outer blt, lead, the map's own
    // operands) nothing reads it before something writes it.
    const uint64_t scalar = 1ull << (map.a & 63);
    bool written = false;
    for (uint32_t k = m + 2; k <= q && !written; ++k) {
        if (regs_read(p.code[k]) & scalar) return false;
        written = (regs_written(p.code[k]) & scalar) != 0;
    }
    for (uint32_t k = uint32_t(lead); k < m && !written; ++k) {
        if (regs_read(p.code[k]) & scalar) return false;
        written = (regs_written(p.code[k]) & scalar) != 0;
    }
    // What a pass writes.
    auto add = [](uint8_t* list, uint8_t& count, uint8_t v) {
        if (std::find(list, list + count, v) == list + count) list[count++] = v;
    };
    for (uint32_t k = uint32_t(lead); k < q; ++k) {
        if (k == m || k == m + 1) continue;
        const Instr& in = p.code[k];
        if (op_writes_dsd(in.op)) add(N.dsd, N.ndsd, in.a);
        else if (op_writes(in.op) == op_regs::A) add(N.reg, N.nreg, in.a);
    }
    N.scalar_set = written;

    add(N.reg, N.nreg, map.a);
    add(N.dsd, N.ndsd, fm.a);
    add(N.dsd, N.ndsd, fm.c);
    *out = N;
    return true;
}

}  // namespace

MapNests find_map_nests(const Program& p) {
    MapNests out;
    const uint32_t n = uint32_t(p.code.size());
    for (uint32_t m = 0; m + 1 < n; ++m) {
        MapNest N;
        if (p.code[m].op != Op::MAP || !decode(p, m, &N)) continue;
        if (out.at.empty()) out.at.assign(n, 0);
        out.nests.push_back(N);
        out.at[m] = uint32_t(out.nests.size());
    }
    return out;
}

}  // namespace wl
