// bench_sparsity.cpp: `waferlab-cli bench sparsity [--config models/gpt-nano.yaml] [--mesh WxH]
//                      [--sparsity-mask magnitude|random] [--sparsity-seed N] [--op l0.fch] [--mode cycle|fast]
//                      [--steps N] [--plot FILE.svg] [--json]`
//   The GPT's forward on the emulated mesh with its linear layers pruned to densities 1, 0.5,
//   0.25 and 0.1 (engine/model/sparsity.h; matmul.wk's SPARSE = 1), beside the dense plan
//   (SPARSE = 0) on the same initial weights: emulated cycles and wavelets for one matmul (--op),
//   for the pruned matmuls together, for the whole prompt forward (T = block_size), and for one
//   generation step (the gemv path), each against the ideal (density x dense). Emulated figures,
//   not timings: the same on any machine. Each sparse forward's logits are checked against the
//   reference on the same pruned weights.
//   Training with the mask fixed (matmul.wk's SPARSE = 1 with TRAIN = 1): at each density, N
//   optimiser steps (--steps, default 20; batch_size sequences each) on the mesh from the same
//   initial weights and batches: the first step's emulated cycles and wavelets (forward, backward,
//   norm, AdamW), its ideal, the last step's loss and the validation loss after N steps (the
//   reference's evaluation on the weights read back). docs/performance.md, "Sparsity".
//   --plot FILE.svg also draws the matmul's, the forward's and the training step's cycles against
//   density beside the dense and ideal lines (cli/sparsity_plot.h; docs/img/sparsity.svg).
#include "cli/model_args.h"
#include "cli/sparsity_plot.h"
#include "cli/verbs.h"

#include "engine/gpt/trainer.h"
#include "engine/model/mesh_gpt.h"
#include "engine/model/mesh_trainer.h"
#include "engine/model/sparsity.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
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

bool pruned_matmul(const wl::model::PlannedOp& o);

struct TrainPoint {
    std::string label;           // "dense" or "sparse"
    double density = 1;
    Figures step;                // the first training step
    Figures matmuls;             // its launches of the pruned matmuls (forward, backward, transpose_w, zero_grad, AdamW)
    float loss = 0;              // the last step's batch loss
    float val_loss = 0;          // after the N steps
    std::string error;           // the plan does not fit (the sparse layout at density 1 is larger than dense)
};

// N steps on the mesh from the trainer's model as it is (pruned or not; its mask fixed), with the
// trainer's batches; the model ends with the weights read back.
TrainPoint measure_training(const Args& a, wl::gpt::Trainer& tr, bool sparse, int steps, wl::RunMode mode) {
    TrainPoint pt;
    wl::model::CompileInfo info;
    wl::model::MeshPlan plan;
    try {
        plan = plan_for(a, tr.cfg, true, &info, sparse ? tr.model.get() : nullptr);
    } catch (const std::runtime_error& e) {
        pt.error = e.what();
        return pt;
    }
    std::vector<int> in(size_t(tr.sequences_per_step()) * tr.cfg.block_size), tg(in.size());
    auto step = [&](wl::model::MeshTrainer& mesh, int s) {
        tr.step_batches(s, in.data(), tg.data());
        wl::model::TrainStep st;
        if (!mesh.step(in.data(), tg.data(), tr.sequences_per_step(), tr.cfg.block_size, wl::gpt::learning_rate_at(tr.cfg, s), &st))
            throw std::runtime_error("train on the mesh: " + mesh.error());
        pt.loss = st.loss;
        return st;
    };
    // The first step in the asked mode, for its cycles; the losses are the same bits in either
    // mode, so the N steps run in fast mode (the same trainer when that is the asked mode).
    wl::model::MeshTrainer timed(plan, *tr.model, mode);
    pt.step.cycles = step(timed, 0).cycles;
    for (const wl::model::OpRun& r : timed.last_run()) {
        pt.step.wavelets += r.wavelets;
        const wl::model::PlannedOp* o = plan.find(r.name);
        if (o && o->kernel == "matmul.wk" && pruned_matmul(*o)) {
            pt.matmuls.cycles += r.cycles;
            pt.matmuls.wavelets += r.wavelets;
        }
    }
    std::unique_ptr<wl::model::MeshTrainer> fast;
    if (mode != wl::RunMode::Fast) {
        fast = std::make_unique<wl::model::MeshTrainer>(plan, *tr.model, wl::RunMode::Fast);
        step(*fast, 0);
    }
    wl::model::MeshTrainer& mesh = fast ? *fast : timed;
    for (int s = 1; s < steps; s++) step(mesh, s);
    mesh.read_params(&tr.model->params_memory);
    pt.val_loss = tr.eval_loss(wl::gpt::Split::Val);
    return pt;
}

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
    ref.mask.clear();
    const Point& dense = points.front();

    // Training: the same initial weights (the config's seed), N steps at each density.
    const int steps = int(a.get_int("steps", 20));
    if (steps < 1) throw std::runtime_error("--steps expects at least 1 training step");
    wl::gpt::Trainer tr(ref.cfg, a.get("bpe-dir"));
    const std::vector<float> tr_initial = tr.model->params_memory;
    std::vector<TrainPoint> train;
    for (double d : {0.0, 1.0, 0.5, 0.25, 0.1}) {   // 0: the dense plan
        tr.model->params_memory = tr_initial;
        tr.model->mask.clear();
        double density = 1;
        if (d > 0) density = wl::model::prune_linear_weights(*tr.model, 1 - d, kind, seed).density();
        train.push_back(measure_training(a, tr, d > 0, steps, mode));
        train.back().label = d > 0 ? "sparse" : "dense";
        train.back().density = density;
    }
    const TrainPoint& tdense = train.front();

    if (a.has("plot")) {
        SparsityPlot plot;
        plot.title = "Emulated cycles against weight density (" + m.source + ")";
        plot.note = std::to_string(dense_plan.mesh_w) + "x" + std::to_string(dense_plan.mesh_h) + " mesh, " +
                    wl::run_mode_name(mode) + " mode, " + wl::model::mask_kind_name(kind) + " mask (seed " +
                    std::to_string(seed) + "): waferlab-cli bench sparsity";
        SparsitySeries op{"one matmul, " + op_name + ", T = " + std::to_string(T), double(dense.op.cycles), {}};
        SparsitySeries fwd{"the whole forward, T = " + std::to_string(T), double(dense.forward.cycles), {}};
        for (size_t i = 1; i < points.size(); i++) {
            op.points.push_back({points[i].density, double(points[i].op.cycles)});
            fwd.points.push_back({points[i].density, double(points[i].forward.cycles)});
        }
        SparsitySeries step{"a training step, " + std::to_string(tr.sequences_per_step()) + " x " +
                                std::to_string(tr.cfg.block_size) + " tokens",
                            double(tdense.step.cycles), {}};
        for (size_t i = 1; i < train.size(); i++)
            if (train[i].error.empty()) step.points.push_back({train[i].density, double(train[i].step.cycles)});
        plot.series = {op, fwd, step};
        std::ofstream f(a.get("plot"), std::ios::binary);
        f << sparsity_svg(plot);
        if (!f) throw std::runtime_error("--plot: cannot write " + a.get("plot"));
    }

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
        nlohmann::json trows = nlohmann::json::array();
        for (const TrainPoint& p : train)
            trows.push_back(p.error.empty() ? nlohmann::json{{"plan", p.label}, {"density", p.density},
                                                             {"step", fig(p.step, tdense.step, p.density)},
                                                             {"matmuls", fig(p.matmuls, tdense.matmuls, p.density)},
                                                             {"loss", p.loss}, {"val_loss", p.val_loss}}
                                            : nlohmann::json{{"plan", p.label}, {"density", p.density}, {"error", p.error}});
        nlohmann::json j = {{"model", m.source}, {"mesh", {{"w", dense_plan.mesh_w}, {"h", dense_plan.mesh_h}}},
                            {"T", T}, {"mode", wl::run_mode_name(mode)}, {"mask", wl::model::mask_kind_name(kind)},
                            {"seed", seed}, {"op", op_name}, {"points", rows},
                            {"training", {{"steps", steps}, {"batch", tr.sequences_per_step()}, {"points", trows}}}};
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
    auto ttable = [&](const char* title, Figures TrainPoint::*f, bool losses) {
        std::printf("%s\n  %-7s %7s %12s %9s %12s %12s", title, "plan", "density", "cycles", "vs dense", "ideal", "wavelets");
        std::printf(losses ? " %8s %8s\n" : "\n", "loss", "val");
        for (const TrainPoint& p : train) {
            const Figures& x = p.*f;
            const Figures& d = tdense.*f;
            if (!p.error.empty()) {
                std::printf("  %-7s %7.3f %s\n", p.label.c_str(), p.density, p.error.c_str());
                continue;
            }
            std::printf("  %-7s %7.3f %12llu %9.3f %12.0f %12llu", p.label.c_str(), p.density, (unsigned long long)x.cycles,
                        d.cycles ? double(x.cycles) / double(d.cycles) : 0.0, p.density * double(d.cycles),
                        (unsigned long long)x.wavelets);
            if (losses) std::printf(" %8.4f %8.4f", p.loss, p.val_loss);
            std::printf("\n");
        }
        std::printf("\n");
    };
    ttable(("a training step, " + std::to_string(tr.sequences_per_step()) + " sequences of " +
            std::to_string(tr.cfg.block_size) + " tokens (forward, backward, norm, AdamW), mask fixed; loss after " +
            std::to_string(steps) + " steps (the last batch's, and validation):").c_str(),
           &TrainPoint::step, true);
    ttable("the pruned matmuls' launches in that step (forward, backward, transpose_w, zero_grad, AdamW):",
           &TrainPoint::matmuls, false);
    std::printf("%s's weights on its most loaded PE:", op_name.c_str());
    for (const Point& p : points) std::printf("  %s %.2f: %u B", p.label.c_str(), p.density, p.op_weight_bytes);
    std::printf("\nlogits against the reference on the same weights:");
    int worst = 0;
    for (const Point& p : points) worst = std::max(worst, p.logits_differ);
    std::printf(" %s\n", worst ? (std::to_string(worst) + " differ (as floats) in the worst run").c_str() : "all equal in every run");
    return worst ? 1 : 0;
}

}  // namespace wlcli
