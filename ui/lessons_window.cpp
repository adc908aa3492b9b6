// lessons_window.cpp: the Lessons window (lessons_window.h).
#include "ui/lessons_window.h"

#include "ui/layout.h"
#include "ui/markdown_view.h"
#include "ui/style.h"

#include <imgui.h>
#include <algorithm>
#include <cstdio>

namespace wlui {

namespace {

constexpr const char* kTick = "\xE2\x9C\x93";    // U+2713
constexpr const char* kCross = "\xE2\x9C\x97";   // U+2717
const ImVec4 kCheckButton(0.22f, 0.50f, 0.30f, 0.85f);
const ImVec4 kCheckButtonHovered(0.28f, 0.62f, 0.38f, 1.0f);

// Buttons in rows: each on the current row if it fits, else at the start of the next.
struct ButtonRow {
    bool first = true;
    bool operator()(const char* label, bool enabled = true) {
        const float w = ImGui::CalcTextSize(label, nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2;
        const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
        if (!first && ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + w <= right) ImGui::SameLine();
        first = false;
        ImGui::BeginDisabled(!enabled);
        const bool hit = ImGui::Button(label);
        ImGui::EndDisabled();
        return hit;
    }
};

}  // namespace

int LessonsWindow::lesson_items(const LessonModel& m, std::map<std::string, std::pair<ImVec2, ImVec2>>* places) {
    int picked = 0;
    for (const wl::lessons::Lesson& l : m.lessons()) {
        char label[256];
        std::snprintf(label, sizeof label, "%2d. %s", l.number, l.title.c_str());
        if (ImGui::MenuItem(label, nullptr, m.done(l.number))) picked = l.number;   // the tick: done
        if (places) (*places)["lesson:" + std::to_string(l.number)] = {ImGui::GetItemRectMin(), ImGui::GetItemRectMax()};
    }
    return picked;
}

const std::vector<MdBlock>& LessonsWindow::text(const wl::lessons::Lesson& l) {
    if (parsed_ != l.number) blocks_ = parse_markdown(l.text), parsed_ = l.number;
    return blocks_;
}

LessonsWindow::Request LessonsWindow::draw(bool* open, LessonModel& m, bool stale, const std::function<bool(std::string_view)>& is_target) {
    Request req;
    places_.clear();
    if (!ImGui::Begin("Lessons", open)) {
        ImGui::End();
        return req;
    }
    const wl::lessons::Lesson* l = m.current();
    int done = 0;
    for (const auto& x : m.lessons()) done += m.done(x.number);
    char count[48];
    std::snprintf(count, sizeof count, "%d of %zu done", done, m.lessons().size());
    char preview[256];
    std::snprintf(preview, sizeof preview, l ? "%d. %s" : "Pick a lesson", l ? l->number : 0, l ? l->title.c_str() : "");
    ImGui::SetNextItemWidth(std::max(80.0f, ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize(count).x - ImGui::GetStyle().ItemSpacing.x));
    if (ImGui::BeginCombo("##lesson", preview, ImGuiComboFlags_HeightLarge)) {
        if (int n = lesson_items(m, &places_)) req.open = n;
        ImGui::EndCombo();
    }
    mark("lesson_picker");
    ImGui::SameLine();
    ImGui::TextDisabled("%s", count);
    for (const std::string& e : m.errors()) wrapped_text(kErrorText, e.c_str());

    if (!l) {
        ImGui::TextWrapped("Each lesson explains one idea of the wafer, gives you a kernel that does not work yet, and "
                           "checks your fix: the values it prints, its cycles, its PEs. Start at 1.");
        ImGui::Spacing();
        ImGui::BeginChild("##list");
        if (int n = lesson_items(m, &places_)) req.open = n;
        ImGui::EndChild();
        ImGui::End();
        return req;
    }

    // As tall as its rows were last frame (one or two, by the panel's width).
    ImGui::BeginChild("##buttons", ImVec2(0, buttons_h_ > 0 ? buttons_h_ : ImGui::GetFrameHeightWithSpacing()), false,
                      ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    buttons(m, req);
    buttons_h_ = ImGui::GetCursorPosY() - ImGui::GetStyle().ItemSpacing.y;
    ImGui::EndChild();
    ImGui::Separator();

    // The text takes what the result below leaves it (as tall as it was last frame), down to half
    // the panel; past that the result scrolls in the rest.
    const float avail = ImGui::GetContentRegionAvail().y;
    const float text_h = lesson_text_height(avail, result_h_, avail * 0.5f, ImGui::GetStyle().ItemSpacing.y);
    ImGui::BeginChild("##text", ImVec2(0, text_h), false, ImGuiWindowFlags_NoScrollWithMouse);
    if (shown_ != l->number) ImGui::SetScrollY(0), shown_ = l->number;   // a new lesson opens at its title
    // The wheel: six lines a notch (Dear ImGui's default moved the text about three).
    if (ImGui::IsWindowHovered() && ImGui::GetIO().MouseWheel != 0)
        ImGui::SetScrollY(ImGui::GetScrollY() - ImGui::GetIO().MouseWheel * 6 * ImGui::GetTextLineHeightWithSpacing() * 1.3f);
    links_.clear();
    if (auto name = draw_markdown(text(*l), is_target, &links_)) req.show_code = *name;
    text_scroll_ = ImGui::GetScrollY();
    ImGui::EndChild();
    mark("lesson_text");
    if (text_h < avail - 1) {
        ImGui::BeginChild("##result");
        const float top = ImGui::GetCursorPosY();
        result(m, stale, req);
        result_h_ = ImGui::GetCursorPosY() - top + ImGui::GetStyle().ItemSpacing.y;
        ImGui::EndChild();
    } else {
        result_h_ = 0;
    }
    ImGui::End();
    return req;
}

void LessonsWindow::buttons(LessonModel& m, Request& req) {
    const wl::lessons::Lesson& l = *m.current();
    ButtonRow button;
    if (button("Load starter")) req.starter = true;
    mark("lesson_starter");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Put this lesson's starting kernel in the editor (it asks before replacing your edits)");
    ImGui::PushStyleColor(ImGuiCol_Button, kCheckButton);
    ImGui::PushStyleColor(ImGuiCol_ButtonHovered, kCheckButtonHovered);
    if (button("Check", !m.checking())) req.check = true;
    ImGui::PopStyleColor(2);
    mark("lesson_check");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(l.spec.trains()     ? "Train the lesson's GPT on the mesh with the editor's kernel, and check the loss it reaches"
                          : l.spec.forwards() ? "Run the lesson's GPT forward on the mesh with the editor's kernel, and check its logits "
                                                "against the reference's (and its cycles)"
                                              : "Compile and run the editor's kernel, and check what it prints, its cycles and its PEs");
    const int hints = int(l.spec.hints.size());
    char hint[48];
    std::snprintf(hint, sizeof hint, "Hint (%d of %d)###hint", std::min(m.hints_shown() + 1, hints), hints);
    if (button(hint, m.hints_shown() < hints)) m.reveal_hint();
    mark("lesson_hint");
    if (button("Show solution", !m.confirming_solution())) m.ask_solution();
    mark("lesson_solution");
    const int next = m.next_number();
    if (button("Next lesson", next != 0)) req.open = next;
    mark("lesson_next");
}

void LessonsWindow::result(LessonModel& m, bool stale, Request& req) {
    const wl::lessons::Lesson& l = *m.current();
    const int next = m.next_number();
    if (m.confirming_solution()) {
        ImGui::PushStyleColor(ImGuiCol_Text, kWarnText);
        ImGui::TextWrapped("Show the solution? It replaces the kernel in the editor (Ctrl+Z brings yours back). "
                           "A hint teaches more, if one is left.");
        ImGui::PopStyleColor();
        ButtonRow confirm;
        if (confirm("Show the solution")) req.solution = m.confirm_solution();
        mark("lesson_solution_confirm");
        if (confirm("Not yet")) m.cancel_solution();
    }

    if (m.checking()) {
        ImGui::ProgressBar(m.check_fraction(), ImVec2(-1, 0), m.check_progress().c_str());
        mark("lesson_progress");
        const std::vector<float>& losses = m.check_losses();
        if (!losses.empty()) {   // the loss falling, step by step, as the mesh computes it
            const auto [lo, hi] = std::minmax_element(losses.begin(), losses.end());
            char overlay[96];
            std::snprintf(overlay, sizeof overlay, "batch loss: %.2f at step 1, %.2f now", double(losses.front()), double(losses.back()));
            ImGui::PlotLines("##check_loss", losses.data(), int(losses.size()), 0, overlay, *lo - 0.05f, *hi + 0.05f,
                             ImVec2(-1, ImGui::GetTextLineHeight() * 4));
            mark("lesson_loss_plot");
        }
        ImGui::TextDisabled("The mesh shows the training's PEs while it runs.");
    }
    if (const wl::lessons::Verdict* v = m.verdict()) {
        ImGui::TextColored(v->passed ? kGoodText : kErrorText, "%s", v->summary().c_str());
        mark("lesson_verdict");
        if (stale) ImGui::TextDisabled("(for an earlier text of the kernel: press Check again)");
        for (const wl::lessons::CheckItem& i : v->items) {
            ImGui::TextColored(i.ok ? kGoodText : kErrorText, "%s", i.ok ? kTick : kCross);
            ImGui::SameLine();
            ImGui::TextWrapped("%s", i.message.c_str());
        }
        if (v->passed && next) ImGui::TextDisabled("Lesson %d is done. Next lesson: %d.", l.number, next);
        if (v->passed && !next) ImGui::TextDisabled("Lesson %d is done, and it was the last one.", l.number);
    }

    for (int i = 0; i < m.hints_shown(); ++i) {
        ImGui::TextColored(kWarnText, "Hint %d:", i + 1);
        ImGui::SameLine();
        ImGui::TextWrapped("%s", l.spec.hints[size_t(i)].c_str());
    }
}

}  // namespace wlui
