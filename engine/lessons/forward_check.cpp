// forward_check.cpp: plan with the student's kernel, one forward on the mesh, compare (forward_check.h).
#include "engine/lessons/forward_check.h"

#include "engine/gpt/trainer.h"
#include "engine/lessons/lesson_files.h"
#include "engine/model/mesh_gpt.h"
#include "engine/model/sparsity.h"

#include <cstdio>
#include <memory>
#include <stdexcept>

namespace wl::lessons {

namespace {

std::string num(float v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.6g", double(v));
    return b;
}

}  // namespace

std::string forward_files_error(const CheckSpec& spec) {
    if (!spec.forwards()) return "";
    const ForwardSpec& f = spec.forward;
    wl::gpt::GPTConfig cfg;
    if (const std::string why = lesson_model_config(spec.dir, f.config, f.mesh_w, f.mesh_h, /*train=*/false, &cfg); !why.empty()) return why;
    if (f.sparsity > 0 && f.execution.value_or(cfg.execution) == wl::gpt::Execution::Streaming)   // as check_spec's refusal on one line
        return "sparsity with " + f.config + "'s execution streaming: the planner streams dense weights only";
    if (wl::model::read_kernels(model_kernels_dir(spec.dir))(spec.forward.kernel).empty())
        return "no model kernel " + spec.forward.kernel + " in " + model_kernels_dir(spec.dir);
    return "";
}

void check_forward(const CheckSpec& spec, std::string_view source, Verdict* v) {
    const ForwardSpec& f = spec.forward;
    // The Trainer builds the model (vocabulary from the tokenizer, weights from the seed) and the
    // data loader whose first sequence is the prompt.
    std::unique_ptr<wl::gpt::Trainer> tr;
    try {
        wl::gpt::GPTConfig cfg;
        if (const std::string why = lesson_model_config(spec.dir, f.config, f.mesh_w, f.mesh_h, /*train=*/false, &cfg); !why.empty())
            throw std::runtime_error(why);
        if (f.execution) cfg.execution = *f.execution;
        tr = std::make_unique<wl::gpt::Trainer>(cfg);
    } catch (const std::exception& e) {
        lesson_fault(v, f.line, std::string("its model could not be built: ") + e.what());
        return;
    }
    const wl::gpt::GPTConfig& cfg = tr->cfg;
    wl::gpt::GPT& model = *tr->model;
    if (f.sparsity > 0) wl::model::prune_linear_weights(model, f.sparsity, wl::model::MaskKind::Magnitude, cfg.seed);

    // The model's kernels, with the student's text for the one this lesson is about.
    const wl::model::KernelSource base = wl::model::read_kernels(model_kernels_dir(spec.dir));
    const std::string mine(source);
    const wl::model::KernelSource kernels = [&](const std::string& k) { return k == f.kernel ? mine : base(k); };
    const auto plan = [&](const wl::model::KernelSource& k) {
        wl::model::PlanBuilder b(cfg, f.mesh_w, f.mesh_h, k, wl::MachineConfig{}.sram_bytes, /*train=*/false);
        if (f.sparsity > 0) b.set_sparse(wl::model::sparse_nonzeros(model));
        return b.take();
    };
    wl::model::PlanResult r = plan(kernels);
    // A failure the error places in the student's file is theirs; any other is planned again with
    // the lesson's own kernels, so a failed Check compiles the model twice only when it must.
    if (!r.ok && r.error.find(f.kernel + ":") == std::string::npos && !plan(base).ok) {
        lesson_fault(v, f.line, r.error);
        return;
    }
    if (!r.ok) {
        v->items.push_back({CheckKind::Compile, false,
                            "The model compiler could not use your kernel as " + f.kernel + ": " + r.error +
                                "\nKeep the exported names and the constants it sets (P, K, NC, ...) as they are."});
        return;
    }
    v->pes = r.plan.pes_used();

    const int T = cfg.block_size, V = cfg.vocab_size;
    std::vector<int> inputs(size_t(tr->sequences_per_step()) * size_t(T)), targets(inputs.size());
    tr->step_batches(0, inputs.data(), targets.data());   // the prompt: the first training sequence
    wl::model::MeshGPT mesh(std::move(r.plan), model, wl::RunMode::Fast);
    mesh.cycle_budget = watchdog_cycles(spec);   // a kernel that never ends stops in a fraction of a second
    std::vector<float> logits;
    if (!mesh.forward(inputs.data(), T, &logits)) {
        v->items.push_back({CheckKind::Fault, false, "The forward stopped with a fault: " + mesh.error()});
        return;
    }
    v->ran = true;
    v->cycles = mesh.last_cycles();
    model.forward(inputs.data(), nullptr, 1, T);
    const float* ref = model.logits();

    // Bit for bit, as floats: a zero of either sign is a zero (a sum that skips a +0 product keeps -0).
    size_t differ = 0, first = logits.size();
    for (size_t i = 0; i < logits.size(); i++)
        if (!(logits[i] == ref[i])) differ += 1, first = std::min(first, i);
    const std::string all = grouped(logits.size()) + " logits (" + std::to_string(T) + " tokens x " + std::to_string(V) +
                            " vocabulary entries)";
    const uint64_t c = v->cycles, stream = mesh.last_stream_cycles();
    const std::string took = "The forward took " + grouped(c) + " emulated cycles" +
                             (stream ? " (" + grouped(stream) + " of them streaming the weights in)" : "");
    if (differ == 0) {
        v->items.push_back({CheckKind::Values, true,
                            "The mesh's " + all + " equal the reference's bit for bit." + (f.cycles_below ? "" : " " + took + ".")});
    } else {
        std::string msg = grouped(differ) + " of " + all + " differ from the reference's; the first at token " +
                          std::to_string(first / size_t(V)) + ", vocabulary entry " + std::to_string(first % size_t(V)) +
                          " (the mesh's " + num(logits[first]) + ", the reference's " + num(ref[first]) + ").";
        if (!f.logits_when_wrong.empty()) msg += " " + f.logits_when_wrong;
        v->items.push_back({CheckKind::Values, false, msg});
    }
    if (f.cycles_below) {
        const bool ok = c < f.cycles_below;
        std::string msg = took + "; the check wants fewer than " + grouped(f.cycles_below) + (ok ? "." : ": over the line by " + grouped(c - f.cycles_below) + ".");
        if (!ok && !f.cycles_when_wrong.empty()) msg += " " + f.cycles_when_wrong;
        v->items.push_back({CheckKind::Cycles, ok, msg});
    }
}

}  // namespace wl::lessons
