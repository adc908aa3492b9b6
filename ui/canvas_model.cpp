#include "ui/canvas_model.h"

#include "ui/json_args.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace wlui {

using nlohmann::json;

// [SECTION] colours

Rgba colour_of(int colour) {
    // Bright first: examples use the low colour ids. Distinct on the dark canvas and on the heat ramp.
    static constexpr Rgba k[wl::kColours] = {
        {76, 201, 240},  {242, 142, 43},  {225, 87, 89},   {140, 209, 125}, {199, 125, 255}, {237, 201, 72},
        {255, 157, 167}, {118, 183, 178}, {78, 121, 167},  {156, 117, 95},  {186, 176, 172}, {255, 190, 125},
        {160, 203, 232}, {89, 161, 79},   {212, 166, 200}, {241, 206, 99},  {134, 188, 182}, {255, 111, 145},
        {188, 189, 34},  {23, 190, 207},  {227, 119, 194}, {127, 127, 255}, {215, 181, 166}, {255, 255, 255},
    };
    return k[((colour % wl::kColours) + wl::kColours) % wl::kColours];
}

Rgba heat(float t) {
    // Five stops of viridis: perceptually even, and 0 is not the background.
    static constexpr Rgba k[] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
    constexpr int n = int(std::size(k)) - 1;
    t = std::isfinite(t) ? std::clamp(t, 0.0f, 1.0f) * float(n) : 0.0f;
    const int i = std::min(int(t), n - 1);
    const float f = t - float(i);
    auto lerp = [f](uint8_t a, uint8_t b) { return uint8_t(std::lround(float(a) + (float(b) - float(a)) * f)); };
    return {lerp(k[i].r, k[i + 1].r), lerp(k[i].g, k[i + 1].g), lerp(k[i].b, k[i + 1].b), 255};
}

Rgba with_alpha(Rgba c, float a) {
    c.a = uint8_t(std::lround(std::clamp(a, 0.0f, 1.0f) * 255.0f));
    return c;
}

double nice_ceil(double v) {
    if (!(v > 0)) return 1;
    const double p = std::pow(10.0, std::floor(std::log10(v)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= v * (1 - 1e-12)) return m * p;
    return 10 * p;
}

std::string short_count(double v) {
    char b[32];
    if (v >= 1e9) std::snprintf(b, sizeof b, "%.2fG", v / 1e9);
    else if (v >= 1e6) std::snprintf(b, sizeof b, "%.2fM", v / 1e6);
    else if (v >= 1e3) std::snprintf(b, sizeof b, "%.1fk", v / 1e3);
    else std::snprintf(b, sizeof b, "%.0f", v);
    return b;
}

std::string format_bytes(double bytes) {
    char s[32];
    if (bytes < 1024) std::snprintf(s, sizeof s, "%.0f B", bytes);
    else std::snprintf(s, sizeof s, "%.*f KiB", std::fmod(bytes, 1024) == 0 ? 0 : 1, bytes / 1024);
    return s;
}

// [SECTION] settings

static constexpr const char* kModeNames[] = {"activity", "task", "sram", "stalls"};

const char* mode_name(ColourMode m) { return kModeNames[int(m)]; }

std::optional<ColourMode> mode_from_name(std::string_view s) {
    for (ColourMode m : kColourModes)
        if (s == mode_name(m)) return m;
    return std::nullopt;
}

Detail detail_for(float cell_px) {
    return cell_px < 6.0f ? Detail::Heatmap : cell_px < 16.0f ? Detail::Cells : Detail::Full;
}

const char* detail_name(Detail d) {
    static constexpr const char* k[] = {"heatmap", "cells", "full"};
    return k[int(d)];
}

json CanvasSettings::to_json() const {
    return {{"mode", mode_name(mode)},
            {"recent", recent},
            {"wavelets", wavelets},
            {"anim_speed", seconds_per_hop},
            {"overlay_colour", route_colour < 0 ? json(nullptr) : json(route_colour)}};
}

void CanvasSettings::apply(const json& args) {
    if (args.is_null()) return;
    if (!args.is_object()) throw std::invalid_argument("expected an object such as {mode: 'task'}");
    CanvasSettings s = *this;   // all or nothing
    for (const auto& [key, v] : args.items()) {
        if (key == "mode") {
            auto m = v.is_string() ? mode_from_name(v.get<std::string>()) : std::nullopt;
            if (!m) throw std::invalid_argument("'mode' must be one of activity, task, sram, stalls");
            s.mode = *m;
        } else if (key == "recent" || key == "wavelets") {
            if (!v.is_boolean()) throw std::invalid_argument("'" + key + "' must be true or false");
            (key == "recent" ? s.recent : s.wavelets) = v.get<bool>();
        } else if (key == "anim_speed") {
            s.seconds_per_hop = float(real_value(v, "anim_speed", wl::NumberRange::closed(kMinSecondsPerHop, kMaxSecondsPerHop)));   // seconds per hop
        } else if (key == "overlay_colour") {
            s.route_colour = v.is_null() ? -1 : int(int_value(v, "overlay_colour", wl::NumberRange::closed(0, wl::kColours - 1)));   // null: none
        } else {
            throw std::invalid_argument("unknown key '" + key + "' (mode, recent, wavelets, anim_speed, overlay_colour)");
        }
    }
    *this = s;
}

// [SECTION] activity

void ActivityWindow::update(const wl::Machine& m) {
    const wl::Mesh mesh = m.mesh();
    const uint64_t now = m.now();
    auto read = [&](std::vector<Counts>& out) {
        out.resize(size_t(mesh.size()));
        for (int y = 0; y < mesh.h; ++y)
            for (int x = 0; x < mesh.w; ++x) {
                const wl::CoreStats& s = m.core(x, y).stats;
                out[size_t(mesh.index(x, y))] = {s.busy, s.stall};
            }
    };
    if (next_.size() != size_t(mesh.size()) || now < next_cycle_) {
        base_.assign(size_t(mesh.size()), Counts{});
        base_cycle_ = 0;
        read(next_);
        next_cycle_ = now;
    } else if (now - next_cycle_ >= kCycles) {
        std::swap(base_, next_);
        base_cycle_ = next_cycle_;
        read(next_);
        next_cycle_ = now;
    }
}

uint64_t ActivityWindow::span(const wl::Machine& m, bool recent) const {
    return m.now() - (recent && !base_.empty() ? base_cycle_ : 0);
}

float ActivityWindow::fraction(uint64_t now_count, uint64_t base_count, const wl::Machine& m, bool recent) const {
    const uint64_t span = this->span(m, recent);
    if (span == 0) return 0;
    const uint64_t n = now_count - (recent ? base_count : 0);
    return std::min(1.0f, float(double(n) / double(span)));
}

float ActivityWindow::busy(const wl::Machine& m, int x, int y, bool recent) const {
    const size_t i = size_t(m.mesh().index(x, y));
    return fraction(m.core(x, y).stats.busy, i < base_.size() ? base_[i].busy : 0, m, recent);
}

float ActivityWindow::stall(const wl::Machine& m, int x, int y, bool recent) const {
    const size_t i = size_t(m.mesh().index(x, y));
    return fraction(m.core(x, y).stats.stall, i < base_.size() ? base_[i].stall : 0, m, recent);
}

// [SECTION] animation

void HopAnimation::update(const wl::Trace& trace, uint64_t now, double dt_s, double seconds_per_hop) {
    // The trace only changes when the machine moves (or rewinds): re-read it then.
    const bool moved = trace.total() != seen_total_ || now != seen_now_;
    if (moved) {
        seen_total_ = trace.total();
        seen_now_ = now;
        recent_.clear();
        const uint64_t oldest = now > uint64_t(kTrail + kMaxLag + 1) ? now - uint64_t(kTrail + kMaxLag + 1) : 0;
        size_t i = trace.size();          // back from the newest: only the recent events are touched
        while (i > 0 && trace.at(i - 1).cycle >= oldest) --i;
        for (; i < trace.size(); ++i) {
            const wl::TraceEvent& e = trace.at(i);
            if (e.kind != wl::TraceKind::Hop) continue;
            for (int p = 0; p < wl::kPorts; ++p)
                if (e.tx & (1u << p)) recent_.push_back({e.cycle, e.x, e.y, e.colour, uint8_t(p)});
        }
    }
    const double n = double(now);
    clock_ = std::min(clock_, n);        // a rewind or a new kernel
    clock_ = std::min(clock_ + dt_s / std::max(seconds_per_hop, 1e-3), n);
    if (clock_ < n - kMaxLag) clock_ += std::ceil(n - kMaxLag - clock_);   // whole cycles: the phase is kept
    if (moved || (any() ? cycle() : UINT64_MAX) != selected_cycle_) select();
}

uint64_t HopAnimation::cycle() const { return clock_ > 0 ? uint64_t(std::ceil(clock_)) - 1 : 0; }

float HopAnimation::phase() const { return clock_ > 0 ? float(clock_ - double(cycle())) : 0.0f; }

void HopAnimation::select() {
    selected_cycle_ = any() ? cycle() : UINT64_MAX;
    in_flight_.clear();
    trails_.clear();
    colours_ = 0;
    if (!any()) return;
    const uint64_t c = cycle();
    for (auto h = recent_.rbegin(); h != recent_.rend(); ++h) {   // newest first, so the first of each key is its newest
        if (h->cycle > c || c - h->cycle >= uint64_t(kTrail)) continue;
        if (h->cycle == c) in_flight_.push_back(*h);
        trails_.push_back({h->x, h->y, h->colour, h->port, int(c - h->cycle)});
        colours_ |= 1u << h->colour;
    }
    std::reverse(in_flight_.begin(), in_flight_.end());
    auto key = [](const Trail& t) { return std::tuple(t.y, t.x, t.port, t.colour); };
    std::stable_sort(trails_.begin(), trails_.end(), [&](const Trail& a, const Trail& b) { return key(a) < key(b); });
    trails_.erase(std::unique(trails_.begin(), trails_.end(), [&](const Trail& a, const Trail& b) { return key(a) == key(b); }), trails_.end());
}

// [SECTION] PE view

std::string task_label(const wl::Program* p, int task) {
    if (task < 0) return "launch";
    std::string s = "t" + std::to_string(task);
    if (p)
        for (const wl::TaskBinding& b : p->tasks)
            if (b.id == task && b.function < p->functions.size()) return s + " " + p->functions[b.function].name;
    return s;
}


void PeView::update(const wl::Machine& m, const CanvasSettings& s) {
    s_ = s;
    window_.update(m);
    if (s.mode != ColourMode::Sram) return;
    // Scale to the largest program, so a 2 KiB kernel is not a uniform dark on a 48 KiB ramp.
    uint32_t most = 0;
    const wl::Mesh mesh = m.mesh();
    for (int y = 0; y < mesh.h; ++y)
        for (int x = 0; x < mesh.w; ++x)
            if (const wl::Program* p = m.program_at(x, y)) most = std::max(most, p->sram_used);
    sram_range_ = uint32_t(std::min(nice_ceil(std::max(most, 1u)), double(m.config().sram_bytes)));
}

Rgba PeView::colour(const wl::Machine& m, int x, int y) const {
    const wl::Program* p = m.program_at(x, y);
    if (!p) return kNoProgram;
    switch (s_.mode) {
    case ColourMode::Activity: return heat(window_.busy(m, x, y, s_.recent));
    case ColourMode::Stalls: return heat(window_.stall(m, x, y, s_.recent));
    case ColourMode::Sram: return heat(float(p->sram_used) / float(sram_range_));
    case ColourMode::Task: {
        const wl::Core& c = m.core(x, y);
        if (c.state == wl::ThreadState::Idle) return heat(0);
        return c.task < 0 ? kLaunch : colour_of(c.task);
    }
    }
    return kNoProgram;
}

void SeenTasks::add(const wl::Program* p, int task) {
    if (task < 0 || task >= wl::kMaxTasks) {
        launch = true;
    } else if (!(mask & (1u << task))) {
        mask |= 1u << task;
        prog[task] = p;
    }
}

std::string colour_label(int colour, const std::vector<std::string>& names) {
    if (colour >= 0 && size_t(colour) < names.size() && !names[size_t(colour)].empty()) return names[size_t(colour)];
    return "colour " + std::to_string(colour);
}

Legend wavelet_legend(uint32_t colours, const std::vector<std::string>& names) {
    Legend l;
    l.title = "wavelets by colour";
    for (int c = 0; c < wl::kColours; ++c)
        if (colours & (1u << c)) l.swatches.push_back({colour_of(c), colour_label(c, names)});
    return l;
}

Legend PeView::legend(const wl::Machine& m, const SeenTasks& tasks) const {
    Legend l;
    l.swatches.push_back({kNoProgram, "no program"});
    auto ramp = [&](std::string title, std::string lo, std::string hi) {
        l.title = std::move(title);
        l.ramp = true;
        l.lo = std::move(lo);
        l.hi = std::move(hi);
    };
    std::string window = s_.recent ? ", last " + std::to_string(window_.span(m, true)) + " cycles" : ", since cycle 0";
    if (m.mode() == wl::RunMode::Fast) window += ", estimated";   // fast mode's cycles are its estimate
    switch (s_.mode) {
    case ColourMode::Activity: ramp("busy" + window, "0%", "100%"); break;
    case ColourMode::Stalls: ramp("stalled on the fabric" + window, "0%", "100%"); break;
    case ColourMode::Sram: ramp("SRAM in symbols (of " + format_bytes(m.config().sram_bytes) + ")", "0", format_bytes(sram_range_)); break;
    case ColourMode::Task:
        l.title = "running task";
        l.swatches.push_back({heat(0), "idle"});
        if (tasks.launch) l.swatches.push_back({kLaunch, "launch"});
        for (int t = 0; t < wl::kMaxTasks; ++t)
            if (tasks.mask & (1u << t)) l.swatches.push_back({colour_of(t), task_label(tasks.prog[t], t)});
        break;
    }
    return l;
}

std::vector<std::string> PeView::tooltip(const wl::Machine& m, int x, int y) const {
    char line[160];
    std::vector<std::string> out;
    std::snprintf(line, sizeof line, "PE (%d, %d)", x, y);
    out.push_back(line);
    const wl::Program* p = m.program_at(x, y);
    if (!p) {
        out.push_back("no program");
        return out;
    }
    const wl::Core& c = m.core(x, y);
    std::string prog_line = "program " + p->name;   // a shared image: this PE's `place ... with` values follow
    for (int k = 0; k < p->nconsts; ++k) prog_line += (k ? ", " : ", constants ") + std::to_string(c.konst[k]);
    out.push_back(prog_line);
    out.push_back("task    " + (c.state == wl::ThreadState::Idle ? std::string("none") : task_label(p, c.task)));
    out.push_back("thread  " + thread_state_text(c));
    std::snprintf(line, sizeof line, "SRAM    %s of %s in symbols", format_bytes(p->sram_used).c_str(),
                  format_bytes(m.config().sram_bytes).c_str());
    out.push_back(line);
    std::snprintf(line, sizeof line, "busy    %llu cycles (%.0f%% of %llu)", (unsigned long long)c.stats.busy,
                  100.0 * window_.busy(m, x, y, false), (unsigned long long)m.now());
    out.push_back(line);
    std::snprintf(line, sizeof line, "stalled %llu cycles; %llu instructions, %llu task starts", (unsigned long long)c.stats.stall,
                  (unsigned long long)c.stats.instrs, (unsigned long long)c.stats.tasks);
    out.push_back(line);
    return out;
}

}  // namespace wlui
