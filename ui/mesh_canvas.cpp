#include "ui/mesh_canvas.h"

#include "ui/style.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace wlui {

namespace {
constexpr ImU32 kBackground = IM_COL32(18, 21, 28, 255);
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

ImVec2 dir(int port) {                  // screen direction of a port; y grows south
    static constexpr float k[4][2] = {{0, -1}, {0, 1}, {1, 0}, {-1, 0}};
    return port < 4 ? ImVec2(k[port][0], k[port][1]) : ImVec2(0, 0);
}
ImVec2 operator+(ImVec2 a, ImVec2 b) { return {a.x + b.x, a.y + b.y}; }
ImVec2 operator*(ImVec2 a, float k) { return {a.x * k, a.y * k}; }
ImVec2 right_of(ImVec2 d) { return {-d.y, d.x}; }

void arrow(ImDrawList* dl, ImVec2 from, ImVec2 to, ImVec2 d, ImU32 c, float w) {
    const float h = w * 2.4f;            // head length
    const ImVec2 back = to + d * -h, side = right_of(d) * (h * 0.6f);
    for (int pass = 0; pass < 2; ++pass) {
        const ImU32 cc = pass ? c : kShadow;
        const float ww = pass ? w : w + 2.0f;
        dl->AddLine(from, back, cc, ww);
        dl->AddTriangleFilled(to + d * (pass ? 0.0f : 1.0f), back + side, back + side * -1.0f, cc);
    }
}
}  // namespace

// One draw's geometry.
struct MeshCanvas::Frame {
    ImDrawList* dl = nullptr;
    wl::Mesh mesh;
    ImVec2 origin, size, top_left;
    float cell = 1;
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;   // the visible PEs: [x0, x1) x [y0, y1)
    Detail detail = Detail::Full;
    ImVec2 centre(int x, int y) const { return {top_left.x + (float(x) + 0.5f) * cell, top_left.y + (float(y) + 0.5f) * cell}; }
    bool visible(int x, int y, int margin = 0) const {
        return x >= x0 - margin && x < x1 + margin && y >= y0 - margin && y < y1 + margin;
    }
};

void MeshCanvas::zoom_by(float factor) {
    float z = std::clamp(zoom_ * factor, kMinZoom, kMaxZoom);
    pan_ = ImVec2(pan_.x * z / zoom_, pan_.y * z / zoom_);   // keep the centre fixed
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
    j["mesh_rect"] = {{"x", mesh_min_.x}, {"y", mesh_min_.y}, {"cell", cell_}};   // PE (x, y) spans cell px from min + (x, y) * cell
    j["legend"] = legend_;
    j["coords"] = coords_;
    j["dot"] = dot_ ? nlohmann::json{{"x", dot_->x}, {"y", dot_->y}} : nlohmann::json(nullptr);   // a wavelet drawn this frame                // PEs were labelled with their coordinates (there was room)
    j["route_label"] = route_label();
    j["legend_rect"] = {{"x", legend_rect_[0]}, {"y", legend_rect_[1]}, {"w", legend_rect_[2]}, {"h", legend_rect_[3]}};
    return j;
}

// [SECTION] draw: input, geometry, then the layers back to front

void MeshCanvas::draw(const wl::Mesh& mesh, const wl::Machine* machine) {
    const auto t0 = std::chrono::steady_clock::now();
    if (machine && (machine->mesh().w != mesh.w || machine->mesh().h != mesh.h)) machine = nullptr;
    Frame f;
    f.mesh = mesh;
    f.origin = ImGui::GetCursorScreenPos();
    f.size = ImGui::GetContentRegionAvail();
    f.size.x = std::max(f.size.x, 50.0f);
    f.size.y = std::max(f.size.y, 50.0f);
    f.dl = ImGui::GetWindowDrawList();
    ImGuiIO& io = ImGui::GetIO();

    // Channels: 0 the mesh, 1 overlay panels, 2 the toolbar's widgets. The toolbar is
    // submitted before the canvas button so it wins the mouse, yet drawn on top.
    f.dl->ChannelsSplit(3);
    f.dl->ChannelsSetCurrent(2);
    // Top right (with last frame's width): the part of the canvas the app's windows leave free.
    toolbar(ImVec2(std::max(f.origin.x, f.origin.x + f.size.x - toolbar_w_) + 6, f.origin.y + 6));
    ImGui::SetCursorScreenPos(f.origin);
    ImGui::InvisibleButton("mesh_canvas", f.size, ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
    const bool hovered = ImGui::IsItemHovered();

    // Pan with a drag (left or right button); a click without a drag selects.
    if (ImGui::IsItemActivated()) dragged_ = false;
    if (ImGui::IsItemActive() && (ImGui::IsMouseDragging(ImGuiMouseButton_Left) || ImGui::IsMouseDragging(ImGuiMouseButton_Right))) {
        dragged_ = true;
        pan_.x += io.MouseDelta.x;
        pan_.y += io.MouseDelta.y;
    }

    // Zoom with the wheel about the mouse position.
    if (hovered && io.MouseWheel != 0.0f) {
        float z = std::clamp(zoom_ * std::pow(1.15f, io.MouseWheel), kMinZoom, kMaxZoom);
        float k = z / zoom_;
        ImVec2 m(io.MousePos.x - (f.origin.x + f.size.x * 0.5f), io.MousePos.y - (f.origin.y + f.size.y * 0.5f));
        pan_ = ImVec2(m.x - (m.x - pan_.x) * k, m.y - (m.y - pan_.y) * k);
        zoom_ = z;
    }

    // Cell size: the whole mesh fits at zoom 1, with a margin.
    const float base = std::min(f.size.x / float(mesh.w), f.size.y / float(mesh.h)) * 0.94f;
    if (fit_pending_ && base > 0) {
        // Fit: the mesh fills the free area (what the windows leave), centred in it.
        fit_pending_ = false;
        ImVec2 a = ImVec2(std::max(free_min_.x, f.origin.x), std::max(free_min_.y, f.origin.y));
        ImVec2 b = ImVec2(std::min(free_max_.x, f.origin.x + f.size.x), std::min(free_max_.y, f.origin.y + f.size.y));
        if (b.x - a.x < 40 || b.y - a.y < 40) a = f.origin, b = f.origin + f.size;   // nothing useful is free
        zoom_ = std::clamp(std::min((b.x - a.x) / float(mesh.w), (b.y - a.y) / float(mesh.h)) * 0.94f / base, kMinZoom, kMaxZoom);
        pan_ = ImVec2((a.x + b.x - f.size.x) * 0.5f - f.origin.x, (a.y + b.y - f.size.y) * 0.5f - f.origin.y);
    }
    f.cell = base * zoom_;
    const ImVec2 mid(f.origin.x + f.size.x * 0.5f + pan_.x, f.origin.y + f.size.y * 0.5f + pan_.y);
    f.top_left = ImVec2(mid.x - f.cell * float(mesh.w) * 0.5f, mid.y - f.cell * float(mesh.h) * 0.5f);
    f.detail = detail_for(f.cell);

    hovered_.reset();
    if (hovered) {
        int x = int(std::floor((io.MousePos.x - f.top_left.x) / f.cell));
        int y = int(std::floor((io.MousePos.y - f.top_left.y) / f.cell));
        if (mesh.contains(x, y)) hovered_ = PeCoord{x, y};
    }
    if (ImGui::IsItemDeactivated() && !dragged_) selected_ = hovered_;

    // Only the visible PEs are drawn, so a 256×256 mesh zoomed in costs what a small one does.
    f.x0 = std::clamp(int(std::floor((f.origin.x - f.top_left.x) / f.cell)), 0, mesh.w);
    f.y0 = std::clamp(int(std::floor((f.origin.y - f.top_left.y) / f.cell)), 0, mesh.h);
    f.x1 = std::clamp(int(std::ceil((f.origin.x + f.size.x - f.top_left.x) / f.cell)), 0, mesh.w);
    f.y1 = std::clamp(int(std::ceil((f.origin.y + f.size.y - f.top_left.y) / f.cell)), 0, mesh.h);

    const bool animate = machine && settings_.wavelets && f.detail != Detail::Heatmap;
    if (machine) view_.update(*machine, settings_);
    if (animate) anim_.update(machine->trace(), machine->now(), io.DeltaTime, settings_.seconds_per_hop);
    f.dl->ChannelsSetCurrent(0);
    f.dl->PushClipRect(f.origin, ImVec2(f.origin.x + f.size.x, f.origin.y + f.size.y), true);
    f.dl->AddRectFilled(f.origin, ImVec2(f.origin.x + f.size.x, f.origin.y + f.size.y), kBackground);
    draw_pes(f, machine);
    dots_ = 0;
    dot_.reset();
    // One picture: a route is its colour's arrows along the links; traffic lights the same links up over it.
    if (machine && f.detail != Detail::Heatmap && settings_.route_colour >= 0) draw_routes(f, *machine);
    if (animate) draw_wavelets(f);
    f.dl->ChannelsSetCurrent(1);
    if (machine) draw_legend(f, *machine);
    f.dl->PopClipRect();
    f.dl->ChannelsMerge();

    if (hovered_) tooltip(machine);
    detail_ = f.detail;
    mesh_min_ = f.top_left;
    cell_ = f.cell;
    visible_pes_ = (f.x1 - f.x0) * (f.y1 - f.y0);
    draw_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// [SECTION] PEs: a heatmap when small, bodies with links and routers when large

void MeshCanvas::draw_pes(const Frame& f, const wl::Machine* m) {
    ImDrawList* dl = f.dl;
    seen_ = SeenTasks{};
    auto colour = [&](int x, int y) -> ImU32 {
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
            const float ya = f.top_left.y + float(y) * f.cell;
            int x = f.x0;
            ImU32 c = colour(x, y);
            for (int e = x + 1; e <= f.x1; ++e) {
                const ImU32 ce = e < f.x1 ? colour(e, y) : 0;
                if (e < f.x1 && ce == c) continue;
                dl->AddRectFilled(ImVec2(f.top_left.x + float(x) * f.cell, ya), ImVec2(f.top_left.x + float(e) * f.cell, ya + f.cell), c);
                x = e;
                c = ce;
            }
        }
    } else {
        const bool full = f.detail == Detail::Full;
        const float pe = f.cell * 0.72f, r = full ? pe * 0.12f : 0.0f;
        const float link_w = std::clamp(f.cell * 0.05f, 1.0f, 6.0f), router = std::min(pe * 0.22f, 24.0f);
        const bool coords = full && pe >= ImGui::CalcTextSize("00,00").x * 2.2f;
        coords_ = coords;
        for (int y = f.y0; y < f.y1; ++y)
            for (int x = f.x0; x < f.x1; ++x) {
                const ImVec2 c = f.centre(x, y);
                if (full) {   // links to the east and south neighbours, in the gaps
                    if (x + 1 < f.mesh.w) dl->AddLine(ImVec2(c.x + pe * 0.5f, c.y), ImVec2(c.x + f.cell - pe * 0.5f, c.y), kLink, link_w);
                    if (y + 1 < f.mesh.h) dl->AddLine(ImVec2(c.x, c.y + pe * 0.5f), ImVec2(c.x, c.y + f.cell - pe * 0.5f), kLink, link_w);
                }
                dl->AddRectFilled(c + ImVec2(-pe * 0.5f, -pe * 0.5f), c + ImVec2(pe * 0.5f, pe * 0.5f), colour(x, y), r);
                if (full) dl->AddRectFilled(c + ImVec2(-router, -router) * 0.5f, c + ImVec2(router, router) * 0.5f, kRouter, router * 0.2f);
                if (coords) {   // where there is room, each PE says where it is
                    char xy[16];
                    std::snprintf(xy, sizeof xy, "%d,%d", x, y);
                    dl->AddText(c + ImVec2(-pe * 0.5f + 4, -pe * 0.5f + 2), kCoordText, xy);
                }
            }
    }
    // Hover and selection outlines sit on the cell's edge, so they read at any size.
    auto outline = [&](const PeCoord& p, ImU32 c, float w) {
        const ImVec2 a(f.top_left.x + float(p.x) * f.cell, f.top_left.y + float(p.y) * f.cell);
        dl->AddRect(a, ImVec2(a.x + f.cell, a.y + f.cell), c, 0.0f, 0, w);
    };
    if (hovered_) outline(*hovered_, kHover, std::clamp(f.cell * 0.03f, 1.0f, 2.0f));
    if (selected_ && f.mesh.contains(selected_->x, selected_->y)) outline(*selected_, kSelected, std::clamp(f.cell * 0.05f, 2.0f, 4.0f));
    // The PE that stopped the run, in the error colour, over everything else.
    if (m && m->fault() && f.mesh.contains(m->fault().x, m->fault().y))
        outline(PeCoord{m->fault().x, m->fault().y}, kErrorOutline, std::clamp(f.cell * 0.06f, 2.5f, 5.0f));
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
            const ImVec2 d = dir(t.port), a = f.centre(t.x, t.y);
            const float len = t.age == 0 ? phase : 1.0f;   // this cycle's trail grows behind its dot
            const float alpha = 0.65f * (1.0f - float(t.age) / float(HopAnimation::kTrail));
            dl->AddLine(a, a + d * (f.cell * len), col(with_alpha(colour_of(t.colour), alpha)), w);
        }
    }
    const float rad = full ? std::clamp(f.cell * 0.08f, 2.5f, 7.0f) : std::max(1.5f, f.cell * 0.12f);
    for (const Hop& h : anim_.in_flight()) {
        if (!f.visible(h.x, h.y, 1)) continue;
        const ImVec2 c = f.centre(h.x, h.y);
        const ImU32 cc = col(colour_of(h.colour));
        if (h.port == wl::kRamp) {   // down the ramp into this PE's CE: a ring closing on the router
            if (full) dl->AddCircle(c, rad * (2.5f - 1.5f * phase), cc, 12, 1.5f);
            continue;
        }
        const ImVec2 d = dir(h.port), p = c + d * (f.cell * phase);
        dl->AddCircleFilled(p, rad + 1.0f, kShadow, 12);
        dl->AddCircleFilled(p, rad, cc, 12);
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
            const ImVec2 o = f.centre(x, y);
            for (int p = 0; p < 4; ++p) {
                const ImVec2 d = dir(p), edge = o + d * (f.cell * 0.5f);
                if (sw.tx & (1u << p)) arrow(f.dl, o, edge + d * -1.0f, d, cc, w);                    // out through p
                if (sw.rx & (1u << p)) arrow(f.dl, edge, o + d * (f.cell * 0.16f), d * -1.0f, cc, w);  // in from p
            }
            if (sw.tx & wl::kR) f.dl->AddCircleFilled(o, ramp_r, cc, 12);           // down to the CE
            if (sw.rx & wl::kR) f.dl->AddCircle(o, ramp_r * 1.8f, cc, 16, w * 0.7f);   // up from the CE
        }
}

// [SECTION] overlays: toolbar (top right), legend (bottom left), tooltip

void MeshCanvas::toolbar(ImVec2 at) {
    ImGui::SetCursorScreenPos(ImVec2(at.x + 6, at.y + 4));
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(5, 2));
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(4, 4));
    ImGui::BeginGroup();
    static constexpr const char* kLabels[] = {"Activity", "Task", "SRAM", "Stalls"};
    static constexpr const char* kTips[] = {"PEs coloured by the fraction of cycles their CE was busy",
                                            "PEs coloured by the task they are running (a data task's id is its colour)",
                                            "PEs coloured by the SRAM their program's symbols take",
                                            "PEs coloured by the fraction of cycles their main thread waited on the fabric"};
    for (ColourMode m : kColourModes) {
        const bool on = settings_.mode == m;
        if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
        if (ImGui::Button(kLabels[int(m)])) settings_.mode = m;
        if (on) ImGui::PopStyleColor();
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", kTips[int(m)]);
        ImGui::SameLine();
    }
    if (settings_.mode == ColourMode::Activity || settings_.mode == ColourMode::Stalls) {
        ImGui::Checkbox("recent", &settings_.recent);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("on: over the last %d to %d cycles, so a wave shows as it passes; off: since cycle 0",
                                                      int(ActivityWindow::kCycles), int(2 * ActivityWindow::kCycles));
        ImGui::SameLine();
    }
    ImGui::TextDisabled("|");
    ImGui::SameLine();
    ImGui::Checkbox("wavelets", &settings_.wavelets);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("animate each hop along its link, coloured by its colour");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.5f);
    ImGui::SliderFloat("##hop", &settings_.seconds_per_hop, CanvasSettings::kMinSecondsPerHop, CanvasSettings::kMaxSecondsPerHop,
                       "%.2f s/hop", ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("animation speed: wall seconds one cycle's hop takes to cross its link\n"
                          "(independent of the run speed; when the run is faster, the newest hops show)");
    ImGui::SameLine();
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

void MeshCanvas::draw_legend(const Frame& f, const wl::Machine& m) {
    std::vector<Legend> legends = {view_.legend(m, seen_)};
    if (settings_.wavelets && f.detail != Detail::Heatmap && anim_.colours())
        legends.push_back(wavelet_legend(anim_.colours(), colour_names_));
    legend_ = nlohmann::json::array();
    for (const Legend& l : legends) {
        nlohmann::json labels = nlohmann::json::array();
        for (const auto& [c, label] : l.swatches) labels.push_back({{"label", label}, {"rgb", {c.r, c.g, c.b}}});
        legend_.push_back({{"title", l.title}, {"swatches", labels}});
    }
    ImDrawList* dl = f.dl;
    const float line = ImGui::GetTextLineHeight(), gap = line * 0.4f, pad = 8.0f;
    const float max_w = std::min(f.size.x - 2 * pad - 12, line * 26.0f);
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
    const ImVec2 at(f.origin.x + pad + 6, f.origin.y + f.size.y - pad - 4 - size.y);
    dl->AddRectFilled(ImVec2(at.x - 6, at.y - 4), ImVec2(at.x + size.x + 6, at.y + size.y + 4), kPanel, 4.0f);
    legend_rect_ = {at.x - 6, at.y - 4, size.x + 12, size.y + 8};
    layout(at, true);
}

void MeshCanvas::tooltip(const wl::Machine* m) const {
    if (!m) {
        ImGui::SetTooltip("PE (%d, %d)", hovered_->x, hovered_->y);
        return;
    }
    ImGui::BeginTooltip();
    for (const std::string& l : view_.tooltip(*m, hovered_->x, hovered_->y)) ImGui::TextUnformatted(l.c_str());
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
