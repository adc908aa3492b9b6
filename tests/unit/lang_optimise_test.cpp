// lang_optimise_test.cpp: the optimising code generator (CompileOptions::optimise)
// held to the plain one. Every kernel in examples/ and tests/kernels/ that runs
// is compiled both ways and run (in fast mode): output and SRAM must be the same
// bits, faults the same kind on the same PE, and the optimised code may only
// issue fewer instructions.
#include "engine/lang/compile.h"
#include "engine/lang/run.h"
#include "tests/unit/kernel_files.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

namespace fs = std::filesystem;
using namespace wl;
using namespace wl::lang;

namespace {

struct Ran {
    std::unique_ptr<KernelRun> run;
    RunReport rep;
};

Ran run(const std::string& src, const std::string& name, bool optimise) {
    CompileOptions co;
    co.optimise = optimise;
    CompileResult cr = compile(src, name, co);
    Ran r;
    if (!cr.ok() || cr.grid_w == 0 || cr.host.empty()) return r;
    RunOptions ro;
    ro.cycle_budget = wl::testing::kernel_budget(src, 5'000'000);   // the endless loops' own 200,000
    ro.mode = RunMode::Fast;   // the same bits as cycle mode (fabric_fast_mode_test), in a fraction of the time
    r.run = std::make_unique<KernelRun>(std::make_shared<const CompileResult>(std::move(cr)), ro);
    r.run->finish();
    r.rep = r.run->report();
    return r;
}

}  // namespace

TEST(LangOptimise, EveryKernelGivesTheSameBitsInFewerInstructions) {
    const std::vector<fs::path> files = wl::testing::kernel_files();
    int compared = 0;
    uint64_t plain_instrs = 0, opt_instrs = 0;
    for (const fs::path& p : files) {
        SCOPED_TRACE(p.string());
        const std::string src = wl::testing::slurp(p);
        if (src.find("// fast mode:") != std::string::npos) continue;   // its outcome depends on timing
        Ran a = run(src, p.filename().string(), false), b = run(src, p.filename().string(), true);
        if (!a.run) continue;
        ASSERT_TRUE(b.run) << "compiles plainly but not optimised";
        ++compared;
        if (!a.rep.ok) {   // a fault: the same kind on the same PE
            ASSERT_FALSE(b.rep.ok) << "plain code faulted (" << a.rep.error << "), optimised code ran";
            EXPECT_EQ(fault_kind_name(b.rep.fault.kind), fault_kind_name(a.rep.fault.kind)) << b.rep.error;
            EXPECT_EQ(b.rep.fault.x, a.rep.fault.x);
            EXPECT_EQ(b.rep.fault.y, a.rep.fault.y);
            continue;
        }
        ASSERT_TRUE(b.rep.ok) << b.rep.error;
        EXPECT_EQ(b.rep.output, a.rep.output);
        const Machine& ma = a.run->machine();
        const Machine& mb = b.run->machine();
        for (int y = 0; y < ma.mesh().h; ++y)
            for (int x = 0; x < ma.mesh().w; ++x) {
                const uint32_t S = std::max(ma.core(x, y).sram_used, mb.core(x, y).sram_used);
                EXPECT_EQ(std::memcmp(ma.sram(x, y), mb.sram(x, y), S), 0) << "SRAM differs on PE (" << x << "," << y << ")";
            }
        EXPECT_EQ(b.rep.stats.sent, a.rep.stats.sent);
        EXPECT_EQ(b.rep.stats.elems, a.rep.stats.elems);
        EXPECT_LE(b.rep.stats.instrs, a.rep.stats.instrs);
        plain_instrs += a.rep.stats.instrs;
        opt_instrs += b.rep.stats.instrs;
        std::printf("  %-24s instructions %9llu -> %9llu   cycles %9llu -> %9llu\n", p.filename().string().c_str(),
                    (unsigned long long)a.rep.stats.instrs, (unsigned long long)b.rep.stats.instrs,
                    (unsigned long long)a.rep.cycles, (unsigned long long)b.rep.cycles);
    }
    EXPECT_GE(compared, 9);
    EXPECT_LT(opt_instrs, plain_instrs);
}

// The forms it emits, on one loop: an index scaled by one shift, its constant part in the
// load's offset, the loop tested at the bottom.
TEST(LangOptimise, ALoopOverAnArray) {
    const char* src = R"(layout { grid 1 x 1; place k at (0, 0); }
program k {
    export var a: [f32; 8];
    export var s: f32;
    export fn main() {
        for i in 0..4 { s = s + a[2 * i + 1]; }
    }
}
host { fill a at (0, 0) with iota(); launch main at (0, 0); run; print s at (0, 0); }
)";
    CompileOptions co;
    co.optimise = true;
    CompileResult cr = compile(src, "loop.wk", co);
    ASSERT_TRUE(cr.ok()) << format_diagnostic(cr.diagnostics[0]);
    const std::string code = cr.placements[0].program->disassemble();
    EXPECT_NE(code.find("ishli"), std::string::npos) << code;   // i * 8 as a shift
    EXPECT_EQ(code.find("jmp"), std::string::npos) << code;     // constant bounds: entered without a test
    EXPECT_NE(code.find("blt"), std::string::npos) << code;     // the test and branch in one
    EXPECT_EQ(code.find("ilt"), std::string::npos) << code;
    EXPECT_EQ(code.find("imul "), std::string::npos) << code;
    KernelRun r(std::make_shared<const CompileResult>(std::move(cr)), RunOptions{});
    r.finish();
    ASSERT_TRUE(r.report().ok) << r.report().error;
    EXPECT_EQ(r.report().output, (std::vector<std::string>{"s @ (0,0): 16"}));   // 1 + 3 + 5 + 7
}

// Induction addresses: in an innermost loop an index c * i + (invariant) is stepped, not recomputed.
// SUMMA's inner loop (an fmacs over mem(Ab, l * B, B) with Bb[j * B + l]) is 6 instructions a pass:
// ld, fmacs, the two steps (iaddi, daddr), the counter and the branch.
TEST(LangOptimise, SummaInnerLoopStepsItsAddresses) {
    CompileOptions co;
    co.optimise = true;
    CompileResult cr = compile(wl::testing::slurp(fs::path(WAFERLAB_SOURCE_DIR) / "examples/summa.wk"), "summa.wk", co);
    ASSERT_TRUE(cr.ok());
    const Program& p = *cr.placements[0].program;
    uint32_t fmacs = 0;
    while (fmacs < p.code.size() && p.code[fmacs].op != Op::FMACS) ++fmacs;
    ASSERT_LT(fmacs, p.code.size());
    uint32_t blt = fmacs;
    while (blt < p.code.size() && p.code[blt].op != Op::BLT) ++blt;
    ASSERT_LT(blt, p.code.size());
    const uint32_t top = uint32_t(p.code[blt].imm);
    std::string body;
    for (uint32_t pc = top; pc <= blt; ++pc) body += std::string(op_info(p.code[pc].op).mnemonic) + " ";
    EXPECT_EQ(body, "ld fmacs iaddi daddr iaddi blt ") << p.disassemble();
}

// A local stepped once a pass (`yo += TP`, read only before that) steps its addresses as the
// counter does: the GPT matmul's inner loop keeps no dmem or address arithmetic, and takes fast
// mode's fmacs-loop shape. Where the local is read after its step, stepped under an `if`,
// assigned twice or skipped by `continue`, it is not, and every case gives plain code's bits.
TEST(LangOptimise, LocalsSteppedOnceAPassStepTheirAddresses) {
    const char* src = R"(layout { grid 1 x 1; place k at (0, 0); }
program k {
    export var w: [f32; 64];
    export var x: [f32; 64];
    export var y: [f32; 128];
    export var z: [f32; 64];
    export fn main() {
        let n = 4;
        let yo = 0;
        let wi = 3;
        for j in 0..8 {                       // derived: yo += 16, wi += 5
            fmacs(mem(y, yo, n), mem(y, yo, n), mem(x, 8, n), w[wi]);
            yo += 16;
            wi += 5;
        }
        let zo = 60;
        for j in 0..8 {                       // derived, stepping down
            z[zo] = z[zo] + x[j];
            zo -= 4;
        }
        let a = 0;
        for j in 0..8 {                       // read after its step: not derived
            a += 2;
            z[a] = z[a] + 1.0;
        }
        let b = 0;
        for j in 0..8 {                       // stepped under an if: not derived
            z[b] = z[b] + 0.5;
            if j % 2 == 0 { b += 3; }
        }
        let c = 0;
        for j in 0..8 {                       // skipped by continue: not derived
            if j == 3 { continue; }
            z[c + 1] = z[c + 1] * 2.0;
            c += 7;
        }
        let d = 1;
        for j in 0..6 {                       // assigned twice: not derived
            y[d] = y[d] + w[j];
            d += 4;
            d += 1;
        }
    }
}
host { fill w at (0, 0) with random(1); fill x at (0, 0) with random(2); fill z at (0, 0) with random(3);
       launch main at (0, 0); run; print y at (0, 0); print z at (0, 0); }
)";
    Ran plain = run(src, "derived.wk", false), opt = run(src, "derived.wk", true);
    ASSERT_TRUE(plain.run && opt.run);
    ASSERT_TRUE(plain.rep.ok) << plain.rep.error;
    ASSERT_TRUE(opt.rep.ok) << opt.rep.error;
    EXPECT_EQ(opt.rep.output, plain.rep.output);
    EXPECT_LT(opt.rep.stats.instrs, plain.rep.stats.instrs);
    // The first loop: its fmacs's DSD and w[wi]'s address stepped, nothing rebuilt a pass.
    CompileOptions co;
    co.optimise = true;
    CompileResult cr = compile(src, "derived.wk", co);
    ASSERT_TRUE(cr.ok());
    const Program& p = *cr.placements[0].program;
    uint32_t fmacs = 0;
    while (fmacs < p.code.size() && p.code[fmacs].op != Op::FMACS) ++fmacs;
    uint32_t blt = fmacs;
    while (blt < p.code.size() && p.code[blt].op != Op::BLT) ++blt;
    ASSERT_LT(blt, p.code.size());
    std::string body;
    for (uint32_t pc = uint32_t(p.code[blt].imm); pc <= blt; ++pc) body += std::string(op_info(p.code[pc].op).mnemonic) + " ";
    EXPECT_EQ(body, "ld fmacs iaddi iaddi iaddi daddr iaddi blt ") << p.disassemble();
}

// A stepped address keeps what the plain code does: values with `continue` in the loop, steps
// down (b[7 - i]), and an index past SRAM faults on the same line.
TEST(LangOptimise, SteppedAddressesKeepResultsAndFaults) {
    const char* src = R"(layout { grid 1 x 1; place k at (0, 0); }
program k {
    export var a: [f32; 8];
    export var b: [f32; 8];
    export var s: f32;
    export fn main() {
        for i in 0..8 {
            if i % 3 == 0 { continue; }
            s = s + a[i];
            b[7 - i] = a[i] * 2.0;
            fmacs(mem(b, i, 1), mem(b, i, 1), mem(a, i, 1), 0.5);
        }
        for i in 0..N { s = s + a[i * 4096]; }   // 4 passes reach byte 49,152: past the 48 KiB
    }
}
host { fill a at (0, 0) with iota(); launch main at (0, 0); run; print s at (0, 0); print b at (0, 0); }
)";
    for (int n : {3, 4}) {
        SCOPED_TRACE("N = " + std::to_string(n));
        const std::string text = "const N = " + std::to_string(n) + ";\n" + src;
        Ran plain = run(text, "steps.wk", false), opt = run(text, "steps.wk", true);
        ASSERT_TRUE(plain.run && opt.run);
        EXPECT_EQ(opt.rep.ok, plain.rep.ok);
        EXPECT_EQ(opt.rep.output, plain.rep.output);
        // The same line (the column can differ: plain code's load is at the index's outermost operator, as before).
        EXPECT_EQ(opt.rep.fault.where.substr(0, opt.rep.fault.where.rfind(':')),
                  plain.rep.fault.where.substr(0, plain.rep.fault.where.rfind(':'))) << opt.rep.error;
        EXPECT_EQ(opt.rep.fault.x, plain.rep.fault.x);
        EXPECT_EQ(fault_kind_name(opt.rep.fault.kind), fault_kind_name(plain.rep.fault.kind));
        if (n == 4) {
            EXPECT_FALSE(plain.rep.ok);   // past SRAM
        }
        EXPECT_LT(opt.rep.stats.instrs, plain.rep.stats.instrs);
    }
}
