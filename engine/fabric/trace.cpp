// trace.cpp: the bounded event recorder.
#include "engine/fabric/trace.h"

#include "engine/fabric/router.h"

#include <cstdio>

namespace wl {

void Trace::set_capacity(size_t n) {
    cap_ = n;
    ring_.clear();
    ring_.reserve(n < 4096 ? n : 4096);
    total_ = 0;
}

std::vector<TraceEvent> Trace::events() const {
    if (total_ <= cap_) return ring_;
    std::vector<TraceEvent> out;
    out.reserve(ring_.size());
    size_t start = size_t(total_ % cap_);
    for (size_t i = 0; i < ring_.size(); ++i) out.push_back(ring_[(start + i) % ring_.size()]);
    return out;
}

std::string Trace::format(const TraceEvent& e) {
    char buf[160];
    switch (e.kind) {
    case TraceKind::Hop:
        std::snprintf(buf, sizeof buf, "%llu | (%u,%u) | hop c%u %s -> %s data=0x%08x", (unsigned long long)e.cycle, e.x, e.y,
                      e.colour, port_name(e.port), port_set(e.tx).c_str(), e.data);
        break;
    case TraceKind::Deliver:
        std::snprintf(buf, sizeof buf, "%llu | (%u,%u) | deliver c%u to CE data=0x%08x", (unsigned long long)e.cycle, e.x, e.y,
                      e.colour, e.data);
        break;
    case TraceKind::Send:
        std::snprintf(buf, sizeof buf, "%llu | (%u,%u) | send c%u data=0x%08x", (unsigned long long)e.cycle, e.x, e.y, e.colour,
                      e.data);
        break;
    case TraceKind::TaskStart:
    case TraceKind::TaskEnd:
        std::snprintf(buf, sizeof buf, "%llu | (%u,%u) | task %d %s pc=%u", (unsigned long long)e.cycle, e.x, e.y, e.task,
                      e.kind == TraceKind::TaskStart ? "start" : "end", e.data);
        break;
    case TraceKind::Stall:
        std::snprintf(buf, sizeof buf, "%llu | (%u,%u) | stall c%u pc=%u", (unsigned long long)e.cycle, e.x, e.y, e.colour,
                      e.data);
        break;
    }
    return buf;
}

}  // namespace wl
