// atomic_file.cpp: see atomic_file.h.
#include "engine/core/atomic_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>

namespace wl {

namespace {

bool fail(std::string* error, const std::string& what) {
    if (error) *error = what + ": " + std::strerror(errno);
    return false;
}

bool refuse(std::string* error, const std::string& why) {
    if (error) *error = why;
    return false;
}

bool write_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        bytes.remove_prefix(size_t(n));
    }
    return true;
}

}  // namespace

bool write_file_atomically(const std::string& path, std::string_view bytes, std::string* error) {
    return write_file_atomically(path, std::span<const std::string_view>(&bytes, 1), error);
}

bool write_file_atomically(const std::string& path_in, std::span<const std::string_view> pieces, std::string* error) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (path_in.empty()) return refuse(error, "no file named (the path is empty)");
    fs::path path = path_in;
    if (fs::is_symlink(fs::symlink_status(path, ec))) {
        path = fs::weakly_canonical(path, ec);
        if (ec) {
            errno = ec.value();
            return fail(error, "cannot resolve the link " + path_in);
        }
    }
    // Only a file is replaced: a rename over /dev/null, a pipe or a socket (or a link to one) would
    // put a file where the system's node was.
    const fs::file_status st = fs::status(path, ec);
    if (fs::exists(st) && !fs::is_regular_file(st))
        return refuse(error, path.string() + (fs::is_directory(st) ? " is a directory" : " is a device, pipe or socket, not a file") + ": left as it is");
    // A name no other writer uses: two processes saving at once each rename a whole file.
    static unsigned counter = 0;
    const std::string tmp = path.string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return fail(error, "cannot create " + tmp);
    bool written = true;
    for (std::string_view piece : pieces) written = written && write_all(fd, piece);
    written = written && ::fsync(fd) == 0;
    const int saved = errno;
    if (::close(fd) != 0 || !written) {
        errno = written ? errno : saved;
        fail(error, "cannot write " + tmp);
        ::unlink(tmp.c_str());
        return false;
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        fail(error, "cannot rename " + tmp + " to " + path.string());
        ::unlink(tmp.c_str());
        return false;
    }
    // The rename itself is durable once the folder is flushed.
    const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
    return true;
}

}  // namespace wl
