// kernel_files.h: the kernels the suites run over, and a file's text.
#pragma once
#include <algorithm>
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
