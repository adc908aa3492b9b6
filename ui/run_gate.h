// run_gate.h: whether the run controls may go on, given what the editor holds.
//
// The machine runs the last build that was loaded; the editor may have moved on.
// The rule: nothing runs a program that no longer matches the editor. An edited
// kernel is compiled before it runs; an edited kernel with errors does not run
// at all, and the gate says why in words the toolbar and the log show as is.
// History (Back, Reset, the cycle slider) stays open: it only replays what ran.
// No ImGui here: tests/ui/run_gate_test.cpp drives it directly.
#pragma once
#include "engine/lang/diagnostics.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wlui {

class RunGate {
public:
    enum class Verdict {
        Ready,          // the loaded build is the editor's text: run it
        Compile,        // the text changed and has no known errors: compile and load, then run
        Blocked,        // the text changed and does not compile: refuse
    };

    // Called when a build of the editor's text `version` is loaded on the machine.
    void loaded(uint64_t version) { loaded_version_ = version; has_loaded_ = true; }
    void unloaded() { has_loaded_ = false; }

    // The verdict for the editor's text `version` with its latest diagnostics.
    Verdict judge(uint64_t version, const std::vector<wl::lang::Diagnostic>& diags) const;

    // "not compiled: 1 error at 44:13" (the first error's place), or "" when there are no errors.
    static std::string why(const std::vector<wl::lang::Diagnostic>& diags);

    bool matches(uint64_t version) const { return has_loaded_ && loaded_version_ == version; }

private:
    uint64_t loaded_version_ = 0;
    bool has_loaded_ = false;
};

}  // namespace wlui
