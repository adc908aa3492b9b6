// Random traffic on random routes — multicast, merges, switch positions, control
// wavelets, congestion, faults, injects, snapshots — with everything observable hashed:
// memory, registers, stats per router (in and out), queue occupancy, switch positions,
// faults and their stuck reports, and the full trace. The golden values were produced by the
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
    h.f.add(&s, kHashedMachineStats);
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
            h.f.add(&ce.stats, kHashedCoreStats);
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

// One hash per scenario, indexed by its seed, so a failure names the seed to rerun.
// Together they hash to the suite's single golden value (checked below; the same in WASM).
constexpr uint64_t kGolden[250] = {
    0xa5ae8120888e007cull, 0xb9f6391e8e4e906eull, 0x3b4b0fb4c59218beull, 0x59bd1c014a1c3125ull,
    0x0efd5cc1f4517500ull, 0xb2d288cb3ef2501full, 0x8fbff4246e8c7042ull, 0xa0daae196b9b095eull,
    0x6ce4653f4f414912ull, 0xa833874ea848eb27ull, 0xf3fa7b627b2f3a76ull, 0x400e142aa1374d79ull,
    0x1208ff95e74242f6ull, 0x3831dce38a872015ull, 0x6252a9cbabdfa0f2ull, 0x2e9089493f8b1075ull,
    0x8898d622c7b936dbull, 0x97bd8c1f0a01f402ull, 0xe39185d6202dceddull, 0x4b0a512597fbaebeull,
    0xccf6d187d62b726full, 0x39dfe47089b16537ull, 0x175d4272e4837457ull, 0x38b2e6972e9b5193ull,
    0x328df5ec0c507602ull, 0xe5d7c4eaca7007f1ull, 0x4aa60aea7e60066aull, 0xa6f5453d0521230bull,
    0xf129525734c695a2ull, 0x99f68fbe7438f407ull, 0x4cf1b6c094a3e02dull, 0x4fd7e98c1794ccf2ull,
    0xa06afbaf0f55f7fcull, 0x8d6ae28fe1e527ceull, 0xfaa2356acdfa3ceaull, 0xd52c7158069c4846ull,
    0x967342e192a45550ull, 0xa940fa8c8461baefull, 0xb03a16bbff86de8cull, 0x06e7c8b7fb1c1731ull,
    0x3d69e168015d38c7ull, 0x4eca2d4dbc2278fbull, 0xb14367ae5205c6e4ull, 0xbd591231fbce80cfull,
    0x3dea1447d82751c1ull, 0x94b6be536e0851d2ull, 0x5f14d2cb4bc7b873ull, 0x3f715a0737343d03ull,
    0xa4157ae11405feadull, 0x0eaa4e3ce8e6aec1ull, 0x02353f8ef7f497edull, 0x8233188e47b4fffbull,
    0x0e05282edd3da34bull, 0xb3e0fd9d4260b669ull, 0xdc674bd64fc00a99ull, 0xe08df7489636613full,
    0x0350cff987e641e5ull, 0x2d1b193767126517ull, 0x639570746572a6f9ull, 0x82b5c8b8cae064a9ull,
    0xc9387fb1905c43d2ull, 0x8457eb73356281c5ull, 0x1c09d7562777f91eull, 0xa2cbed13e94f7ab9ull,
    0xeefb2f32252fa743ull, 0xc302800106b738a9ull, 0xcbea4eb2e2f10edaull, 0x8a778b5b8bc741a0ull,
    0x9e8134c1fc2ceebbull, 0x34745174352a2bc3ull, 0xd83332c68d3d950aull, 0x74f81771082b6c67ull,
    0x4f6e3e4552bbd41dull, 0x0d015c2f42204675ull, 0x83a60db54908fa8dull, 0xa4c3fcc6d928f99dull,
    0x582f05304c3ccd78ull, 0x75e2e3cf8fb43290ull, 0x0ec4b6ecd0d3319cull, 0xb1ffe8acf876fc40ull,
    0xaae8a1878186f800ull, 0x1b04211a20522831ull, 0xde1568fb2cad08d3ull, 0x6c513b46ef9f5324ull,
    0x1c52df4e569aa561ull, 0x443fe92f843594f2ull, 0x5f1bbf952bb7449aull, 0x74ea45ca15073022ull,
    0xd03abac5ba7c1da0ull, 0x8c03916edd3347eeull, 0xb11ee8ecae8582d4ull, 0xfc041f705cd9438full,
    0x7a08e3a0b801f4e1ull, 0x5ce2b348ef413e7cull, 0x2c803ddd0c8b9ff7ull, 0xe9bfb501c1ecad78ull,
    0xbc57ed50e2a1b2b1ull, 0xbd41d85c4a1b1da0ull, 0xaafbe327face7ac0ull, 0x5b10658cbc5271bcull,
    0x71ac6c3746b6a5c1ull, 0xe04315ba32d7fdc4ull, 0x6ce833e11018c9ccull, 0x12ce030dfbace085ull,
    0x42fdf3b845f6469dull, 0xa322f743b9d893ebull, 0xfa7f7c9eb50d2522ull, 0x00d745bfe2d17b84ull,
    0x95c6417331d0955aull, 0xa71f7839a606964aull, 0xdfe260dea306d7f9ull, 0xa42550b8d3153c5eull,
    0x6c033024a751c58aull, 0xf098e7f0f215b17bull, 0x32c41e8cd25e50eaull, 0x1f801f282f148e3eull,
    0x2a0844d87895b47full, 0x30c7d3ed8c70dcf6ull, 0x2a6e0931db8b3868ull, 0x6f89b993cdd63101ull,
    0xca64a6b1be11c7beull, 0xd4b9af691a190b6cull, 0x578d91eeb60e25b7ull, 0x931a9417bced652eull,
    0x80bd4f8935e7a752ull, 0x2e37ad5515dc5a42ull, 0x7b635be742fcb122ull, 0xd8f56092b3ffb461ull,
    0x36598a8aa5c59797ull, 0x0976b30a6b423534ull, 0xf88eed36f384ac35ull, 0xc0955669c005829cull,
    0xaa0ac191219cc205ull, 0xcbaa0b0e77582f50ull, 0x03030cb65230b5d8ull, 0x380a06ae11d672b1ull,
    0xf6ea95ab95e24f51ull, 0x5a8d8dfc096081d6ull, 0x6930c22334eb4949ull, 0x5d00173aa0096e67ull,
    0x5fd7448046918b25ull, 0x0d93b6e1c3df4428ull, 0xc879a3798a5c0504ull, 0xfdf5de621b9a83cfull,
    0x3d83a5266fc468f2ull, 0x49dcddbf85245e36ull, 0x6a2d502692caa3fbull, 0x043ebb189466d258ull,
    0x7ffdbb128a7f035aull, 0x149320a3eace7393ull, 0x7eb8fcfb9fd4ec3aull, 0x23e24a0dac687ce1ull,
    0xedbbe92ec672d09bull, 0x3300b1842798baeaull, 0x6275396aa758296full, 0x8f1744bf7281fef3ull,
    0xef667822835127c1ull, 0x9e5d59107dd8deeaull, 0xf23dfc28c2784328ull, 0xeb1ce34b5f7f9804ull,
    0x12842f069ff0e82full, 0x90691b9008be6605ull, 0xc6aedf2bc62a20d5ull, 0x17c71add23992f82ull,
    0x59196330d3e29e96ull, 0x7444968a80e23e09ull, 0x01dc7cd6d3cf5f4bull, 0xcd8f559c33e0572aull,
    0xecdd959fe2999349ull, 0xf014bbc413efc935ull, 0xb2834404afade15dull, 0x56b7a9c10d29effbull,
    0x91b9180a7369ffebull, 0x168e8c4ca9c0f68dull, 0x8ae47b2a78f9f856ull, 0x89b9e2dac0d78a07ull,
    0xc7b286f9d1f22bafull, 0x9e8202f00d85636aull, 0x6d2d8f2f756a8773ull, 0xae5ece71e14c78b7ull,
    0x90a8ebafc9f0ef93ull, 0x4f89efe78b941023ull, 0x5c3f61ca4bf9f535ull, 0x0fb057445d9ac5b9ull,
    0xdaf81e421778c9b0ull, 0xb44d6d65a7468967ull, 0x70426d3db3703ba6ull, 0xdf0282791b47623eull,
    0x40866a59ca1a5419ull, 0x72331b9cc86a9c9aull, 0x6f1414440c2c889dull, 0x1aefb467bd372e78ull,
    0x74fad730488f1731ull, 0xa8dff13f3616ba76ull, 0xe8505cc67a2021ecull, 0x34dbfe6e92d196c8ull,
    0xc27114176d575751ull, 0xedd5305010567640ull, 0xe46eae03168e6a61ull, 0x47e1f38139c2bf64ull,
    0xd1063f08f2b67842ull, 0x26ea19e90927aa2cull, 0xb87f5ed186e91a68ull, 0x5715a5eb81b1c2daull,
    0xa7602ba5658444e1ull, 0x6d63e3ffea744d41ull, 0x8d466406527bee35ull, 0x529f081688bfc8cfull,
    0x1cee4bfd102f5a5full, 0xa861368e86c613f6ull, 0x61d7ac516f376d77ull, 0xf012c565dac6c5afull,
    0xc59c77dd22ac8d34ull, 0x3b5024da3864445aull, 0xb148777ec7cf2b6bull, 0x045896fbba24e808ull,
    0xa2ef842c7b48a3e5ull, 0x9186d6eebb81419cull, 0x81b0122cdf7f491bull, 0x17161f650343534cull,
    0x1f97ff435300f07full, 0xfa6b7ece1d7d7d96ull, 0x5dc841384a9087dbull, 0x5ddcc22387329d2bull,
    0x1561a8181822fe3bull, 0xe9b64fba5a764432ull, 0xacd2822ad04d9937ull, 0x4866bb198d5e6477ull,
    0x56b4f86c9a65683full, 0xea1e2db60f4a5cd6ull, 0xf4774650c25365a3ull, 0x8c00c19deec23350ull,
    0x2da321fcfca61b35ull, 0xc26a0ea2aa41b810ull, 0x401f2162068379d5ull, 0x721d813f8b914430ull,
    0xc036c2bc42e1493full, 0xc4ff9f0f56bc7d54ull, 0xfac231c3ceb98163ull, 0xa720dfabbf60b42aull,
    0x1cf23cb4f2f006ccull, 0xc281262a243ae4c6ull, 0xf173919fd4007468ull, 0xd67ec9cb6103da07ull,
    0xa647eae0a32bf3c8ull, 0x492184c3288a4e62ull, 0x3a6b2f4dd9a3cc2dull, 0x9b5117c7db570ff9ull,
    0x57dc5c247542bc0full, 0x7ee118a442bd0254ull,
};

TEST(FabricTraffic, RandomRoutesAndProgramsMatchGolden) {
    for (uint64_t s = 0; s < 250; ++s) {
        const uint64_t got = scenario(s);
        EXPECT_EQ(got, kGolden[s]) << "scenario seed " << s << std::hex << ": got 0x" << got << ", golden 0x" << kGolden[s];
    }
}

TEST(FabricTraffic, PerScenarioGoldenIsTheOriginalOne) {
    Fnv1a all;
    for (uint64_t v : kGolden) all.add(&v, 8);
    EXPECT_EQ(all.value(), 0xe61719ce531fb5bbull) << std::hex << "0x" << all.value();
}
