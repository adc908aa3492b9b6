// canvas_model.h: what the mesh canvas shows, as plain data — the colour
// palettes, the per-PE colour of each colouring mode, the legend, and which
// wavelet hops are in flight at which phase. mesh_canvas.cpp only turns this
// into draw calls. No ImGui here: the tests drive it directly.
//
// Index of this file:
//   [SECTION] colours        the 24 wavelet colours and the heat ramp
//   [SECTION] settings       mode, window, animation speed, route overlay (+ JSON)
//   [SECTION] activity       busy and stall fractions over a recent window of cycles
//   [SECTION] animation      the wavelet clock and the hops in flight
//   [SECTION] PE view        cell colour, tooltip text, legend, an overlay's colours
#pragma once
#include "engine/fabric/machine.h"
#include "engine/fabric/pe_status.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wlui {

// [SECTION] colours

struct Rgba {
    uint8_t r = 0, g = 0, b = 0, a = 255;
    bool operator==(const Rgba&) const = default;
};

Rgba colour_of(int colour);              // wavelet colour 0..23 (wraps): one fixed palette for dots, routes, legend and tasks
Rgba heat(float t);                      // 0..1 -> dark violet .. yellow (viridis-like, readable on a dark background); clamps
Rgba with_alpha(Rgba c, float a);        // a in 0..1
inline constexpr Rgba kNoProgram{44, 49, 60, 255};   // a PE with nothing loaded, in every mode
inline constexpr Rgba kLaunch{150, 160, 176, 255};    // task mode: a host-launched function (no task id)

double nice_ceil(double v);              // the next 1, 2 or 5 x 10^k at or above v (> 0); legend ranges
std::string format_bytes(double bytes);  // "320 B", "1.5 KiB", "48 KiB"
std::string short_count(double v);       // 1234567 -> "1.23M", 12345 -> "12.3k": an axis label, a cycle count

// [SECTION] settings

enum class ColourMode : uint8_t { Activity, Task, Sram, Stalls };
inline constexpr ColourMode kColourModes[] = {ColourMode::Activity, ColourMode::Task, ColourMode::Sram, ColourMode::Stalls};
const char* mode_name(ColourMode m);     // "activity", "task", "sram", "stalls"
std::optional<ColourMode> mode_from_name(std::string_view s);

// Level of detail, from the size of one PE on screen.
enum class Detail : uint8_t {
    Heatmap,   // < 6 px: one filled rect per PE, nothing else
    Cells,     // PEs with gaps, wavelets as dots
    Full,      // >= 16 px: routers, links, trails, route arrows
};
Detail detail_for(float cell_px);
const char* detail_name(Detail d);

struct CanvasSettings {
    ColourMode mode = ColourMode::Activity;
    bool recent = true;                  // activity/stalls over the last window of cycles, else since cycle 0
    bool wavelets = true;                // animate hops along links
    float seconds_per_hop = 0.3f;        // the animation's own speed: wall seconds one cycle's hop takes
    int route_colour = -1;               // route overlay for this colour, -1 = none
    static constexpr float kMinSecondsPerHop = 0.02f, kMaxSecondsPerHop = 2.0f;

    nlohmann::json to_json() const;      // {mode, recent, wavelets, anim_speed, overlay_colour}
    void apply(const nlohmann::json& args);   // the same keys, each optional; throws std::invalid_argument, changing nothing
};

// [SECTION] activity

// Busy and stall fractions per PE over a recent window, from the engine's
// cumulative counters: two checkpoints, `kCycles` apart, so the window spans
// kCycles..2*kCycles cycles and costs one pass over the mesh per kCycles.
// After a rewind or a new kernel it falls back to "since cycle 0" (counters
// are zero there, so that baseline is always right).
class ActivityWindow {
public:
    static constexpr uint64_t kCycles = 16;   // short, so a wave shows as it passes instead of piling up
    void update(const wl::Machine& m);                       // once per frame
    float busy(const wl::Machine& m, int x, int y, bool recent) const;
    float stall(const wl::Machine& m, int x, int y, bool recent) const;
    uint64_t span(const wl::Machine& m, bool recent) const;  // cycles the fractions cover

private:
    struct Counts { uint64_t busy = 0, stall = 0; };
    float fraction(uint64_t now_count, uint64_t base_count, const wl::Machine& m, bool recent) const;
    std::vector<Counts> base_, next_;    // per PE, at base_cycle_ and next_cycle_
    uint64_t base_cycle_ = 0, next_cycle_ = 0;
};

// [SECTION] animation

// One wavelet leaving router (x,y) in `cycle` by an output port (N, S, E, W,
// or RAMP down to its own CE). A multicast hop is one Hop per port.
struct Hop {
    uint64_t cycle = 0;
    uint16_t x = 0, y = 0;
    uint8_t colour = 0, port = 0;
};

// A link that carried a colour recently: the newest hop's age in cycles (0 = in flight).
struct Trail {
    uint16_t x = 0, y = 0;
    uint8_t colour = 0, port = 0;
    int age = 0;
};

// The wavelet clock, in cycles. It runs at 1/seconds_per_hop cycles per
// second and never passes the machine. When the machine gets more than kMaxLag
// cycles ahead, it skips whole cycles: the phase stays smooth and the newest
// hops show, instead of a backlog that lags further behind every frame.
class HopAnimation {
public:
    static constexpr int kMaxLag = 2;    // cycles the animation may trail the machine
    static constexpr int kTrail = 8;     // cycles a link's trail takes to fade

    void update(const wl::Trace& trace, uint64_t now, double dt_s, double seconds_per_hop);
    double clock() const { return clock_; }
    bool any() const { return clock_ > 0; }                   // false before the first cycle
    uint64_t cycle() const;                                   // the cycle whose hops are in flight
    float phase() const;                                      // 0..1 along their links
    const std::vector<Hop>& in_flight() const { return in_flight_; }
    const std::vector<Trail>& trails() const { return trails_; }   // one per (PE, port, colour), sorted by y, x
    uint32_t colours() const { return colours_; }             // bit c: colour c moved within the trail window

private:
    void select();                       // in_flight_, trails_ and colours_ for cycle()
    std::vector<Hop> recent_;            // the trace's hops of the last kTrail + kMaxLag cycles, oldest first
    std::vector<Hop> in_flight_;
    std::vector<Trail> trails_;
    uint32_t colours_ = 0;
    uint64_t seen_total_ = UINT64_MAX, seen_now_ = UINT64_MAX, selected_cycle_ = UINT64_MAX;
    double clock_ = 0;
};

// [SECTION] PE view

std::string task_label(const wl::Program* p, int task);      // "t3 recv_a" (the bound function's name), "t3", or "launch"
using wl::thread_state_text;                 // "idle", "running", "vector op", "stalled on recv (colour 2)" (engine/fabric/pe_status.h)

struct Legend {
    std::string title;                   // "busy, last 384 cycles"
    bool ramp = false;                   // a heat ramp from lo to hi; else the swatches
    std::string lo, hi;
    std::vector<std::pair<Rgba, std::string>> swatches;
};

// The tasks running on the PEs drawn this frame, for the task legend.
struct SeenTasks {
    uint32_t mask = 0;                   // bit t: task t
    bool launch = false;                 // a host launch (no task id)
    const wl::Program* prog[wl::kMaxTasks] = {};   // a program that binds task t, for its name
    void add(const wl::Program* p, int task);
};

// A colour as the kernel names it: "xdown", or "colour 5" when the kernel gave it no name.
std::string colour_label(int colour, const std::vector<std::string>& names);
Legend wavelet_legend(uint32_t colours, const std::vector<std::string>& names);   // a swatch per colour bit

// Colours that replace the colouring mode, one per PE (the Model window's placement),
// with the legend that explains them and each PE's first tooltip line.
struct PeOverlay {
    wl::Mesh mesh;
    std::vector<Rgba> colour;            // row-major, mesh.size() of them
    std::vector<std::string> label;      // row-major: "l0.qkv: matmul_forward (matmul.wk)", "" for none
    Legend legend;
    int lit = 0;                         // training_overlay: how many PEs the op running now lights,
    wl::Rect lit_box{0, 0, 0, 0};        // and the box around them (w = 0: none)
    std::vector<std::pair<wl::Rect, std::string>> tags;   // text the canvas writes over these PEs, where it fits
};

// Everything one frame needs to colour PEs; built once per frame by update().
class PeView {
public:
    void update(const wl::Machine& m, const CanvasSettings& s);
    Rgba colour(const wl::Machine& m, int x, int y) const;   // in the current mode
    Legend legend(const wl::Machine& m, const SeenTasks& tasks) const;
    std::vector<std::string> tooltip(const wl::Machine& m, int x, int y) const;
    const ActivityWindow& window() const { return window_; }

private:
    ActivityWindow window_;
    CanvasSettings s_;
    uint32_t sram_range_ = 1;            // bytes at the top of the SRAM ramp
};

}  // namespace wlui
