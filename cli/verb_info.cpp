// verb_info.cpp: `waferlab-cli info` — the engine version and build facts.
#include "cli/verbs.h"
#include "engine/core/version.h"
#include "engine/fabric/mesh.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace wlcli {

int verb_info(const Args& args) {
    wl::Mesh mesh;
    nlohmann::json j = {{"version", wl::version()}, {"mesh", {{"w", mesh.w}, {"h", mesh.h}}}};
    if (args.has("json")) {
        std::printf("%s\n", j.dump().c_str());
    } else {
        std::printf("WaferLab %s\ndefault mesh %dx%d\n", wl::version(), mesh.w, mesh.h);
    }
    return 0;
}

}  // namespace wlcli
