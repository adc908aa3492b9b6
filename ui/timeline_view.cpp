// timeline_view.cpp: see timeline_view.h.
#include "ui/timeline_view.h"

#include "ui/placement_overlay.h"
#include "ui/style.h"

#include "engine/core/thousands.h"

#include <algorithm>
#include <cmath>
#include <imgui.h>

namespace wlui {

namespace {
ImU32 im_col(Rgba c) { return IM_COL32(c.r, c.g, c.b, c.a); }
constexpr ImU32 kGround = IM_COL32(24, 28, 36, 255);
constexpr ImU32 kGrid = IM_COL32(60, 66, 80, 255);
constexpr ImU32 kCursor = IM_COL32(255, 255, 255, 230);
constexpr ImU32 kLabel = IM_COL32(200, 206, 216, 255);
constexpr ImU32 kOnBar = IM_COL32(10, 12, 16, 255);
}  // namespace

void TimelineView::set(std::vector<wl::model::LaunchSpan> t) {
    spans_ = std::move(t);
    rows_ = wl::model::timeline_rows(spans_);
    row_of_.clear();
    for (const wl::model::LaunchSpan& s : spans_) row_of_.push_back(int(std::find(rows_.begin(), rows_.end(), s.op) - rows_.begin()));
    by_sequence_ = batch_timeline(spans_);
    end_ = wl::model::timeline_end(spans_);
    cursor_.reset();
    playing_ = false;
    owed_ = 0;
}

void TimelineView::set_cursor(std::optional<uint64_t> c) {
    cursor_ = c && end_ ? std::optional<uint64_t>(std::min(*c, end_ - 1)) : std::nullopt;
}

void TimelineView::play(bool on) {
    playing_ = on && end_ > 0;
    if (playing_ && (!cursor_ || *cursor_ + 1 >= end_)) cursor_ = 0;
    owed_ = 0;
}

void TimelineView::set_play_seconds(double s) { play_seconds_ = std::clamp(s, 0.5, 600.0); }

void TimelineView::tick(double dt_s) {
    if (!playing_ || !cursor_) return;
    owed_ += double(end_) * std::max(0.0, dt_s) / play_seconds_;
    const uint64_t step = uint64_t(owed_);
    owed_ -= double(step);
    if (*cursor_ + step >= end_) {
        cursor_ = end_ - 1;
        playing_ = false;
        return;
    }
    *cursor_ += step;
}

void TimelineView::draw(float max_height, float layout[4]) {
    if (spans_.empty()) return;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    float names = 0;
    for (const std::string& r : rows_) names = std::max(names, ImGui::CalcTextSize(r.c_str()).x);
    names += 8;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float w = std::max(ImGui::GetContentRegionAvail().x, names + 60), axis = ImGui::GetTextLineHeight() + 2;
    const float row_h = std::clamp((max_height - axis) / float(rows_.size()), 3.0f, ImGui::GetTextLineHeight());
    const float h = row_h * float(rows_.size()) + axis;
    const float x0 = at.x + names, x1 = at.x + w - 4;
    layout[0] = at.x, layout[1] = at.y, layout[2] = w, layout[3] = h;
    const auto x_of = [&](uint64_t c) { return x0 + (x1 - x0) * float(double(c) / double(std::max<uint64_t>(end_, 1))); };

    ImGui::InvisibleButton("##timeline", ImVec2(w, h));
    const bool hovered = ImGui::IsItemHovered();
    if (ImGui::IsItemActive() && ImGui::GetIO().MousePos.x >= x0) {   // click or drag: the cursor follows
        const double f = std::clamp(double(ImGui::GetIO().MousePos.x - x0) / double(x1 - x0), 0.0, 1.0);
        set_cursor(uint64_t(f * double(end_)));
        playing_ = false;
    }
    dl->AddRectFilled(ImVec2(x0, at.y), ImVec2(x1, at.y + h - axis), kGround);
    // Rows: the op's name, then its launches.
    const bool text_fits = row_h >= ImGui::GetTextLineHeight();
    for (size_t r = 0; r < rows_.size(); r++) {
        const float y = at.y + row_h * float(r);
        if (text_fits || r % size_t(std::ceil(ImGui::GetTextLineHeight() / row_h)) == 0)
            dl->AddText(ImVec2(at.x, y + (row_h - ImGui::GetTextLineHeight()) * 0.5f), kLabel, rows_[r].c_str());
    }
    const float digit = ImGui::CalcTextSize("00").x;
    const wl::model::LaunchSpan* under = nullptr;
    for (size_t i = 0; i < spans_.size(); i++) {
        const wl::model::LaunchSpan& s = spans_[i];
        const float y = at.y + row_h * float(row_of_[i]);
        const ImVec2 a(x_of(s.start), y + 1), b(std::max(x_of(s.end), x_of(s.start) + 1), y + row_h - 1);
        dl->AddRectFilled(a, b, im_col(launch_colour(s, by_sequence_)));
        if (text_fits && b.x - a.x > digit) {   // its chunk's number
            const std::string c = std::to_string(s.chunk);
            dl->AddText(ImVec2(a.x + 2, y + (row_h - ImGui::GetTextLineHeight()) * 0.5f), kOnBar, c.c_str());
        }
        if (hovered && ImGui::IsMouseHoveringRect(a, b)) under = &s;
    }
    // The axis: 0, the middle, the end, in cycles.
    const float ya = at.y + h - axis;
    dl->AddLine(ImVec2(x0, ya), ImVec2(x1, ya), kGrid);
    for (int k = 0; k <= 4; k++) {
        const uint64_t c = end_ * uint64_t(k) / 4;
        const std::string t = short_count(double(c));
        const float x = std::clamp(x_of(c) - ImGui::CalcTextSize(t.c_str()).x * 0.5f, x0, x1 - ImGui::CalcTextSize(t.c_str()).x);
        dl->AddLine(ImVec2(x_of(c), ya), ImVec2(x_of(c), ya + 3), kGrid);
        dl->AddText(ImVec2(x, ya + 2), kLabel, t.c_str());
    }
    if (cursor_) dl->AddLine(ImVec2(x_of(*cursor_), at.y), ImVec2(x_of(*cursor_), ya), kCursor, 2.0f);
    if (under)
        ImGui::SetTooltip("%s, %schunk %d: steps %d-%d\ncycles %s to %s (%s)", under->op.c_str(),
                          under->sequence ? ("sequence " + std::to_string(under->sequence) + ", ").c_str() : "", under->chunk, under->t0,
                          under->t0 + under->n - 1, wl::thousands(under->start).c_str(), wl::thousands(under->end).c_str(),
                          wl::thousands(under->end - under->start).c_str());
    else if (hovered)
        ImGui::SetTooltip("click or drag: the canvas lights the ops working at that cycle");

    // Play, Clear, and what is at the cursor.
    if (ImGui::SmallButton(playing_ ? "Pause" : "Play")) play(!playing_);
    ImGui::SameLine();
    ImGui::BeginDisabled(!cursor_);
    if (ImGui::SmallButton("Clear")) set_cursor(std::nullopt), playing_ = false;
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("no cursor: the canvas shows the placement again");
    ImGui::SameLine();
    float secs = float(play_seconds_);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    if (ImGui::SliderFloat("##play_s", &secs, 2.0f, 60.0f, "%.0f s a run")) set_play_seconds(secs);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("how long Play takes over the whole forward");
    if (cursor_) {
        ImGui::SameLine();
        ImGui::Text("cycle %s: %zu launches working", wl::thousands(*cursor_).c_str(), wl::model::in_flight_at(spans_, *cursor_).size());
    }
}

}  // namespace wlui
