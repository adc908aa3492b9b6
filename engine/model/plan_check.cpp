// plan_check.cpp: see plan_check.h.
#include "engine/model/plan_check.h"

namespace wl::model {

namespace {

bool names(const wl::Program& p, const std::string& n) { return p.symbol(n) || p.function_index(n) >= 0; }

}  // namespace

std::string plan_run_problem(const MeshPlan& plan) {
    for (const PlannedOp& o : plan.ops) {
        if (!o.compiled) return "op " + o.name + " has no compiled kernel";
        std::vector<std::pair<std::string, const char*>> wanted;   // name, what it is for
        for (const Transfer& t : o.inputs) wanted.push_back({t.symbol, "an input"});
        wanted.push_back({o.output.symbol, "its output"});
        for (const auto& [sym, param] : o.weights) wanted.push_back({sym, "its weights"});
        for (const gpt::Export& e : o.kernel_info().exports) {
            const bool applies = e.when == gpt::When::Always || (e.when == gpt::When::Training && plan.train && has_backward(o)) ||
                                 (e.when == gpt::When::Streaming && plan.streaming);
            if (applies) wanted.push_back({e.name, "an entry or symbol the host names"});
        }
        for (const lang::Placement& pl : o.compiled->placements)
            for (const auto& [name, what] : wanted)
                if (!name.empty() && !names(*pl.program, name))
                    return "op " + o.name + "'s kernel " + o.kernel + " has no '" + name + "' (" + what + ")";
    }
    return "";
}

}  // namespace wl::model
