// app_embed.cpp: the minimal frame a documentation page embeds (?embed=1): the mesh canvas under a
// compact run bar, the editor only when asked (&editor=1); the events the page passes on to an
// embedder (web/waferlab-messages.js): the cycle as it moves, the run finished, a fault; and when
// an idle embed stops drawing (wants_frame).
#include "ui/app.h"
#include "engine/core/json_text.h"
#include "ui/flow_row.h"
#include "ui/js_bridge.h"
#include "ui/style.h"

#include <imgui.h>
#include <nlohmann/json.hpp>

namespace wlui {

using nlohmann::json;

// Run (or Pause), Step, Reset and the cycle, flowing onto a second row under 320 px or so.
void App::embed_bar() {
    FlowRow row = begin_run_bar();
    const std::string blocked = not_compiled();
    const bool can = blocked.empty() && (!gate_.matches(doc_.buffer().version()) || !runner_.done());
    auto flow = [&](float w) { row.next(w); };
    auto button = [&](const char* label, bool enabled, const char* name) {
        flow(ImGui::CalcTextSize(label).x + 16.0f);
        ImGui::BeginDisabled(!enabled);
        const bool hit = ImGui::Button(label);
        ImGui::EndDisabled();
        mark_item(name);
        return hit;
    };
    if (runner_.mode() == RunController::Mode::Playing) {
        if (button("Pause", true, "run_button")) runner_.pause();
    } else if (button("Run", can, "run_button")) {
        function_key(5, false);
    }
    if (button("Step", can, "step_button")) function_key(10, false);
    if (button("Reset", runner_.loaded(), "reset_button")) runner_.reset();
    char cycle[48];
    std::snprintf(cycle, sizeof cycle, "cycle %llu", (unsigned long long)runner_.cycle());
    flow(ImGui::CalcTextSize(cycle).x);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(cycle);
    mark_item("cycle_text");
    end_run_bar(row, run_status(), !blocked.empty());
}

bool App::wants_frame(bool input) {
    if (!embed_) return true;
    if (input || runner_.busy() || model_.busy() || lessons_.checking()) quiet_frames_ = 0;
    return quiet_frames_ < kWakeFrames;
}

// Each is posted once per change, after the frame's slice of emulation.
void App::post_events() {
    const wl::lang::KernelRun* run = runner_.run();
    const uint64_t c = runner_.cycle();
    if (c != event_cycle_) {
        event_cycle_ = c;
        js_bridge_event("cycle", wl::json_text(json{{"cycle", c}, {"running", runner_.busy()}}));
    }
    const bool fault = run && !run->ok();
    if (fault && !event_fault_) js_bridge_event("fault", wl::json_text(error_json()));
    event_fault_ = fault;
    const bool finished = run && run->ok() && runner_.done();
    if (finished && !event_finished_) {
        json out = json::array();
        for (const wl::lang::OutputLine& o : run->output()) out.push_back(o.text);
        js_bridge_event("finished", wl::json_text(json{{"cycle", c}, {"output", out}}));
    }
    event_finished_ = finished;
}

}  // namespace wlui
