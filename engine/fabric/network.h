// network.h: the fabric's network — every PE's router (router.h) and the mesh's edge links, one
// model that both run modes ask where a wavelet goes (as BookSim keeps its routers behind one
// interface). It holds each colour's routes and switch positions, and answers, for a wavelet that
// leaves router i by port d on colour c: the CE (the ramp), an outbound edge link, or router
// neighbour(i, d), which must accept it from the opposite port (else refused() says why).
//
// Cycle mode moves wavelets through the routers' queues one hop a cycle (machine.cpp); fast mode
// walks each one's whole path when it is sent (fast_mode.cpp). The queues live in the routers;
// which wavelet goes when is each mode's own.
#pragma once
#include "engine/fabric/mesh.h"
#include "engine/fabric/router.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace wl {

// An edge link: wavelets from outside the mesh (an external store) into a router port on the mesh's
// edge, word k visible at start + ceil((k + 1) * cycles_per_wavelet): the link's bandwidth. Cycle
// mode never pushes into a full queue (the word waits); fast mode routes them all at once, stamped.
struct EdgeFeed {
    int pe = 0;
    uint8_t port = 0, colour = 0;
    std::vector<uint32_t> words;
    size_t next = 0;                  // the first word not yet in the mesh
    uint64_t start = 0;
    double cycles_per_wavelet = 1;
    uint64_t due(size_t k) const;     // when word k may enter
    bool done() const { return next >= words.size(); }
};

// An outbound edge link: wavelets a route sends out of a port that faces off the mesh cross it into a
// buffer the host takes (the store receiving gradients), one every cycles_per_wavelet cycles. A
// wavelet enters the link at max(its arrival, ceil(free)) and has crossed it cycles_per_wavelet
// later, when the next may enter: so n words take n * cycles_per_wavelet, as EdgeFeed's do coming
// in. free moves on from the slot a word used (fractional when it waited for it, its entry cycle
// after an idle spell), so a saturated link averages its rate as EdgeFeed::due does.
struct EdgeDrain {
    int pe = 0;
    uint8_t port = 0, colour = 0;
    double cycles_per_wavelet = 1;
    double free = 0;                  // when the next wavelet may enter: the last one has crossed
    uint64_t last = 0;                // when the last wavelet entered (valid once left > 0)
    uint64_t left = 0;                // wavelets that entered so far, control ones included
    std::vector<uint32_t> words;      // data words not yet taken, in the order they entered
    uint64_t leave_at(uint64_t arrival) const { return std::max(arrival, busy_until()); }
    uint64_t busy_until() const { return uint64_t(std::ceil(free)); }
    void leave(uint64_t t, uint32_t data, bool ctrl);   // one wavelet enters at cycle t (t >= leave_at)
};

class Network {
public:
    Network() = default;
    explicit Network(Mesh m);          // zeroed routers, no routes (std::bad_alloc if they do not fit)

    Mesh mesh() const { return mesh_; }
    size_t size() const { return routers_.size(); }
    Router& operator[](size_t i) { return routers_[i]; }
    const Router& operator[](size_t i) const { return routers_[i]; }
    Router* data() { return routers_.data(); }
    const std::vector<Router>& routers() const { return routers_; }

    // [SECTION] routes
    std::string check_route(int i, int colour, const Route& r) const;   // why r cannot be set here; empty if it can
    void set_route(int i, int colour, const Route& r);                  // r passed check_route
    void advance_switch(int i, int colour);    // a control wavelet left router i on colour: its next switch position

    // [SECTION] where a wavelet goes
    int step(unsigned port) const { return step_[port]; }         // PE index step to the neighbour across N, S, E or W
    int neighbour(int i, unsigned port) const { return i + step_[port]; }
    bool off_mesh(int i, int port) const;                         // port (N..W) of router i faces off the mesh
    bool accepts(int i, int port, int colour) const { return routers_[size_t(i)].rx_any[colour] >> port & 1; }
    // The open outbound link that a wavelet on colour leaving router i by port enters, or null (a neighbour's).
    EdgeDrain* leaves_by(int i, int port, int colour) {
        return (drain_colours_ >> colour & 1) && off_mesh(i, port) ? find_drain(i, port, colour) : nullptr;
    }
    // Why router i refused a wavelet on colour from port (accepts() is false): NoRoute's words in both modes.
    static std::string refused(int colour, int port);

    // [SECTION] edge links
    std::vector<EdgeFeed>& feeds() { return feeds_; }
    const std::vector<EdgeFeed>& feeds() const { return feeds_; }
    uint64_t next_feed() const;        // when an edge link's next word is due (kNever: none)
    std::vector<EdgeDrain>& drains() { return drains_; }
    const std::vector<EdgeDrain>& drains() const { return drains_; }
    EdgeDrain* find_drain(int i, int port, int colour);
    const EdgeDrain* find_drain(int i, int port, int colour) const;
    void open_drain(EdgeDrain d);      // the host checked it (Machine::drain)
    std::string close_drain(int i, int port, int colour);   // why it cannot close (a route still sends there); empty when closed
    // When a busy outbound link has carried its last word (kNever: none busy after now): a wait on
    // one is not a deadlock, and the clock runs on until then.
    uint64_t next_drain(uint64_t now) const;

private:
    void set_fast(int i, int colour);  // Router::fast[c] after a route or switch change

    Mesh mesh_{1, 1};
    std::vector<Router> routers_;
    int step_[4] = {};                 // PE index step per port N, S, E, W
    std::vector<EdgeFeed> feeds_;      // edge links with words still to send
    std::vector<EdgeDrain> drains_;    // outbound edge links, open until closed
    uint32_t drain_colours_ = 0;       // colour bits with an open drain: leaves_by's cheap test
};

}  // namespace wl
