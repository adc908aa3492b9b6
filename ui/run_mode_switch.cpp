// run_mode_switch.cpp: the Cycle / Fast switch (see run_mode_switch.h).
#include "ui/run_mode_switch.h"

#include "ui/glossary.h"

#include <imgui.h>

namespace wlui {

namespace {

struct Choice {
    wl::RunMode mode;
    const char* label;
    const char* term;   // its glossary entry
    const char* mark;
};
constexpr Choice kChoices[] = {{wl::RunMode::Cycle, "Cycle", "cycle mode", "mode_cycle"},
                               {wl::RunMode::Fast, "Fast", "fast mode", "mode_fast"}};

}  // namespace

float run_mode_switch_width() {
    float w = 0;
    for (const Choice& c : kChoices) w += ImGui::CalcTextSize(c.label).x + 2 * ImGui::GetStyle().FramePadding.x;
    return w;
}

std::optional<wl::RunMode> run_mode_switch(wl::RunMode current, const std::function<void(const char*)>& mark) {
    std::optional<wl::RunMode> picked;
    const ImVec4 off = ImGui::GetStyleColorVec4(ImGuiCol_FrameBg), on = ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive);
    for (const Choice& c : kChoices) {
        if (&c != kChoices) ImGui::SameLine(0, 0);   // one control, not two buttons
        const bool lit = c.mode == current;
        ImGui::PushStyleColor(ImGuiCol_Button, lit ? on : off);
        if (ImGui::Button(c.label) && !lit) picked = c.mode;
        ImGui::PopStyleColor();
        mark(c.mark);
        if (ImGui::IsItemHovered()) {
            ImGui::BeginTooltip();
            ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
            ImGui::Text("%s%s: %s", c.term, lit ? " (now)" : "", glossary(c.term));
            ImGui::PopTextWrapPos();
            ImGui::EndTooltip();
        }
    }
    return picked;
}

}  // namespace wlui
