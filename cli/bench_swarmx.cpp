// bench_swarmx.cpp: `waferlab-cli bench swarmx [--config models/gpt-nano.yaml] [--mesh 32x32] [--t 64] [--reps 2] [--json]`
//   One data-parallel training step (engine/model/swarmx.h) of batch_size sequences of T tokens
//   on 1, 2 and 4 emulated wafers, each wafer on its shard, fast mode, from the same weights and
//   batch: the emulated cycles split into compute (the slowest wafer's) and SwarmX (the gradient's
//   reduce and broadcast, modelled at the links' bandwidth), SwarmX's bytes, and the host's time
//   for the whole step (every wafer runs in this one thread, one after another): CPU seconds,
//   best of the repetitions, and that step's wall seconds. The first step's loss against one
//   wafer's says how far the sum order moved it. The figures are in docs/performance.md.
#include "cli/cpu_time.h"
#include "cli/model_args.h"
#include "cli/verbs.h"

#include "engine/core/json_text.h"
#include "engine/gpt/adamw.h"
#include "engine/gpt/parallel.h"
#include "engine/model/mesh_measure.h"
#include "engine/model/swarmx.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace wlcli {

int bench_swarmx(const Args& args) {
    Args a = args;
    if (!a.has("config")) a.options["config"] = "models/gpt-nano.yaml";
    wl::gpt::set_num_threads(1);
    const LoadedModel m = load_model(a);
    const wl::gpt::GPT& ref = *m.model;
    const int B = ref.cfg.batch_size, T = int(a.get_int("t", ref.maxT)), reps = std::max(1, int(a.get_int("reps", 2)));
    if (T < 1 || T > ref.maxT) throw std::runtime_error("--t must be 1.." + std::to_string(ref.maxT));
    wl::model::CompileInfo info;
    const wl::model::MeshPlan plan = plan_for(a, ref.cfg, true, &info);
    std::vector<int> in, tg;
    wl::model::bench_batch(B, T, ref.V, &in, &tg);
    const double lr = wl::gpt::learning_rate_at(ref.cfg, 0);
    struct Row {
        int wafers = 0;
        wl::model::SwarmXStep st;   // the first step's
        double cpu_s = 1e30, wall_s = 1e30;
    };
    std::vector<Row> rows;
    for (int N : {1, 2, 4}) {
        if (B % N != 0) continue;
        wl::model::SwarmX sx(plan, ref, N, wl::RunMode::Fast);
        Row r;
        r.wafers = N;
        for (int k = 0; k < reps; k++) {
            wl::model::SwarmXStep st;
            const double t0 = cpu_seconds();
            if (!sx.step(in.data(), tg.data(), B, T, lr, &st)) throw std::runtime_error(sx.error());
            const double cpu = cpu_seconds() - t0;
            if (k == 0) r.st = st;
            if (cpu < r.cpu_s) {
                r.cpu_s = cpu;
                r.wall_s = st.seconds;
            }
        }
        rows.push_back(r);
    }
    const wl::model::SwarmXLinks links = wl::model::cs_links();
    if (a.has("json")) {
        nlohmann::json j = {{"config", a.get("config")}, {"mesh", {{"w", plan.mesh_w}, {"h", plan.mesh_h}}}, {"B", B},
                            {"T", T}, {"reps", reps}, {"link_bytes_per_s", links.bytes_per_s}, {"clock_hz", links.clock_hz},
                            {"compile", wl::model::to_json(info)}};
        for (const Row& r : rows)
            j["rows"].push_back({{"wafers", r.wafers}, {"sequences_per_wafer", B / r.wafers},
                                 {"compute_cycles", r.st.compute_cycles}, {"swarmx_cycles", r.st.swarmx_cycles},
                                 {"cycles", r.st.cycles}, {"wafer_s", double(r.st.cycles) / links.clock_hz},
                                 {"swarmx_bytes", r.st.swarmx_bytes}, {"loss", r.st.loss}, {"cpu_s", r.cpu_s},
                                 {"wall_s", r.wall_s}});
        std::printf("%s\n", wl::json_text(j).c_str());
        return 0;
    }
    std::printf("bench swarmx: %s, B = %d, T = %d, %dx%d mesh per wafer, links %.0f GB/s, %.2f GHz, best of %d, one thread\n",
                a.get("config").c_str(), B, T, plan.mesh_w, plan.mesh_h, links.bytes_per_s / 1e9, links.clock_hz / 1e9, reps);
    std::printf("  wafers  seq/wafer  compute cycles  SwarmX cycles  step cycles  step (emulated)  SwarmX bytes  host CPU s  host wall s  loss vs 1 wafer\n");
    for (const Row& r : rows)
        std::printf("  %6d  %9d  %14llu  %13llu  %11llu  %12.3f ms  %12llu  %10.3f  %11.3f  %.2g\n", r.wafers, B / r.wafers,
                    (unsigned long long)r.st.compute_cycles, (unsigned long long)r.st.swarmx_cycles,
                    (unsigned long long)r.st.cycles, double(r.st.cycles) / links.clock_hz * 1e3,
                    (unsigned long long)r.st.swarmx_bytes, r.cpu_s, r.wall_s,
                    std::fabs(double(r.st.loss) - rows.front().st.loss) / rows.front().st.loss);
    std::printf("  %s\n", info.summary().c_str());
    return 0;
}

}  // namespace wlcli
