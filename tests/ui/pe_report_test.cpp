// pe_report_test.cpp: what the PE inspector derives — cell formats, the SRAM
// map and labels, task states, queues and routes, the current instruction
// with its source line, and the "inspect" JSON — against known kernels.
#include "ui/pe_report.h"

#include "engine/lang/compile.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace wlui;

namespace {

std::string read_example(const std::string& name) {
    std::ifstream in(std::string(WAFERLAB_SOURCE_DIR) + "/examples/" + name);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::shared_ptr<const wl::lang::CompileResult> compiled(const std::string& src, const std::string& file) {
    auto cr = std::make_shared<const wl::lang::CompileResult>(wl::lang::compile(src, file));
    EXPECT_TRUE(cr->ok()) << file << ": " << (cr->diagnostics.empty() ? "" : cr->diagnostics[0].message);
    return cr;
}

uint32_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

// The receiver's task starts blocked and nothing unblocks it: the four
// wavelets wait in its CE queue and the run ends in a deadlock report.
const char* kBlocked = R"(colour msg = 3;
layout {
    grid 2 x 1;
    place sender at (0, 0);
    place receiver at (1, 0);
    route msg at (0, 0) rx ramp tx east;
    route msg at (1, 0) rx west tx ramp;
}
program sender {
    export var x: [f32; 4];
    export fn main() {
        for i in 0..4 { send(msg, x[i]); }
    }
}
program receiver {
    export var y: [f32; 4];
    var count: i32 = 7;
    task got(v: f32) on msg blocked {
        y[count] = v;
        count += 1;
    }
}
host {
    fill x at (0, 0) with iota(1, 1);
    launch main at (0, 0);
    run;
}
)";

}  // namespace

TEST(PeReport, FormatsCells) {
    EXPECT_EQ(format_cell(bits(1.5f), CellFormat::F32), "1.5");
    EXPECT_EQ(format_cell(bits(0.1f), CellFormat::F32), "0.1");
    EXPECT_EQ(format_cell(bits(-3.0f), CellFormat::Hex), "0xc0400000");
    EXPECT_EQ(format_cell(uint32_t(-3), CellFormat::I32), "-3");
    EXPECT_EQ(format_cell(uint32_t(-3), CellFormat::U32), "4294967293");
    EXPECT_EQ(format_cell(0x7fc00000u, CellFormat::F32), "nan");
    EXPECT_EQ(natural_format(wl::ElemType::I32), CellFormat::I32);
    EXPECT_STREQ(cell_format_name(CellFormat::Hex), "hex");
}

TEST(PeReport, SramMapCoversMemoryInAddressOrderWithGaps) {
    wl::Program p;
    p.symbols = {{"b", 32, wl::ElemType::I32, 2}, {"a", 0, wl::ElemType::F32, 4}, {"alias", 4, wl::ElemType::U32, 1}};
    const auto map = sram_map(&p, 64);
    ASSERT_EQ(map.size(), 4u);
    EXPECT_EQ(map[0].symbol->name, "a");
    EXPECT_EQ(map[0].words, 4u);
    EXPECT_EQ(map[1].symbol, nullptr);   // bytes 16..31
    EXPECT_EQ(map[1].offset, 16u);
    EXPECT_EQ(map[1].words, 4u);
    EXPECT_EQ(map[2].symbol->name, "b");
    EXPECT_EQ(map[3].symbol, nullptr);   // the free tail, 40..63
    EXPECT_EQ(map[3].words, 6u);
    EXPECT_EQ(sram_map(nullptr, 64).size(), 1u);

    EXPECT_EQ(label_address(&p, 8), "a[2]");
    EXPECT_EQ(label_address(&p, 36), "b[1]");
    EXPECT_EQ(label_address(&p, 20), "");
    EXPECT_EQ(label_address(nullptr, 0), "");
}

TEST(PeReport, SourceLine) {
    EXPECT_EQ(source_line("one\ntwo\r\nthree", 2), "two");
    EXPECT_EQ(source_line("one\ntwo\r\nthree", 3), "three");
    EXPECT_EQ(source_line("one\n", 2), "");
    EXPECT_EQ(source_line("one", 0), "");
}

TEST(PeReport, BlockedTaskKeepsItsWaveletsQueued) {
    wl::lang::KernelRun run(compiled(kBlocked, "blocked.wk"));
    run.finish();
    ASSERT_FALSE(run.ok());
    EXPECT_EQ(run.fault().kind, wl::FaultKind::Deadlock);
    const wl::Machine& m = run.machine();

    const auto tasks = task_table(m, 1, 0);
    ASSERT_EQ(tasks.size(), 1u);
    EXPECT_EQ(tasks[0].id, 3);   // a data task's id is its colour
    EXPECT_EQ(tasks[0].name, "got");
    EXPECT_EQ(tasks[0].colour, 3);
    EXPECT_EQ(tasks[0].state, TaskState::Blocked);
    EXPECT_EQ(tasks[0].queued, 4);
    EXPECT_STREQ(task_state_name(tasks[0].state), "blocked");
    EXPECT_TRUE(task_table(m, 0, 0).empty());   // the sender has no tasks

    const auto colours = colour_table(m, 1, 0);
    ASSERT_EQ(colours.size(), 1u);
    EXPECT_EQ(colours[0].colour, 3);
    EXPECT_EQ(colours[0].npos, 1);
    EXPECT_EQ(colours[0].pos[0].rx, wl::kW);
    EXPECT_EQ(colours[0].pos[0].tx, wl::kR);
    EXPECT_EQ(colours[0].ce, (std::vector<uint32_t>{bits(1), bits(2), bits(3), bits(4)}));   // head first
    EXPECT_EQ(colours[0].forwarded, 4u);

    const ThreadView t = thread_view(m, 1, 0, kBlocked);
    EXPECT_EQ(t.state, "idle");
    EXPECT_FALSE(t.has_pc);

    const nlohmann::json j = pe_json(run, 1, 0, kBlocked);
    EXPECT_EQ(j["program"], "receiver");
    EXPECT_EQ(j["tasks"][0]["state"], "blocked");
    EXPECT_EQ(j["colours"][0]["name"], "msg");
    EXPECT_EQ(j["colours"][0]["route"][0]["rx"], "{W}");
    EXPECT_EQ(j["colours"][0]["ce_queue"].size(), 4u);
    bool saw_count = false;
    for (const auto& s : j["symbols"])
        if (s["name"] == "count") {
            saw_count = true;
            EXPECT_EQ(s["type"], "i32");
            EXPECT_EQ(s["values"][0], 7);
        }
    EXPECT_TRUE(saw_count);
    EXPECT_EQ(j["counters"]["in"]["W"], 4);
    EXPECT_EQ(j["counters"]["out"]["RAMP"], 4);
    EXPECT_TRUE(j["instr"].is_null());
    EXPECT_THROW(pe_json(run, 2, 0, ""), std::invalid_argument);
}

TEST(PeReport, CurrentInstructionMapsToItsSourceLine) {
    const std::string src = read_example("gemv.wk");
    wl::lang::KernelRun run(compiled(src, "gemv.wk"));
    run.step(12);   // mid-run: every PE is inside main
    ASSERT_TRUE(run.ok());
    const wl::Machine& m = run.machine();
    int seen = 0;
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 4; ++x) {
            const ThreadView t = thread_view(m, x, y, src);
            if (!t.has_pc) continue;
            ++seen;
            EXPECT_NE(t.state.find("main"), std::string::npos) << t.state;
            EXPECT_EQ(t.where.rfind("gemv.wk:", 0), 0u) << t.where;
            EXPECT_EQ(t.disasm, m.program_at(x, y)->disassemble(t.pc));
            ASSERT_GT(t.loc.line, 0);
            EXPECT_EQ(t.line, std::string(source_line(src, t.loc.line)));
            EXPECT_FALSE(t.line.empty());
            const nlohmann::json j = pe_json(run, x, y, src);
            EXPECT_EQ(j["instr"]["line"], t.loc.line);
            EXPECT_EQ(j["instr"]["source"], t.line);
        }
    EXPECT_GT(seen, 0);

    // Symbols carry their values: after the run y holds A x on the right column.
    run.finish();
    ASSERT_TRUE(run.ok());
    const nlohmann::json j = pe_json(run, 3, 0, src);
    for (const auto& s : j["symbols"])
        if (s["name"] == "y") {
            EXPECT_EQ(s["length"], 4);
            EXPECT_EQ(s["values"].size(), 4u);
            EXPECT_EQ(label_address(m.program_at(3, 0), s["offset"].get<uint32_t>() + 8), "y[2]");
        }
}

// The PE that faulted says so, in place of what its thread was doing; the others do not.
TEST(PeReport, TheFaultedPeShowsItsFault) {
    std::ifstream in(std::string(WAFERLAB_SOURCE_DIR) + "/tests/fixtures/mismatch.wk");
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string src = ss.str();
    wl::lang::KernelRun run(compiled(src, "mismatch.wk"));
    run.finish();
    ASSERT_FALSE(run.ok());
    ASSERT_EQ(run.fault().x, 3);
    const ThreadView bad = thread_view(run.machine(), 3, 0, src);
    EXPECT_TRUE(bad.faulted);
    EXPECT_EQ(bad.state.rfind("stopped by a fault (bad_program)", 0), 0u) << bad.state;
    EXPECT_NE(bad.state.find(run.fault().message), std::string::npos) << bad.state;
    EXPECT_EQ(pe_json(run, 3, 0, src)["thread"]["faulted"], true);
    const ThreadView ok = thread_view(run.machine(), 1, 0, src);
    EXPECT_FALSE(ok.faulted);
    EXPECT_EQ(ok.state.find("stopped"), std::string::npos) << ok.state;
}

TEST(PeReport, DescribesDsds) {
    wl::Program p;
    p.symbols = {{"y", 16, wl::ElemType::F32, 4}};
    wl::Dsd mem{wl::DsdKind::Mem1d, 0, 1, 20, 3};
    EXPECT_EQ(describe_dsd(mem, &p), "mem y[1] x3");
    wl::Dsd fab{wl::DsdKind::FabIn, 5, 1, 0, 8};
    EXPECT_EQ(describe_dsd(fab, &p), "fabin colour 5 (8)");
}

// SUMMA's PEs share one program image; each PE's `place ... with` values are its constants.
TEST(PeReport, ASharedImageShowsThePesConstants) {
    const std::string src = read_example("summa.wk");
    wl::lang::KernelRun run(compiled(src, "summa.wk"));
    ASSERT_TRUE(run.ok());
    const nlohmann::json j = pe_json(run, 3, 5, src);
    EXPECT_EQ(j["program"], "summa");
    EXPECT_EQ(j["constants"], nlohmann::json::array({3, 5}));   // mx, my
}
