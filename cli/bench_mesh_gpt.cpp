// bench_mesh_gpt.cpp: `waferlab-cli bench mesh-gpt [--config models/gpt-nano.yaml] [--mesh 32x32] [--t 64] [--reps 5] [--batch B] [--train] [--json]`
//   The reference forward (engine/gpt, one thread) and the same forward on the
//   emulated mesh (fast mode), for one sequence of T tokens, in one process:
//   best-of-reps CPU seconds for each (one run of each in turn) and their ratio, the mesh's emulated
//   cycles, instructions and PE utilisation (all ops, and the matmuls alone),
//   and whether the logits are bit-identical. The target is in docs/performance.md.
//   --batch B: also B prompts' forward under each wafer.schedule (MeshGPT::forward_batch): cycles,
//   utilisation, host seconds, and whether the two schedules' logits are bit-identical.
//   --train: a training step instead (batch_size sequences of T tokens: forward, backward,
//   AdamW), the reference's and MeshTrainer's, best-of-reps CPU seconds, tokens/s, the ratio,
//   emulated cycles per step, and whether the first step's losses are bit-identical.
#include "cli/cpu_time.h"
#include "cli/model_args.h"
#include "cli/verbs.h"

#include "engine/core/json_text.h"
#include "engine/core/simd.h"
#include "engine/gpt/parallel.h"
#include "engine/gpt/adamw.h"
#include "engine/model/mesh_gpt.h"
#include "engine/model/mesh_measure.h"
#include "engine/model/mesh_trainer.h"
#include "engine/model/schedule_compare.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sys/resource.h>
#include <map>
#include <optional>

namespace wlcli {

namespace {

uint64_t peak_rss_bytes() {   // this process's high-water mark (Linux: ru_maxrss in KiB)
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return uint64_t(u.ru_maxrss) * 1024;
}

// Where a run's time went, by kernel function (wall seconds of its launches), the longest first.
struct FunctionTime {
    std::string function;
    double seconds = 0;
    uint64_t instructions = 0;
};
std::vector<FunctionTime> by_function(const std::vector<wl::model::OpRun>& runs) {
    std::map<std::string, FunctionTime> parts;
    for (const wl::model::OpRun& r : runs) {
        FunctionTime& p = parts[r.op];
        p.function = r.op;
        p.seconds += r.seconds;
        p.instructions += r.instructions;
    }
    std::vector<FunctionTime> v;
    for (auto& [name, p] : parts) v.push_back(p);
    std::sort(v.begin(), v.end(), [](const FunctionTime& x, const FunctionTime& y) { return x.seconds > y.seconds; });
    return v;
}
nlohmann::json to_json(const std::vector<FunctionTime>& v) {
    nlohmann::json j = nlohmann::json::array();
    for (const FunctionTime& p : v) j.push_back({{"function", p.function}, {"seconds", p.seconds}, {"instructions", p.instructions}});
    return j;
}
void print_by_function(const std::vector<FunctionTime>& v, const char* what) {
    std::printf("  %s by kernel function (wall):\n", what);
    for (size_t k = 0; k < v.size() && k < 10; ++k)
        std::printf("    %-22s %8.1f ms  %6.2f M instructions\n", v[k].function.c_str(), v[k].seconds * 1e3, double(v[k].instructions) / 1e6);
}

int bench_train(const Args& a, wl::gpt::GPT& ref, int T, int reps) {
    const int B = ref.cfg.batch_size;
    wl::model::CompileInfo info;
    const wl::model::MeshPlan plan = plan_for(a, mesh_training_config(a, ref.cfg, a.has("json") ? nullptr : stdout), true, &info);
    std::vector<int> in, tg;
    wl::model::bench_batch(B, T, ref.V, &in, &tg);
    wl::model::MeshTrainer mesh(plan, ref, wl::RunMode::Fast);   // before the reference's steps change ref
    // One step under each wafer.schedule from the same weights (schedule_compare.h), before ref changes too;
    // streaming is always sequential: nothing to compare.
    const wl::model::ScheduleCompare sched =
        plan.streaming ? wl::model::ScheduleCompare{}
                       : wl::model::compare_schedules(plan, ref, in.data(), tg.data(), B, T, wl::gpt::learning_rate_at(ref.cfg, 0));
    wl::gpt::AdamW opt(ref.num_parameters);
    const double lr = wl::gpt::learning_rate_at(ref.cfg, 0);
    double ref_s = 1e30, mesh_s = 1e30;
    float ref_loss = 0, mesh_loss = 0;
    wl::model::TrainStep st;
    for (int r = 0; r < reps; r++) {   // the two in turn, so both see the machine as it is then
        double t0 = cpu_seconds();
        ref.forward(in.data(), tg.data(), B, T);
        ref.zero_grad();
        ref.backward();
        opt.step(ref, lr, ref.cfg);
        ref_s = std::min(ref_s, cpu_seconds() - t0);
        if (r == 0) ref_loss = ref.mean_loss;
        t0 = cpu_seconds();
        if (!mesh.step(in.data(), tg.data(), B, T, lr, &st)) throw std::runtime_error(mesh.error());
        mesh_s = std::min(mesh_s, cpu_seconds() - t0);
        if (r == 0) mesh_loss = st.loss;
    }
    const double tokens = double(B) * T;
    const bool same = std::memcmp(&ref_loss, &mesh_loss, 4) == 0;
    const std::vector<FunctionTime> by_time = by_function(mesh.last_run());
    if (a.has("json")) {
        nlohmann::json j = {{"config", a.get("config")}, {"simd", wl::simd_name(wl::simd_level())}, {"mesh", {{"w", plan.mesh_w}, {"h", plan.mesh_h}}}, {"B", B},
                            {"T", T}, {"reps", reps}, {"reference_s", ref_s}, {"mesh_s", mesh_s},
                            {"ratio", mesh_s / ref_s}, {"reference_tokens_per_s", tokens / ref_s},
                            {"mesh_tokens_per_s", tokens / mesh_s}, {"cycles", st.cycles},
                            {"wafer_s", double(st.cycles) / wl::kClockHz}, {"instructions", st.instructions},
                            {"pes_used", plan.pes_used()}, {"bytes_max", plan.bytes_max()}, {"loss_identical", same},
                            {"host_bytes", st.host_bytes}, {"stream_bytes", st.stream_bytes}, {"stream_cycles", st.stream_cycles},
                            {"streaming", plan.streaming}, {"peak_rss_bytes", peak_rss_bytes()},
                            {"compile", wl::model::to_json(info)}};
        if (!plan.streaming) j["schedules"] = wl::model::to_json(sched);
        j["by_function"] = to_json(by_time);
        std::printf("%s\n", wl::json_text(j).c_str());
        return 0;
    }
    std::printf("bench mesh-gpt --train: %s, B = %d, T = %d, %dx%d mesh (%d PEs used), best of %d, CPU seconds of one thread\n",
                a.get("config").c_str(), B, T, plan.mesh_w, plan.mesh_h, plan.pes_used(), reps);
    std::printf("  reference step     %10.3f ms   (%.0f tokens/s)\n", ref_s * 1e3, tokens / ref_s);
    std::printf("  mesh step          %10.3f ms   (%.0f tokens/s; %.1fx the reference; %.3g M instructions)\n",
                mesh_s * 1e3, tokens / mesh_s, mesh_s / ref_s, double(st.instructions) / 1e6);
    std::printf("  emulated           %10llu cycles per step (estimated) = %.1f ms at %.2f GHz\n",
                (unsigned long long)st.cycles, double(st.cycles) / wl::kClockHz * 1e3, wl::kClockHz / 1e9);
    std::printf("  between ops        %10llu bytes through the host per step (the rest as wavelets)\n",
                (unsigned long long)st.host_bytes);
    if (plan.streaming) {
        std::printf("  streamed           %10llu bytes in and out over the edge links, %llu of the step's cycles\n",
                    (unsigned long long)st.stream_bytes, (unsigned long long)st.stream_cycles);
        std::printf("  schedule           sequential (streaming runs one layer at a time)\n");
    } else {
        for (const wl::model::ScheduleRun& r : sched.runs)
            std::printf("  %-10s         %10llu cycles per step, whole-mesh utilisation %.1f%% (busy PE-cycles / (%d PEs x cycles)), %.3f s host\n",
                        wl::model::schedule_name(r.schedule), (unsigned long long)r.cycles, 100 * r.utilisation(), r.pes, r.seconds);
        std::printf("  pipelined/sequential %.2fx fewer cycles, %s\n", sched.gain(),
                    sched.identical ? "losses and weights bit-identical" : "losses or weights DIFFER");
    }
    std::printf("  peak resident      %10.2f GB (this process)\n", double(peak_rss_bytes()) / 1e9);
    std::printf("  first step's loss  %s (%.6f)\n", same ? "bit-identical to the reference" : "DIFFERS from the reference",
                double(mesh_loss));
    std::printf("  %s\n", info.summary().c_str());
    print_by_function(by_time, "the last step's time");
    return 0;
}

}  // namespace

int bench_mesh_gpt(const Args& args) {
    Args a = args;
    if (!a.has("config")) a.options["config"] = "models/gpt-nano.yaml";
    wl::gpt::set_num_threads(1);   // CPU seconds of one thread on both sides
    if (const char* why = a.has("simd") ? wl::use_simd(a.get("simd").c_str()) : ""; *why)
        throw std::runtime_error("--simd " + a.get("simd") + ": " + why);
    const LoadedModel m = load_model(a);
    wl::gpt::GPT& ref = *m.model;
    const int T = int(a.get_int("t", ref.maxT)), reps = std::max(1, int(a.get_int("reps", 5)));
    if (T < 1 || T > ref.maxT) throw std::runtime_error("--t must be 1.." + std::to_string(ref.maxT));
    if (a.has("train")) return bench_train(a, ref, T, reps);   // its own plan, for training
    wl::model::CompileInfo info;
    const wl::model::MeshPlan plan = plan_for(a, ref.cfg, false, &info);
    const std::vector<int> ids = wl::model::bench_tokens(T, ref.V);

    double ref_s = 1e30, mesh_s = 1e30;
    wl::model::MeshGPT mesh(plan, ref, wl::RunMode::Fast);
    std::vector<float> logits;
    for (int r = 0; r < reps; r++) {   // the two in turn, so both see the machine as it is then
        double t0 = cpu_seconds();
        ref.forward(ids.data(), nullptr, 1, T);
        ref_s = std::min(ref_s, cpu_seconds() - t0);
        t0 = cpu_seconds();
        if (!mesh.forward(ids.data(), T, &logits)) throw std::runtime_error(mesh.error());
        mesh_s = std::min(mesh_s, cpu_seconds() - t0);
    }
    size_t same = 0;
    for (size_t i = 0; i < logits.size(); i++) same += std::memcmp(&logits[i], &ref.logits()[i], 4) == 0;
    uint64_t cycles = 0, instrs = 0, busy = 0, pe_cycles = 0, mm_busy = 0, mm_pe_cycles = 0;
    double flops = 0, mm_flops = 0;
    for (const auto& r : mesh.last_run()) {
        cycles += r.cycles;
        instrs += r.instructions;
        busy += r.busy;
        pe_cycles += r.cycles * uint64_t(r.pes);
        flops += r.flops;
        if (r.op == "matmul_forward") {
            mm_busy += r.busy;
            mm_pe_cycles += r.cycles * uint64_t(r.pes);
            mm_flops += r.flops;
        }
    }
    const double util = pe_cycles ? double(busy) / double(pe_cycles) : 0;
    const double mm_util = mm_pe_cycles ? double(mm_busy) / double(mm_pe_cycles) : 0;
    // --batch B: B prompts' forward under each wafer.schedule (schedule_compare.h); streaming runs sequential only.
    const int B = int(a.get_int("batch", 0));   // the flag's range is 1..64; 0: not asked
    std::optional<wl::model::ScheduleCompare> batch;
    if (B > 0 && !plan.streaming) {
        const std::vector<int> tokens = wl::model::bench_tokens(B * T, ref.V);   // B prompts, each its own tokens
        batch = wl::model::compare_batch_schedules(plan, ref, tokens.data(), B, T);
    }
    if (a.has("json")) {
        nlohmann::json j = {{"config", a.get("config")}, {"simd", wl::simd_name(wl::simd_level())}, {"mesh", {{"w", plan.mesh_w}, {"h", plan.mesh_h}}}, {"T", T},
                            {"reps", reps}, {"reference_s", ref_s}, {"mesh_s", mesh_s},
                            {"ratio", mesh_s / ref_s}, {"cycles", cycles}, {"instructions", instrs},
                            {"instructions_per_s", double(instrs) / mesh_s}, {"flops", flops},
                            {"utilisation", util}, {"matmul_utilisation", mm_util}, {"matmul_flops", mm_flops},
                            {"pes_used", plan.pes_used()}, {"logits", logits.size()}, {"logits_identical", same},
                            {"compile", wl::model::to_json(info)}, {"by_function", to_json(by_function(mesh.last_run()))}};
        if (batch) j["batch"] = wl::model::to_json(*batch);
        std::printf("%s\n", wl::json_text(j).c_str());
        return 0;
    }
    std::printf("bench mesh-gpt: %s, T = %d, %dx%d mesh (%d PEs used), best of %d, CPU seconds of one thread\n",
                a.get("config").c_str(), T, plan.mesh_w, plan.mesh_h, plan.pes_used(), reps);
    std::printf("  reference forward  %10.3f ms\n", ref_s * 1e3);
    std::printf("  mesh forward       %10.3f ms   (%.1fx the reference; %.3g M instructions, %.0f M/s)\n", mesh_s * 1e3,
                mesh_s / ref_s, double(instrs) / 1e6, double(instrs) / mesh_s / 1e6);
    std::printf("  emulated           %10llu cycles (estimated) = %.1f us at %.2f GHz\n", (unsigned long long)cycles,
                double(cycles) / wl::kClockHz * 1e6, wl::kClockHz / 1e9);
    std::printf("  PE utilisation     %9.1f%% over the ops' PEs, %.1f%% in the matmuls\n", 100 * util, 100 * mm_util);
    std::printf("  logits             %zu of %zu bit-identical to the reference\n", same, logits.size());
    if (batch) {
        std::printf("  a batch of %d prompts of %d tokens:\n", B, T);
        for (const wl::model::ScheduleRun& r : batch->runs)
            std::printf("    %-10s       %10llu cycles, whole-mesh utilisation %.1f%% (busy PE-cycles / (%d PEs x cycles)), %.3f s host\n",
                        wl::model::schedule_name(r.schedule), (unsigned long long)r.cycles, 100 * r.utilisation(), r.pes, r.seconds);
        std::printf("    pipelined/sequential %.2fx fewer cycles, %s\n", batch->gain(),
                    batch->identical ? "logits bit-identical" : "logits DIFFER");
    } else if (B > 0) {
        std::printf("  a batch            sequential only (streaming runs one layer at a time)\n");
    }
    std::printf("  %s\n", info.summary().c_str());
    print_by_function(by_function(mesh.last_run()), "the last forward's time");
    return 0;
}

}  // namespace wlcli
