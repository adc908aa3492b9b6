// flow_row.h: controls laid out left to right that wrap onto a new row when the next one would
// pass the right edge (a toolbar on a phone, or in an embed 320 px wide, takes two or three rows).
#pragma once
#include <imgui.h>

namespace wlui {

class FlowRow {
public:
    // Items stay on a row while they end by screen x `right`, `gap` apart; a new row starts at
    // window x `left` (negative: where Dear ImGui puts the next line, as inside a group).
    FlowRow(float right, float gap, float left = -1.0f) : right_(right), gap_(gap), left_(left) {}
    // The current window's width, less the item spacing on both sides.
    static FlowRow across_window() {
        const float gap = ImGui::GetStyle().ItemSpacing.x;
        return FlowRow(ImGui::GetWindowPos().x + ImGui::GetWindowWidth() - gap, gap, gap);
    }
    // Call before an item `w` wide.
    void next(float w) {
        if (first_) {
            first_ = false;
            return;
        }
        if (ImGui::GetItemRectMax().x + gap_ + w <= right_) ImGui::SameLine();
        else if (left_ >= 0) ImGui::SetCursorPosX(left_);
    }

    float right() const { return right_; }
    float gap() const { return gap_; }

private:
    float right_, gap_, left_;
    bool first_ = true;
};

}  // namespace wlui
