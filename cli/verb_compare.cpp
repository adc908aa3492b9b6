// verb_compare.cpp: `waferlab-cli compare` — one GPT step on a modelled GPU next
// to the same op list on the wafer (analytical estimate), op by op, then totals.
//   waferlab-cli compare --config models/gpt2-small.yaml --gpu a100|a100-40gb|h100|same-silicon
//       [--batch B] [--gpus N] [--accum N] [--profile reference-fp32|pytorch-bf16|tuned-bf16|flash1-bf16]
//       [--mode train|infer] [--mesh WxH] [--kernels DIR] [--execution resident|streaming] [--sparsity S]
//       [--json] [--csv FILE]
//   --mode infer also runs the forward on the emulated mesh when the model fits it: the "emulated" column.
#include "cli/model_args.h"
#include "cli/verbs.h"
#include "engine/core/json_text.h"
#include "engine/core/output_guard.h"
#include "engine/gpt/gpt_config.h"
#include "engine/gpu/compare.h"
#include "engine/fabric/mesh.h"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace wlcli {

namespace {

std::string si(double v, const char* unit) {
    const char* p[] = {"", "k", "M", "G", "T", "P", "E"};
    int k = 0;
    while (v >= 1000 && k < 6) v /= 1000, ++k;
    char b[32];
    std::snprintf(b, sizeof b, "%.3g %s%s", v, p[k], unit);
    return b;
}

void write_csv(const std::string& path, const wl::gpu::Comparison& c) {
    std::ofstream f(path);
    if (!f) throw std::runtime_error("cannot write " + path);
    f << "op,tensor,layer,ref_flops,ref_bytes,gpu_flops,gpu_bytes,gpu_time_s,gpu_bound,wafer_time_s,wafer_bound\n";
    for (size_t i = 0; i < c.gpu.ops.size(); ++i) {
        const auto& g = c.gpu.ops[i];
        const auto& w = c.wafer.ops[i];
        char b[512];
        std::snprintf(b, sizeof b, "%s,%s,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%s,%.6g,%s\n", g.op.c_str(), g.tensor.c_str(),
                      g.layer, g.ref_flops, g.ref_bytes, g.ex.flops, g.ex.bytes, g.time_s,
                      wl::gpu::bound_name(g.bound), w.time_s, w.bound.c_str());
        f << b;
    }
}

}  // namespace

int verb_compare(const Args& args) {
    if (!args.has("config")) throw std::runtime_error("compare needs --config FILE (e.g. models/gpt2-small.yaml)");
    wl::gpt::GPTConfig cfg = wl::gpt::load_config(args.get("config"));
    wl::gpt::apply_overrides(cfg, args.get("set"), "command line");   // not --mesh/--mode: compare's own flags
    wl::gpu::CompareOptions o;
    o.gpu = args.get("gpu", "a100");
    o.profile = args.get("profile", "tuned-bf16");
    o.batch = int(args.get_int("batch", 0));
    o.gpus = int(args.get_int("gpus", 1));
    o.grad_accum = int(args.get_int("accum", cfg.grad_accum_steps));
    const std::string mode = args.get("mode", "train");
    o.with_backward = mode == "train";
    if (!o.with_backward) o.kernels_dir = kernels_dir(args);
    if (args.has("mesh")) {
        wl::Mesh m;
        if (!wl::parse_mesh(args.get("mesh"), &m)) throw std::runtime_error("--mesh " + wl::mesh_error(args.get("mesh")));
        o.mesh.w = m.w;
        o.mesh.h = m.h;
    }
    if (args.has("execution")) {
        wl::gpt::Execution e;
        if (!wl::gpt::execution_from_name(args.get("execution"), &e)) throw std::runtime_error("--execution expects resident or streaming");
        o.execution = e;
    }
    o.sparsity = args.get_double("sparsity", 0);   // the flags' ranges are the parser's (verb_table.cpp)
    if (args.has("csv")) wl::guard_output({"--csv", args.get("csv")}, wl::kCsvOutput, {{"--config", args.get("config")}});
    const wl::gpu::Comparison c = wl::gpu::compare(cfg, o);
    if (args.has("csv")) write_csv(args.get("csv"), c);
    // The emulated column's forward failed (the kernels do not compile, or a fault): said after the
    // model's figures, and the exit is an error's. A model too big for the mesh is only not measured.
    const auto emulation_failed = [&] {
        if (c.emulated.failed)
            throw std::runtime_error("the emulated forward (kernels from " + o.kernels_dir + ") failed: " + c.emulated.why_not);
        return 0;
    };
    if (args.has("json")) {
        std::printf("%s\n", wl::json_text(wl::gpu::to_json(c)).c_str());
        return emulation_failed();
    }

    const auto& g = c.gpu;
    const auto& w = c.wafer;
    std::printf("GPT: %d layers, %d heads, %d wide, T=%d, V=%d%s, %s parameters; %s, B=%d per GPU\n", c.cfg.n_layer,
                c.cfg.n_head, c.cfg.n_embd, g.opt.T, c.cfg.vocab_size, c.vocab_assumed ? " (assumed)" : "",
                si(double(wl::gpt::count_parameters(c.cfg)), "").c_str(), mode == "train" ? "training step" : "one forward",
                g.opt.B);
    std::printf("GPU:   %s, profile %s\nwafer: %s (%s)\n\n", g.gpu.name.c_str(), g.profile.id.c_str(),
                w.wafer.name.c_str(), w.kind.c_str());
    const auto& em = c.emulated;
    std::printf("%-30s %-13s %11s %11s %10s %-8s %10s %-8s %10s\n", "op", "tensor", "FLOPs", "GPU bytes", "GPU time",
                "bound", "wafer", "bound", em.ran ? "emulated" : "");
    for (size_t i = 0; i < g.ops.size(); ++i) {
        const auto& t = g.ops[i];
        std::string measured;
        if (auto it = em.op_cycles.find(t.tensor); em.ran && it != em.op_cycles.end())
            measured = wl::gpu::format_seconds(double(it->second) / o.clock_hz);
        std::printf("%-30s %-13s %11s %11s %10s %-8s %10s %-8s %10s\n", t.op.c_str(), t.tensor.c_str(),
                    si(t.ref_flops, "").c_str(), si(t.ex.bytes, "B").c_str(), wl::gpu::format_seconds(t.time_s).c_str(),
                    wl::gpu::bound_name(t.bound), wl::gpu::format_seconds(w.ops[i].time_s).c_str(), w.ops[i].bound.c_str(),
                    measured.c_str());
    }
    std::printf("\nGPU step (per GPU, %d micro-batch%s): %s  [compute %s, memory %s, launch %s]  %.1f%% of peak\n",
                g.opt.grad_accum, g.opt.grad_accum > 1 ? "es" : "", wl::gpu::format_seconds(g.compute_s).c_str(),
                wl::gpu::format_seconds(g.time_by_bound[0]).c_str(), wl::gpu::format_seconds(g.time_by_bound[1]).c_str(), wl::gpu::format_seconds(g.time_by_bound[2]).c_str(),
                100 * g.mfu);
    if (g.opt.gpus > 1)
        std::printf("all-reduce over %d GPUs (%s): %s of gradients in %s; step %s; %s tokens/s\n", g.opt.gpus,
                    g.allreduce.link.c_str(), si(g.allreduce.bytes, "B").c_str(), wl::gpu::format_seconds(g.allreduce.seconds).c_str(),
                    wl::gpu::format_seconds(g.step_s).c_str(), si(g.tokens_per_s, "").c_str());
    std::printf("GPU memory: %s\n", g.mem.verdict.c_str());
    std::printf("wafer step: %s  (%.1f%% of its %s fp32 peak%s); %s\n", wl::gpu::format_seconds(w.step_s).c_str(),
                100 * w.utilisation, si(w.wafer.peak_flops(), "FLOP/s").c_str(),
                w.density < 1 ? ", counting the dense model's FLOPs" : "", w.verdict.c_str());
    std::printf("ratio GPU/wafer: %.3g (%s)\n", c.ratio, c.ratio > 1 ? "the wafer is faster" : "the GPU is faster");
    if (em.ran)
        std::printf("emulated: the forward MEASURED on the %dx%d mesh (%d PEs, fast mode): %llu cycles = %s for B=%d "
                    "sequences one after another (%s per sequence)\n",
                    em.mesh_w, em.mesh_h, em.pes_used, (unsigned long long)em.cycles, wl::gpu::format_seconds(em.seconds).c_str(),
                    em.B, wl::gpu::format_seconds(em.seconds / em.B).c_str());
    else
        std::printf("emulated: not measured: %s\n", em.why_not.c_str());
    for (const auto& p : c.projections)
        std::printf("projection %-5s %s per step (%s tokens/s): %s\n", p.wafer.id.c_str(), wl::gpu::format_seconds(p.step_s).c_str(),
                    si(p.tokens_per_s, "").c_str(), p.verdict.c_str());
    std::printf("\n%s\n%s\n%s\n", c.gpu_sentence.c_str(), c.wafer_sentence.c_str(), c.case_sentence.c_str());
    if (o.sparsity > 0)   // the case sentence says it, beside the wafer's sparsity: its source alone here
        std::printf("(GPU 2:4 sparsity: %s.)\n", wl::gpu::kGpuSparsitySource);
    else
        std::printf("%s (%s).\n", wl::gpu::kGpuSparsityNote, wl::gpu::kGpuSparsitySource);
    if (c.gpu_2to4_s > 0)
        std::printf("GPU with the linear layers pruned 2:4 instead (their GEMMs' math halved; bytes and launches as "
                    "dense): %s against %s dense.\n",
                    wl::gpu::format_seconds(c.gpu_2to4_s).c_str(), wl::gpu::format_seconds(c.gpu.compute_s).c_str());
    return emulation_failed();
}

}  // namespace wlcli
