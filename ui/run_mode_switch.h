// run_mode_switch.h: the toolbar's Cycle / Fast switch — two buttons side by side, the
// current mode lit, each with the glossary's words for its mode as hover help.
// It only reports a click: the caller switches (RunController::set_run_mode reloads at cycle 0).
//
//   flow(run_mode_switch_width());
//   if (auto m = run_mode_switch(runner.run_mode(), mark)) runner.set_run_mode(*m);
#pragma once
#include "engine/fabric/machine.h"

#include <functional>
#include <optional>

namespace wlui {

float run_mode_switch_width();   // both buttons, in pixels at the current font

// Draws the switch at the cursor; returns the mode clicked when it is not `current`.
// mark(name) runs after each button ("mode_cycle", "mode_fast"), so the app can say where it is.
std::optional<wl::RunMode> run_mode_switch(wl::RunMode current, const std::function<void(const char*)>& mark);

}  // namespace wlui
