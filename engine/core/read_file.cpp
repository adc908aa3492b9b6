// read_file.cpp: see read_file.h. Reads in blocks up to limit + 1 bytes, so a file that does
// not say its size (a pipe, /dev/zero) is stopped at the limit too.
#include "engine/core/read_file.h"

#include "engine/core/parse_number.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

namespace wl {

namespace {


std::string mib(uint64_t bytes) {
    return bytes >= (uint64_t(1) << 30) ? std::to_string(bytes >> 30) + " GiB" : std::to_string(bytes >> 20) + " MiB";
}

// The file open for reading, its stat in *st; nullptr with *error for a folder or what cannot open.
std::FILE* open_to_read(const std::string& path, const char* what, struct stat* st, std::string* error) {
    if (::stat(path.c_str(), st) == 0 && S_ISDIR(st->st_mode)) {
        *error = path_in_message(path) + ": is a directory, not a " + what + " file";
        return nullptr;
    }
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) *error = path_in_message(path) + ": cannot open " + what + " file (" + std::strerror(errno) + ")";
    return f;
}

}  // namespace

std::string path_in_message(const std::string& path) { return path.size() > 200 ? quote_prefix(path, 200) : path; }

bool read_file(const std::string& path, uint64_t limit, const char* what, std::string* out, std::string* error) {
    struct stat st {};
    std::FILE* f = open_to_read(path, what, &st, error);
    if (!f) return false;
    std::string s;
    if (S_ISREG(st.st_mode) && uint64_t(st.st_size) <= limit) s.reserve(size_t(st.st_size));
    char buf[1 << 16];
    bool over = S_ISREG(st.st_mode) && uint64_t(st.st_size) > limit;
    while (!over) {
        const size_t n = std::fread(buf, 1, sizeof buf, f);
        if (n == 0) break;
        if (s.size() + n > limit) over = true;
        else s.append(buf, n);
    }
    const bool failed = std::ferror(f);
    std::fclose(f);
    if (over) {
        *error = path_in_message(path) + ": larger than the limit of " + mib(limit) + " for a " + what + " file";
        return false;
    }
    if (failed) {
        *error = path_in_message(path) + ": read error on " + what + " file";
        return false;
    }
    *out = std::move(s);
    return true;
}

bool read_head(const std::string& path, size_t n, const char* what, std::string* out, std::string* error) {
    struct stat st {};
    std::FILE* f = open_to_read(path, what, &st, error);
    if (!f) return false;
    std::string s(n, '\0');
    size_t got = 0;
    while (got < n) {
        const size_t k = std::fread(s.data() + got, 1, n - got, f);
        if (k == 0) break;
        got += k;
    }
    std::fclose(f);
    s.resize(got);
    *out = std::move(s);
    return true;
}

}  // namespace wl
