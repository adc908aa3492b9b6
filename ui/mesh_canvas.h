// mesh_canvas.h: the wafer view — a W×H grid of PEs with zoom, pan, hover and selection.
// Immediate mode: it reads the engine's Mesh every frame and keeps only view state.
#pragma once
#include "engine/fabric/mesh.h"

#include <imgui.h>
#include <optional>

namespace wlui {

struct PeCoord {
    int x = 0, y = 0;
    bool operator==(const PeCoord&) const = default;
};

class MeshCanvas {
public:
    // Draws into the remaining space of the current window; handles its own input.
    void draw(const wl::Mesh& mesh);

    void zoom_by(float factor);          // about the canvas centre
    void fit() { zoom_ = 1.0f; pan_ = ImVec2(0, 0); }
    void select(std::optional<PeCoord> pe) { selected_ = pe; }

    float zoom() const { return zoom_; }
    std::optional<PeCoord> hovered() const { return hovered_; }
    std::optional<PeCoord> selected() const { return selected_; }

private:
    float zoom_ = 1.0f;                  // 1 = whole mesh fits
    ImVec2 pan_{0, 0};                   // screen-space offset of the mesh centre, in pixels
    bool dragged_ = false;               // this press became a pan, so its release is not a click
    std::optional<PeCoord> hovered_, selected_;
};

}  // namespace wlui
