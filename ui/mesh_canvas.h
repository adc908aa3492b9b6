// mesh_canvas.h: the wafer view — a W×H grid of PEs with zoom, pan, hover and
// selection; with a machine loaded, PEs coloured by activity, task, SRAM or
// stalls, wavelets animated along links, a route overlay and a legend.
// Immediate mode: it reads the engine every frame and keeps only view state
// (what to show lives in canvas_model.h, which is tested without ImGui).
#pragma once
#include "engine/fabric/machine.h"
#include "engine/fabric/mesh.h"
#include "ui/canvas_model.h"

#include <glm/vec2.hpp>
#include <imgui.h>
#include <nlohmann/json.hpp>
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace wlui {

struct PeCoord {
    int x = 0, y = 0;
    bool operator==(const PeCoord&) const = default;
};

class MeshCanvas {
public:
    // Draws into the remaining space of the current window; handles its own input.
    // `machine` (when its mesh is `mesh`) supplies PE state, hops and routes; without it, plain PEs.
    // `overlay` (when its mesh is `mesh`) colours the PEs instead of the mode, with its own legend.
    void draw(const wl::Mesh& mesh, const wl::Machine* machine = nullptr, const PeOverlay* overlay = nullptr);

    void zoom_by(float factor);          // about the canvas centre
    void fit() { fit_pending_ = true; }  // the next draw fits the mesh into the free area
    // The part of the canvas no window covers (screen coordinates); empty: all of it.
    void set_free_area(glm::vec2 min, glm::vec2 max) { free_min_ = min, free_max_ = max; }
    void select(std::optional<PeCoord> pe) { selected_ = pe; }
    const CanvasSettings& settings() const { return settings_; }

    float zoom() const { return zoom_; }
    std::optional<glm::vec2> wavelet() const { return dot_; }   // where a wavelet dot was drawn last frame, if any
    float cell() const { return cell_; }
    std::optional<PeCoord> hovered() const { return hovered_; }
    std::optional<PeCoord> selected() const { return selected_; }

    // The JS hook's "canvas" method and state().canvas.
    void configure(const nlohmann::json& args) { settings_.apply(args); }   // throws std::invalid_argument
    void set_colour_names(std::vector<std::string> names) { colour_names_ = std::move(names); }   // the loaded kernel's
    nlohmann::json state() const;        // the settings, plus what the last frame drew

private:
    struct Frame;                        // one draw's geometry (mesh_canvas.cpp)
    void toolbar(ImVec2 at, float max_w);   // the controls wrap to rows at most max_w wide
    void draw_pes(const Frame& f, const wl::Machine* m);
    void draw_wavelets(const Frame& f);
    void draw_routes(const Frame& f, const wl::Machine& m);
    void draw_legend(const Frame& f, const wl::Machine* m);
    void draw_tags(const Frame& f);     // the overlay's tags, each centred over its PEs where it fits
    void tooltip(const wl::Machine* m) const;
    std::string route_label() const;     // the route picker's text: "route xdown", "no route"

    float zoom_ = 1.0f;                  // 1 = whole mesh fits
    glm::vec2 pan_{0};                   // screen-space offset of the mesh centre, in pixels
    bool dragged_ = false;               // this press became a pan, so its release is not a click
    bool fit_pending_ = true;
    glm::vec2 free_min_{0}, free_max_{0};
    std::optional<PeCoord> hovered_, selected_;

    CanvasSettings settings_;
    PeView view_;
    HopAnimation anim_;
    float toolbar_w_ = 0;                // last frame's width plus margins, to right-align it
    SeenTasks seen_;                     // tasks on the PEs drawn this frame (the task legend)
    const PeOverlay* overlay_ = nullptr; // this frame's, while draw() runs and for the tooltip
    // What the last frame drew, for state() and the frame-time report.
    Detail detail_ = Detail::Full;
    int visible_pes_ = 0, dots_ = 0;
    glm::vec2 grid_min_{0};              // PE (0, 0)'s top-left corner on screen
    float cell_ = 0;                     // one PE's pitch on screen
    std::vector<std::string> colour_names_;
    bool coords_ = false;                // PEs were labelled with their coordinates (there was room)
    std::vector<std::string> tags_;      // the overlay's tags drawn last frame (state())
    std::optional<glm::vec2> dot_;       // a wavelet drawn this frame
    nlohmann::json legend_ = nlohmann::json::array();   // [{title, swatches: [{label, rgb}]}] as last drawn
    std::array<float, 4> legend_rect_{};  // x, y, w, h
    double draw_ms_ = 0;
};

}  // namespace wlui
