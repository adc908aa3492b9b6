// app_run_controls.cpp: App methods for the run controls: the toolbar over the mesh (Run, Step,
// Back, the speed and the cycle scrubber), the run bar an embed shares with it, the run's status
// line, and the tour that starts from them.
#include "ui/app.h"
#include "ui/flow_row.h"
#include "ui/js_bridge.h"
#include "ui/run_mode_switch.h"
#include "ui/style.h"

#include <imgui.h>
#include <algorithm>
#include <cmath>
#include <cstdio>

namespace wlui {

void App::start_tour() {
    if (!runner_.loaded()) {
        if (doc_.buffer().modified()) show_editor_ = true;   // their own kernel stays; the tour works on it
        else load_example("hello");
    }
    show_editor_ = show_log_ = true;
    help_.start_tour();
}

static const char* mode_name(const RunController& rc) {
    if (!rc.loaded()) return "no kernel loaded";
    if (rc.run() && !rc.run()->ok()) return "stopped by an error";
    if (rc.done() && rc.cycle() == 0 && rc.run() && rc.run()->kernel().host.empty())   // nothing ran, nor can
        return "nothing to run: no host block (a model kernel runs inside the GPT: the lesson's Check, or View > Model)";
    if (rc.done()) return "finished";
    if (rc.busy()) return "running";
    // A kernel that has not started yet: say how to start it.
    return rc.cycle() == 0 && rc.extent() == 0 ? "ready: press F5 (Run) or F10 (Step)" : "paused";
}

std::string App::run_status() const {
    const std::string blocked = not_compiled();
    const std::string kernel = blocked.empty() ? mode_name(runner_) : blocked;
    // The toolbar runs the editor's kernel; say so when the canvas shows something else.
    if (lessons_.check_machine()) return "the canvas shows the lesson's check training; the kernel: " + kernel;
    if (model_.on_canvas()) return "the canvas shows the Model window's GPT; the kernel: " + kernel;
    return kernel;
}

// The toolbar and an embed's run bar begin and end alike: their frame padding and place (the
// tour points at it), and at the end the run status, in the error colour when the editor's text
// cannot run or the run faulted.
FlowRow App::begin_run_bar() {
    places_.toolbar_min = ImGui::GetCursorScreenPos();
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(8, 3));
    ImGui::SetCursorPosX(ImGui::GetStyle().ItemSpacing.x);
    ImGui::SetCursorPosY(ImGui::GetCursorPosY() + 3);
    return FlowRow::across_window();
}

void App::end_run_bar(FlowRow& row, const std::string& status, bool blocked) {
    row.next(ImGui::CalcTextSize(status.c_str()).x);
    const bool bad = blocked || (runner_.run() && !runner_.run()->ok());
    ImGui::AlignTextToFramePadding();
    ImGui::TextColored(bad ? kErrorText : ImVec4(0.7f, 0.75f, 0.8f, 1.0f), "%s", status.c_str());
    mark_item("run_status");
    ImGui::PopStyleVar();
    places_.toolbar_max = ImVec2(ImGui::GetWindowPos().x + ImGui::GetWindowWidth(), ImGui::GetCursorScreenPos().y);
    ImGui::Separator();
}

void App::run_toolbar() {
    FlowRow row = begin_run_bar();
    const std::string blocked = not_compiled();
    const bool loaded = runner_.loaded();
    // Forward controls: an edited kernel compiles first; one with errors does not run at all.
    const bool can = blocked.empty() && (!gate_.matches(doc_.buffer().version()) || !runner_.done());
    // The controls flow: each goes on the current row if it fits, else starts the next (a phone has three rows).
    auto flow = [&](float w) { row.next(w); };
    const float gap = row.gap(), right = row.right();
    auto button = [&](const char* label, bool enabled, const char* tip) {
        flow(ImGui::CalcTextSize(label).x + 16.0f);
        ImGui::BeginDisabled(!enabled);
        bool hit = ImGui::Button(label);
        ImGui::EndDisabled();
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", tip);
        return hit;
    };
    if (runner_.mode() == RunController::Mode::Playing) {
        if (button("Pause", true, "Space")) runner_.pause();
    } else if (button("Run", can, blocked.empty() ? "F5: run at the chosen speed (compiles first if needed)" : blocked.c_str())) {
        function_key(5, false);
    }
    mark_item("run_button");
    if (button("Step", can, blocked.empty() ? "F10: one cycle" : blocked.c_str())) function_key(10, false);
    const float nw = ImGui::CalcTextSize("0000000").x;
    flow(nw);
    ImGui::SetNextItemWidth(nw);
    int n = int(step_n_);
    if (ImGui::DragInt("##stepn", &n, 1.0f, 1, 1000000, "%d")) step_n_ = uint64_t(std::max(1, n));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("N for Step N (drag or double-click to type)");
    if (button("Step N", can, blocked.empty() ? "Shift+F10: N cycles" : blocked.c_str())) function_key(10, true);
    if (button("To end", can, blocked.empty() ? "F6: run to completion as fast as the frame budget allows" : blocked.c_str())) function_key(6, false);
    if (button("Back", loaded && runner_.cycle() > 0, "F9: one cycle back (Shift+F9: N); restores a snapshot and replays")) runner_.step_back(1);
    if (button("Reset", loaded, "Shift+F5: back to cycle 0")) runner_.reset();
    flow(run_mode_switch_width());
    if (auto m = run_mode_switch(runner_.run_mode(), [&](const char* name) { mark_item(name); })) runner_.set_run_mode(*m);
    if (kWeb) {
        if (button("Share", true, "A link to this kernel, cycle, colouring and PE, and an <iframe> to embed it (File > Share)")) js_bridge_share();
        mark_item("share_button");
    }
    if (layout_.stacked) {   // a phone: the editor opens over the mesh, one tap away
        if (button(show_editor_ ? "Mesh" : "Editor", true, show_editor_ ? "close the editor and show the mesh" : "open the kernel editor"))
            show_editor_ = !show_editor_;
        mark_item("editor_button");
    }

    // Speed: cycles per second on a log scale; Ctrl+click types a value in the same unit, clamped.
    // Wide enough that a decade is about 40 pixels of drag.
    double speed = runner_.speed(), smin = RunController::kMinSpeed, smax = RunController::kMaxSpeed;
    const float sw = std::min(6 * 40.0f + 14.0f, right - 2 * gap);
    flow(sw);
    ImGui::SetNextItemWidth(sw);
    if (ImGui::SliderScalar("##speed", ImGuiDataType_Double, &speed, &smin, &smax, "%.0f cycles/s",
                            ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
        runner_.set_speed(speed);
    mark_item("speed");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Run speed in emulated cycles per second (To end ignores it); Ctrl+click to type one");

    // Rewind: a scrubber over the run's known extent. It only moves through history; the
    // extent grows as the run goes further and is forgotten only when a new build loads.
    const std::string status = run_status();
    const float status_w = ImGui::CalcTextSize(status.c_str()).x;
    if (loaded) {
        const uint64_t extent = runner_.extent();
        const uint64_t to = runner_.mode() == RunController::Mode::ToTarget && runner_.target() != UINT64_MAX ? runner_.target()
                                                                                                            : runner_.cycle();
        double at = double(std::min(to, extent)), lo = 0, hi = double(std::max<uint64_t>(extent, 1));
        // As wide as the row leaves beside the status text; on a row of its own when that is under 160 px.
        float w = right - (ImGui::GetItemRectMax().x + gap) - gap - status_w;
        if (w < 160.0f) w = std::max(160.0f, right - 2 * gap - status_w), flow(1e9f);
        else flow(w);
        ImGui::SetNextItemWidth(w);
        char fmt[96];
        std::snprintf(fmt, sizeof fmt, "cycle %%.0f of %llu%s", (unsigned long long)extent, runner_.extent_is_end() ? " (end)" : "");
        if (extent == 0) std::snprintf(fmt, sizeof fmt, "%s", runner_.extent_is_end() ? "nothing ran" : "not run yet");
        ImGui::BeginDisabled(extent == 0);
        // A double slider: its grab stays small, where an int slider's grab is 1/range wide (half the bar at 0..1).
        if (ImGui::SliderScalar("##cycle", ImGuiDataType_Double, &at, &lo, &hi, fmt, ImGuiSliderFlags_AlwaysClamp | ImGuiSliderFlags_NoInput))
            runner_.rewind_to(uint64_t(std::llround(at)));
        ImGui::EndDisabled();
        mark_item("cycle_slider");
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("Drag to move through the cycles this run has reached; nothing is forgotten until a new build loads");
    }
    end_run_bar(row, status, !blocked.empty());
}

}  // namespace wlui
