// fabric_fixtures.h: hand-built programs shared by the fabric tests.
#pragma once
#include "engine/fabric/host.h"
#include "engine/fabric/program_builder.h"

#include <gtest/gtest.h>
#include <vector>

namespace wl {

inline std::vector<float> fixture_values(size_t n, float scale, float bias) {
    std::vector<float> v(n);
    for (size_t k = 0; k < n; ++k) v[k] = float(int(k * 7 % 11) - 5) * scale + bias;
    return v;
}

// GEMV y = A x over a row of W PEs, each owning Nb columns of A (column-major).
// Feeders on the row above stream each PE's x block south (colour 2); each x_j
// triggers a data task doing y += A[:,j] * x_j. After Nb of them the PE's
// partial y joins the chain flowing east on colours 0/1.
struct Gemv {
    static constexpr int M = 8, Nb = 4, W = 4, N = Nb * W;
    static Program feeder() {
        ProgramBuilder b("feeder", "feeder.wl");
        uint32_t xb = b.array("xb", Nb);
        b.func("main", 4, 0, true);
        b.at(2).li(0, int32_t(xb)).li(1, Nb).dmem(0, 0, 1).dfabout(1, 1, 2).at(3).fmovs(1, 0).ret();
        return b.finish();
    }
    static Program worker() {
        ProgramBuilder b("gemv", "gemv.wl");
        uint32_t A = b.array("A", M * Nb), y = b.array("y", M), cnt = b.array("cnt", 1, ElemType::I32), out = b.array("out", M);
        b.data_task(2, "on_x");
        b.local_task(24, "reduce");
        b.func("main", 4, 0, true);   // DSDs persist across tasks: d0 = y, d1 = current column of A
        b.at(10).li(0, int32_t(y)).li(1, M).dmem(0, 0, 1).li(0, int32_t(A)).dmem(1, 0, 1).ret();
        b.func("on_x", 4, 1);         // r0 = x_j
        b.at(20).fmacs(0, 0, 1, 0);
        b.at(21).li(1, M * 4).daddr(1, 1);
        b.at(22).li(2, int32_t(cnt)).ld(1, 2).addi(1, 1, 1).st(2, 0, 1);
        int more = b.label();
        b.li(3, Nb).rrr(Op::ILT, 3, 1, 3).bnz(3, more).activate(24);
        b.bind(more).ret();
        b.func("reduce", 8, 0);
        b.at(30).li(5, M).peid(0, 0).peid(1, 2).addi(1, 1, -1).rrr(Op::IEQ, 2, 0, 1);
        b.li(3, int32_t(out)).dmem(3, 3, 5);
        int odd = b.label(), first = b.label(), last_e = b.label(), last_o = b.label();
        b.li(4, 1).rrr(Op::IAND, 4, 0, 4).bnz(4, odd);
        b.dfabin(1, 5, 1).dfabout(2, 5, 0).bnz(2, last_e).bz(0, first);
        b.at(31).fadds(2, 1, 0).ret();
        b.bind(first).at(32).fmovs(2, 0).ret();
        b.bind(last_e).at(33).fadds(3, 1, 0).ret();
        b.bind(odd).dfabin(1, 5, 0).dfabout(2, 5, 1).bnz(2, last_o);
        b.at(34).fadds(2, 1, 0).ret();
        b.bind(last_o).at(35).fadds(3, 1, 0).ret();
        return b.finish();
    }
    std::vector<float> A, x;   // A row-major M x N
    Gemv() : A(fixture_values(M * N, 0.125f, 0.5f)), x(fixture_values(N, 0.5f, -0.25f)) {}

    void setup(Host& h) {
        ASSERT_FALSE(h.load(feeder(), {0, 0, W, 1}));
        ASSERT_FALSE(h.load(worker(), {0, 1, W, 1}));
        for (int i = 0; i < W; ++i) {
            ASSERT_FALSE(h.route(i, 0, 2, Route::of(kR, kS)));
            ASSERT_FALSE(h.route(i, 1, 2, Route::of(kN, kR)));
            int o = i % 2;
            if (i < W - 1) { ASSERT_FALSE(h.route(i, 1, o, Route::of(kR, kE))); }
            if (i > 0) { ASSERT_FALSE(h.route(i, 1, 1 - o, Route::of(kW, kR))); }
            std::vector<float> cols(M * Nb);
            for (int j = 0; j < Nb; ++j)
                for (int r = 0; r < M; ++r) cols[j * M + r] = A[r * N + i * Nb + j];
            ASSERT_FALSE(h.h2d(i, 1, "A", cols.data(), cols.size()));
            ASSERT_FALSE(h.h2d(i, 0, "xb", x.data() + i * Nb, Nb));
        }
        ASSERT_FALSE(h.launch({0, 1, W, 1}, "main"));
        ASSERT_FALSE(h.launch({0, 0, W, 1}, "main"));
    }
    std::vector<float> expected() const {
        std::vector<float> total(M, 0.0f);
        for (int i = 0; i < W; ++i) {
            std::vector<float> part(M, 0.0f);
            for (int j = 0; j < Nb; ++j)
                for (int r = 0; r < M; ++r) part[r] = part[r] + A[r * N + i * Nb + j] * x[i * Nb + j];
            for (int r = 0; r < M; ++r) total[r] = i == 0 ? part[r] : total[r] + part[r];
        }
        return total;
    }
};

}  // namespace wl
