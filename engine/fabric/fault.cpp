// fault.cpp: names and one-line rendering of faults; port names.
#include "engine/fabric/fault.h"

#include "engine/fabric/router.h"

#include <stdexcept>

namespace wl {

const char* fault_kind_name(FaultKind k) {
    switch (k) {
    case FaultKind::None: return "none";
    case FaultKind::OutOfBounds: return "out_of_bounds";
    case FaultKind::NoRoute: return "no_route";
    case FaultKind::NoTask: return "no_task";
    case FaultKind::InvalidRoute: return "invalid_route";
    case FaultKind::Deadlock: return "deadlock";
    case FaultKind::Watchdog: return "watchdog";
    case FaultKind::BadProgram: return "bad_program";
    case FaultKind::HostError: return "host_error";
    }
    return "?";
}

std::string Fault::to_string() const {
    if (kind == FaultKind::None) return "ok";
    std::string s = std::string(fault_kind_name(kind));
    if (x >= 0) s += " at PE (" + std::to_string(x) + "," + std::to_string(y) + ")";
    if (colour >= 0) s += " colour " + std::to_string(colour);
    if (task >= 0) s += " task " + std::to_string(task);
    if (!where.empty()) s += " [" + where + "]";
    s += " cycle " + std::to_string(cycle) + ": " + message;
    for (const Stuck& st : stuck) s += "\n  " + st.what;
    return s;
}

const char* port_name(int p) {
    static const char* k[] = {"N", "S", "E", "W", "RAMP"};
    return p >= 0 && p < kPorts ? k[p] : "?";
}

std::string port_set(uint8_t mask) {
    std::string s = "{";
    for (int p = 0; p < kPorts; ++p)
        if (mask >> p & 1) s += std::string(s.size() > 1 ? "," : "") + port_name(p);
    return s + "}";
}

Fault host_error(int x, int y, std::string message) {
    Fault f;
    f.kind = FaultKind::HostError;
    f.x = x, f.y = y;
    f.message = std::move(message);
    return f;
}

void throw_if(const Fault& f) {
    if (f) throw std::runtime_error(f.to_string());
}

}  // namespace wl
