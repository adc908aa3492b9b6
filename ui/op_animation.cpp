// op_animation.cpp: see op_animation.h.
#include "ui/op_animation.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

namespace wlui {

namespace {
constexpr size_t kTraceEvents = 1 << 16;   // the newest hops are what the canvas draws
constexpr uint64_t kSlice = 4096;          // cycles per advance() between looks at the clock

// The bytes of `symbol` on PE (x, y), or none when its program has no such symbol.
std::vector<uint8_t> symbol_bytes(const wl::Machine& m, int x, int y, const std::string& symbol) {
    const wl::Program* p = m.program_at(x, y);
    if (!p) return {};
    for (const wl::Symbol& s : p->symbols)
        if (s.name == symbol) {
            std::vector<uint8_t> b(size_t(s.length) * 4);
            m.read(x, y, s.offset, b.data(), b.size());
            return b;
        }
    return {};
}
}  // namespace

bool OpAnimation::start(const wl::Machine& model, const wl::model::PlannedOp& op, std::string* why) {
    const Launch launch = [&op](wl::Host& h) {
        wl::Fault f = h.launch(op.rect, "main");
        for (const auto& [from, send] : wl::model::link_senders(op))   // its links: the producers send again, from their SRAM
            if (!f) f = h.launch(from, send);
        return f;
    };
    return start(model, op.name, launch, {{op.rect, op.output.symbol}}, why);
}

bool OpAnimation::start(const wl::Machine& model, const std::string& name, const Launch& launch,
                        const std::vector<std::pair<wl::Rect, std::string>>& outputs, std::string* why) {
    stop();
    *this = OpAnimation{};
    auto host = std::make_unique<wl::Host>(model.config());
    host->restore(model);
    wl::Machine& m = host->machine();
    wl::Fault f = m.set_mode(wl::RunMode::Cycle);
    if (!f) {
        m.trace().set_capacity(kTraceEvents);
        f = launch(*host);
    }
    if (f) {
        *why = name + ": " + f.to_string();
        return false;
    }
    host_ = std::move(host);
    op_ = name;
    outputs_ = outputs;
    for (const auto& [r, symbol] : outputs_)
        for (int y = r.y; y < r.y + r.h; ++y)
            for (int x = r.x; x < r.x + r.w; ++x) fast_out_.push_back(symbol_bytes(model, x, y, symbol));
    start_ = m.now();
    return true;
}

uint64_t OpAnimation::cycles() const { return host_ ? host_->machine().now() - start_ : 0; }

void OpAnimation::tick(double dt_s, double budget_ms) {
    if (!host_ || done_) return;
    wl::Machine& m = host_->machine();
    owed_ = to_end_ ? 1e18 : std::min(owed_ + dt_s * speed_, speed_);   // at most a second's worth behind
    const auto t0 = std::chrono::steady_clock::now();
    while (owed_ >= 1 && !done_) {
        const uint64_t slice = uint64_t(std::min(owed_, double(kSlice)));
        const wl::RunResult r = m.advance(slice);
        owed_ -= double(std::max<uint64_t>(r.cycles, 1));
        if (!r.ok()) {
            done_ = true;
            error_ = op_ + ": " + r.fault.to_string();
        } else if (r.status == wl::RunStatus::Quiescent) {
            done_ = true;
        }
        if (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() > budget_ms) break;
    }
    if (to_end_) owed_ = 0;
    if (!done_ || !error_.empty()) return;
    // The outputs on each of their PEs, against the fast run's.
    bool same = true;
    size_t i = 0;
    for (const auto& [r, symbol] : outputs_)
        for (int y = r.y; y < r.y + r.h; ++y)
            for (int x = r.x; x < r.x + r.w; ++x) same = same && symbol_bytes(m, x, y, symbol) == fast_out_[i++];
    matches_ = same;
}

}  // namespace wlui
