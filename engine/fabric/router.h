// router.h: one router per PE — 5 ports, 24 colours, a small input queue per
// (port, colour), and a route per colour with up to 4 switch positions.
//
//            N
//            |
//     W -- [router] -- E        rx: the ports a colour accepts
//            |  \               tx: the ports it copies each wavelet to
//            S   RAMP <-> CE    control wavelets advance the switch position
//
// Phase discipline (BookSim-style, so iteration order never matters): every
// queue has ONE producer and ONE consumer. A wavelet pushed in cycle t is not
// visible until t+1 (`pushed` mark); a slot popped in cycle t is not free to the
// producer until t+1 (`popped` mark). The marks are valid while mark_cycle == now.
#pragma once
#include "engine/fabric/program.h"
#include "engine/fabric/stats.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace wl {

enum Port : uint8_t { kNorth = 0, kSouth = 1, kEast = 2, kWest = 3, kRamp = 4 };
constexpr int kPorts = 5;
constexpr uint8_t kN = 1 << kNorth, kS = 1 << kSouth, kE = 1 << kEast, kW = 1 << kWest, kR = 1 << kRamp;
constexpr int kMaxSwitchPositions = 4;
constexpr int kRouterQueueMax = 2;    // storage per (port, colour); MachineConfig::router_queue_depth <= this
constexpr int kCeQueueMax = 4;        // storage per colour at the CE; MachineConfig::ce_queue_depth <= this
constexpr int kCeQ = kPorts;          // index of the CE input queue in the mark arrays

inline Port opposite(Port p) {
    static constexpr Port k[5] = {kSouth, kNorth, kWest, kEast, kRamp};
    return k[p];
}
const char* port_name(int p);          // "N", "S", "E", "W", "RAMP"
std::string port_set(uint8_t mask);    // "{W,RAMP}"

struct SwitchPos {
    uint8_t rx = 0;   // port mask accepted
    uint8_t tx = 0;   // port mask sent to
};

// A colour's route at one router, as the host sets it.
struct Route {
    SwitchPos pos[kMaxSwitchPositions];
    uint8_t npos = 0;                  // 0 = no route
    static Route of(uint8_t rx, uint8_t tx) { Route r; r.pos[0] = {rx, tx}; r.npos = 1; return r; }
    Route& then(uint8_t rx, uint8_t tx) { if (npos < kMaxSwitchPositions) pos[npos++] = {rx, tx}; return *this; }
};

struct PortQueue {                     // one (port, colour) input queue: a 2-slot shift register
    uint32_t slot[kRouterQueueMax];    // slot[0] is the oldest wavelet (head stays 0)
    uint8_t head, count, ctrl, pad;    // ctrl: bit per slot, control wavelet
};
struct CeQueue {                       // one colour's queue at the CE (router -> RAMP -> CE)
    uint32_t slot[kCeQueueMax];
    uint8_t head, count, ctrl, pad;
};

// Hot fields first: a stream hop touches the sender's lines 0, 1, its stats line
// and one queue line, and the receiver's lines 0, 1 and one queue line.
struct alignas(64) Router {
    // [SECTION] hot: marks, work masks, the fast-path route per colour
    uint64_t mark_cycle;
    uint64_t listed;                   // the cycle (+1) whose active list holds this router
    uint32_t work;                     // colour bits with a non-empty port queue (== nonempty[0] | ... | nonempty[4])
    uint32_t nonempty[kPorts + 1];     // colour bits with a non-empty queue ([kCeQ] = CE queue)
    uint32_t pushed[kPorts + 1], popped[kPorts + 1];   // this-cycle marks
    // fast[c] != 0 when colour c's current switch position takes one rx port p and sends to one
    // mesh port d whose neighbour accepts c from there (Machine::route_phase's fast path):
    // kFast | p << 22 | d << 25 | byte offset of q[opposite(d)][c] << 11 | byte offset of q[p][c].
    // Machine keeps it in step (set_route here and at the neighbours, switch advances).
    uint32_t fast[kColours];
    uint8_t rx_any[kColours];          // union of rx over positions: arrival check
    SwitchPos cur_sw[kColours];        // == sw[c][cur[c]]
    uint8_t cur[kColours], npos[kColours];
    // [SECTION] counters (own cache lines: out[] and out_colour[0..5] share the first)
    alignas(64) RouterStats stats;     // in[N..W] stay 0 here: Machine::router_stats derives them from the neighbours

    // [SECTION] queues
    PortQueue q[kPorts][kColours];
    CeQueue ceq[kColours];

    // [SECTION] routes
    SwitchPos sw[kColours][kMaxSwitchPositions];

    static constexpr uint32_t kFast = 1u << 31;

    void refresh(uint64_t now) {
        if (mark_cycle != now) {
            std::memset(pushed, 0, sizeof pushed + sizeof popped);
            mark_cycle = now;
        }
    }
    int count(int p, int c) const { return q[p][c].count; }
    // Port queues (call refresh first).
    bool visible(int p, int c) const { return q[p][c].count > ((pushed[p] >> c) & 1u); }
    bool space(int p, int c, int depth) const { return int(q[p][c].count + ((popped[p] >> c) & 1u)) < depth; }
    // A port queue holds at most 2: slot[0] is the head; ctrl bits above count are 0.
    __attribute__((always_inline)) void push(int p, int c, uint32_t w, bool ctrl) {
        PortQueue& Q = q[p][c];
        const unsigned n = Q.count;
        Q.slot[n] = w;
        Q.ctrl = uint8_t(Q.ctrl | (unsigned(ctrl) << n));
        Q.count = uint8_t(n + 1);
        nonempty[p] |= 1u << c;
        work |= 1u << c;
        pushed[p] |= 1u << c;
    }
    __attribute__((always_inline)) uint32_t pop(int p, int c, bool* ctrl) {
        PortQueue& Q = q[p][c];
        const uint32_t w = Q.slot[0];
        *ctrl = Q.ctrl & 1u;
        Q.slot[0] = Q.slot[1];
        Q.ctrl = uint8_t(Q.ctrl >> 1);
        if (--Q.count == 0) {
            nonempty[p] &= ~(1u << c);
            work = nonempty[0] | nonempty[1] | nonempty[2] | nonempty[3] | nonempty[4];
        }
        popped[p] |= 1u << c;
        return w;
    }
    // The CE input queue.
    int ce_count(int c) const { return ceq[c].count; }
    int ce_visible(int c) const { return int(ceq[c].count) - int((pushed[kCeQ] >> c) & 1u); }
    bool ce_space(int c, int depth) const { return int(ceq[c].count + ((popped[kCeQ] >> c) & 1u)) < depth; }
    void ce_push(int c, uint32_t w, bool ctrl) {
        CeQueue& Q = ceq[c];
        int s = (Q.head + Q.count) & (kCeQueueMax - 1);
        Q.slot[s] = w;
        Q.ctrl = uint8_t((Q.ctrl & ~(1u << s)) | (uint32_t(ctrl) << s));
        Q.count++;
        nonempty[kCeQ] |= 1u << c;
        pushed[kCeQ] |= 1u << c;
    }
    bool ce_head_ctrl(int c) const { return (ceq[c].ctrl >> ceq[c].head) & 1u; }
    uint32_t ce_pop(int c) {
        CeQueue& Q = ceq[c];
        int s = Q.head;
        Q.head = uint8_t((s + 1) & (kCeQueueMax - 1));
        if (--Q.count == 0) nonempty[kCeQ] &= ~(1u << c);
        popped[kCeQ] |= 1u << c;
        return Q.slot[s];
    }
};
static_assert(offsetof(Router, pushed) + sizeof(Router::pushed) == offsetof(Router, popped), "refresh clears pushed+popped together");

}  // namespace wl
