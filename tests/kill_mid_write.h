// kill_mid_write.h: runs a save in a child process that the kernel kills part-way
// through writing (RLIMIT_FSIZE: a write past `limit` bytes raises SIGXFSZ, whose
// default action ends the process), so tests can check what a crash mid-save leaves.
// Native only (fork).
#pragma once
#ifndef __EMSCRIPTEN__
#include <csignal>
#include <functional>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace wltest {

// The signal that ended the child (SIGXFSZ when the save was cut short), 0 if it
// finished, -1 if no child could be started.
inline int kill_mid_write(size_t limit, const std::function<void()>& save) {
    pid_t pid = ::fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        struct rlimit no_core = {0, 0}, small = {limit, limit};
        ::setrlimit(RLIMIT_CORE, &no_core);
        std::signal(SIGXFSZ, SIG_DFL);
        ::setrlimit(RLIMIT_FSIZE, &small);
        save();
        ::_exit(0);
    }
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid) return -1;
    return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

}  // namespace wltest
#endif
