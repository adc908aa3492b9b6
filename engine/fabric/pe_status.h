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

// What a stalled thread waits for: "waits for a wavelet on colour 2", "waits for room to send on
// colour 1 (ramp full)", "waits for a free microthread".
std::string stall_text(const Core& c);

// Whose code the main thread runs: "on_data (task 3)", or "main (the launched function)" for the
// function the host launched (it has no task id: the machine's task -1).
std::string thread_name(const Program* p, const Core& c);

// Where a router port leads, with the machine's name beside: "the west (port W)", "this PE's CE
// (port RAMP)".
std::string port_words(int port);

// The main thread in a few words: "idle", "running", "vector op", "stalled on recv (colour 2)".
std::string thread_state_text(const Core& c);

}  // namespace wl
