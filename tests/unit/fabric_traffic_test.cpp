// Random traffic on random routes — multicast, merges, switch positions, control
// wavelets, congestion, faults, injects, snapshots — with everything observable hashed:
// memory, registers, stats per router (in and out), queue occupancy, switch positions,
// faults and their stuck reports, and the full trace. The goldens hold the behaviour of the
// engine from before the router fast path (Router::fast) existed, so any change to timing, stats
// or trace order in either path shows up here. Native and WASM must agree.
// A fault and a stuck report are hashed by their fields (kind, PE, colour, task, port, count,
// kernel place), not by their words: a message can be reworded for students without touching
// the goldens, and a change in what a report says still shows.
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

void hash_stuck(H& h, const Stuck& s) {
    h.v(s.kind);
    h.v(s.x);
    h.v(s.y);
    h.v(s.colour);
    h.v(s.task);
    h.v(s.port);
    h.v(s.count);
    h.s(s.where);
}
void hash_fault(H& h, const Fault& f) {
    h.v(f.kind);
    h.v(f.x);
    h.v(f.y);
    h.v(f.colour);
    h.v(f.task);
    h.v(f.cycle);
    h.s(f.where);
    h.v(uint64_t(f.stuck.size()));
    for (auto& s : f.stuck) hash_stuck(h, s);
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
    for (auto& st : m.stuck(true)) hash_stuck(h, st);
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
    0xd0346e573480f474ull, 0xd6c48e00cf8b5005ull, 0xe275203b81c00d3full, 0x8efac7b59e5bf746ull,
    0x7bd0070f6320d1c8ull, 0xcae6e5de58c8710cull, 0x5684516e050358a4ull, 0x36b1f4cf1162696eull,
    0x5d5dc6d61ae1366aull, 0x9f3b2b8f7bd56ab9ull, 0x3fe6f860157fca30ull, 0xdefb5572609a8a5bull,
    0x9b5a347c8ca1dfeeull, 0xeb15782dbb6f0144ull, 0xb6bf2d8148ef7f22ull, 0xbc5f7b9bc0ed9931ull,
    0x502736b18e9a473dull, 0x97bd8c1f0a01f402ull, 0x511c603de0d4aeceull, 0x4b0a512597fbaebeull,
    0x40a33779c50139b0ull, 0x57629d72dc8a45bfull, 0x92468e46c6a34475ull, 0xb5449b8be8b9c775ull,
    0xb80ae69f3ebd168bull, 0x4dca62a35fad0d45ull, 0x79e952146cddb701ull, 0x7daddef240acffd5ull,
    0xd5cf81ae011f4143ull, 0x43e4f0b545a8ea1aull, 0x48700ec01d0a9d25ull, 0x9d778c2a0229bbe0ull,
    0xf3a8f9e7f9e9df4bull, 0x085df3b321711387ull, 0x9fa782e9184ff191ull, 0x032be5a0db117878ull,
    0x967342e192a45550ull, 0xe46d93edc4240210ull, 0x348f9c89ae7ceab5ull, 0xa807c6d6c2261bd7ull,
    0x813317beff993fd8ull, 0x4eca2d4dbc2278fbull, 0xe925370464ca6e06ull, 0x0368e61f885ef360ull,
    0x3dea1447d82751c1ull, 0xb467cbdb929573d8ull, 0xb33630e878fca33cull, 0x98cbb38312e4a3ddull,
    0x70e3ef30837385bdull, 0x3470ee67d59428daull, 0xb87c94af2fab07daull, 0x5e4f590b65fa738bull,
    0xff99f1c103ab5f79ull, 0x2031de1a90030dd8ull, 0x4e136e0df70b2793ull, 0x77757157f6fcfe7full,
    0x8bff1633b84e6cebull, 0x80955ab0bfce3556ull, 0x9f5b3f3c0ec992efull, 0xb1e246d0e7167bcdull,
    0x314861bea9d4f273ull, 0x100beeed46d8bb2aull, 0x1c09d7562777f91eull, 0x246dcc7926d956d5ull,
    0x2f776c2982eebbc8ull, 0xb4a856f99c7281c1ull, 0x67ea342f098031caull, 0x8e006b186eabdcb8ull,
    0x88d3bbe7b60b7ebeull, 0x34745174352a2bc3ull, 0x678b0d0437d0a929ull, 0xc02475974dc2fe97ull,
    0x4f6e3e4552bbd41dull, 0xc442bf929a69b97bull, 0x41a46f8878343c50ull, 0xe83191a192285b1bull,
    0xf4d622ed27cccf74ull, 0x75e2e3cf8fb43290ull, 0xf96d7ceb74dc3105ull, 0x3f4f6a35568f80a1ull,
    0xaae8a1878186f800ull, 0x6b725c165b3bb870ull, 0x813cd25864d58743ull, 0xf4feb2013dd01fa1ull,
    0xd417b764f3c60aeeull, 0x0983245bdc2cda23ull, 0x77139320abd030d0ull, 0x259f3bc1169992b5ull,
    0x89cf591cdcc42022ull, 0x4c8c6ee8792c9264ull, 0xac9563d90d50cb7full, 0xa40d5c61323272a2ull,
    0x4cc33f132408f328ull, 0x77111b78dab71479ull, 0x61f8c5970757a4b7ull, 0xccd976eb451cf47cull,
    0xa1cdd02ef7a96fcfull, 0xb8bc999d910c4a32ull, 0xd486b8a9f8421f05ull, 0x3cc2dafd75ad927full,
    0xdc847f26b0b53ab2ull, 0x08622d911152eacaull, 0xb5aa91bfca4b447dull, 0xaedf8665eec040f3ull,
    0x30a62246dbe27c35ull, 0xfd699d0a9edac060ull, 0x78d70008450c7735ull, 0x00d745bfe2d17b84ull,
    0xb8f19c909cc95855ull, 0xe88dc52a8ed6e303ull, 0xdfe260dea306d7f9ull, 0x9cfb0dcb2775fc30ull,
    0x8931e498cc512cbcull, 0x9c8720708e2f40eeull, 0xf1ad9f094a8a3b9aull, 0x6be9a975c625bbe9ull,
    0x26413a4bf6ca064bull, 0xa512825e50474773ull, 0x1a93a35a89c9771full, 0xc636dee57d275b49ull,
    0x695ac3575e162560ull, 0xd1ca7481d5748d62ull, 0x7ae9f7c42f4d6ff3ull, 0x6e0f0d0351b73dccull,
    0x544f0c7d919a5a26ull, 0x84ab4f6f1d156e2eull, 0x7b635be742fcb122ull, 0x48391ddf0cb396e4ull,
    0x255df37b622dd2ebull, 0x119709d01b147701ull, 0x210c3f9aa85ea4d7ull, 0xd17311053d47e976ull,
    0x308efc5581ef5b03ull, 0x224c7143fff07416ull, 0xf8d15096b3876eaaull, 0x674883c8a834b5fcull,
    0xf6ea95ab95e24f51ull, 0x4b3d6ed192a02358ull, 0x723fd1982678a4a5ull, 0xd6c07863ce27f08dull,
    0xca362e39737a1558ull, 0xd5ab9b4ffb5f19d8ull, 0xbeee4139712e157cull, 0x7c9f53d5c2d1aefaull,
    0x2361f039b811f010ull, 0x3744808f307c3308ull, 0x27e00eefe284cf48ull, 0x73704fe3a24068a0ull,
    0x7e92b02569dc345aull, 0x0e280e3df792ca3bull, 0x6348e19f2264006eull, 0xe215d6dbb0198b12ull,
    0xd52845dfba83a24cull, 0xee63dacc8b92ab60ull, 0x031ed9324c6a39f9ull, 0x339b39265105212bull,
    0x58dffb5bd11d680full, 0xd1b376ae48d0c058ull, 0xb896c639e436534cull, 0x4709babc002f1a26ull,
    0xab4dd933b55968a0ull, 0x7b3627f1f4cf3eb8ull, 0x99dabd641f399d1aull, 0x7e88e060a8819336ull,
    0xc3681fc19a1e30aeull, 0xa5a54e7ddb66d784ull, 0xc95ef0247c567ef2ull, 0x1f107b13152f8806ull,
    0x1c3ac6f94af12fdbull, 0xb7cd16f32fa91572ull, 0x8c85d4b322daaf0bull, 0x2c4efea93c96ea8full,
    0xc95ee4120fbac6b7ull, 0xbcdabc55f3785b2bull, 0xad2dce49041a05c6ull, 0xd8bed0ccc0d7b67eull,
    0x63a5a7c627319596ull, 0x9e8202f00d85636aull, 0x7150ba678d11ff86ull, 0xce5140409cdac2bfull,
    0x90a8ebafc9f0ef93ull, 0x1bcf50b0d08428edull, 0xe227f8a0e872f796ull, 0x2ab446510a22b057ull,
    0x362b55813de6507bull, 0x74b5cf7fa355f78full, 0xb6a56c7501e4f8b2ull, 0xd2d243d3c2718344ull,
    0x96e46df30207d39eull, 0x1cfb83a713fb5236ull, 0xe5a704a45bda7e05ull, 0x0698313c85fe0712ull,
    0x69dfa3e03294ec8aull, 0xa8dff13f3616ba76ull, 0x19215eedeee4d9a9ull, 0xfb32968202e538cdull,
    0xc27114176d575751ull, 0xedd5305010567640ull, 0x746f93d86fa56448ull, 0x8ee1707576f9d8f2ull,
    0xbf3cdcd524a1ca00ull, 0x92f9d9917e0db432ull, 0x3418c41c954d127dull, 0x21c8f9164228d5c3ull,
    0xf17422999b56798aull, 0xeb5ba0bbbb9fc526ull, 0x563453c2fa5a4873ull, 0x58a788b0dd051b38ull,
    0xfc5e9eeb71525c4full, 0x7d3343cecbf3d128ull, 0x8623e2b4356db57aull, 0x3b068ab0b57d9e79ull,
    0x37cf6fafe1c149c6ull, 0xe420ecccd8010eedull, 0x69037297000a2273ull, 0x47b1ccce30adc1c1ull,
    0x07585598350ecd78ull, 0xda71aad2952b4732ull, 0x6b87d1e31d6492b9ull, 0xdc5ab577a0fc5f4aull,
    0x886b6ff8deba36e2ull, 0x7aa4a3426d18174eull, 0x2096ca9b85c1e68eull, 0x2b49907296fab756ull,
    0xaeff99835045bcbeull, 0x035837e50281b34full, 0xaef96c82f91b4f8cull, 0x4d4bd922a1ff0949ull,
    0xe81ab6eda8666b90ull, 0xea1e2db60f4a5cd6ull, 0xf4774650c25365a3ull, 0xbabcae0a272e54c8ull,
    0x76ae8c14515c35f3ull, 0x770f2eede51c5ea9ull, 0x3bd9a6575a2c41b0ull, 0x3dcbd8f2a0328893ull,
    0x316baf97bd4b42b4ull, 0x54388ecf95908b45ull, 0xddcc011ee8d613c1ull, 0x76cbe16fce848607ull,
    0x66f614e59a142860ull, 0xcd24b63f3b79e4adull, 0xa5962ea4b0a79b04ull, 0x0932ade4383094b3ull,
    0x7d5c0f91b6893f15ull, 0x45b033f2fcc61573ull, 0xa244e03aa1285bd2ull, 0xe59c45b1f3600c4cull,
    0xa01c66b10372c84dull, 0x43cb4a2e4ddb9b36ull,
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
    EXPECT_EQ(all.value(), 0x925a3e372e254904ull) << std::hex << "0x" << all.value();
}

