// network.cpp: see network.h.
#include "engine/fabric/network.h"

#include "engine/fabric/core.h"   // kNever

namespace wl {

Network::Network(Mesh m) : mesh_(m), routers_(size_t(m.size())) {   // value-initialised: every byte 0
    step_[kNorth] = -m.w, step_[kSouth] = m.w, step_[kEast] = 1, step_[kWest] = -1;
}

// [SECTION] routes

std::string Network::check_route(int i, int colour, const Route& r) const {
    if (colour < 0 || colour >= kColours) return "colour must be 0..23";
    if (r.npos > kMaxSwitchPositions) return "at most 4 switch positions";
    for (int k = 0; k < r.npos; ++k) {
        const SwitchPos sp = r.pos[k];
        if ((sp.rx | sp.tx) & ~0x1f) return "port mask has bits beyond N,S,E,W,RAMP";
        if (sp.rx && !sp.tx) return "switch position " + std::to_string(k) + " receives but sends nowhere";
        for (int p = 0; p < 4; ++p)
            if ((sp.tx >> p & 1) && off_mesh(i, p) && !find_drain(i, p, colour))
                return std::string("tx ") + port_name(p) + " leads off the mesh";   // the traffic goldens hash this text
    }
    return {};
}

void Network::set_route(int i, int colour, const Route& r) {
    Router& rt = routers_[size_t(i)];
    rt.npos[colour] = r.npos;
    rt.cur[colour] = 0;
    rt.cur_sw[colour] = r.npos ? r.pos[0] : SwitchPos{};
    rt.rx_any[colour] = 0;
    for (int k = 0; k < kMaxSwitchPositions; ++k) {
        rt.sw[colour][k] = k < r.npos ? r.pos[k] : SwitchPos{};
        rt.rx_any[colour] |= rt.sw[colour][k].rx;
    }
    // The fast path here and at the neighbours that may send to this router depends on this route.
    set_fast(i, colour);
    for (int p = 0; p < 4; ++p)
        if (!off_mesh(i, p)) set_fast(neighbour(i, p), colour);
}

__attribute__((noinline)) void Network::advance_switch(int i, int colour) {
    Router& r = routers_[size_t(i)];
    if (r.npos[colour] > 1) {
        r.cur[colour] = uint8_t((r.cur[colour] + 1) % r.npos[colour]);
        r.cur_sw[colour] = r.sw[colour][r.cur[colour]];
        set_fast(i, colour);
    }
}

// Router::fast[c]: the current switch position takes one rx port and sends to one mesh port
// whose neighbour accepts colour c from this side. Otherwise cycle mode's route_general handles the colour.
void Network::set_fast(int i, int c) {
    Router& r = routers_[size_t(i)];
    const uint32_t rx = r.cur_sw[c].rx, tx = r.cur_sw[c].tx;
    uint32_t f = 0;
    // A port off the mesh (an outbound edge link) has no neighbour queue: route_general's.
    if (rx && !(rx & (rx - 1)) && tx && !(tx & (tx - 1)) && tx != kR && !off_mesh(i, __builtin_ctz(tx))) {
        const int p = __builtin_ctz(rx), d = __builtin_ctz(tx), op = opposite(Port(d));
        constexpr uint32_t kQ = sizeof(PortQueue);
        if (accepts(neighbour(i, d), op, c))
            f = Router::kFast | uint32_t(p) << 22 | uint32_t(d) << 25 | (uint32_t(op * kColours + c) * kQ) << 11 | uint32_t(p * kColours + c) * kQ;
    }
    r.fast[c] = f;
}

// [SECTION] where a wavelet goes

bool Network::off_mesh(int i, int port) const {
    switch (port) {
    case kNorth: return i < mesh_.w;
    case kSouth: return i >= (mesh_.h - 1) * mesh_.w;
    case kEast: return i % mesh_.w == mesh_.w - 1;
    case kWest: return i % mesh_.w == 0;
    default: return false;
    }
}

std::string Network::refused(int colour, int port) {
    return "wavelet on colour " + std::to_string(colour) + " arrived from " + port_name(port) +
           " but no switch position of that colour accepts " + port_name(port);
}

// [SECTION] edge links

uint64_t EdgeFeed::due(size_t k) const { return start + uint64_t(std::ceil(double(k + 1) * cycles_per_wavelet)); }

uint64_t Network::next_feed() const {
    uint64_t t = kNever;
    for (const EdgeFeed& f : feeds_) t = std::min(t, f.due(f.next));
    return t;
}

void EdgeDrain::leave(uint64_t t, uint32_t data, bool ctrl) {
    // A word that waited for its slot keeps the fractional schedule; one after an idle spell starts it anew.
    free = (t == uint64_t(std::ceil(free)) ? free : double(t)) + cycles_per_wavelet;
    last = t;
    ++left;
    if (!ctrl) words.push_back(data);
}

EdgeDrain* Network::find_drain(int i, int port, int colour) {
    for (EdgeDrain& d : drains_)
        if (d.pe == i && d.port == port && d.colour == colour) return &d;
    return nullptr;
}

const EdgeDrain* Network::find_drain(int i, int port, int colour) const { return const_cast<Network*>(this)->find_drain(i, port, colour); }

void Network::open_drain(EdgeDrain d) {
    drain_colours_ |= 1u << d.colour;
    drains_.push_back(std::move(d));
}

std::string Network::close_drain(int i, int port, int colour) {
    const Router& r = routers_[size_t(i)];
    for (int k = 0; k < r.npos[colour]; ++k)
        if (r.sw[colour][k].tx >> port & 1)
            return std::string("colour ") + std::to_string(colour) + "'s route still sends tx " + port_name(port) + " (switch position " +
                   std::to_string(k) + "); set another route first";
    const EdgeDrain* d = find_drain(i, port, colour);
    drains_.erase(drains_.begin() + (d - drains_.data()));
    drain_colours_ = 0;
    for (const EdgeDrain& o : drains_) drain_colours_ |= 1u << o.colour;
    return {};
}

uint64_t Network::next_drain(uint64_t now) const {
    uint64_t t = kNever;
    for (const EdgeDrain& d : drains_)
        if (d.busy_until() >= now) t = std::min(t, d.busy_until());
    return t;
}

}  // namespace wl
