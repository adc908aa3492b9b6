// lang_kernels_test.cpp: the inline-expectation runner. Every .wk file under
// tests/kernels/ and examples/ is compiled; each diagnostic must be announced
// by a comment in the file, and nothing else may be reported:
//   // expect error 12:5: message        (an error at line 12, column 5)
//   // expect warning 3:9: message
//   // expect note 12:5: message         (a note of the diagnostic at 12:5; notes not announced are not checked)
//   // expect: y @ (1,0): 2 4 6 8        (a line the host block prints, in order)
// A kernel with run expectations is run (tests/kernels/adversarial/ is the catalogue
// of hostile kernels, docs/reliability.md):
//   // expect fault deadlock at PE (1,0) [name.wk:16:15]   (kind, PE, kernel place; as far as the fault has them)
//   // expect message: a 256x256 mesh needs               (a part of the fault's message)
//   // expect lines: 512                                  (how many lines the host block prints)
//   // budget: 200000                                     (cycles per `run`, instead of the default)
// "// expect native ..." and "// expect wasm ..." hold only in that build.
#include "engine/lang/compile.h"
#include "engine/lang/run.h"
#include "tests/unit/kernel_files.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace wl::lang;

namespace {

#ifdef __EMSCRIPTEN__
constexpr const char* kBuild = " wasm";
constexpr const char* kOtherBuild = " native";
#else
constexpr const char* kBuild = " native";
constexpr const char* kOtherBuild = " wasm";
#endif

using wl::testing::slurp;

struct Expectations {
    std::vector<std::string> diags;    // "error 12:5: message"
    std::vector<std::string> notes;    // "12:5: message": a note of the diagnostic there
    std::vector<std::string> output;
    std::optional<std::string> fault;  // "deadlock at PE (1,0) [x.wk:16:15]", or "none"
    std::vector<std::string> messages; // parts of the fault's message
    std::optional<size_t> lines;
    uint64_t budget = RunOptions{}.cycle_budget;
    bool run() const { return !output.empty() || fault || lines || !messages.empty(); }
    bool any() const { return run() || !diags.empty(); }
};

Expectations read_expectations(const std::string& src) {
    Expectations e;
    e.budget = wl::testing::kernel_budget(src, e.budget);
    std::istringstream in(src);
    std::string line;
    while (std::getline(in, line)) {
        size_t k = line.find("// expect");
        if (k == std::string::npos) continue;
        std::string rest = line.substr(k + 9);
        if (rest.rfind(kOtherBuild, 0) == 0) continue;
        if (rest.rfind(kBuild, 0) == 0) rest = rest.substr(std::string(kBuild).size());
        if (rest.rfind(": ", 0) == 0) e.output.push_back(rest.substr(2));
        else if (rest.rfind(" error ", 0) == 0 || rest.rfind(" warning ", 0) == 0) e.diags.push_back(rest.substr(1));
        else if (rest.rfind(" note ", 0) == 0) e.notes.push_back(rest.substr(6));
        else if (rest.rfind(" fault ", 0) == 0) e.fault = rest.substr(7);
        else if (rest.rfind(" message: ", 0) == 0) e.messages.push_back(rest.substr(10));
        else if (rest.rfind(" lines: ", 0) == 0) e.lines = std::stoull(rest.substr(8));
        else ADD_FAILURE() << "unreadable expectation: " << line;
    }
    return e;
}

std::string render(const Diagnostic& d) {
    return std::string(d.severity == Severity::Error ? "error " : "warning ") + std::to_string(d.line) + ":" + std::to_string(d.col) + ": " + d.message;
}

// The parts of a fault an expectation names: kind, PE, kernel place.
std::string render(const wl::Fault& f) {
    if (!f) return "none";
    std::string s = wl::fault_kind_name(f.kind);
    if (f.x >= 0) s += " at PE (" + std::to_string(f.x) + "," + std::to_string(f.y) + ")";
    if (!f.where.empty()) s += " [" + f.where + "]";
    return s;
}

std::vector<fs::path> kernel_files(const char* dir) {
    std::vector<fs::path> out;
    fs::path root = fs::path(WAFERLAB_SOURCE_DIR) / dir;
    if (!fs::exists(root)) return out;
    for (auto& e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file() && e.path().extension() == ".wk") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

// Checks one file against its expectations; returns them.
Expectations check_kernel(const fs::path& p) {
    SCOPED_TRACE(p.string());
    std::string src = slurp(p);
    Expectations want = read_expectations(src);
    CompileResult r = compile(src, p.filename().string());
    std::vector<std::string> got;
    for (const Diagnostic& d : r.diagnostics) got.push_back(render(d));
    for (const std::string& w : want.diags) {
        auto it = std::find(got.begin(), got.end(), w);
        EXPECT_NE(it, got.end()) << "missing diagnostic: " << w;
        if (it != got.end()) got.erase(it);
    }
    for (const std::string& g : got) ADD_FAILURE() << "unexpected diagnostic: " << g;
    for (const std::string& w : want.notes) {
        bool found = false;
        for (const Diagnostic& d : r.diagnostics)
            for (const DiagNote& n : d.notes) found |= std::to_string(d.line) + ":" + std::to_string(d.col) + ": " + n.message == w;
        EXPECT_TRUE(found) << "missing note: " << w;
    }
    if (!want.run()) return want;
    if (!r.ok()) {
        ADD_FAILURE() << "has run expectations but does not compile";
        return want;
    }
    RunOptions opt;
    opt.cycle_budget = want.budget;
    RunReport rep = run_kernel(r, opt);
    EXPECT_EQ(render(rep.fault), want.fault.value_or("none")) << rep.error;
    EXPECT_EQ(rep.ok, !rep.fault) << rep.error;
    if (!rep.ok) {
        EXPECT_FALSE(rep.error.empty());
    }
    for (const std::string& m : want.messages) EXPECT_NE(rep.fault.message.find(m), std::string::npos) << rep.fault.message;
    if (want.lines) EXPECT_EQ(rep.output.size(), *want.lines);
    else EXPECT_EQ(rep.output, want.output);
    return want;
}

}  // namespace

TEST(LangKernels, EveryExpectationHolds) {
    std::vector<fs::path> files = kernel_files("tests/kernels");
    for (const fs::path& p : kernel_files("examples")) files.push_back(p);
    ASSERT_GT(files.size(), 0u);
    int error_cases = 0;
    for (const fs::path& p : files) {
        if (p.parent_path().filename() == "adversarial") continue;   // AdversarialCatalogue
        Expectations e = check_kernel(p);
        for (const std::string& d : e.diags) error_cases += d.rfind("error", 0) == 0;
    }
    EXPECT_GE(error_cases, 40) << "the suite should cover at least 40 error cases";
}

// Hostile kernels: each states its verdict, and each fault names its place.
TEST(LangKernels, AdversarialCatalogue) {
    std::vector<fs::path> files = kernel_files("tests/kernels/adversarial");
    EXPECT_GE(files.size(), 25u);
    for (const fs::path& p : files) {
        Expectations e = check_kernel(p);
        EXPECT_TRUE(e.any()) << p << " states no expected outcome";
    }
}
