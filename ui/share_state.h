// share_state.h: what a share link carries — the kernel, where it came from, the mesh, the
// cycle to run to, the colouring and the selected PE — as versioned JSON, and the rules for
// reading one that may be damaged or hostile. Pure C++ (no ImGui, no platform): the page
// compresses it into the URL hash (web/waferlab-share.js), app_share.cpp applies it.
//
//   {"format": "waferlab-share", "version": 1, "file": "gemv.wk", "text": "...", "example": "gemv",
//    "lesson": 0, "mesh": {"w": 4, "h": 2}, "cycle": 40, "colouring": "activity",
//    "pe": {"x": 1, "y": 0}, "run_mode": "cycle", "optimise": false}
#pragma once
#include "engine/fabric/machine.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

namespace wlui {

struct SharedState {
    static constexpr int kVersion = 1;                  // bump when a field changes meaning; keep reading the old ones
    static constexpr size_t kMaxText = 4u << 20;        // a kernel is text: the same cap as File > Open
    static constexpr uint64_t kMaxCycle = 100'000'000;  // a link runs to this at most (a hostile one must not run forever)

    std::string file = "untitled.wk";
    std::string text;
    std::string example;              // "" when the kernel is not an example's
    int lesson = 0;                   // the lesson open in the Lessons panel; 0: none
    int mesh_w = 8, mesh_h = 8;       // the mesh on screen (with a kernel, its grid)
    uint64_t cycle = 0;               // run to this cycle after loading
    std::string colouring = "activity";   // the canvas's colouring mode (canvas_model.h names)
    std::optional<std::pair<int, int>> pe;   // the selected PE
    wl::RunMode run_mode = wl::RunMode::Cycle;
    bool optimise = false;   // the optimising code generator: its cycles differ, so the link's cycle needs it

    bool operator==(const SharedState&) const = default;
};

nlohmann::json shared_state_to_json(const SharedState& s);

// Reads a share link's JSON. Anything unusable — another format, a newer version, a field of
// the wrong type, a value out of range, an odd file or example name — gives nullopt and says
// why in `problem`, in words for the user. Nothing of it is applied until all of it reads.
std::optional<SharedState> shared_state_from_json(const nlohmann::json& j, std::string* problem);

}  // namespace wlui
