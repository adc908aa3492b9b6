// bench_sparsity.cpp: `waferlab-cli bench sparsity [--config models/gpt-nano.yaml] [--mesh WxH]
//                      [--sparsity-mask magnitude|random] [--sparsity-seed N] [--op l0.fch] [--mode cycle|fast] [--json]`
//   The GPT's forward on the emulated mesh with its linear layers pruned to densities 1, 0.5,
//   0.25 and 0.1 (engine/model/sparsity.h; matmul.wk's SPARSE = 1), beside the dense plan
//   (SPARSE = 0) on the same initial weights: emulated cycles and wavelets for one matmul (--op),
//   for the pruned matmuls together, for the whole prompt forward (T = block_size), and for one
//   generation step (the gemv path), each against the ideal (density x dense). Emulated figures,
//   not timings: the same on any machine. Each sparse forward's logits are checked against the
//   reference on the same pruned weights. docs/performance.md, "Sparsity".
#include "cli/model_args.h"
#include "cli/verbs.h"

#include "engine/model/mesh_gpt.h"
#include "engine/model/sparsity.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace wlcli {

namespace {

struct Figures {                 // one run's emulated cost
    uint64_t cycles = 0, wavelets = 0;
};

struct Point {
    std::string label;           // "dense" or "sparse"
    double density = 1;          // of the pruned matrices
    Figures op, matmuls, forward, step;
    uint32_t op_weight_bytes = 0;   // --op's weights on its most loaded PE
    int logits_differ = 0;       // against the reference on the same weights (as floats)
};

bool pruned_matmul(const wl::model::PlannedOp& o) {
    const auto& names = wl::model::pruned_parameters();
    for (const auto& [sym, p] : o.weights)
        if (sym == "w" && std::count(names.begin(), names.end(), p)) return true;
    return false;
}

Point measure(const wl::model::MeshPlan& plan, wl::gpt::GPT& ref, const std::string& op_name, const std::vector<int>& ids,
              wl::RunMode mode) {
    Point pt;
    const int T = int(ids.size());
    const wl::model::PlannedOp* op = plan.find(op_name);
    if (!op || op->kernel != "matmul.wk") throw std::runtime_error("--op " + op_name + " is not a matmul of this model");
    pt.op_weight_bytes = op->memory.weights;
    wl::model::MeshGPT mesh(plan, ref, mode);
    std::vector<float> logits;
    if (!mesh.forward(ids.data(), T, &logits)) throw std::runtime_error(mesh.error());
    ref.forward(ids.data(), nullptr, 1, T);
    for (size_t i = 0; i < logits.size(); i++) pt.logits_differ += !(logits[i] == ref.logits()[i]);
    for (const wl::model::OpRun& r : mesh.last_run()) {
        pt.forward.cycles += r.cycles;
        pt.forward.wavelets += r.wavelets;
        const wl::model::PlannedOp* o = plan.find(r.name);
        if (o && r.op == "matmul_forward" && pruned_matmul(*o)) {
            pt.matmuls.cycles += r.cycles;
            pt.matmuls.wavelets += r.wavelets;
        }
        if (r.name == op_name) pt.op = {r.cycles, r.wavelets};
    }
    // One generation step: the last token from the cache of the ones before it.
    if (!mesh.forward(ids.data(), T - 1, &logits) || !mesh.extend(ids.back(), &logits))
        throw std::runtime_error(mesh.error());
    for (const wl::model::OpRun& r : mesh.last_run()) {
        pt.step.cycles += r.cycles;
        pt.step.wavelets += r.wavelets;
    }
    return pt;
}

}  // namespace

int bench_sparsity(const Args& args) {
    Args a = args;
    if (!a.has("config")) a.options["config"] = "models/gpt-nano.yaml";
    const std::string op_name = a.get("op", "l0.fch");
    wl::model::MaskKind kind = wl::model::MaskKind::Magnitude;
    if (a.has("sparsity-mask") && !wl::model::mask_kind_from_name(a.get("sparsity-mask"), &kind))
        throw std::runtime_error("--sparsity-mask expects magnitude or random");
    const LoadedModel m = load_model(a);
    wl::gpt::GPT& ref = *m.model;
    const uint64_t seed = uint64_t(a.get_int("sparsity-seed", (long long)ref.cfg.seed));
    const wl::RunMode mode = run_mode_of(ref.cfg);
    const int T = ref.maxT;
    std::vector<int> ids(size_t(T), 0);
    for (int t = 0; t < T; t++) ids[size_t(t)] = (t * 7 + 3) % ref.V;
    const std::vector<float> initial = ref.params_memory;

    wl::model::CompileInfo info;
    const wl::model::MeshPlan dense_plan = plan_for(a, ref.cfg, false, &info);
    std::vector<Point> points;
    points.push_back(measure(dense_plan, ref, op_name, ids, mode));
    points.back().label = "dense";
    for (double d : {1.0, 0.5, 0.25, 0.1}) {
        ref.params_memory = initial;
        const wl::model::PruneStats s = wl::model::prune_linear_weights(ref, 1 - d, kind, seed);
        wl::model::CompileInfo sinfo;
        const wl::model::MeshPlan plan = plan_for(a, ref.cfg, false, &sinfo, &ref);
        points.push_back(measure(plan, ref, op_name, ids, mode));
        points.back().label = "sparse";
        points.back().density = s.density();
    }
    ref.params_memory = initial;
    const Point& dense = points.front();

    if (a.has("json")) {
        auto fig = [](const Figures& f, const Figures& d, double density) {
            return nlohmann::json{{"cycles", f.cycles}, {"wavelets", f.wavelets},
                                  {"vs_dense", d.cycles ? double(f.cycles) / double(d.cycles) : 0.0},
                                  {"ideal_cycles", density * double(d.cycles)}};
        };
        nlohmann::json rows = nlohmann::json::array();
        for (const Point& p : points)
            rows.push_back({{"plan", p.label}, {"density", p.density}, {"op", fig(p.op, dense.op, p.density)},
                            {"matmuls", fig(p.matmuls, dense.matmuls, p.density)},
                            {"forward", fig(p.forward, dense.forward, p.density)},
                            {"step", fig(p.step, dense.step, p.density)}, {"op_weight_bytes", p.op_weight_bytes},
                            {"logits_differ", p.logits_differ}});
        nlohmann::json j = {{"model", m.source}, {"mesh", {{"w", dense_plan.mesh_w}, {"h", dense_plan.mesh_h}}},
                            {"T", T}, {"mode", wl::run_mode_name(mode)}, {"mask", wl::model::mask_kind_name(kind)},
                            {"seed", seed}, {"op", op_name}, {"points", rows}};
        std::printf("%s\n", j.dump().c_str());
        return 0;
    }
    std::printf("bench sparsity: %s, T = %d, %dx%d mesh, %s mode (cycles%s), %s mask (seed %llu)\n", m.source.c_str(), T,
                dense_plan.mesh_w, dense_plan.mesh_h, wl::run_mode_name(mode), mode == wl::RunMode::Fast ? " estimated" : "",
                wl::model::mask_kind_name(kind), (unsigned long long)seed);
    std::printf("pruned: every block's qkv, attproj, fch and fcproj weights; the logits (wte) stay dense.\n"
                "ideal = density x the dense plan's cycles. wavelets: sent by the CEs during the launches.\n\n");
    auto table = [&](const char* title, Figures Point::*f) {
        std::printf("%s\n  %-7s %7s %12s %9s %12s %12s\n", title, "plan", "density", "cycles", "vs dense", "ideal",
                    "wavelets");
        for (const Point& p : points) {
            const Figures& x = p.*f;
            const Figures& d = dense.*f;
            std::printf("  %-7s %7.3f %12llu %9.3f %12.0f %12llu\n", p.label.c_str(), p.density, (unsigned long long)x.cycles,
                        d.cycles ? double(x.cycles) / double(d.cycles) : 0.0, p.density * double(d.cycles),
                        (unsigned long long)x.wavelets);
        }
        std::printf("\n");
    };
    table(("one matmul, " + op_name + ", prompt of " + std::to_string(T) + " tokens:").c_str(), &Point::op);
    table("the pruned matmuls together, same forward:", &Point::matmuls);
    table(("the whole forward, prompt of " + std::to_string(T) + " tokens:").c_str(), &Point::forward);
    table("one generation step (token T from the KV cache; the matmuls' gemv path):", &Point::step);
    std::printf("%s's weights on its most loaded PE:", op_name.c_str());
    for (const Point& p : points) std::printf("  %s %.2f: %u B", p.label.c_str(), p.density, p.op_weight_bytes);
    std::printf("\nlogits against the reference on the same weights:");
    int worst = 0;
    for (const Point& p : points) worst = std::max(worst, p.logits_differ);
    std::printf(" %s\n", worst ? (std::to_string(worst) + " differ (as floats) in the worst run").c_str() : "all equal in every run");
    return worst ? 1 : 0;
}

}  // namespace wlcli
