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
#include <optional>

namespace wlui {

struct PeCoord {
    int x = 0, y = 0;
    bool operator==(const PeCoord&) const = default;
};

class MeshCanvas {
public:
    // Draws into the remaining space of the current window; handles its own input.
    // `machine` (when its mesh is `mesh`) supplies PE state, hops and routes; without it, plain PEs.
    void draw(const wl::Mesh& mesh, const wl::Machine* machine = nullptr);

    void zoom_by(float factor);          // about the canvas centre
    void fit() { zoom_ = 1.0f; pan_ = glm::vec2(0); }
    void select(std::optional<PeCoord> pe) { selected_ = pe; }

    float zoom() const { return zoom_; }
    std::optional<PeCoord> hovered() const { return hovered_; }
    std::optional<PeCoord> selected() const { return selected_; }

    // The JS hook's "canvas" method and state().canvas.
    void configure(const nlohmann::json& args) { settings_.apply(args); }   // throws std::invalid_argument
    nlohmann::json state() const;        // the settings, plus what the last frame drew

private:
    struct Frame;                        // one draw's geometry (mesh_canvas.cpp)
    void toolbar(ImVec2 at);
    void draw_pes(const Frame& f, const wl::Machine* m);
    void draw_wavelets(const Frame& f);
    void draw_routes(const Frame& f, const wl::Machine& m);
    void draw_legend(const Frame& f, const wl::Machine& m);
    void tooltip(const wl::Machine* m) const;

    float zoom_ = 1.0f;                  // 1 = whole mesh fits
    glm::vec2 pan_{0};                   // screen-space offset of the mesh centre, in pixels
    bool dragged_ = false;               // this press became a pan, so its release is not a click
    std::optional<PeCoord> hovered_, selected_;

    CanvasSettings settings_;
    PeView view_;
    HopAnimation anim_;
    float toolbar_w_ = 0;                // last frame's width plus margins, to right-align it
    SeenTasks seen_;                     // tasks on the PEs drawn this frame (the task legend)
    // What the last frame drew, for state() and the frame-time report.
    Detail detail_ = Detail::Full;
    int visible_pes_ = 0, dots_ = 0;
    float grid_x_ = 0, grid_y_ = 0, grid_cell_ = 0;   // PE (0, 0)'s top-left corner on screen, and the cell size
    double draw_ms_ = 0;
};

}  // namespace wlui
