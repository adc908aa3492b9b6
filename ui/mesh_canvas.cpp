// mesh_canvas.cpp: drawing the mesh. The 2D geometry (the view transform for
// zoom and pan, hit-testing a PE, wavelet positions along a link) is glm
// vectors and one affine matrix; ImGui's ImVec2 appears only at the draw calls.
#include "ui/mesh_canvas.h"
#include "ui/flow_row.h"

#include "ui/style.h"

#include <glm/common.hpp>
#include <glm/mat3x3.hpp>
#include <glm/matrix.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace wlui {

namespace {
constexpr ImU32 kLink       = IM_COL32(58, 66, 82, 255);
constexpr ImU32 kPe         = IM_COL32(46, 86, 122, 255);
constexpr ImU32 kRouter     = IM_COL32(120, 132, 150, 255);
constexpr ImU32 kHover      = IM_COL32(255, 255, 255, 200);
constexpr ImU32 kSelected   = IM_COL32(255, 190, 60, 255);
constexpr ImU32 kShadow     = IM_COL32(0, 0, 0, 170);     // under dots and arrows, so they read on any heat colour
constexpr ImU32 kPanel      = IM_COL32(12, 14, 19, 215);  // toolbar and legend backgrounds
constexpr ImU32 kText       = IM_COL32(220, 225, 232, 255);
constexpr ImU32 kTextDim    = IM_COL32(150, 158, 172, 255);
constexpr ImU32 kCoordText  = IM_COL32(235, 240, 248, 170);   // PE coordinates, readable on any heat colour
constexpr float kMinZoom = 0.25f, kMaxZoom = 64.0f;

ImU32 col(Rgba c) { return IM_COL32(c.r, c.g, c.b, c.a); }

using glm::vec2;
ImVec2 im(vec2 v) { return {v.x, v.y}; }
vec2 gl(ImVec2 v) { return {v.x, v.y}; }

vec2 dir(int port) {                    // screen direction of a port; y grows south
    static constexpr float k[4][2] = {{0, -1}, {0, 1}, {1, 0}, {-1, 0}};
    return port < 4 ? vec2(k[port][0], k[port][1]) : vec2(0);
}
vec2 right_of(vec2 d) { return {-d.y, d.x}; }

void arrow(ImDrawList* dl, vec2 from, vec2 to, vec2 d, ImU32 c, float w) {
    const float h = w * 2.4f;            // head length
    const vec2 back = to - d * h, side = right_of(d) * (h * 0.6f);
    for (int pass = 0; pass < 2; ++pass) {
        const ImU32 cc = pass ? c : kShadow;
        const float ww = pass ? w : w + 2.0f;
        dl->AddLine(im(from), im(back), cc, ww);
        dl->AddTriangleFilled(im(to + d * (pass ? 0.0f : 1.0f)), im(back + side), im(back - side), cc);
    }
}

// Mesh space -> screen: mesh units are PE cells, (0, 0) is PE (0, 0)'s top-left corner.
glm::mat3 view_matrix(vec2 top_left, float cell) {
    return glm::mat3(cell, 0, 0,  0, cell, 0,  top_left.x, top_left.y, 1);   // column-major: scale, then translate
}
}  // namespace

// One draw's geometry.
struct MeshCanvas::Frame {
    ImDrawList* dl = nullptr;
    wl::Mesh mesh;
    vec2 origin{0}, size{0};             // the canvas on screen
    glm::mat3 to_screen{1}, to_mesh{1};  // the view transform and its inverse
    float cell = 1;                      // screen pixels per PE
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;   // the visible PEs: [x0, x1) x [y0, y1)
    Detail detail = Detail::Full;
    vec2 screen(vec2 m) const { return vec2(to_screen * glm::vec3(m, 1)); }
    vec2 mesh_at(vec2 p) const { return vec2(to_mesh * glm::vec3(p, 1)); }
    vec2 corner(int x, int y) const { return screen(vec2(x, y)); }
    vec2 centre(int x, int y) const { return screen(vec2(x, y) + 0.5f); }
    bool visible(int x, int y, int margin = 0) const {
        return x >= x0 - margin && x < x1 + margin && y >= y0 - margin && y < y1 + margin;
    }
};

void MeshCanvas::zoom_by(float factor) {
    float z = std::clamp(zoom_ * factor, kMinZoom, kMaxZoom);
    pan_ *= z / zoom_;   // keep the centre fixed
    zoom_ = z;
}

std::string MeshCanvas::route_label() const {
    return settings_.route_colour < 0 ? "no route" : "route " + colour_label(settings_.route_colour, colour_names_);
}

nlohmann::json MeshCanvas::state() const {
    nlohmann::json j = settings_.to_json();
    j["detail"] = detail_name(detail_);
    j["visible_pes"] = visible_pes_;
    j["dots"] = dots_;
    j["anim_phase"] = anim_.phase();      // 0..1: how far the dots in flight are along their links
    j["draw_ms"] = draw_ms_;
    j["grid"] = {{"x", grid_min_.x}, {"y", grid_min_.y}, {"cell", cell_}};   // PE (i, j) spans x + i * cell .. x + (i + 1) * cell
    j["mesh_rect"] = j["grid"];
    j["legend"] = legend_;
    j["tags"] = tags_;                   // the overlay's tags drawn (the pipeline's chunks over their ops)
    j["coords"] = coords_;               // PEs were labelled with their coordinates (there was room)
    j["dot"] = dot_ ? nlohmann::json{{"x", dot_->x}, {"y", dot_->y}} : nlohmann::json(nullptr);   // a wavelet drawn this frame
    j["route_label"] = route_label();
    j["legend_rect"] = {{"x", legend_rect_[0]}, {"y", legend_rect_[1]}, {"w", legend_rect_[2]}, {"h", legend_rect_[3]}};
    return j;
}

// [SECTION] draw: input, geometry, then the layers back to front

void MeshCanvas::draw(const wl::Mesh& mesh, const wl::Machine* machine, const PeOverlay* overlay) {
    const auto t0 = std::chrono::steady_clock::now();
    if (machine && (machine->mesh().w != mesh.w || machine->mesh().h != mesh.h)) machine = nullptr;
    overlay_ = overlay && overlay->mesh.w == mesh.w && overlay->mesh.h == mesh.h &&
                       overlay->colour.size() == size_t(mesh.size()) && overlay->label.size() == size_t(mesh.size())
                   ? overlay : nullptr;
    Frame f;
    f.mesh = mesh;
    f.origin = gl(ImGui::GetCursorScreenPos());
    f.size = glm::max(gl(ImGui::GetContentRegionAvail()), vec2(50.0f));
    f.dl = ImGui::GetWindowDrawList();
    ImGuiIO& io = ImGui::GetIO();

    // Channels: 0 the mesh, 1 overlay panels, 2 the toolbar's widgets. The toolbar is
    // submitted before the canvas button so it wins the mouse, yet drawn on top.
    f.dl->ChannelsSplit(3);
    f.dl->ChannelsSetCurrent(2);
    // Top right (with last frame's width): the part of the canvas the app's windows leave free.
    // It wraps rather than reach left of the free area (an embed's editor beside the mesh would hide its start).
    const float left = free_max_.x > free_min_.x ? std::clamp(free_min_.x, f.origin.x, f.origin.x + f.size.x * 0.5f) : f.origin.x;
    const float right = f.origin.x + f.size.x;
    toolbar(ImVec2(std::max(left, right - toolbar_w_) + 6, f.origin.y + 6), right - left - 24);
    ImGui::SetCursorScreenPos(im(f.origin));
    ImGui::InvisibleButton("mesh_canvas", im(f.size), ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
    const bool hovered = ImGui::IsItemHovered();

    // Pan with a drag (left or right button); a click without a drag selects.
    if (ImGui::IsItemActivated()) dragged_ = false;
    if (ImGui::IsItemActive() && (ImGui::IsMouseDragging(ImGuiMouseButton_Left) || ImGui::IsMouseDragging(ImGuiMouseButton_Right))) {
        dragged_ = true;
        pan_ += gl(io.MouseDelta);
    }

    // Zoom with the wheel about the mouse position.
    if (hovered && io.MouseWheel != 0.0f) {
        float z = std::clamp(zoom_ * std::pow(1.15f, io.MouseWheel), kMinZoom, kMaxZoom);
        const vec2 m = gl(io.MousePos) - (f.origin + f.size * 0.5f);   // the mouse, from the canvas centre
        pan_ = m - (m - pan_) * (z / zoom_);                     // the point under it stays there
        zoom_ = z;
    }

    // Cell size: the whole mesh fits at zoom 1, with a margin.
    const vec2 cells(mesh.w, mesh.h);
    const float base = std::min(f.size.x / cells.x, f.size.y / cells.y) * 0.94f;
    if (fit_pending_ && base > 0) {
        // Fit: the mesh fills the free area (what the windows leave), centred in it.
        fit_pending_ = false;
        vec2 a = glm::max(free_min_, f.origin), b = glm::min(free_max_, f.origin + f.size);
        if (b.x - a.x < 40 || b.y - a.y < 40) a = f.origin, b = f.origin + f.size;   // nothing useful is free
        const vec2 room = b - a;
        zoom_ = std::clamp(std::min(room.x / cells.x, room.y / cells.y) * 0.94f / base, kMinZoom, kMaxZoom);
        pan_ = (a + b - f.size) * 0.5f - f.origin;   // the mesh centre at the free area's
    }
    f.cell = base * zoom_;
    const vec2 mid = f.origin + f.size * 0.5f + pan_;
    f.to_screen = view_matrix(mid - cells * (f.cell * 0.5f), f.cell);
    f.to_mesh = glm::inverse(f.to_screen);
    f.detail = detail_for(f.cell);

    hovered_.reset();
    if (hovered) {
        const glm::ivec2 pe(glm::floor(f.mesh_at(gl(io.MousePos))));
        if (mesh.contains(pe.x, pe.y)) hovered_ = PeCoord{pe.x, pe.y};
    }
    if (ImGui::IsItemDeactivated() && !dragged_) selected_ = hovered_;

    // Only the visible PEs are drawn, so a 256×256 mesh zoomed in costs what a small one does.
    const glm::ivec2 lo = glm::clamp(glm::ivec2(glm::floor(f.mesh_at(f.origin))), glm::ivec2(0), glm::ivec2(mesh.w, mesh.h));
    const glm::ivec2 hi = glm::clamp(glm::ivec2(glm::ceil(f.mesh_at(f.origin + f.size))), glm::ivec2(0), glm::ivec2(mesh.w, mesh.h));
    f.x0 = lo.x, f.y0 = lo.y, f.x1 = hi.x, f.y1 = hi.y;

    const bool animate = machine && settings_.wavelets && f.detail != Detail::Heatmap;
    if (machine) view_.update(*machine, settings_);
    if (animate) anim_.update(machine->trace(), machine->now(), io.DeltaTime, settings_.seconds_per_hop);
    f.dl->ChannelsSetCurrent(0);
    f.dl->PushClipRect(im(f.origin), im(f.origin + f.size), true);   // its ground is the frame's clear (kCanvasBackground)
    draw_pes(f, machine);
    draw_tags(f);
    dots_ = 0;
    dot_.reset();
    // One picture: a route is its colour's arrows along the links; traffic lights the same links up over it.
    if (machine && f.detail != Detail::Heatmap && settings_.route_colour >= 0) draw_routes(f, *machine);
    if (animate) draw_wavelets(f);
    f.dl->ChannelsSetCurrent(1);
    if (machine || overlay_) draw_legend(f, machine);
    f.dl->PopClipRect();
    f.dl->ChannelsMerge();

    if (hovered_) tooltip(machine);
    detail_ = f.detail;
    grid_min_ = f.corner(0, 0);
    cell_ = f.cell;
    visible_pes_ = (f.x1 - f.x0) * (f.y1 - f.y0);
    draw_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// [SECTION] PEs: a heatmap when small, bodies with links and routers when large

void MeshCanvas::draw_pes(const Frame& f, const wl::Machine* m) {
    ImDrawList* dl = f.dl;
    seen_ = SeenTasks{};
    auto colour = [&](int x, int y) -> ImU32 {
        if (overlay_) return col(overlay_->colour[size_t(f.mesh.index(x, y))]);
        if (!m) return kPe;
        if (settings_.mode == ColourMode::Task) {
            const wl::Core& c = m->core(x, y);
            if (c.state != wl::ThreadState::Idle) seen_.add(m->program_at(x, y), c.task);
        }
        return col(view_.colour(*m, x, y));
    };
    coords_ = false;
    if (f.detail == Detail::Heatmap) {
        // No gaps and no outlines; a run of equal colours along a row is one rect (an idle mesh is h rects).
        for (int y = f.y0; y < f.y1 && f.x0 < f.x1; ++y) {
            int x = f.x0;
            ImU32 c = colour(x, y);
            for (int e = x + 1; e <= f.x1; ++e) {
                const ImU32 ce = e < f.x1 ? colour(e, y) : 0;
                if (e < f.x1 && ce == c) continue;
                dl->AddRectFilled(im(f.corner(x, y)), im(f.corner(e, y + 1)), c);
                x = e;
                c = ce;
            }
        }
    } else {
        // Corners are rounded only where the rounding shows: a rounded rect is about ten times the
        // vertices of a square one, and a software GPU (SwiftShader, in a browser without one) pays
        // per triangle. Links are axis-aligned rects, not antialiased lines, for the same reason.
        const bool full = f.detail == Detail::Full;
        auto rounding = [](float r) { return r >= 2.5f ? r : 0.0f; };
        const float pe = f.cell * 0.72f, r = full ? rounding(pe * 0.12f) : 0.0f;
        const float link_w = std::clamp(f.cell * 0.05f, 1.0f, 6.0f), router = std::min(pe * 0.22f, 24.0f);
        const vec2 link_x(0, link_w * 0.5f), link_y(link_w * 0.5f, 0);
        const bool coords = full && pe >= ImGui::CalcTextSize("00,00").x * 2.2f;
        coords_ = coords;
        for (int y = f.y0; y < f.y1; ++y)
            for (int x = f.x0; x < f.x1; ++x) {
                const vec2 c = f.centre(x, y);
                if (full) {   // links to the east and south neighbours, in the gaps
                    if (x + 1 < f.mesh.w) dl->AddRectFilled(im(c + vec2(pe * 0.5f, 0) - link_x), im(c + vec2(f.cell - pe * 0.5f, 0) + link_x), kLink);
                    if (y + 1 < f.mesh.h) dl->AddRectFilled(im(c + vec2(0, pe * 0.5f) - link_y), im(c + vec2(0, f.cell - pe * 0.5f) + link_y), kLink);
                }
                dl->AddRectFilled(im(c - pe * 0.5f), im(c + pe * 0.5f), colour(x, y), r);
                if (full) dl->AddRectFilled(im(c - router * 0.5f), im(c + router * 0.5f), kRouter, rounding(router * 0.2f));
                if (coords) {   // where there is room, each PE says where it is
                    char xy[16];
                    std::snprintf(xy, sizeof xy, "%d,%d", x, y);
                    dl->AddText(im(c - pe * 0.5f + vec2(4, 2)), kCoordText, xy);
                }
            }
    }
    // Hover and selection outlines sit on the cell's edge, so they read at any size.
    auto outline = [&](const PeCoord& p, ImU32 c, float w) { dl->AddRect(im(f.corner(p.x, p.y)), im(f.corner(p.x + 1, p.y + 1)), c, 0.0f, 0, w); };
    if (hovered_) outline(*hovered_, kHover, std::clamp(f.cell * 0.03f, 1.0f, 2.0f));
    if (selected_ && f.mesh.contains(selected_->x, selected_->y)) outline(*selected_, kSelected, std::clamp(f.cell * 0.05f, 2.0f, 4.0f));
    // The PE that stopped the run, in the error colour, over everything else.
    if (m && m->fault() && f.mesh.contains(m->fault().x, m->fault().y))
        outline(PeCoord{m->fault().x, m->fault().y}, kErrorOutline, std::clamp(f.cell * 0.06f, 2.5f, 5.0f));
}

void MeshCanvas::draw_tags(const Frame& f) {
    tags_.clear();
    if (!overlay_) return;
    for (const auto& [r, text] : overlay_->tags) {
        const vec2 a = f.corner(r.x, r.y), b = f.corner(r.x + r.w, r.y + r.h), size = gl(ImGui::CalcTextSize(text.c_str()));
        if (size.x + 6 > b.x - a.x || size.y + 2 > b.y - a.y) continue;   // too small at this zoom: the tooltip says it
        const vec2 at = (a + b - size) * 0.5f;
        f.dl->AddRectFilled(im(at - vec2(3, 1)), im(at + size + vec2(3, 1)), kShadow, 3.0f);
        f.dl->AddText(im(at), kText, text.c_str());
        tags_.push_back(text);
    }
}

// [SECTION] wavelets: fading trails on recently used links, and a dot per hop in flight

void MeshCanvas::draw_wavelets(const Frame& f) {
    ImDrawList* dl = f.dl;
    const bool full = f.detail == Detail::Full;
    const float phase = anim_.phase();
    if (full) {
        // On the link itself, router to router, as wide as the link: the link lights up in the colour it carries.
        const float w = std::clamp(f.cell * 0.05f, 1.0f, 6.0f);
        for (const Trail& t : anim_.trails()) {
            if (t.port >= 4 || !f.visible(t.x, t.y, 1)) continue;
            const vec2 d = dir(t.port), a = f.centre(t.x, t.y);
            const float len = t.age == 0 ? phase : 1.0f;   // this cycle's trail grows behind its dot
            const float alpha = 0.65f * (1.0f - float(t.age) / float(HopAnimation::kTrail));
            dl->AddLine(im(a), im(a + d * (f.cell * len)), col(with_alpha(colour_of(t.colour), alpha)), w);
        }
    }
    const float rad = full ? std::clamp(f.cell * 0.08f, 2.5f, 7.0f) : std::max(1.5f, f.cell * 0.12f);
    for (const Hop& h : anim_.in_flight()) {
        if (!f.visible(h.x, h.y, 1)) continue;
        const vec2 c = f.centre(h.x, h.y);
        const ImU32 cc = col(colour_of(h.colour));
        if (h.port == wl::kRamp) {   // down the ramp into this PE's CE: a ring closing on the router
            if (full) dl->AddCircle(im(c), rad * (2.5f - 1.5f * phase), cc, 12, 1.5f);
            continue;
        }
        // On its link, `phase` of the way to the next PE.
        const vec2 d = dir(h.port), p = c + d * (f.cell * phase);
        dl->AddCircleFilled(im(p), rad + 1.0f, kShadow, 12);
        dl->AddCircleFilled(im(p), rad, cc, 12);
        if (dots_++ == 0) dot_ = p;
    }
}

// [SECTION] route overlay: each router's current switch position for one colour

void MeshCanvas::draw_routes(const Frame& f, const wl::Machine& m) {
    const int c = settings_.route_colour;
    const ImU32 cc = col(colour_of(c));
    const float w = std::clamp(f.cell * 0.035f, 1.5f, 3.5f), ramp_r = std::clamp(f.cell * 0.06f, 2.0f, 6.0f);
    for (int y = f.y0; y < f.y1; ++y)
        for (int x = f.x0; x < f.x1; ++x) {
            const wl::Router& r = m.router(x, y);
            if (r.npos[c] == 0) continue;
            const wl::SwitchPos sw = r.cur_sw[c];
            const vec2 o = f.centre(x, y);
            for (int p = 0; p < 4; ++p) {
                const vec2 d = dir(p), edge = o + d * (f.cell * 0.5f);
                if (sw.tx & (1u << p)) arrow(f.dl, o, edge - d, d, cc, w);                     // out through p
                if (sw.rx & (1u << p)) arrow(f.dl, edge, o + d * (f.cell * 0.16f), -d, cc, w);  // in from p
            }
            if (sw.tx & wl::kR) f.dl->AddCircleFilled(im(o), ramp_r, cc, 12);           // down to the CE
            if (sw.rx & wl::kR) f.dl->AddCircle(im(o), ramp_r * 1.8f, cc, 16, w * 0.7f);   // up from the CE
        }
}

// [SECTION] overlays: toolbar (top right), legend (bottom left), tooltip

void MeshCanvas::toolbar(ImVec2 at, float max_w) {
    ImGui::SetCursorScreenPos(ImVec2(at.x + 6, at.y + 4));
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(5, 2));
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(4, 4));
    ImGui::BeginGroup();
    // The controls flow: each on the current row while the row stays within max_w, else on the next
    // (an embed 320 px wide has two rows). Wider than the canvas is the only reason to wrap.
    FlowRow row(at.x + 6 + max_w, 4);
    auto flow = [&](float w) { row.next(w); };
    const float pad = 10, box = ImGui::GetFrameHeight() + 4;   // a button's padding; a checkbox's square and gap
    static constexpr const char* kLabels[] = {"Activity", "Task", "SRAM", "Stalls"};
    static constexpr const char* kTips[] = {"PEs coloured by the fraction of cycles their CE was busy",
                                            "PEs coloured by the task they are running (a data task's id is its colour)",
                                            "PEs coloured by the SRAM their program's symbols take",
                                            "PEs coloured by the fraction of cycles their main thread waited on the fabric"};
    for (ColourMode m : kColourModes) {
        const bool on = settings_.mode == m;
        flow(ImGui::CalcTextSize(kLabels[int(m)]).x + pad);
        if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
        if (ImGui::Button(kLabels[int(m)])) settings_.mode = m;
        if (on) ImGui::PopStyleColor();
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", kTips[int(m)]);
    }
    if (settings_.mode == ColourMode::Activity || settings_.mode == ColourMode::Stalls) {
        flow(box + ImGui::CalcTextSize("recent").x);
        ImGui::Checkbox("recent", &settings_.recent);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("on: over the last %d to %d cycles, so a wave shows as it passes; off: since cycle 0",
                                                      int(ActivityWindow::kCycles), int(2 * ActivityWindow::kCycles));
    }
    flow(ImGui::CalcTextSize("|").x);
    ImGui::TextDisabled("|");
    flow(box + ImGui::CalcTextSize("wavelets").x);
    ImGui::Checkbox("wavelets", &settings_.wavelets);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("animate each hop along its link, coloured by its colour");
    flow(ImGui::GetFontSize() * 6.5f);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.5f);
    ImGui::SliderFloat("##hop", &settings_.seconds_per_hop, CanvasSettings::kMinSecondsPerHop, CanvasSettings::kMaxSecondsPerHop,
                       "%.2f s/hop", ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("animation speed: wall seconds one cycle's hop takes to cross its link\n"
                          "(independent of the run speed; when the run is faster, the newest hops show)");
    flow(ImGui::GetFontSize() * 7.0f);
    const std::string preview = route_label();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.0f);
    if (ImGui::BeginCombo("##route", preview.c_str())) {
        if (ImGui::Selectable("no route", settings_.route_colour < 0)) settings_.route_colour = -1;
        for (int c = 0; c < wl::kColours; ++c) {
            const std::string label = "   " + colour_label(c, colour_names_);
            const ImVec2 p = ImGui::GetCursorScreenPos();
            if (ImGui::Selectable(label.c_str(), settings_.route_colour == c)) settings_.route_colour = c;
            const float s = ImGui::GetTextLineHeight() * 0.7f;
            ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x + 2, p.y + s * 0.2f), ImVec2(p.x + 2 + s, p.y + s * 1.2f), col(colour_of(c)), 2.0f);
        }
        ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("overlay one colour's routes: arrows out (tx) and in (rx) at each router;\n"
                                                  "dot: down the ramp to the CE, ring: up from the CE");
    ImGui::EndGroup();
    ImGui::PopStyleVar(2);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->ChannelsSetCurrent(1);
    dl->AddRectFilled(at, ImVec2(ImGui::GetItemRectMax().x + 6, ImGui::GetItemRectMax().y + 4), kPanel, 4.0f);
    toolbar_w_ = ImGui::GetItemRectMax().x + 18 - at.x;
}

void MeshCanvas::draw_legend(const Frame& f, const wl::Machine* m) {
    std::vector<Legend> legends = {overlay_ ? overlay_->legend : view_.legend(*m, seen_)};
    if (m && settings_.wavelets && f.detail != Detail::Heatmap && anim_.colours())
        legends.push_back(wavelet_legend(anim_.colours(), colour_names_));
    legend_ = nlohmann::json::array();
    for (const Legend& l : legends) {
        nlohmann::json labels = nlohmann::json::array();
        for (const auto& [c, label] : l.swatches) labels.push_back({{"label", label}, {"rgb", {c.r, c.g, c.b}}});
        legend_.push_back({{"title", l.title}, {"swatches", labels}});
    }
    ImDrawList* dl = f.dl;
    // The bottom-left corner of what the app's windows leave free (in a lesson the editor covers the
    // canvas's own corner, and a legend drawn there was never seen), within the canvas.
    const bool free = free_max_.x > free_min_.x && free_max_.y > free_min_.y;
    const float left = free ? std::clamp(free_min_.x, f.origin.x, f.origin.x + f.size.x * 0.5f) : f.origin.x;
    const float right = free ? std::clamp(free_max_.x, left + f.size.x * 0.25f, f.origin.x + f.size.x) : f.origin.x + f.size.x;
    const float bottom = free ? std::clamp(free_max_.y, f.origin.y + f.size.y * 0.5f, f.origin.y + f.size.y) : f.origin.y + f.size.y;
    const float line = ImGui::GetTextLineHeight(), gap = line * 0.4f, pad = 8.0f;
    const float max_w = std::min(right - left - 2 * pad - 12, line * 26.0f);
    // Two passes: measure, then draw from the bottom-left corner up.
    auto layout = [&](ImVec2 at, bool draw) -> ImVec2 {
        float y = at.y, w = 0;
        for (const Legend& l : legends) {
            if (draw) dl->AddText(ImVec2(at.x, y), kTextDim, l.title.c_str());
            w = std::max(w, ImGui::CalcTextSize(l.title.c_str()).x);
            y += line + 2;
            float x = at.x;
            auto swatch = [&](Rgba c, const std::string& label) {
                const float sw = line * 0.8f + 4 + ImGui::CalcTextSize(label.c_str()).x;
                if (x > at.x && x + sw > at.x + max_w) x = at.x, y += line + 2;
                if (draw) {
                    dl->AddRectFilled(ImVec2(x, y + line * 0.1f), ImVec2(x + line * 0.8f, y + line * 0.9f), col(c), 2.0f);
                    dl->AddText(ImVec2(x + line * 0.8f + 4, y), kText, label.c_str());
                }
                x += sw + gap * 2;
                w = std::max(w, x - at.x);
            };
            for (const auto& [c, label] : l.swatches) swatch(c, label);
            if (l.ramp) {   // lo [ramp] hi
                const float lo_w = ImGui::CalcTextSize(l.lo.c_str()).x, bar = line * 8.0f;
                if (draw) {
                    dl->AddText(ImVec2(x, y), kText, l.lo.c_str());
                    const float bx = x + lo_w + 4;
                    constexpr int kSteps = 32;
                    for (int i = 0; i < kSteps; ++i)
                        dl->AddRectFilled(ImVec2(bx + bar * float(i) / kSteps, y + line * 0.15f),
                                          ImVec2(bx + bar * float(i + 1) / kSteps + 0.5f, y + line * 0.85f), col(heat(float(i) / (kSteps - 1))));
                    dl->AddText(ImVec2(bx + bar + 4, y), kText, l.hi.c_str());
                }
                x += lo_w + bar + 8 + ImGui::CalcTextSize(l.hi.c_str()).x;
                w = std::max(w, x - at.x);
            }
            y += line + gap;
        }
        return ImVec2(w, y - at.y - gap);
    };
    const ImVec2 size = layout(ImVec2(0, 0), false);
    const ImVec2 at(left + pad + 6, bottom - pad - 4 - size.y);
    dl->AddRectFilled(ImVec2(at.x - 6, at.y - 4), ImVec2(at.x + size.x + 6, at.y + size.y + 4), kPanel, 4.0f);
    legend_rect_ = {at.x - 6, at.y - 4, size.x + 12, size.y + 8};
    layout(at, true);
}

void MeshCanvas::tooltip(const wl::Machine* m) const {
    const std::string* label = overlay_ ? &overlay_->label[size_t(overlay_->mesh.index(hovered_->x, hovered_->y))] : nullptr;
    if (!m) {
        if (label && !label->empty()) {
            ImGui::SetTooltip("PE (%d, %d)\n%s", hovered_->x, hovered_->y, label->c_str());
            return;
        }
        ImGui::SetTooltip("PE (%d, %d)", hovered_->x, hovered_->y);
        return;
    }
    ImGui::BeginTooltip();
    std::vector<std::string> lines = view_.tooltip(*m, hovered_->x, hovered_->y);
    if (label && !label->empty()) lines.insert(lines.begin() + 1, *label);   // under "PE (x, y)"
    for (const std::string& l : lines) ImGui::TextUnformatted(l.c_str());
    if (const int c = settings_.route_colour; c >= 0) {
        const wl::Router& r = m->router(hovered_->x, hovered_->y);
        const std::string name = colour_label(c, colour_names_);
        if (r.npos[c] == 0) ImGui::TextDisabled("%s: no route here", name.c_str());
        for (int i = 0; i < r.npos[c]; ++i)
            ImGui::Text("%s: rx %s tx %s%s", name.c_str(), wl::port_set(r.sw[c][i].rx).c_str(), wl::port_set(r.sw[c][i].tx).c_str(),
                        r.npos[c] > 1 && i == r.cur[c] ? "  (current)" : "");
    }
    ImGui::EndTooltip();
}

}  // namespace wlui
