// verb_info.cpp: `waferlab-cli info` — the engine version and build facts.
#include "cli/verbs.h"
#include "engine/core/json_text.h"
#include "engine/core/version.h"
#include "engine/fabric/machine.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace wlcli {

int verb_info(const Args& args) {
    const wl::MachineConfig defaults;
    const wl::Mesh mesh{defaults.w, defaults.h};
    nlohmann::json j = {{"version", wl::version()}, {"mesh", {{"w", mesh.w}, {"h", mesh.h}}}};
    if (args.has("json")) {
        std::printf("%s\n", wl::json_text(j).c_str());
    } else {
        std::printf("WaferLab %s\ndefault mesh %dx%d\n", wl::version(), mesh.w, mesh.h);
    }
    return 0;
}

}  // namespace wlcli
