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
    // The remedy: another value for the flag, or, where the path was the flag's default, the flag itself.
    const std::string flag = out.flag.rfind("the default ", 0) == 0 ? out.flag.substr(12) : out.flag;
    const std::string another = flag == out.flag ? "choose another " + flag : "give " + flag;
    if (out.path.empty()) throw std::runtime_error(out.flag + " is empty: it names the " + std::string(kind.name) + " file to write");
    if (!fs::exists(out.path, ec)) {   // a new file: nothing to lose, if its folder is there to hold it
        const fs::path dir = fs::path(out.path).parent_path();
        if (!dir.empty() && !fs::is_directory(dir, ec))
            throw std::runtime_error(out.flag + " " + out.path + ": " +
                                     (fs::exists(dir, ec) ? dir.string() + " is a file, not a folder" : "the folder " + dir.string() + " is not there; create it first"));
        return;
    }
    for (const NamedPath& in : inputs) {
        if (!same_file(out.path, in.path)) continue;
        throw std::runtime_error(out.flag + " " + out.path + " is the file " + in.flag + " " + in.path +
                                 " reads: writing the " + kind.name + " would replace it; " + another);
    }
    if (fs::is_directory(out.path, ec))
        throw std::runtime_error(out.flag + " " + out.path + " is a directory; " + out.flag + " names the " + kind.name + " file to write");
    if (!fs::is_regular_file(out.path, ec))   // before it is opened: a pipe would block, and /dev/null must stay a device
        throw std::runtime_error(out.flag + " " + out.path + " is a device, pipe or socket, not a file: it would be replaced; " + another);
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
                                 ": it would be replaced; remove it first or " + another);
}

bool same_file(const std::string& a, const std::string& b) {
    std::error_code ec;
    return !a.empty() && !b.empty() && std::filesystem::equivalent(a, b, ec);
}

}  // namespace wl
