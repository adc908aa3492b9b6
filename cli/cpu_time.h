// cpu_time.h: the benchmarks' clock, this process's CPU seconds. On a shared machine that is
// the time the emulator really ran, whatever else the cores were doing.
// In the web build (the CLI under node) std::clock is wall time, so there node is asked.
#pragma once
#include <ctime>
#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

namespace wlcli {

inline double cpu_seconds() {
#ifdef __EMSCRIPTEN__
    return EM_ASM_DOUBLE({
        const u = process.cpuUsage();
        return (u.user + u.system) / 1e6;
    });
#else
    return double(std::clock()) / CLOCKS_PER_SEC;
#endif
}

}  // namespace wlcli
