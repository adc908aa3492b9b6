#include "ui/start_screen.h"

#include "engine/fabric/wafer.h"
#include "ui/canvas_model.h"

#include <algorithm>

namespace wlui {

namespace {
const ImVec4 kTitleColour(1.0f, 0.8f, 0.4f, 1.0f);   // the tour card's title colour
}

// A full-width button two lines tall, and a line under it saying what it leads to.
bool StartScreen::big_button(const char* label, const char* blurb, const char* place) {
    const float h = ImGui::GetTextLineHeight() * 2.2f;
    const bool hit = ImGui::Button(label, ImVec2(-1, h));
    mark(place);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", blurb);
    ImGui::PopStyleColor();
    ImGui::Spacing();
    return hit;
}

StartScreen::Pick StartScreen::draw(const std::vector<std::string>& examples,
                                    const std::function<const std::string&(const std::string&)>& summary) {
    places_.clear();
    Pick pick;
    if (!open_) return pick;
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float w = std::min(ImGui::GetFontSize() * 36, vp->WorkSize.x - 24);
    ImGui::SetNextWindowSize(ImVec2(w, 0), ImGuiCond_Always);
    ImGui::SetNextWindowPos(vp->GetCenter(), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(w, vp->WorkSize.y - 24));
    bool keep = true;
    if (ImGui::Begin(kTitle, &keep, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoMove |
                                       ImGuiWindowFlags_AlwaysAutoResize)) {
        if (page_ == Page::Actions) {
            ImGui::TextWrapped(
                "A wafer-scale AI processor, emulated in this tab: a mesh of processing elements (PEs), each with "
                "its own %s of memory and a router that passes 32-bit wavelets to its neighbours. Where to start:",
                format_bytes(wl::kSramBytesPerPe).c_str());
            ImGui::Spacing();
            if (big_button("Start lesson 1", "Short lessons from one PE to training a GPT, each with a Check that says "
                                             "whether your kernel does what it asks.", "start_lesson"))
                pick.action = Action::Lesson;
            if (big_button("Train a GPT on the wafer", "gpt-nano learns to write on a 32 x 32 mesh: every forward, backward "
                                                       "and AdamW launch runs on the PEs, and a guide says what each lit row does.",
                           "start_train"))
                pick.action = Action::Train;
            if (big_button("Open an example", "Kernels to read, run and step through, from two PEs saying hello to a "
                                              "matrix product over the whole mesh.", "start_examples"))
                page_ = Page::Examples;
            ImGui::Separator();
            ImGui::AlignTextToFramePadding();
            ImGui::TextUnformatted("New here?");
            ImGui::SameLine();
            if (ImGui::Button("Take the tour")) pick.action = Action::Tour;
            mark("start_tour");
            ImGui::SameLine();
            ImGui::TextDisabled("(five stops around the screen)");
        } else {
            ImGui::TextColored(kTitleColour, "Examples, beginner first");
            ImGui::Spacing();
            const float name_w = ImGui::GetFontSize() * 7;
            for (const std::string& n : examples) {
                if (ImGui::Selectable(n.c_str(), false, 0, ImVec2(name_w, 0))) pick = {Action::Example, n};
                mark("start_example:" + n);
                ImGui::SameLine(name_w + ImGui::GetStyle().ItemSpacing.x * 2);
                ImGui::PushTextWrapPos(0);
                ImGui::TextDisabled("%s", summary(n).c_str());
                ImGui::PopTextWrapPos();
            }
            ImGui::Spacing();
            if (ImGui::Button("Back")) page_ = Page::Actions;
            mark("start_back");
        }
        ImGui::Spacing();
        ImGui::Separator();
        if (ImGui::Button("Close")) keep = false;
        mark("start_close");
        ImGui::SameLine();
        ImGui::AlignTextToFramePadding();
        ImGui::TextDisabled("to start from an empty mesh; Help > Start screen brings this back.");
        const ImVec2 p = ImGui::GetWindowPos();
        places_["start_window"] = {p, ImVec2(p.x + ImGui::GetWindowWidth(), p.y + ImGui::GetWindowHeight())};
    }
    ImGui::End();
    if (!keep || pick.action != Action::None) open_ = false;
    return pick;
}

}  // namespace wlui
