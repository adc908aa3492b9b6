// fuzz_workspace.cpp: libFuzzer target for the app's saved-state reader
// (ui/workspace.h). Any text gives a workspace or a reason in words; a workspace
// that reads writes back and reads again to the same.
#include "ui/workspace.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::string problem;
    auto ws = wlui::workspace_from_json(text, &problem);
    if (!ws) {
        if (problem.empty()) std::abort();
        return 0;
    }
    auto again = wlui::workspace_from_json(wlui::workspace_to_json(*ws), &problem);
    if (!again || !(*again == *ws)) std::abort();
    return 0;
}
