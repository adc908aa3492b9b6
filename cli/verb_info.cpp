// verb_info.cpp: `waferlab-cli info` — the engine version and build facts, and the machine
// profiles --arch takes (engine/fabric/wafer.h), each number with its source in --json.
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
    nlohmann::json profiles = nlohmann::json::array();
    for (const wl::MachineProfile& p : wl::machine_profiles()) {
        nlohmann::json sources = nlohmann::json::array();
        for (const wl::Sourced& s : wl::machine_profile_sources(p)) sources.push_back({{"what", s.what}, {"value", s.value}, {"source", s.source}});
        profiles.push_back({{"id", p.id}, {"name", p.name}, {"clock_hz", p.clock_hz}, {"sram_bytes_per_pe", p.sram_bytes_per_pe},
                            {"simd_fp32", p.simd_fp32}, {"simd_fp16", p.simd_fp16}, {"sources", sources}});
    }
    nlohmann::json j = {{"version", wl::version()}, {"mesh", {{"w", mesh.w}, {"h", mesh.h}}}, {"arch", profiles}};
    if (args.has("json")) {
        std::printf("%s\n", wl::json_text(j).c_str());
    } else {
        std::printf("WaferLab %s\ndefault mesh %dx%d\nmachine profiles (--arch):\n", wl::version(), mesh.w, mesh.h);
        for (const wl::MachineProfile& p : wl::machine_profiles())
            std::printf("  %-8s %-27s %.2f GHz, %u KiB SRAM per PE, %d fp32 / %d fp16 lane(s)\n", p.id, p.name, p.clock_hz / 1e9,
                        p.sram_bytes_per_pe / 1024, p.simd_fp32, p.simd_fp16);
    }
    return 0;
}

}  // namespace wlcli
