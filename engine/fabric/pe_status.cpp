// pe_status.cpp: one PE's state in words (pe_status.h).
#include "engine/fabric/pe_status.h"

namespace wl {

const char* task_state_name(TaskState s) {
    switch (s) {
    case TaskState::Idle: return "idle";
    case TaskState::Active: return "active";
    case TaskState::Blocked: return "blocked";
    case TaskState::Running: return "running";
    }
    return "?";
}

TaskState task_state(const Machine& m, int x, int y, const TaskBinding& b) {
    const Core& ce = m.core(x, y);
    if (ce.state != ThreadState::Idle && ce.task == b.id) return TaskState::Running;
    if (ce.tasks_blocked >> b.id & 1) return TaskState::Blocked;
    const bool ready = b.kind == TaskKind::Local ? (ce.tasks_active >> b.id & 1) != 0 : b.colour >= 0 && m.ce_queued(x, y, b.colour) > 0;
    return ready ? TaskState::Active : TaskState::Idle;
}

std::string stall_text(const Core& c) {
    const std::string col = std::to_string(c.wait_colour);
    switch (c.why) {
    case StallWhy::Recv: return "waits for a wavelet on colour " + col;
    case StallWhy::Send: return "waits for room to send on colour " + col + " (ramp full)";
    case StallWhy::Slot: return "waits for a free microthread";
    case StallWhy::None: break;
    }
    return "waits";
}

std::string thread_name(const Program* p, const Core& c) {
    const std::string fn = p && c.fn < p->functions.size() ? p->functions[c.fn].name : "?";
    return fn + (c.task >= 0 ? " (task " + std::to_string(c.task) + ")" : " (the launched function)");
}

std::string port_words(int port) {
    static const char* k[] = {"the north", "the south", "the east", "the west", "this PE's CE"};
    return port >= 0 && port < kPorts ? std::string(k[port]) + " (port " + port_name(port) + ")" : "?";
}

std::string thread_state_text(const Core& c) {
    switch (c.state) {
    case ThreadState::Idle: return "idle";
    case ThreadState::Run: return "running";
    case ThreadState::Vec: return "vector op";
    case ThreadState::Stalled: break;
    }
    switch (c.why) {
    case StallWhy::Recv: return "stalled on recv (colour " + std::to_string(c.wait_colour) + ")";
    case StallWhy::Send: return "stalled on send (colour " + std::to_string(c.wait_colour) + ")";
    case StallWhy::Slot: return "stalled: no free microthread";
    case StallWhy::None: break;
    }
    return "stalled";
}

}  // namespace wl
