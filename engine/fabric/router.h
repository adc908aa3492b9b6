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

struct Router {
    // [SECTION] queues: router input queues per (port, colour), then the CE's input queue per colour.
    uint32_t q[kPorts][kColours][kRouterQueueMax];
    uint8_t qhead[kPorts][kColours];
    uint8_t qcount[kPorts][kColours];
    uint8_t qctrl[kPorts][kColours];   // bit per slot: control wavelet
    uint32_t ceq[kColours][kCeQueueMax];
    uint8_t cehead[kColours], cecount[kColours], cectrl[kColours];
    uint32_t nonempty[kPorts + 1];     // colour bits with a non-empty queue ([kCeQ] = CE queue)
    uint32_t pushed[kPorts + 1], popped[kPorts + 1];   // this-cycle marks
    uint64_t mark_cycle;

    // [SECTION] routes
    SwitchPos sw[kColours][kMaxSwitchPositions];
    uint8_t npos[kColours], cur[kColours];
    uint8_t rx_any[kColours];          // union of rx over positions: arrival check

    uint64_t listed;                   // the cycle whose active list holds this router
    RouterStats stats;

    void refresh(uint64_t now) {
        if (mark_cycle != now) {
            std::memset(pushed, 0, sizeof pushed);
            std::memset(popped, 0, sizeof popped);
            mark_cycle = now;
        }
    }
    // Port queues (call refresh first).
    bool visible(int p, int c) const { return qcount[p][c] > ((pushed[p] >> c) & 1u); }
    bool space(int p, int c, int depth) const { return int(qcount[p][c] + ((popped[p] >> c) & 1u)) < depth; }
    void push(int p, int c, uint32_t w, bool ctrl) {
        int slot = (qhead[p][c] + qcount[p][c]) & (kRouterQueueMax - 1);
        q[p][c][slot] = w;
        qctrl[p][c] = uint8_t((qctrl[p][c] & ~(1u << slot)) | (uint32_t(ctrl) << slot));
        qcount[p][c]++;
        nonempty[p] |= 1u << c;
        pushed[p] |= 1u << c;
    }
    uint32_t pop(int p, int c, bool* ctrl) {
        int slot = qhead[p][c];
        *ctrl = (qctrl[p][c] >> slot) & 1u;
        qhead[p][c] = uint8_t((slot + 1) & (kRouterQueueMax - 1));
        if (--qcount[p][c] == 0) nonempty[p] &= ~(1u << c);
        popped[p] |= 1u << c;
        return q[p][c][slot];
    }
    // The CE input queue.
    int ce_visible(int c) const { return int(cecount[c]) - int((pushed[kCeQ] >> c) & 1u); }
    bool ce_space(int c, int depth) const { return int(cecount[c] + ((popped[kCeQ] >> c) & 1u)) < depth; }
    void ce_push(int c, uint32_t w, bool ctrl) {
        int slot = (cehead[c] + cecount[c]) & (kCeQueueMax - 1);
        ceq[c][slot] = w;
        cectrl[c] = uint8_t((cectrl[c] & ~(1u << slot)) | (uint32_t(ctrl) << slot));
        cecount[c]++;
        nonempty[kCeQ] |= 1u << c;
        pushed[kCeQ] |= 1u << c;
    }
    bool ce_head_ctrl(int c) const { return (cectrl[c] >> cehead[c]) & 1u; }
    uint32_t ce_pop(int c) {
        int slot = cehead[c];
        cehead[c] = uint8_t((slot + 1) & (kCeQueueMax - 1));
        if (--cecount[c] == 0) nonempty[kCeQ] &= ~(1u << c);
        popped[kCeQ] |= 1u << c;
        return ceq[c][slot];
    }
};

}  // namespace wl
