// kernel_files.h: the kernels the suites run over, and a file's text.
#pragma once
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace wl::testing {

inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The cycle budget a kernel asks for with a line `// budget: 200000`, else `fallback`.
// The catalogue's endless loops state one so every runner stops them as soon as the test needs.
inline uint64_t kernel_budget(const std::string& src, uint64_t fallback) {
    const size_t b = src.find("// budget: ");
    return b == std::string::npos ? fallback : std::stoull(src.substr(b + 11));
}

// Every .wk file under examples/ and tests/kernels/, sorted.
inline std::vector<std::filesystem::path> kernel_files() {
    std::vector<std::filesystem::path> out;
    for (const char* dir : {"examples", "tests/kernels"}) {
        const std::filesystem::path root = std::filesystem::path(WAFERLAB_SOURCE_DIR) / dir;
        if (!std::filesystem::exists(root)) continue;
        for (auto& e : std::filesystem::recursive_directory_iterator(root))
            if (e.is_regular_file() && e.path().extension() == ".wk") out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace wl::testing
