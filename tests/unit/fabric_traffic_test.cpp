// Random traffic on random routes — multicast, merges, switch positions, control
// wavelets, congestion, faults, injects, snapshots — with everything observable hashed:
// memory, registers, stats per router (in and out), queue occupancy, switch positions,
// faults and their stuck reports, and the full trace. The golden value was produced by the
// engine before the router fast path (Router::fast) existed, so any change to timing,
// stats or trace order in either path shows up here. Native and WASM must agree.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/core/fnv.h"
#include "engine/fabric/host.h"
#include "engine/fabric/program_builder.h"

using namespace wl;

namespace {

struct Rng {
    uint64_t s;
    uint32_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return uint32_t(s >> 11);
    }
    int in(int n) { return int(next() % uint32_t(n)); }
    bool p(int pct) { return in(100) < pct; }
};
struct H {
    Fnv1a f;
    template <class T>
    void v(const T& x) {
        f.add(&x, sizeof x);
    }
    void s(const std::string& x) { f.add(x.data(), x.size()); }
};

void hash_fault(H& h, const Fault& f) {
    h.v(f.kind);
    h.v(f.x);
    h.v(f.y);
    h.v(f.colour);
    h.v(f.task);
    h.v(f.cycle);
    h.s(f.message);
    h.s(f.where);
    h.v(uint64_t(f.stuck.size()));
    for (auto& s : f.stuck) {
        h.v(s.x);
        h.v(s.y);
        h.v(s.colour);
        h.v(s.task);
        h.s(s.what);
    }
}
void hash_state(H& h, const Machine& m) {
    h.v(m.now());
    h.v(m.checksum());
    hash_fault(h, m.fault());
    MachineStats s = m.stats();
    h.v(s);
    for (int y = 0; y < m.mesh().h; ++y)
        for (int x = 0; x < m.mesh().w; ++x) {
            const Router& r = m.router(x, y);
            RouterStats rs = m.router_stats(x, y);
            h.v(rs);
            for (int c = 0; c < kColours; ++c) {
                h.v(r.cur[c]);
                h.v(r.ce_count(c));
                for (int p = 0; p < kPorts; ++p) h.v(r.count(p, c));
            }
            const Core& ce = m.core(x, y);
            h.v(ce.pc);
            h.v(ce.state);
            h.v(ce.task);
            h.v(ce.stats);
            h.f.add(ce.reg, sizeof ce.reg);
        }
    const auto ev = m.trace().events();
    h.v(m.trace().total());
    for (auto& e : ev) {
        h.v(e.cycle);
        h.v(e.x);
        h.v(e.y);
        h.v(e.kind);
        h.v(e.colour);
        h.v(e.port);
        h.v(e.tx);
        h.v(e.task);
        h.v(e.data);
    }
    for (auto& st : m.stuck(true)) h.s(st.what);
}

Program make_prog(Rng& g, int ncol, int id) {
    ProgramBuilder b("p" + std::to_string(id));
    uint32_t acc = b.array("acc", 32, ElemType::I32), xs = b.array("xs", 64);
    std::vector<float> init(64);
    for (int k = 0; k < 64; ++k) init[k] = float(k + id);
    b.init(xs, init);
    for (int c = 0; c < ncol; ++c) {
        b.data_task(c, "on" + std::to_string(c), c, g.p(10));
        if (g.p(40)) b.control_task(c, 8 + c, "onc" + std::to_string(c));
    }
    b.local_task(20, "loc", g.p(30));
    b.func("main", 8, 0, true);
    int nsend = g.in(12), len0 = 1 + g.in(40), c0 = g.in(ncol);
    b.li(0, int32_t(xs)).li(1, len0).dmem(0, 0, 1).dfabout(1, 1, c0).fmovs(1, 0, g.p(40) ? kVecAsync : 0);
    b.peid(5, 0).peid(6, 1);
    for (int k = 0; k < nsend; ++k) {
        int kind = g.in(10), c = g.in(ncol);
        if (kind < 6)
            b.addi(4, 5, k * 3).send(4, c);
        else if (kind < 7)
            b.sendc(6, c);
        else if (kind < 8)
            b.activate(20);
        else if (kind < 9)
            b.unblock(g.in(ncol));
        else {
            int len = 1 + g.in(6);
            b.li(0, int32_t(xs)).li(1, len).dmem(0, 0, 1).dfabout(1, 1, c).fmovs(1, 0, g.p(40) ? kVecAsync : 0);
        }
    }
    b.ret();
    for (int c = 0; c < ncol; ++c) {
        b.func("on" + std::to_string(c), 4, 1);
        b.li(1, int32_t(acc + 4 * c)).ld(2, 1).rrr(Op::IADD, 2, 2, 0).st(1, 0, 2);
        if (g.p(20)) b.addi(3, 0, 1).send(3, (c + 1) % ncol);
        b.ret();
        b.func("onc" + std::to_string(c), 4, 1);
        b.li(1, int32_t(acc + 64 + 4 * c)).ld(2, 1).addi(2, 2, 1).st(1, 0, 2).ret();
    }
    b.func("loc", 4, 0);
    b.li(1, int32_t(acc + 124)).ld(2, 1).addi(2, 2, 1).st(1, 0, 2).ret();
    return b.finish();
}

uint64_t scenario(uint64_t seed) {
    Rng g{seed * 0x9E3779B97F4A7C15ull + 12345};
    for (int k = 0; k < 4; ++k) g.next();
    int W = 1 + g.in(7), Hh = 1 + g.in(5);
    int ncol = 1 + g.in(4);
    int mode = g.in(5);
    if (mode == 4) mode = 3;  // 0 random routes, 1 straight lines, 2 mixed
    MachineConfig cfg{.w = W, .h = Hh};
    cfg.router_queue_depth = g.p(75) ? 2 : 1;
    cfg.ce_queue_depth = 1 + g.in(4);
    cfg.trace_capacity = g.p(70) ? 100000 : (g.p(50) ? 37 : 0);
    Host h(cfg);
    std::vector<Program> progs;
    for (int k = 0; k < 3; ++k) progs.push_back(make_prog(g, ncol, k));
    for (int y = 0; y < Hh; ++y)
        if (g.in(100) < 97) h.load(progs[g.in(3)], {0, y, W, 1});
    const int dx[4] = {0, 0, 1, -1}, dy[4] = {-1, 1, 0, 0};
    // routes
    std::vector<Route> rt(size_t(W * Hh * ncol));
    for (int y = 0; y < Hh; ++y)
        for (int x = 0; x < W; ++x)
            for (int c = 0; c < ncol; ++c) {
                Route& r = rt[size_t((y * W + x) * ncol + c)];
                uint8_t valid = kR;
                for (int d = 0; d < 4; ++d)
                    if (x + dx[d] >= 0 && x + dx[d] < W && y + dy[d] >= 0 && y + dy[d] < Hh) valid |= uint8_t(1 << d);
                if (mode == 3) {
                    r.npos = 1;
                    r.pos[0].rx = uint8_t(kR | (x > 0 ? kW : 0));
                    r.pos[0].tx = uint8_t(x + 1 < W ? kE : kR);
                    if (g.p(5)) {
                        r.npos = 2;
                        r.pos[1] = r.pos[0];
                        if (x + 1 < W && g.p(50)) r.pos[1].tx |= kR;
                    }
                    continue;
                }
                int np = (mode == 1 || g.p(70)) ? 1 : 2 + g.in(3);
                r.npos = uint8_t(np);
                for (int k = 0; k < np; ++k) {
                    uint8_t tx = 0;
                    if (mode == 1) {
                        int d = (c % 2) ? (x + 1 < W ? kEast : kRamp) : (y + 1 < Hh ? kSouth : kRamp);
                        tx = uint8_t(1 << d);
                        if (c >= 2) tx = (c % 2) ? (x > 0 ? kW : kR) : (y > 0 ? kN : kR);
                    } else {
                        while (!tx) {
                            if (g.p(75)) {
                                int d = g.in(5);
                                tx = uint8_t((1 << d) & valid);
                            } else
                                tx = uint8_t(g.in(32) & valid);
                        }
                    }
                    r.pos[k].tx = tx;
                    r.pos[k].rx = mode == 1 ? 0 : uint8_t(g.p(50) ? g.in(32) : 0);
                }
                r.pos[0].rx |= (g.in(1000) < 995) ? kR : 0;
            }
    for (int y = 0; y < Hh; ++y)
        for (int x = 0; x < W; ++x)
            for (int c = 0; c < ncol; ++c) {
                Route& r = rt[size_t((y * W + x) * ncol + c)];
                if (mode == 3) continue;
                for (int k = 0; k < r.npos; ++k)
                    for (int d = 0; d < 4; ++d)
                        if (r.pos[k].tx >> d & 1) {
                            int nx = x + dx[d], ny = y + dy[d];
                            Route& n = rt[size_t((ny * W + nx) * ncol + c)];
                            int op = d ^ 1;
                            if (g.in(1000) >= 5) n.pos[mode == 1 ? 0 : g.in(n.npos)].rx |= uint8_t(1 << op);
                        }
            }
    for (int y = 0; y < Hh; ++y)
        for (int x = 0; x < W; ++x)
            for (int c = 0; c < ncol; ++c) {
                if (g.in(1000) < 5) continue;
                h.route(x, y, c, rt[size_t((y * W + x) * ncol + c)]);
            }
    for (int y = 0; y < Hh; ++y)
        for (int x = 0; x < W; ++x)
            if (mode == 3 ? (x == 0 ? g.p(90) : g.p(8)) : g.p(mode == 1 ? 40 : 80)) h.launch({x, y, 1, 1}, "main");
    H hh;
    uint64_t total = 0;
    Machine snap = h.snapshot();
    bool have_snap = false;
    for (int slice = 0; slice < 60 && total < 3000; ++slice) {
        int act = g.in(20);
        if (act == 0) {
            const int ix = g.in(W), iy = g.in(Hh), port = g.in(5), col = g.in(ncol);   // sequenced: argument order is unspecified
            const uint32_t data = g.next();
            const bool ctrl = g.p(20);
            Fault f = h.machine().inject(ix, iy, port, col, data, ctrl);
            hash_fault(hh, f);
        }
        if (act == 1) {
            snap = h.snapshot();
            have_snap = true;
        }
        if (act == 2 && have_snap && g.p(50)) {
            h.restore(snap);
        }
        if (act == 3) {
            const int rx = g.in(W), ry = g.in(Hh), col = g.in(ncol), from = g.in(W * Hh * ncol);
            Fault f = h.route(rx, ry, col, rt[size_t(from)]);
            hash_fault(hh, f);
        }
        uint64_t k = 1 + (g.p(50) ? g.in(5) : g.in(300));
        RunResult r = g.p(85) ? h.run(k) : (g.p(70) ? h.machine().advance(k) : h.run_until_quiescent(k + 400));
        total += r.cycles + 1;
        hh.v(r.status);
        hh.v(r.cycles);
        hash_fault(hh, r.fault);
        if (g.p(30) || slice == 59) hash_state(hh, h.machine());
        if (r.status == RunStatus::Faulted) break;
        if (r.status == RunStatus::Quiescent && g.p(30)) break;
    }
    hash_state(hh, h.machine());
    return hh.f.value();
}

}  // namespace

TEST(FabricTraffic, RandomRoutesAndProgramsMatchGolden) {
    Fnv1a all;
    for (uint64_t s = 0; s < 250; ++s) {
        uint64_t v = scenario(s);
        all.add(&v, 8);
    }
    EXPECT_EQ(all.value(), 0xe61719ce531fb5bbull) << std::hex << "0x" << all.value();
}
