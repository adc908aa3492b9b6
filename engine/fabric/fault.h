// fault.h: errors as values. A bad program never aborts or hangs the process:
// the machine stops and hands back a Fault naming where it happened.
#pragma once
#include "engine/fabric/program.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wl {

enum class FaultKind : uint8_t {
    None,
    OutOfBounds,     // SRAM access outside the PE's memory (or misaligned)
    NoRoute,         // a wavelet reached a router whose colour has no rx for that port
    NoTask,          // a wavelet reached a CE that has no task or reader for its colour
    InvalidRoute,    // a route sends off the mesh, or names a bad port / colour
    Deadlock,        // nothing can progress, but wavelets or tasks are pending
    Watchdog,        // the cycle budget ran out
    BadProgram,      // the program failed validation, or overflowed its call stack
    HostError,       // a host call was wrong: unknown symbol, PE outside the mesh, ...
};

const char* fault_kind_name(FaultKind k);

// Where a stuck place's work waits. With the PE, colour, task, port, count and kernel place it is
// the report's meaning; `what` only says it in words (tests compare the fields, not the words).
enum class StuckKind : uint8_t {
    RouterPort,      // wavelets wait at a router port: the switch position takes none from it, or no room downstream
    CeQueue,         // wavelets queued at the CE that no task takes now (none bound, blocked, or the CE is busy)
    Stalled,         // a thread waits in a recv, a send, or for a free microthread
    VectorOp,        // a thread's fabric vector op waits for wavelets or ramp space
    Microthread,     // a microthread's fabric vector op waits
    Running,         // a thread still runs (reported for a spent budget only)
    LaunchPending,   // a host launch has not started (reported for a spent budget only)
};

// One stuck place in a deadlock or watchdog report.
struct Stuck {
    StuckKind kind = StuckKind::Stalled;
    int x = -1, y = -1;
    int colour = -1;         // the colour it waits on, -1 if none
    int task = -1;           // running task, -1 if none (the host-launched function, or idle)
    int port = -1;           // RouterPort: the port the wavelets wait at
    uint32_t count = 0;      // RouterPort, CeQueue: wavelets waiting; VectorOp, Microthread: elements done
    std::string where;       // the kernel place its thread is at ("file:line:col"), "" if none
    std::string what;        // all of the above in words, "PE (x,y): ..."
};

struct Fault {
    FaultKind kind = FaultKind::None;
    int x = -1, y = -1;      // the PE
    int colour = -1;
    int task = -1;
    SrcLoc loc;              // the instruction, when there is one
    std::string where;       // loc rendered "file:line:col", or ""
    uint64_t cycle = 0;
    std::string message;
    std::vector<Stuck> stuck;   // Deadlock / Watchdog: who waits for what (capped)

    explicit operator bool() const { return kind != FaultKind::None; }
    std::string to_string() const;
};

// A HostError on PE (x, y): a bad host call (unknown symbol, out of range, no program).
Fault host_error(int x, int y, std::string message);

// For host code whose calls can fail only on a bug (the model's plan and its kernels disagree):
// a fault becomes std::runtime_error with its text.
void throw_if(const Fault& f);

}  // namespace wl
