// placement_overlay.cpp: see placement_overlay.h.
#include "ui/placement_overlay.h"

#include "engine/core/thousands.h"

#include <algorithm>

namespace wlui {

const char* placement_colour_name(PlacementColour c) { return c == PlacementColour::Op ? "op" : "layer"; }

std::optional<PlacementColour> placement_colour_from_name(std::string_view s) {
    if (s == "op") return PlacementColour::Op;
    if (s == "layer") return PlacementColour::Layer;
    return std::nullopt;
}

// The embedding's ops (before layer 0) and the final ones (after the last layer) have no layer:
// they are keys of their own.
static std::string layer_key(const wl::model::PlannedOp& o, bool before_layers) {
    if (o.layer >= 0) return "layer " + std::to_string(o.layer);
    return before_layers ? "embedding" : "final";
}

PeOverlay placement_overlay(const wl::model::MeshPlan& plan, PlacementColour by) {
    PeOverlay ov;
    ov.mesh = wl::Mesh{plan.mesh_w, plan.mesh_h};
    ov.colour.assign(size_t(ov.mesh.size()), kNoProgram);
    ov.label.assign(size_t(ov.mesh.size()), "");
    ov.legend.title = by == PlacementColour::Op ? "placement: PEs by op" : "placement: PEs by layer";
    ov.legend.swatches.push_back({kNoProgram, "unused"});
    std::vector<std::string> keys;
    bool before_layers = true;
    for (const wl::model::PlannedOp& o : plan.ops) {
        before_layers = before_layers && o.layer < 0;
        const std::string key = by == PlacementColour::Op ? o.op : layer_key(o, before_layers);
        auto at = std::find(keys.begin(), keys.end(), key);
        if (at == keys.end()) {
            at = keys.insert(keys.end(), key);
            ov.legend.swatches.push_back({colour_of(int(keys.size()) - 1), key});
        }
        const Rgba c = colour_of(int(at - keys.begin()));
        const std::string label = o.name + ": " + o.op + " (" + o.kernel + ")" +
                                  (o.layer >= 0 ? ", layer " + std::to_string(o.layer) : "");
        for (int y = o.rect.y; y < o.rect.y + o.rect.h; ++y)
            for (int x = o.rect.x; x < o.rect.x + o.rect.w; ++x) {
                if (!ov.mesh.contains(x, y)) continue;
                ov.colour[size_t(ov.mesh.index(x, y))] = c;
                ov.label[size_t(ov.mesh.index(x, y))] = label;
            }
    }
    return ov;
}

// Whether run `run` (an OpRun's name) works on o's PEs. Streaming: the plan's layer ops (l0.*) run
// every layer: "l2.qkv" lights l0.qkv's PEs, and a layer's stream ("l2.weights" in, "l2.grads" out)
// the layer's weight-holding ops.
static bool runs_on(const wl::model::MeshPlan& plan, const wl::model::PlannedOp& o, const std::string& run) {
    const wl::gpt::OpName unit = wl::gpt::parse_op_name(run);
    if (plan.streaming && unit.layer >= 0 && o.layer >= 0)
        return unit.row ? o.id == unit.row->id : (unit.rest == "weights" || unit.rest == "grads") && !o.weights.empty();
    return o.name == run || run == o.name + ".weights" || run == o.name + ".grads" ||   // the tied wte's streams
           (run == wl::gpt::entry::kGradNorm && !o.weights.empty());
}

// Marks o's PEs in ov: colour c, tooltip label; lit ones add to ov.lit and ov.lit_box.
static void paint(PeOverlay& ov, const wl::model::PlannedOp& o, Rgba c, const std::string& label, bool lit) {
    for (int y = o.rect.y; y < o.rect.y + o.rect.h; ++y)
        for (int x = o.rect.x; x < o.rect.x + o.rect.w; ++x) {
            if (!ov.mesh.contains(x, y)) continue;
            ov.colour[size_t(ov.mesh.index(x, y))] = c;
            ov.label[size_t(ov.mesh.index(x, y))] = label;
            if (!lit) continue;
            wl::Rect& b = ov.lit_box;
            if (ov.lit++ == 0) b = {x, y, 1, 1};
            const int x0 = std::min(b.x, x), y0 = std::min(b.y, y), x1 = std::max(b.x + b.w, x + 1), y1 = std::max(b.y + b.h, y + 1);
            b = {x0, y0, x1 - x0, y1 - y0};
        }
}

static constexpr Rgba kWaiting{78, 84, 98, 255};   // a placed PE whose op is not running

PeOverlay training_overlay(const wl::model::MeshPlan& plan, const std::string& op, const std::string& phase) {
    static const char* kPhases[] = {"forward", "backward", "optimiser"};
    static constexpr Rgba kPhaseColour[] = {{90, 170, 255, 255}, {255, 150, 60, 255}, {110, 220, 120, 255}};
    PeOverlay ov;
    ov.mesh = wl::Mesh{plan.mesh_w, plan.mesh_h};
    ov.colour.assign(size_t(ov.mesh.size()), kNoProgram);
    ov.label.assign(size_t(ov.mesh.size()), "");
    ov.legend.title = "training: the op running now, by phase";
    ov.legend.swatches.push_back({kNoProgram, "unused"});
    ov.legend.swatches.push_back({kWaiting, "placed, waiting"});
    Rgba lit = kWaiting;
    for (int i = 0; i < 3; i++) {
        ov.legend.swatches.push_back({kPhaseColour[i], kPhases[i]});
        if (phase == kPhases[i]) lit = kPhaseColour[i];
    }
    for (const wl::model::PlannedOp& o : plan.ops) {
        const bool now = runs_on(plan, o, op);
        paint(ov, o, now ? lit : kWaiting, o.name + ": " + o.op + " (" + o.kernel + ")" + (now ? ", running: " + phase : ""), now);
    }
    return ov;
}

Rgba launch_colour(const wl::model::LaunchSpan& s, bool by_sequence) { return colour_of(by_sequence ? s.sequence : s.chunk); }

bool batch_timeline(const std::vector<wl::model::LaunchSpan>& t) {
    return std::any_of(t.begin(), t.end(), [](const wl::model::LaunchSpan& s) { return s.sequence > 0; });
}

PeOverlay timeline_overlay(const wl::model::MeshPlan& plan, const std::vector<wl::model::LaunchSpan>& t, uint64_t cycle) {
    PeOverlay ov;
    ov.mesh = wl::Mesh{plan.mesh_w, plan.mesh_h};
    ov.colour.assign(size_t(ov.mesh.size()), kNoProgram);
    ov.label.assign(size_t(ov.mesh.size()), "");
    const bool by_sequence = batch_timeline(t);
    ov.legend.title = "cycle " + wl::thousands(cycle) + ": the ops working, by " + (by_sequence ? "sequence" : "chunk");
    ov.legend.swatches.push_back({kNoProgram, "unused"});
    ov.legend.swatches.push_back({kWaiting, "placed, waiting"});
    const std::vector<size_t> now = wl::model::in_flight_at(t, cycle);
    for (const wl::model::PlannedOp& o : plan.ops) paint(ov, o, kWaiting, o.name + ": " + o.op + " (" + o.kernel + "), waiting", false);
    for (size_t i : now) {
        const wl::model::LaunchSpan& s = t[i];
        const std::string chunk = (s.sequence ? "sequence " + std::to_string(s.sequence) + ", " : "") + "chunk " + std::to_string(s.chunk) +
                                  " (steps " + std::to_string(s.t0) + "-" + std::to_string(s.t0 + s.n - 1) + ")";
        const std::string tag = (by_sequence ? "s" + std::to_string(s.sequence) + " " : "") + "c" + std::to_string(s.chunk) + (s.backward ? " back" : "");
        const std::string key = by_sequence ? "sequence " + std::to_string(s.sequence) : chunk;
        bool swatch = false;
        for (const auto& [c, name] : ov.legend.swatches) swatch = swatch || name == key;
        if (!swatch) ov.legend.swatches.push_back({launch_colour(s, by_sequence), key});
        for (const wl::model::PlannedOp& o : plan.ops)
            if (runs_on(plan, o, s.op)) {
                paint(ov, o, launch_colour(s, by_sequence), s.op + ": " + o.op + " (" + o.kernel + "), " + (s.backward ? "its backward " : "") +
                      "working on " + chunk, true);
                ov.tags.push_back({o.rect, tag});
            }
    }
    return ov;
}

}  // namespace wlui
