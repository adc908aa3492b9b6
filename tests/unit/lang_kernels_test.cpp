// lang_kernels_test.cpp: the inline-expectation runner. Every .wk file under
// tests/kernels/ and examples/ is compiled; each diagnostic must be announced
// by a comment in the file, and nothing else may be reported:
//   // expect error 12:5: message        (an error at line 12, column 5)
//   // expect warning 3:9: message
//   // expect: y @ (1,0): 2 4 6 8        (a line the host block prints, in order)
#include "engine/lang/compile.h"
#include "engine/lang/run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace wl::lang;

namespace {

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct Expectations {
    std::vector<std::string> diags;    // "error 12:5: message"
    std::vector<std::string> output;
};

Expectations read_expectations(const std::string& src) {
    Expectations e;
    std::istringstream in(src);
    std::string line;
    while (std::getline(in, line)) {
        size_t k = line.find("// expect");
        if (k == std::string::npos) continue;
        std::string rest = line.substr(k + 9);
        if (rest.rfind(": ", 0) == 0) e.output.push_back(rest.substr(2));
        else if (rest.rfind(" error ", 0) == 0 || rest.rfind(" warning ", 0) == 0) e.diags.push_back(rest.substr(1));
    }
    return e;
}

std::string render(const Diagnostic& d) {
    return std::string(d.severity == Severity::Error ? "error " : "warning ") + std::to_string(d.line) + ":" + std::to_string(d.col) + ": " + d.message;
}

std::vector<fs::path> kernel_files() {
    std::vector<fs::path> out;
    for (const char* dir : {"tests/kernels", "examples"}) {
        fs::path root = fs::path(WAFERLAB_SOURCE_DIR) / dir;
        if (!fs::exists(root)) continue;
        for (auto& e : fs::recursive_directory_iterator(root))
            if (e.is_regular_file() && e.path().extension() == ".wk") out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST(LangKernels, EveryExpectationHolds) {
    auto files = kernel_files();
    ASSERT_GT(files.size(), 0u);
    int error_cases = 0;
    for (const fs::path& p : files) {
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
            if (w.rfind("error", 0) == 0) error_cases++;
        }
        for (const std::string& g : got) ADD_FAILURE() << "unexpected diagnostic: " << g;
        if (!want.output.empty()) {
            ASSERT_TRUE(r.ok());
            RunReport rep = run_kernel(r);
            ASSERT_TRUE(rep.ok) << rep.error;
            EXPECT_EQ(rep.output, want.output);
        }
    }
    EXPECT_GE(error_cases, 40) << "the suite should cover at least 40 error cases";
}
