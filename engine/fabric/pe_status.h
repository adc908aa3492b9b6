// pe_status.h: one PE's state in words — what its thread does or waits for, and
// each task's readiness — read from a machine in either run mode. The UI's
// inspector and tooltips, and the machine's stuck report, all say it this way.
#pragma once
#include "engine/fabric/machine.h"

#include <string>

namespace wl {

enum class TaskState : uint8_t {
    Idle,       // nothing to do
    Active,     // ready: activated (local) or a wavelet waits on its colour (data/control)
    Blocked,    // not picked until unblocked; its wavelets stay queued
    Running,    // on the main thread now
};
const char* task_state_name(TaskState s);   // "idle", "active", "blocked", "running"

// The state of task binding `b` on PE (x, y) (the picker's view: a data task is active while a
// wavelet waits on its colour at the CE).
TaskState task_state(const Machine& m, int x, int y, const TaskBinding& b);

// What a stalled thread waits for: "waits for a wavelet on colour 2", "waits for ramp space on
// colour 1", "waits for a free microthread".
std::string stall_text(const Core& c);

// The main thread in a few words: "idle", "running", "vector op", "stalled on recv (colour 2)".
std::string thread_state_text(const Core& c);

}  // namespace wl
