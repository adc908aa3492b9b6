// fuzz_share.cpp: libFuzzer target for the share-link reader (ui/share_state.h): what a link's
// hash unpacks to is anyone's JSON. Any JSON gives a state or a reason in words; a state that
// reads writes back and reads again to the same.
#include "ui/share_state.h"

#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, false);
    if (j.is_discarded()) return 0;   // the page refuses what is not JSON before C++ sees it
    std::string problem;
    auto s = wlui::shared_state_from_json(j, &problem);
    if (!s) {
        if (problem.empty()) std::abort();
        return 0;
    }
    auto again = wlui::shared_state_from_json(wlui::shared_state_to_json(*s), &problem);
    if (!again || !(*again == *s)) std::abort();
    return 0;
}
