// lesson_text_test.cpp: the numbers a lesson's text gives that the app also shows are the ones
// the engine measures: a placement the Model window draws, the cycles a tiling takes, a
// percentage worked out from them. A code generator or planner change that moves one fails here
// instead of leaving a student a text that disagrees with the screen.
#include "engine/gpt/gpt_config.h"
#include "engine/gpt/trainer.h"
#include "engine/lessons/lesson.h"
#include "engine/lessons/lesson_check.h"
#include "engine/model/mesh_plan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <string>

namespace {

const std::string kRoot = WAFERLAB_SOURCE_DIR;

const wl::lessons::Lesson& lesson(const wl::lessons::LessonSet& set, int n) {
    const wl::lessons::Lesson* l = set.find(n);
    if (!l) throw std::runtime_error("no lesson " + std::to_string(n));
    return *l;
}

uint64_t number(std::string s) {   // "4,353" -> 4353
    s.erase(std::remove(s.begin(), s.end(), ','), s.end());
    return std::stoull(s);
}

}  // namespace

// "`l0.fch` ... gets the 16 PEs at (0..15, 7), and its kernel line sets `K=64`, `NC=16` and `P=16`":
// what `compile-model --config models/gpt-nano.yaml --mesh 32x32` and the Model window show.
TEST(LessonText, Lesson12PlacementIsTheModelCompilers) {
    const wl::lessons::LessonSet set = wl::lessons::load_lessons(kRoot + "/lessons");
    const std::string& text = lesson(set, 12).text;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(`l0\.fch`[^`]*?gets the (\d+) PEs at \((\d+)\.\.(\d+), (\d+)\))")))
        << "lesson 12 names l0.fch's PEs";
    const wl::gpt::Trainer tr(wl::gpt::load_config(kRoot + "/models/gpt-nano.yaml"));   // as the CLI: the vocabulary from the tokenizer
    const wl::model::PlanResult r = wl::model::plan_model(tr.cfg, 32, 32, wl::model::read_kernels(kRoot + "/models/kernels"));
    ASSERT_TRUE(r.ok) << r.error;
    const auto op = std::find_if(r.plan.ops.begin(), r.plan.ops.end(), [](const wl::model::PlannedOp& o) { return o.name == "l0.fch"; });
    ASSERT_NE(op, r.plan.ops.end());
    EXPECT_EQ(std::stoi(m[1]), op->rect.w * op->rect.h);
    EXPECT_EQ(std::stoi(m[2]), op->rect.x);
    EXPECT_EQ(std::stoi(m[3]), op->rect.x + op->rect.w - 1);
    EXPECT_EQ(std::stoi(m[4]), op->rect.y);
    for (const char* k : {"K", "NC", "P"}) {
        std::smatch c;
        ASSERT_TRUE(std::regex_search(text, c, std::regex(std::string("`") + k + R"(=(\d+)`)"))) << k;
        EXPECT_EQ(std::stod(c[1]), op->constants.at(k)) << k;
    }
}

// The table of cycles by P is what the starter takes with each P, and the question's
// percentage is worked out from it.
TEST(LessonText, Lesson12CyclesByTilingAreMeasured) {
    const wl::lessons::LessonSet set = wl::lessons::load_lessons(kRoot + "/lessons");
    const wl::lessons::Lesson& l = lesson(set, 12);
    std::smatch ps, cs;
    ASSERT_TRUE(std::regex_search(l.text, ps, std::regex(R"(\| P \|([^\n]*)\n)")));
    ASSERT_TRUE(std::regex_search(l.text, cs, std::regex(R"(\| cycles \|([^\n]*)\n)")));
    const std::regex cell(R"(\s*([\d,]+)\s*\|)");
    std::vector<std::string> p_cells, c_cells;
    for (std::sregex_iterator it(ps[1].first, ps[1].second, cell), end; it != end; ++it) p_cells.push_back((*it)[1]);
    for (std::sregex_iterator it(cs[1].first, cs[1].second, cell), end; it != end; ++it) c_cells.push_back((*it)[1]);
    ASSERT_EQ(p_cells.size(), c_cells.size());
    ASSERT_GE(p_cells.size(), 2u);
    ASSERT_NE(l.starter.find("const P = 2;"), std::string::npos);
    for (size_t i = 0; i < p_cells.size(); ++i) {
        std::string kernel = l.starter;
        kernel.replace(kernel.find("const P = 2;"), 12, "const P = " + p_cells[i] + ";");
        const wl::lessons::Verdict v = wl::lessons::check_kernel(l.spec, kernel, "lesson12.wk");
        EXPECT_TRUE(v.ran) << "P = " << p_cells[i] << ": " << v.summary();
        EXPECT_EQ(v.cycles, number(c_cells[i])) << "P = " << p_cells[i];
    }
    std::smatch q;
    ASSERT_TRUE(std::regex_search(l.text, q, std::regex(R"(only (\d+)% fewer cycles \(([\d,]+) → ([\d,]+)\))")));
    const double a = double(number(q[2])), b = double(number(q[3]));
    EXPECT_EQ(std::stoi(q[1]), int(std::lround(100.0 * (1.0 - b / a))));
    EXPECT_EQ(q[2].str(), c_cells[c_cells.size() - 2]);
    EXPECT_EQ(q[3].str(), c_cells.back());
}

// Lesson 14's figures are the verdict's: the starter's and the solution's cycles, the FLOPs and
// bytes the run counted, the GPU model's time and the cycles the wafer must beat.
TEST(LessonText, Lesson14FiguresAreTheVerdicts) {
    const wl::lessons::LessonSet set = wl::lessons::load_lessons(kRoot + "/lessons");
    const wl::lessons::Lesson& l = lesson(set, 14);
    const wl::lessons::Verdict start = wl::lessons::check_kernel(l.spec, l.starter, "lesson14.wk");
    const wl::lessons::Verdict sol = wl::lessons::check_kernel(l.spec, l.solution, "lesson14.wk");
    const auto gpu = std::find_if(start.items.begin(), start.items.end(), [](const auto& i) { return i.kind == wl::lessons::CheckKind::Gpu; });
    ASSERT_NE(gpu, start.items.end());
    std::smatch m;
    ASSERT_TRUE(std::regex_search(l.text, m, std::regex(R"(starter's P = (\d+) gives NP = ([\d,]+) and ([\d,]+) cycles: ([\d.]+) µs)")));
    EXPECT_EQ(number(m[3]), start.cycles);
    EXPECT_NE(gpu->message.find("took " + m[4].str() + " us (" + m[3].str() + " cycles"), std::string::npos) << gpu->message;
    EXPECT_EQ(number(m[2]) * number(m[1]), 16384u);
    ASSERT_TRUE(std::regex_search(l.text, m, std::regex(R"(it runs in \*\*([\d,]+) cycles\*\*)")));
    EXPECT_EQ(number(m[1]), sol.cycles);
    ASSERT_TRUE(std::regex_search(l.text, m, std::regex(R"(\(([\d,]+) FLOPs, and the ([\d,]+) bytes)")));
    EXPECT_NE(gpu->message.find("same " + m[1].str() + " FLOPs and " + m[2].str() + " bytes"), std::string::npos) << gpu->message;
    ASSERT_TRUE(std::regex_search(l.text, m, std::regex(R"(beats \*\*([\d.]+) µs = ([\d,]+) cycles\*\*)")));
    EXPECT_NE(gpu->message.find("takes " + m[1].str() + " us"), std::string::npos) << gpu->message;
    EXPECT_NE(gpu->message.find("fewer than " + m[2].str() + " cycles"), std::string::npos) << gpu->message;
}
