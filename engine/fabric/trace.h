// trace.h: an optional, bounded event recorder — wavelet hops, deliveries,
// task starts and ends, stalls — for the UI to animate and for "watch one
// wavelet" debugging. Off by default; when full it keeps the newest events.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace wl {

enum class TraceKind : uint8_t {
    Hop,        // router (x,y) forwarded colour c from port `port` to ports `tx`
    Deliver,    // router (x,y) handed a wavelet to its CE on colour c
    Send,       // CE (x,y) put a wavelet on its ramp on colour c
    TaskStart,  // CE (x,y) started task `task` (-1: host launch)
    TaskEnd,
    Stall,      // CE (x,y) main thread stalled on colour c
};

struct TraceEvent {
    uint64_t cycle = 0;
    uint16_t x = 0, y = 0;
    TraceKind kind = TraceKind::Hop;
    uint8_t colour = 0;
    uint8_t port = 0;         // Hop: input port
    uint8_t tx = 0;           // Hop: output port mask
    int16_t task = -1;
    uint32_t data = 0;        // payload bits / pc
};

class Trace {
public:
    explicit Trace(size_t capacity = 0) { set_capacity(capacity); }
    void set_capacity(size_t n);            // 0 = off
    size_t capacity() const { return cap_; }
    bool on() const { return cap_ != 0; }
    void add(const TraceEvent& e) {
        if (ring_.size() < cap_) ring_.push_back(e);
        else ring_[total_ % cap_] = e;
        ++total_;
    }
    std::vector<TraceEvent> events() const; // oldest first
    size_t size() const { return ring_.size(); }     // events kept
    const TraceEvent& at(size_t i) const {           // the i-th oldest kept, without copying the ring (the UI reads the newest each frame)
        return ring_[total_ <= cap_ ? i : (size_t(total_ % cap_) + i) % ring_.size()];
    }
    uint64_t total() const { return total_; }        // ever recorded
    uint64_t dropped() const { return total_ - ring_.size(); }
    void clear() { ring_.clear(); total_ = 0; }
    static std::string format(const TraceEvent& e);  // "cycle | (x,y) | event"

private:
    size_t cap_ = 0;
    uint64_t total_ = 0;
    std::vector<TraceEvent> ring_;
};

}  // namespace wl
