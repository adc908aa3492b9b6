// verb_model.cpp: the GPT on the mesh from a terminal.
//   waferlab-cli compile-model --config models/gpt-nano.yaml [--mesh 32x32] [--train] [--json]
//                              [--no-cache] [--cache-dir DIR] [--sparsity S [--sparsity-mask magnitude|random]]
//       the model compiler's stages: graph, placement, memory plan, kernels, schedule, executable,
//       and whether the executable came from the compile cache (compiled: cached) or why it compiled
//   waferlab-cli forward --config F | --checkpoint F [--mesh WxH] [--prompt TEXT] [--mode fast|cycle] [--json]
//       one forward pass on the mesh, op by op, checked against the reference
#include "cli/model_args.h"
#include "cli/verbs.h"

#include "engine/core/json_text.h"
#include "engine/model/forward_record.h"
#include "engine/model/mesh_gpt.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

namespace wlcli {

namespace {

std::string constants_text(const wl::model::PlannedOp& o) {
    std::string s;
    for (const auto& [k, v] : o.constants) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(int(v));
    return s;
}

// One character per PE: the layer's digit, E for the embedding, F for the final ops, . unused.
void print_map(const wl::model::MeshPlan& p) {
    std::vector<std::string> rows(size_t(p.mesh_h), std::string(size_t(p.mesh_w), '.'));
    int last_row = 0;
    for (const auto& o : p.ops) {
        const char c = o.layer >= 0 ? char('0' + o.layer % 10) : o.name == "encoded" ? 'E' : 'F';
        for (int y = o.rect.y; y < o.rect.y + o.rect.h; y++)
            for (int x = o.rect.x; x < o.rect.x + o.rect.w; x++) rows[size_t(y)][size_t(x)] = c;
        last_row = std::max(last_row, o.rect.y + o.rect.h - 1);
    }
    for (int y = 0; y <= last_row; y++) std::printf("     %3d %s\n", y, rows[size_t(y)].c_str());
    if (last_row + 1 < p.mesh_h) std::printf("     (rows %d..%d unused)\n", last_row + 1, p.mesh_h - 1);
}

void print_plan(const wl::model::MeshPlan& p) {
    const auto& c = p.cfg;
    std::printf("%d layers, %d heads, %d channels, context %d, vocabulary %d (%.3gM parameters) on a %dx%d mesh\n\n",
                c.n_layer, c.n_head, c.n_embd, c.block_size, c.vocab_size,
                double(wl::gpt::count_parameters(c)) / 1e6, p.mesh_w, p.mesh_h);
    std::printf("1. graph: %zu ops, one forward at T = %d (op_list)%s\n", p.ops.size(), c.block_size,
                p.streaming ? "; streaming: the l0 ops serve every layer in turn (docs/weight-streaming.md)" : "");
    std::printf("   %-14s %-18s %5s %10s\n", "tensor", "op", "layer", "MFLOP");
    for (const auto& o : p.ops)
        std::printf("   %-14s %-18s %5s %10.3f\n", o.name.c_str(), o.op.c_str(),
                    o.layer < 0 ? "-" : std::to_string(o.layer).c_str(), o.flops / 1e6);
    std::printf("\n2. placement: a row of PEs per op (or its tiers: rows stacked, each holding a part of its weights) in\n"
                "   schedule order, down bands of rows where they fit, else packed (E embedding, digits layers, F final)\n");
    std::printf("   %-14s %-8s %s\n", "tensor", "PEs", "at (x, y)");
    for (const auto& o : p.ops) {
        const std::string y = o.rect.h > 1 ? std::to_string(o.rect.y) + ".." + std::to_string(o.rect.y + o.rect.h - 1) + ", " +
                                                 std::to_string(o.rect.h) + " tiers"
                                           : std::to_string(o.rect.y);
        std::printf("   %-14s %-8d (%d..%d, %s)\n", o.name.c_str(), o.rect.w * o.rect.h, o.rect.x, o.rect.x + o.rect.w - 1,
                    y.c_str());
    }
    print_map(p);
    std::printf("\n3. memory plan%s: %d of %d PEs used; SRAM per used PE max %u bytes, mean %.0f (of %u)\n",
                p.train ? " for training" : "", p.pes_used(), p.mesh_w * p.mesh_h, p.bytes_max(), p.bytes_mean(),
                p.sram_bytes);
    std::printf("   %-14s %10s %8s %8s %8s %8s %8s  %s\n", "tensor", "bytes/PE", "weights", "grads", "adam", "acts",
                "scratch", "SRAM map of its first PE (offset: symbol[elements])");
    for (const auto& o : p.ops) {
        std::string map;
        for (const auto& s : o.compiled->placements.front().program->symbols)
            map += std::to_string(s.offset) + ":" + s.name + "[" + std::to_string(s.length) + "] ";
        const wl::model::MemoryUse& m = o.memory;
        std::printf("   %-14s %10u %8u %8u %8u %8u %8u  %s\n", o.name.c_str(), o.bytes_per_pe, m.weights, m.gradients,
                    m.adam, m.activations, m.scratch, map.c_str());
    }
    std::printf("\n4. kernels (models/kernels/; constants fix sizes and tiling)\n");
    for (const auto& o : p.ops) {
        std::string w;
        for (const auto& [sym, param] : o.weights) w += " " + sym + "<-" + param;
        std::printf("   %-14s %-14s %s%s%s\n", o.name.c_str(), o.kernel.c_str(), constants_text(o).c_str(),
                    w.empty() ? "" : "; weights", w.c_str());
    }
    std::printf("\n5. schedule: launch each op's main on its PEs in this order; each input comes over a link\n"
                "   (wavelets down the mesh on a colour, from the producer's send_y) or through the host\n");
    int links = 0, inputs = 0;
    for (size_t i = 0; i < p.ops.size(); i++) {
        const auto& o = p.ops[i];
        std::string in;
        for (const auto& t : o.inputs) {
            in += (in.empty() ? "" : ", ") + t.tensor + "->" + t.symbol +
                  (t.colour ? " (link, colour " + std::to_string(t.colour) + ")"
                   : t.between_layers ? " (host, between layers)"
                   : t.slice == wl::model::Slice::Tokens ? "" : " (host)");
            links += t.colour > 0;
            inputs += t.slice != wl::model::Slice::Tokens;
        }
        std::printf("   %2zu. %-14s  in: %s\n", i + 1, o.name.c_str(), in.c_str());
    }
    std::printf("   %d of %d activation inputs over links (docs/model-compiler.md, \"Links between ops\")\n", links, inputs);
    const int T = c.block_size;
    if (wl::model::plan_schedule(p) == wl::model::Schedule::Pipelined) {
        const wl::model::Pipeline pl = wl::model::plan_pipeline(p, 0, T, wl::model::default_chunks(p, T));
        std::printf("\n   wafer.schedule pipelined: a forward at T = %d as a pipeline (docs/model-compiler.md, \"Pipelined execution\"),\n"
                    "   each op on a chunk of the time steps while the next works on the one before. In lock-step waves\n"
                    "   (the mesh starts each launch as soon as its inputs and PEs are free, so it runs faster):\n", T);
        std::string text = wl::model::pipeline_text(p, pl, true);
        for (size_t at = 0, nl; at < text.size(); at = nl + 1) {
            nl = text.find('\n', at);
            if (nl == std::string::npos) nl = text.size();
            std::printf("   %s\n", text.substr(at, nl - at).c_str());
        }
        std::printf("   (a row per op, a column per wave, the digit the chunk it works on)\n");
        if (p.train)
            std::printf("   A training step's loss and backward follow each chunk through the same pipeline, the ops in reverse;\n"
                        "   the attention's backward waits for all of its chunks (its keys take terms from every later query),\n"
                        "   so the backward runs as %d pipelines, cut at its %d attentions. AdamW runs op by op.\n",
                        c.n_layer + 1, c.n_layer);
    } else {
        std::printf("   wafer.schedule %s: the ops one at a time over the whole window\n",
                    p.streaming ? "sequential (streaming execution)" : "sequential");
    }
    std::set<const wl::lang::CompileResult*> distinct;
    size_t instrs = 0;
    for (const auto& o : p.ops)
        if (distinct.insert(o.compiled.get()).second)
            for (const auto& pl : o.compiled->placements) instrs += pl.program->code.size();
    std::printf("\n6. executable: %zu compiled kernels (%zu instructions in all), %d PEs loaded, %s\n", distinct.size(),
                instrs, p.pes_used(),
                p.streaming ? "each layer's weights streamed in over the edge before it runs; the others resident"
                            : "weights resident");
}

nlohmann::json sparsity_json(const Args& args, const wl::model::PruneStats& s) {
    return {{"sparsity", args.get_double("sparsity", 0)}, {"mask", args.get("sparsity-mask", "magnitude")},
            {"weights", s.weights}, {"kept", s.kept}, {"density", s.density()}};
}

void print_sparsity(const Args& args, const wl::model::PruneStats& s) {
    std::printf("pruned (--sparsity %s, %s mask): %zu of %zu linear-layer weights kept (density %.3f); their matmuls keep only those\n",
                args.get("sparsity").c_str(), args.get("sparsity-mask", "magnitude").c_str(), s.kept, s.weights, s.density());
}

}  // namespace

int verb_compile_model(const Args& args) {
    if (!args.has("config")) throw std::runtime_error("compile-model needs --config FILE (e.g. models/gpt-nano.yaml)");
    const LoadedModel m = load_model(args);
    wl::model::CompileInfo info;
    wl::model::PruneStats pruned;
    const bool sparse = prune_from(args, m.model.get(), &pruned);
    // --train plans what `train --on-mesh` runs: streamed where no row of PEs holds the weights.
    const wl::gpt::GPTConfig cfg = args.has("train") ? mesh_training_config(args, m.model->cfg, args.has("json") ? nullptr : stdout) : m.model->cfg;
    const wl::model::MeshPlan plan = plan_for(args, cfg, args.has("train"), &info, sparse ? m.model.get() : nullptr);
    if (args.has("json")) {
        nlohmann::json j = wl::model::to_json(plan);
        j["model"] = m.source;
        j["compile"] = wl::model::to_json(info);
        if (sparse) j["sparsity"] = sparsity_json(args, pruned);
        j["schedule"] = wl::model::schedule_name(wl::model::plan_schedule(plan));
        if (wl::model::plan_schedule(plan) == wl::model::Schedule::Pipelined) {
            const int T = plan.cfg.block_size;
            const wl::model::Pipeline pl = wl::model::plan_pipeline(plan, 0, T, wl::model::default_chunks(plan, T));
            j["pipeline"] = {{"stages", pl.stages}, {"chunks", pl.chunks}, {"waves", pl.waves.size()}, {"fill", pl.fill},
                             {"drain", pl.drain}, {"in_flight", pl.in_flight}, {"busiest", pl.busiest}};
        }
        std::printf("%s\n", wl::json_text(j).c_str());
    } else {
        if (sparse) print_sparsity(args, pruned);   // a line of its own, before the plan's header
        std::printf("%s: ", m.source.c_str());
        print_plan(plan);
        print_compile(info, stdout);
    }
    return 0;
}

int verb_forward(const Args& args) {
    const LoadedModel m = load_model(args);
    wl::gpt::GPT& ref = *m.model;
    wl::model::CompileInfo info;
    wl::model::PruneStats pruned;
    const bool sparse = prune_from(args, &ref, &pruned);   // the reference runs the same pruned weights
    const wl::model::MeshPlan plan = plan_for(args, ref.cfg, false, &info, sparse ? &ref : nullptr);
    const wl::RunMode mode = run_mode_of(ref.cfg);
    std::vector<int> ids = prompt_ids(args, *m.tokenizer, "Once upon a time there was a little");
    if (int(ids.size()) > ref.maxT) {   // a forward sees one context: say which part
        std::fprintf(stderr, "waferlab-cli forward: the prompt is %zu tokens; the forward takes its last %d (model.block_size)\n", ids.size(), ref.maxT);
        ids.erase(ids.begin(), ids.end() - ref.maxT);
    }
    const int T = int(ids.size()), B = int(args.get_int("batch", 1));
    std::vector<int> batch;   // the prompt B times
    for (int b = 0; b < B; b++) batch.insert(batch.end(), ids.begin(), ids.end());

    wl::model::MeshGPT mesh(plan, ref, mode);
    wl::model::ForwardRecord f;
    if (!wl::model::forward_checked(mesh, ref, batch, &f, B)) throw std::runtime_error(mesh.error());
    if (f.not_finite)   // NaN equals NaN bit for bit: "identical" would say nothing
        throw std::runtime_error(std::to_string(f.not_finite) + " of the reference's " + std::to_string(f.logits) + " logits are NaN or infinite: " + m.source +
                                 "'s weights overflow the forward (or are not finite), so there is nothing to compare");
    const uint64_t cycles = f.cycles;
    const double wafer_s = double(cycles) / wl::kClockHz, mesh_s = f.mesh_seconds, ref_s = f.reference_seconds;
    if (args.has("json")) {
        nlohmann::json j = wl::model::to_json(f);
        j["model"] = m.source;
        j["mode"] = wl::run_mode_name(mode);
        j["compile"] = wl::model::to_json(info);
        if (sparse) j["sparsity"] = sparsity_json(args, pruned);
        std::printf("%s\n", wl::json_text(j).c_str());
        return 0;
    }
    std::printf("%s, %s%sT = %d, %s mode on a %dx%d mesh, %s schedule\n", m.source.c_str(), B > 1 ? std::to_string(B).c_str() : "",
                B > 1 ? " sequences of " : "", T, wl::run_mode_name(mode), plan.mesh_w, plan.mesh_h, wl::model::schedule_name(f.schedule));
    if (sparse) print_sparsity(args, pruned);
    print_compile(info, stdout);
    std::printf("%-14s %-18s %4s %9s %7s %9s %9s %8s\n", "tensor", "op", "PEs", "cycles", "util", "MFLOP", "hops",
                "wall ms");
    for (const auto& r : f.ops)
        std::printf("%-14s %-18s %4d %9llu %6.1f%% %9.3f %9llu %8.2f\n", r.name.c_str(), r.op.c_str(), r.pes,
                    (unsigned long long)r.cycles, 100 * r.utilisation(), r.flops / 1e6, (unsigned long long)r.hops,
                    1e3 * r.seconds);
    std::printf("total %llu cycles%s = %.1f us at %.2f GHz; wall %.1f ms on the mesh, %.2f ms reference (%.0fx)\n",
                (unsigned long long)cycles, mode == wl::RunMode::Fast ? " (estimated)" : "", wafer_s * 1e6,
                wl::kClockHz / 1e9, mesh_s * 1e3, ref_s * 1e3, mesh_s / std::max(ref_s, 1e-9));
    std::printf("logits: %zu of %zu identical to the reference, max |diff| %.3g\n", f.identical, f.logits, f.max_abs_diff);
    std::printf("between ops: %llu bytes of activations through the host (the rest went as wavelets)\n",
                (unsigned long long)f.host_bytes);
    if (plan.streaming)
        std::printf("weights streamed in: %llu bytes over the edge links, %llu of the %llu cycles (%.1f%%); "
                    "docs/weight-streaming.md\n",
                    (unsigned long long)f.stream_bytes, (unsigned long long)f.stream_cycles,
                    (unsigned long long)cycles, 100.0 * double(f.stream_cycles) / double(std::max<uint64_t>(cycles, 1)));
    return 0;
}

}  // namespace wlcli
