// output_guard.cpp: see output_guard.h.
#include "engine/core/output_guard.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace wl {

void guard_output(const NamedPath& out, const OutputKind& kind, const std::vector<NamedPath>& inputs) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(out.path, ec)) return;   // a new file: nothing to lose (a missing folder fails at the write)
    for (const NamedPath& in : inputs) {
        if (!same_file(out.path, in.path)) continue;
        throw std::runtime_error(out.flag + " " + out.path + " is the file " + in.flag + " " + in.path +
                                 " reads: writing the " + kind.name + " would replace it; choose another " + out.flag);
    }
    if (fs::is_directory(out.path, ec))
        throw std::runtime_error(out.flag + " " + out.path + " is a directory; " + out.flag + " names the " + kind.name + " file to write");
    if (!kind.signature) {
        const std::string e = kind.extension;
        if (out.path.size() >= e.size() && out.path.compare(out.path.size() - e.size(), e.size(), e) == 0) return;
        throw std::runtime_error(out.flag + " " + out.path + " exists and is not a " + kind.name +
                                 ": it would be replaced; remove it first or choose another name ending in " + e);
    }
    std::ifstream f(out.path, std::ios::binary);
    const size_t n = std::strlen(kind.signature);
    std::string head(n, '\0');
    f.read(head.data(), std::streamsize(n));
    const size_t got = size_t(f.gcount());
    if (got == 0) return;   // empty: nothing to lose
    if (got < n || head != kind.signature)
        throw std::runtime_error(out.flag + " " + out.path + " exists and is not a " + kind.name +
                                 ": it would be replaced; remove it first or choose another " + out.flag);
}

bool same_file(const std::string& a, const std::string& b) {
    std::error_code ec;
    return !a.empty() && !b.empty() && std::filesystem::equivalent(a, b, ec);
}

}  // namespace wl
