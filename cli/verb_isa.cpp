// verb_isa.cpp: `waferlab-cli isa [markdown] [--json]` — the compute engine's
// instruction table. `isa markdown` prints docs/cost-model.md (a test keeps the file current).
#include "cli/verbs.h"
#include "engine/core/json_text.h"
#include "engine/fabric/isa.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include <cstdio>

namespace wlcli {

int verb_isa(const Args& args) {
    const bool md = (!args.positional.empty() && args.positional[0] == "markdown") || args.get("format") == "markdown";
    if (md && args.has("json")) {   // as the flag rule for --format: one or the other, a usage error's exit
        std::fprintf(stderr, "waferlab-cli isa: error: markdown and --json cannot both apply: markdown prints docs/cost-model.md, --json the table; give one\n");
        return 2;
    }
    if (md) {
        std::fputs(wl::isa_markdown().c_str(), stdout);
        return 0;
    }
    if (args.has("json")) {
        nlohmann::json j = nlohmann::json::array();
        for (int k = 0; k < wl::op_count(); ++k) {
            const wl::OpInfo& o = wl::op_info(wl::Op(k));
            j.push_back({{"mnemonic", o.mnemonic}, {"base_cycles", o.base_cycles}, {"per_element", o.per_elem}, {"doc", o.doc}});
        }
        std::printf("%s\n", wl::json_text(j).c_str());
        return 0;
    }
    for (int k = 0; k < wl::op_count(); ++k) {
        const wl::OpInfo& o = wl::op_info(wl::Op(k));
        std::printf("%-9s %3d %3s  %s\n", o.mnemonic, o.base_cycles, o.per_elem ? std::to_string(o.per_elem).c_str() : "-", o.doc);
    }
    return 0;
}

}  // namespace wlcli
