// lang_examples_test.cpp: the example kernels, run through their host blocks,
// checked against plain C++ computed from the same fill generators.
#include "engine/lang/compile.h"
#include "engine/lang/run.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace wl::lang;

namespace {

std::string read_example(const std::string& name) {
    std::ifstream in(std::string(WAFERLAB_SOURCE_DIR) + "/examples/" + name);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

RunReport run_example(const std::string& name, CompileResult* out = nullptr) {
    CompileResult cr = compile(read_example(name), name);
    EXPECT_TRUE(cr.ok()) << name << ": " << (cr.diagnostics.empty() ? "" : format_diagnostic(cr.diagnostics[0]));
    RunReport rep = run_kernel(cr);
    EXPECT_TRUE(rep.ok) << rep.error;
    if (out) *out = std::move(cr);
    return rep;
}

float rnd(double seed, uint64_t k) { return fill_value(GenKind::Random, {seed}, k); }

}  // namespace

TEST(LangExamples, HelloDoublesWhatItReceives) {
    RunReport r = run_example("hello.wk");
    EXPECT_EQ(r.values["y@1,0"], (std::vector<float>{2, 4, 6, 8}));
    EXPECT_GT(r.cycles, 0u);
    EXPECT_EQ(r.link_wavelets, 4u);
}

TEST(LangExamples, BroadcastReachesEveryPe) {
    RunReport r = run_example("broadcast.wk");
    std::vector<float> want;
    for (int i = 0; i < 8; ++i) want.push_back(1.0f + 0.5f * float(i));
    EXPECT_EQ(r.values["x@3,0"], want);
}

TEST(LangExamples, ChainReductionMatchesCpp) {
    RunReport r = run_example("reduction.wk");
    std::vector<float> want(8, 0.0f);
    for (int i = 0; i < 8; ++i) {
        float acc = float(i);                                   // head
        for (int pe = 1; pe < 4; ++pe) acc = float(8 * pe + i) + acc;   // own + incoming
        want[size_t(i)] = acc;
    }
    EXPECT_EQ(r.values["sum@3,0"], want);
}

TEST(LangExamples, AllReduceGivesEveryPeTheSum) {
    RunReport r = run_example("allreduce.wk");
    for (int pe = 0; pe < 4; ++pe) {
        std::vector<float> want;
        for (int i = 0; i < 4; ++i) want.push_back(float(28 + 4 * i));
        EXPECT_EQ(r.values["x@" + std::to_string(pe) + ",0"], want) << pe;
    }
}

TEST(LangExamples, CheckerboardGemvMatchesCpp) {
    const int W = 4, H = 2, MB = 4, NB = 4, M = H * MB, N = W * NB;
    RunReport r = run_example("gemv.wk");
    // The host block's fills, replayed: A row-major by PE, each block column-major; x over the top row.
    std::vector<float> A(size_t(M * N)), x(static_cast<size_t>(N));
    for (int py = 0; py < H; ++py)
        for (int px = 0; px < W; ++px)
            for (int e = 0; e < MB * NB; ++e) {
                int c = e / MB, rr = e % MB;
                A[size_t((py * MB + rr) * N + px * NB + c)] = rnd(1, uint64_t((py * W + px) * MB * NB + e));
            }
    for (int k = 0; k < N; ++k) x[size_t(k)] = rnd(2, uint64_t(k));
    for (int py = 0; py < H; ++py) {
        const std::vector<float>& got = r.values["y@3," + std::to_string(py)];
        ASSERT_EQ(got.size(), size_t(MB));
        for (int rr = 0; rr < MB; ++rr) {
            // the mesh's order: per block, columns in order; then blocks summed west to east
            float sum = 0;
            for (int px = 0; px < W; ++px) {
                float part = 0;
                for (int c = 0; c < NB; ++c) part = part + A[size_t((py * MB + rr) * N + px * NB + c)] * x[size_t(px * NB + c)];
                sum = px == 0 ? part : part + sum;
            }
            EXPECT_EQ(got[size_t(rr)], sum) << "row " << py * MB + rr;
        }
    }
}

TEST(LangExamples, FaultsPointAtTheKernelLine) {
    const char* src =
        "program p {\n"
        "    export var a: [f32; 4];\n"
        "    export fn main() {\n"
        "        let i = 5000;\n"
        "        a[i * 4] = 1.0;\n"
        "    }\n"
        "}\n"
        "layout { grid 2 x 1; place p at (1, 0); }\n"
        "host { launch main at (1, 0); run; }\n";
    CompileResult cr = compile(src, "oob.wk");
    ASSERT_TRUE(cr.ok());
    RunReport r = run_kernel(cr);
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.fault.kind, wl::FaultKind::OutOfBounds);
    EXPECT_EQ(r.fault.x, 1);
    EXPECT_EQ(r.fault.y, 0);
    EXPECT_EQ(r.fault.loc.line, 5);
    EXPECT_NE(r.error.find("oob.wk:5:"), std::string::npos) << r.error;
}

TEST(LangExamples, StencilMatchesCpp) {
    const int W = 4, H = 4, STEPS = 5;
    const float ALPHA = 0.1f;
    RunReport r = run_example("stencil.wk");
    std::vector<float> u(size_t(W * H));
    for (int k = 0; k < W * H; ++k) u[size_t(k)] = rnd(3, uint64_t(k));
    for (int s = 0; s < STEPS; ++s) {
        std::vector<float> nu(u.size());
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                float me = u[size_t(y * W + x)], sum = 0.0f;   // the kernel's order: W, E, N, S
                if (x > 0) sum += u[size_t(y * W + x - 1)];
                if (x < W - 1) sum += u[size_t(y * W + x + 1)];
                if (y > 0) sum += u[size_t((y - 1) * W + x)];
                if (y < H - 1) sum += u[size_t((y + 1) * W + x)];
                nu[size_t(y * W + x)] = me + ALPHA * (sum - 4.0f * me);
            }
        u = nu;
    }
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            const std::vector<float>& got = r.values["u@" + std::to_string(x) + "," + std::to_string(y)];
            ASSERT_EQ(got.size(), 1u);
            EXPECT_EQ(got[0], u[size_t(y * W + x)]) << x << "," << y;
        }
}

// A P x P grid of B x B blocks, each stored column by column, filled row-major by PE.
static float block_elem(double seed, int P, int B, int row, int col) {
    int py = row / B, px = col / B, r = row % B, c = col % B;
    return rnd(seed, uint64_t((py * P + px) * B * B + c * B + r));
}

static void check_gemm(RunReport& r, int P, int B, double sa, double sb) {
    for (int py = 0; py < P; ++py)
        for (int px = 0; px < P; ++px) {
            const std::vector<float>& got = r.values["C@" + std::to_string(px) + "," + std::to_string(py)];
            ASSERT_EQ(got.size(), size_t(B * B));
            for (int c = 0; c < B; ++c)
                for (int rr = 0; rr < B; ++rr) {
                    float acc = 0;   // the mesh's order: k (block) outer, l inner, unfused multiply-add
                    for (int k = 0; k < P * B; ++k)
                        acc = acc + block_elem(sa, P, B, py * B + rr, k) * block_elem(sb, P, B, k, px * B + c);
                    EXPECT_EQ(got[size_t(c * B + rr)], acc) << "C(" << py * B + rr << "," << px * B + c << ")";
                }
        }
}

TEST(LangExamples, SummaGemmMatchesCpp) {
    RunReport r = run_example("summa.wk");
    check_gemm(r, 8, 4, 11, 12);
}

// The example is written for any P: sized from C++ by a constant override, not by rewriting its text.
TEST(LangExamples, SummaScalesWithP) {
    CompileOptions co;
    co.constants["P"] = 5;
    CompileResult cr = compile(read_example("summa.wk"), "summa.wk", co);
    ASSERT_TRUE(cr.ok()) << format_diagnostic(cr.diagnostics[0]);
    EXPECT_EQ(cr.grid_w, 5);
    RunReport r = run_kernel(cr);
    ASSERT_TRUE(r.ok) << r.error;
    check_gemm(r, 5, 4, 11, 12);
}

// An override the file does not declare is an error, unless the caller marks it optional (a
// feature switch an older copy of a kernel lacks): then it is skipped, and the rest still apply.
TEST(LangExamples, AnUndeclaredOverrideIsAnErrorUnlessOptional) {
    CompileOptions co;
    co.constants["P"] = 5;
    co.constants["NO_SUCH"] = 1;
    CompileResult bad = compile(read_example("summa.wk"), "summa.wk", co);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(format_diagnostic(bad.diagnostics[0]).find("constant override 'NO_SUCH'"), std::string::npos);
    co.optional_constants = {"NO_SUCH"};
    CompileResult cr = compile(read_example("summa.wk"), "summa.wk", co);
    ASSERT_TRUE(cr.ok()) << format_diagnostic(cr.diagnostics[0]);
    EXPECT_EQ(cr.grid_w, 5);
}

TEST(LangExamples, CannonGemmMatchesCpp) {
    const int P = 4, B = 3;
    RunReport r = run_example("cannon.wk");
    for (int py = 0; py < P; ++py)
        for (int px = 0; px < P; ++px) {
            const std::vector<float>& got = r.values["C@" + std::to_string(px) + "," + std::to_string(py)];
            ASSERT_EQ(got.size(), size_t(B * B));
            for (int c = 0; c < B; ++c)
                for (int rr = 0; rr < B; ++rr) {
                    float acc = 0;   // after the skew, step q multiplies block k = (i + j + q) mod P
                    for (int q = 0; q < P; ++q) {
                        int kb = (py + px + q) % P;
                        for (int l = 0; l < B; ++l)
                            acc = acc + block_elem(21, P, B, py * B + rr, kb * B + l) * block_elem(22, P, B, kb * B + l, px * B + c);
                    }
                    EXPECT_EQ(got[size_t(c * B + rr)], acc) << "C(" << py * B + rr << "," << px * B + c << ")";
                }
        }
}

// docs/kernel-language.md quotes each example's cycles, PE utilisation and link traffic
// (`| NAME.wk | grid | what | cycles | utilisation | wavelet-hops |`, and hello's run
// output): they are what the examples do now, so a code generator change that moves
// them fails here rather than misleading a reader.
TEST(LangExamples, TheDocsQuoteWhatTheyDo) {
    std::ifstream in(std::string(WAFERLAB_SOURCE_DIR) + "/docs/kernel-language.md");
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string doc = ss.str();
    const size_t from = doc.find("\n## Examples\n");
    ASSERT_NE(from, std::string::npos);
    std::istringstream table(doc.substr(from, doc.find("\n## ", from + 1) - from));
    int rows = 0;
    for (std::string line; std::getline(table, line);) {
        if (line.rfind("| ", 0) != 0 || line.find(".wk |") == std::string::npos) continue;
        std::vector<std::string> cell;
        for (size_t a = 1, b; (b = line.find('|', a)) != std::string::npos; a = b + 1) {
            const size_t s = line.find_first_not_of(' ', a), e = line.find_last_not_of(' ', b - 1);
            cell.push_back(s < b ? line.substr(s, e + 1 - s) : "");
        }
        ASSERT_EQ(cell.size(), 6u) << line;
        const RunReport r = run_example(cell[0]);
        char util[16];
        std::snprintf(util, sizeof util, "%.1f%%", 100 * r.utilisation);
        EXPECT_EQ(cell[3], std::to_string(r.cycles)) << cell[0] << ": cycles";
        EXPECT_EQ(cell[4], util) << cell[0] << ": PE utilisation";
        EXPECT_EQ(cell[5], std::to_string(r.link_wavelets)) << cell[0] << ": link wavelet-hops";
        if (cell[0] == "hello.wk") {
            const std::string out = "cycles " + cell[3] + ", PE utilisation " + cell[4] + " over";
            EXPECT_NE(doc.find(out), std::string::npos) << "the hello run's output should say: " << out;
        }
        ++rows;
    }
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(std::string(WAFERLAB_SOURCE_DIR) + "/examples"))
        files += e.path().extension() == ".wk";
    EXPECT_EQ(rows, files) << "one row per file in examples/";
}
