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
//   The measuring is engine/model/density_sweep.h's (the app's Model window runs it too); this
//   file adds the N steps' losses, the tables, the JSON and the plot.
//   --plot FILE.svg also draws the matmul's, the forward's and the training step's cycles against
//   density beside the dense and ideal lines (cli/sparsity_plot.h; docs/img/sparsity.svg).
#include "cli/model_args.h"
#include "cli/sparsity_plot.h"
#include "cli/verbs.h"

#include "engine/core/json_text.h"
#include "engine/core/output_guard.h"
#include "engine/fabric/mesh.h"
#include "engine/gpt/trainer.h"
#include "engine/model/density_sweep.h"
#include "engine/model/mesh_measure.h"
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

using Figures = wl::model::RunFigures;

struct Point {
    std::string label;           // "dense" or "sparse"
    double density = 1;          // of the pruned matrices
    Figures op, matmuls, forward, step;
    uint32_t op_weight_bytes = 0;   // --op's weights on its most loaded PE
    int logits_differ = 0;       // against the reference on the same weights (as floats)
};

struct TrainPoint {
    std::string label;           // "dense" or "sparse"
    double density = 1;
    Figures step;                // the first training step
    Figures matmuls;             // its launches of the pruned matmuls (forward, backward, transpose_w, zero_grad, AdamW)
    float loss = 0;              // the last step's batch loss
    float val_loss = 0;          // after the N steps
    std::string error;           // the plan does not fit (the sparse layout at density 1 is larger than dense)
};

// N steps in fast mode on the mesh from the trainer's model as it is (pruned or not; its mask
// fixed), with the trainer's batches (the first is the sweep's step: the same bits in either
// mode); the model ends with the weights read back. The losses after them into *pt.
void train_losses(const Args& a, wl::gpt::Trainer& tr, bool sparse, int steps, TrainPoint* pt) {
    wl::model::CompileInfo info;
    const wl::model::MeshPlan plan = plan_for(a, tr.cfg, true, &info, sparse ? tr.model.get() : nullptr);
    std::vector<int> in(size_t(tr.sequences_per_step()) * tr.cfg.block_size), tg(in.size());
    wl::model::MeshTrainer mesh(plan, *tr.model, wl::RunMode::Fast);
    for (int s = 0; s < steps; s++) {
        tr.step_batches(s, in.data(), tg.data());
        wl::model::TrainStep st;
        if (!mesh.step(in.data(), tg.data(), tr.sequences_per_step(), tr.cfg.block_size, wl::gpt::learning_rate_at(tr.cfg, s), &st))
            throw std::runtime_error("train on the mesh: " + mesh.error());
        pt->loss = st.loss;
    }
    mesh.read_params(&tr.model->params_memory);
    pt->val_loss = tr.eval_loss(wl::gpt::Split::Val);
}

}  // namespace

int bench_sparsity(const Args& args) {
    Args a = args;
    if (!a.has("config")) a.options["config"] = "models/gpt-nano.yaml";
    const std::string op_name = a.get("op", "l0.fch");
    wl::model::MaskKind kind = wl::model::MaskKind::Magnitude;
    if (a.has("sparsity-mask") && !wl::model::mask_kind_from_name(a.get("sparsity-mask"), &kind))
        throw std::runtime_error("--sparsity-mask expects magnitude or random");
    const int steps = int(a.get_int("steps", 20));
    if (a.has("plot")) wl::guard_output({"--plot", a.get("plot")}, wl::kSvgOutput, {{"--config", a.get("config")}});
    const LoadedModel m = load_model(a);
    wl::gpt::GPT& ref = *m.model;
    const uint64_t seed = uint64_t(a.get_int("sparsity-seed", (long long)ref.cfg.seed));
    const wl::RunMode mode = run_mode_of(ref.cfg);
    const int T = ref.maxT;
    const std::vector<float> initial = ref.params_memory;

    // The sweep (engine/model/density_sweep.h): the forward at each density, and the first
    // training step on the trainer's first batch, from the model's weights.
    wl::gpt::Trainer tr(ref.cfg, a.get("bpe-dir"));
    if (tr.model->params_memory.size() != initial.size())
        throw std::runtime_error("bench sparsity: the model's weights do not fit the config's trainer (another vocabulary?)");
    tr.model->params_memory = initial;
    const wl::Mesh mesh = mesh_of(a, ref.cfg);
    wl::model::DensitySweepSettings set;
    set.mesh_w = mesh.w, set.mesh_h = mesh.h;
    set.op = op_name;
    set.mask = kind;
    set.seed = seed;
    set.mode = mode;
    set.tokens = wl::model::bench_tokens(T, ref.V);
    set.B = tr.sequences_per_step();
    set.T = tr.cfg.block_size;
    set.inputs.resize(size_t(set.B) * size_t(set.T));
    set.targets.resize(set.inputs.size());
    tr.step_batches(0, set.inputs.data(), set.targets.data());
    set.lr = wl::gpt::learning_rate_at(tr.cfg, 0);
    wl::model::DensitySweep sweep(ref, wl::model::read_kernels(kernels_dir(a)), set);
    while (sweep.step()) {
    }
    if (!sweep.error().empty()) throw std::runtime_error("bench sparsity: " + sweep.error());

    std::vector<Point> points;
    std::vector<TrainPoint> train;
    for (const wl::model::DensityPoint& p : sweep.points()) {
        const char* label = p.sparse ? "sparse" : "dense";
        points.push_back({label, p.density, p.op, p.matmuls, p.forward, p.generation, p.op_weight_bytes, p.logits_differ});
        TrainPoint t{label, p.density, p.train_step, p.train_matmuls, 0, 0, ""};
        if (!p.trained) {
            t.error = "compile-model: " + p.train_error;
        } else {   // the losses after N steps from the same initial weights and batches
            tr.model->params_memory = initial;
            tr.model->mask.clear();
            if (p.sparse) wl::model::prune_linear_weights(*tr.model, 1 - wl::model::sweep_densities()[points.size() - 2], kind, seed);
            train_losses(a, tr, p.sparse, steps, &t);
        }
        train.push_back(t);
    }
    const Point& dense = points.front();
    const TrainPoint& tdense = train.front();

    if (a.has("plot")) {
        SparsityPlot plot;
        plot.title = "Emulated cycles against weight density (" + m.source + ")";
        plot.note = std::to_string(mesh.w) + "x" + std::to_string(mesh.h) + " mesh, " +
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
        nlohmann::json j = {{"model", m.source}, {"mesh", {{"w", mesh.w}, {"h", mesh.h}}},
                            {"T", T}, {"mode", wl::run_mode_name(mode)}, {"mask", wl::model::mask_kind_name(kind)},
                            {"seed", seed}, {"op", op_name}, {"points", rows},
                            {"training", {{"steps", steps}, {"batch", tr.sequences_per_step()}, {"points", trows}}}};
        std::printf("%s\n", wl::json_text(j).c_str());
        return 0;
    }
    std::printf("bench sparsity: %s, T = %d, %dx%d mesh, %s mode (cycles%s), %s mask (seed %llu)\n", m.source.c_str(), T,
                mesh.w, mesh.h, wl::run_mode_name(mode), mode == wl::RunMode::Fast ? " estimated" : "",
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
