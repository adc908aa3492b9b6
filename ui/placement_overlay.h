// placement_overlay.h: a model's placement as a canvas overlay — each PE coloured
// by the op it runs (by op kind) or by its layer, with a legend and a tooltip
// line naming the op. No ImGui: tests/ui checks it; the Model window hands it to
// the mesh canvas.
#pragma once
#include "engine/model/launch_timeline.h"
#include "engine/model/mesh_plan.h"
#include "ui/canvas_model.h"

#include <optional>
#include <string_view>
#include <vector>

namespace wlui {

enum class PlacementColour : uint8_t { Op, Layer };
const char* placement_colour_name(PlacementColour c);                          // "op", "layer"
std::optional<PlacementColour> placement_colour_from_name(std::string_view s);

// Unused PEs are kNoProgram; the legend lists the keys in the plan's order.
PeOverlay placement_overlay(const wl::model::MeshPlan& plan, PlacementColour by);

// During training: the PEs of the op that runs now in the colour of its phase ("forward",
// "backward", "optimiser"; op "grad_norm": every weight-holding op's PEs), the other placed
// PEs dim. op "" lights nothing. A streaming plan's layer ops light for every layer's instance
// ("l2.qkv": l0.qkv's PEs), and "l<k>.weights" / "l<k>.grads" (the layer's streams) its weight-holding ops.
PeOverlay training_overlay(const wl::model::MeshPlan& plan, const std::string& op, const std::string& phase);

// A forward's timeline (launch_timeline.h) at `cycle`: the PEs of every op working then in its
// launch's colour (launch_colour), tagged "c3" (a batch's "s1 c3") on the canvas, its tooltip
// naming the chunk's steps; the other placed PEs dim.
PeOverlay timeline_overlay(const wl::model::MeshPlan& plan, const std::vector<wl::model::LaunchSpan>& t, uint64_t cycle);
// A launch's colour, the timeline's bars' and the canvas's: its chunk's, or in a batch's timeline
// (by_sequence: batch_timeline(t)) its sequence's, the picture of sequences streaming through.
Rgba launch_colour(const wl::model::LaunchSpan& s, bool by_sequence);
bool batch_timeline(const std::vector<wl::model::LaunchSpan>& t);   // some launch is of a sequence after the first

}  // namespace wlui
