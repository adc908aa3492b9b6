// host.h: the host runtime, shaped like the vendor SDK's — load programs on
// rectangles, set routes, copy memory by symbol, launch exported functions,
// run, read stats. Everything returns a Fault value (kind None = ok).
//
//   Host h({.w = 4, .h = 1});
//   h.load(prog, {0, 0, 4, 1});
//   h.route({0, 0, 4, 1}, 3, Route::of(kW, kR | kE));
//   h.h2d_rect({0, 0, 4, 1}, "x", xs);          // row-major: PE (0,0) first
//   h.launch({0, 0, 4, 1}, "main");
//   RunResult r = h.run_until_quiescent(1'000'000);
//   h.d2h_rect({0, 0, 4, 1}, "y", &ys);
#pragma once
#include "engine/fabric/machine.h"

#include <string>
#include <vector>

namespace wl {

class Host {
public:
    explicit Host(const MachineConfig& cfg = {}) : m_(cfg) {}

    Machine& machine() { return m_; }
    const Machine& machine() const { return m_; }

    Fault load(const Program& p, Rect r);
    // The same image for several loads (PEs that share code share host cache lines too); consts: Machine::load.
    Fault load(std::shared_ptr<const Program> p, Rect r, const std::vector<uint32_t>& consts = {}) {
        return m_.load(std::move(p), r, consts);
    }
    Fault route(int x, int y, int colour, const Route& r) { return m_.set_route(x, y, colour, r); }
    Fault route(Rect r, int colour, const Route& route);

    // By symbol, at one PE: n elements starting at element `first` of the symbol.
    Fault h2d(int x, int y, const std::string& sym, const float* src, size_t n, size_t first = 0);
    Fault d2h(int x, int y, const std::string& sym, float* dst, size_t n, size_t first = 0) const;
    Fault h2d_u32(int x, int y, const std::string& sym, const uint32_t* src, size_t n, size_t first = 0);
    Fault d2h_u32(int x, int y, const std::string& sym, uint32_t* dst, size_t n, size_t first = 0) const;
    // Over a rectangle, row-major by PE: each PE gets data.size() / (w*h) elements.
    Fault h2d_rect(Rect r, const std::string& sym, const std::vector<float>& data);
    Fault d2h_rect(Rect r, const std::string& sym, std::vector<float>* out, size_t per_pe = 0) const;

    // Where n elements of a symbol from element `first` lie in PE (x, y)'s SRAM: the check h2d makes.
    Fault symbol_offset(int x, int y, const std::string& sym, size_t n, size_t first, uint32_t* offset) const;

    Fault launch(Rect r, const std::string& fn);
    RunResult run(uint64_t cycles) { return m_.run(cycles); }
    RunResult run_until_quiescent(uint64_t budget) { return m_.run_until_quiescent(budget); }
    // fn launched on each rectangle, which exchange nothing with one another (Machine::run_apart).
    RunResult run_apart(const std::vector<Rect>& rects, const std::string& fn, uint64_t budget) {
        return m_.run_apart(rects.size(), [&](size_t k) { return launch(rects[k], fn); }, budget);
    }

    MachineStats stats() const { return m_.stats(); }
    MachineStats stats(const Rect& r) const { return m_.stats(r); }   // r's routers and cores alone (Machine::stats)
    Machine snapshot() const { return m_; }
    void restore(const Machine& s) { m_ = s; }

private:
    Machine m_;
};

}  // namespace wl
