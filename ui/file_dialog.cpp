// file_dialog.cpp: see file_dialog.h. POSIX only: the WebAssembly build has the page's picker.
#include "ui/file_dialog.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace wlui {

namespace {
std::string on_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    size_t at = 0;
    while (at <= dirs.size()) {
        const size_t end = std::min(dirs.find(':', at), dirs.size());
        const std::filesystem::path p = std::filesystem::path(dirs.substr(at, end - at)) / name;
        if (access(p.c_str(), X_OK) == 0) return p.string();
        at = end + 1;
    }
    return "";
}
}  // namespace

std::string FileDialog::program() {
    if (const char* p = std::getenv("WAFERLAB_FILE_DIALOG"); p && *p) return p;
    for (const char* name : {"zenity", "kdialog"})
        if (std::string p = on_path(name); !p.empty()) return p;
    return "";
}

FileDialog::~FileDialog() {
    if (pid_ > 0) {
        kill(pid_, SIGTERM);
        waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) close(out_);
}

bool FileDialog::open(const std::string& title, const std::vector<std::string>& patterns, std::string* why) {
    if (running()) {
        *why = "a file dialog is open already";
        return false;
    }
    const std::string prog = program();
    if (prog.empty()) {
        *why = "no file dialog on this system (install zenity or kdialog); type the path instead";
        return false;
    }
    std::string globs;
    for (const std::string& p : patterns) globs += (globs.empty() ? "" : " ") + p;
    std::vector<std::string> args = {prog};
    if (std::filesystem::path(prog).filename() == "kdialog") {
        args.insert(args.end(), {"--getopenfilename", ".", globs, "--title", title});
    } else {   // zenity's arguments (and WAFERLAB_FILE_DIALOG's)
        args.insert(args.end(), {"--file-selection", "--title=" + title});
        if (!globs.empty()) args.push_back("--file-filter=" + title + " | " + globs);
    }
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int fds[2];
    if (pipe(fds) != 0) {
        *why = std::string("cannot start the file dialog: ") + std::strerror(errno);
        return false;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    pid_t pid = -1;
    const int rc = posix_spawnp(&pid, prog.c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        *why = "cannot start the file dialog " + prog + ": " + std::strerror(rc);
        return false;
    }
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    pid_ = pid, out_ = fds[0];
    text_.clear();
    error_.clear();
    return true;
}

void FileDialog::drain() {
    char buf[4096];
    for (ssize_t n; (n = read(out_, buf, sizeof buf)) > 0;) text_.append(buf, size_t(n));
}

std::optional<std::string> FileDialog::poll() {
    if (pid_ <= 0) return std::nullopt;
    drain();
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == 0) return std::nullopt;   // still open
    drain();
    close(out_);
    pid_ = -1, out_ = -1;
    while (!text_.empty() && (text_.back() == '\n' || text_.back() == '\r')) text_.pop_back();
    // Exit 0 with a path: chosen. 1: cancelled (zenity's and kdialog's). Anything else failed.
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == 0) return text_;
    if (code != 1) error_ = "the file dialog failed (exit status " + std::to_string(code) + ")";
    return std::string();
}

}  // namespace wlui
