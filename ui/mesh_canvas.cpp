#include "ui/mesh_canvas.h"

#include <algorithm>
#include <cmath>

namespace wlui {

namespace {
constexpr ImU32 kBackground = IM_COL32(18, 21, 28, 255);
constexpr ImU32 kLink       = IM_COL32(58, 66, 82, 255);
constexpr ImU32 kPe         = IM_COL32(46, 86, 122, 255);
constexpr ImU32 kPeHover    = IM_COL32(86, 146, 196, 255);
constexpr ImU32 kRouter     = IM_COL32(120, 132, 150, 255);
constexpr ImU32 kSelected   = IM_COL32(255, 190, 60, 255);
constexpr float kMinZoom = 0.25f, kMaxZoom = 64.0f;
}  // namespace

void MeshCanvas::zoom_by(float factor) {
    float z = std::clamp(zoom_ * factor, kMinZoom, kMaxZoom);
    pan_ = ImVec2(pan_.x * z / zoom_, pan_.y * z / zoom_);   // keep the centre fixed
    zoom_ = z;
}

void MeshCanvas::draw(const wl::Mesh& mesh) {
    ImVec2 origin = ImGui::GetCursorScreenPos();
    ImVec2 size = ImGui::GetContentRegionAvail();
    size.x = std::max(size.x, 50.0f);
    size.y = std::max(size.y, 50.0f);
    ImGui::InvisibleButton("mesh_canvas", size, ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
    const bool hovered = ImGui::IsItemHovered();
    ImGuiIO& io = ImGui::GetIO();

    // Pan with a drag (left or right button); a click without a drag selects.
    if (ImGui::IsItemActivated()) dragged_ = false;
    if (ImGui::IsItemActive() && (ImGui::IsMouseDragging(ImGuiMouseButton_Left) || ImGui::IsMouseDragging(ImGuiMouseButton_Right))) {
        dragged_ = true;
        pan_.x += io.MouseDelta.x;
        pan_.y += io.MouseDelta.y;
    }

    // Cell size: the whole mesh fits at zoom 1, with a margin.
    const float fit = std::min(size.x / float(mesh.w), size.y / float(mesh.h)) * 0.94f;
    const float cell = fit * zoom_;
    const ImVec2 centre(origin.x + size.x * 0.5f + pan_.x, origin.y + size.y * 0.5f + pan_.y);
    const ImVec2 top_left(centre.x - cell * float(mesh.w) * 0.5f, centre.y - cell * float(mesh.h) * 0.5f);

    // Zoom with the wheel about the mouse position.
    if (hovered && io.MouseWheel != 0.0f) {
        float z = std::clamp(zoom_ * std::pow(1.15f, io.MouseWheel), kMinZoom, kMaxZoom);
        float k = z / zoom_;
        ImVec2 m(io.MousePos.x - (origin.x + size.x * 0.5f), io.MousePos.y - (origin.y + size.y * 0.5f));
        pan_ = ImVec2(m.x - (m.x - pan_.x) * k, m.y - (m.y - pan_.y) * k);
        zoom_ = z;
    }

    hovered_.reset();
    if (hovered) {
        int x = int(std::floor((io.MousePos.x - top_left.x) / cell));
        int y = int(std::floor((io.MousePos.y - top_left.y) / cell));
        if (mesh.contains(x, y)) hovered_ = PeCoord{x, y};
    }
    if (ImGui::IsItemDeactivated() && !dragged_) selected_ = hovered_;

    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->PushClipRect(origin, ImVec2(origin.x + size.x, origin.y + size.y), true);
    dl->AddRectFilled(origin, ImVec2(origin.x + size.x, origin.y + size.y), kBackground);

    // Only the visible PEs are drawn, so a 256×256 mesh zoomed in costs what a small one does.
    int x0 = std::max(0, int((origin.x - top_left.x) / cell) - 1);
    int y0 = std::max(0, int((origin.y - top_left.y) / cell) - 1);
    int x1 = std::min(mesh.w, int((origin.x + size.x - top_left.x) / cell) + 2);
    int y1 = std::min(mesh.h, int((origin.y + size.y - top_left.y) / cell) + 2);

    const float pe = cell * 0.72f, pad = (cell - pe) * 0.5f;
    const bool detailed = cell >= 14.0f;   // links and routers only when they are legible
    const float link_w = std::max(1.0f, cell * 0.06f);
    for (int y = y0; y < y1; ++y) {
        for (int x = x0; x < x1; ++x) {
            ImVec2 a(top_left.x + float(x) * cell + pad, top_left.y + float(y) * cell + pad);
            ImVec2 b(a.x + pe, a.y + pe);
            if (detailed) {
                float my = a.y + pe * 0.5f, mx = a.x + pe * 0.5f;
                if (x + 1 < mesh.w) dl->AddLine(ImVec2(b.x, my), ImVec2(b.x + 2 * pad, my), kLink, link_w);
                if (y + 1 < mesh.h) dl->AddLine(ImVec2(mx, b.y), ImVec2(mx, b.y + 2 * pad), kLink, link_w);
            }
            bool hot = hovered_ && hovered_->x == x && hovered_->y == y;
            dl->AddRectFilled(a, b, hot ? kPeHover : kPe, detailed ? pe * 0.12f : 0.0f);
            if (detailed) {
                float r = pe * 0.28f;   // the router sits in the PE's corner
                dl->AddRectFilled(ImVec2(b.x - r, b.y - r), b, kRouter, r * 0.2f);
            }
        }
    }
    if (selected_ && mesh.contains(selected_->x, selected_->y)) {
        ImVec2 a(top_left.x + float(selected_->x) * cell + pad * 0.5f, top_left.y + float(selected_->y) * cell + pad * 0.5f);
        dl->AddRect(a, ImVec2(a.x + pe + pad, a.y + pe + pad), kSelected, pe * 0.12f, 0, std::max(2.0f, cell * 0.05f));
    }
    dl->PopClipRect();

    if (hovered_) ImGui::SetTooltip("PE (%d, %d)", hovered_->x, hovered_->y);
}

}  // namespace wlui
