// pipeline.cpp: see pipeline.h.
#include "engine/model/pipeline.h"

#include "engine/model/mesh_plan.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>

namespace wl::model {

const char* schedule_name(Schedule s) { return s == Schedule::Pipelined ? "pipelined" : "sequential"; }

bool schedule_from_name(const std::string& name, Schedule* out) {
    if (name == "pipelined") *out = Schedule::Pipelined;
    else if (name == "sequential") *out = Schedule::Sequential;
    else return false;
    return true;
}

Schedule plan_schedule(const MeshPlan& plan) {
    Schedule s = Schedule::Sequential;
    if (plan.streaming || !schedule_from_name(plan.cfg.schedule, &s)) return Schedule::Sequential;
    return s;
}

int pipeline_chunks(int n, int chunks) { return std::clamp(chunks, 1, std::max(n, 1)); }

namespace {
bool overlap(const wl::Rect& a, const wl::Rect& b) {
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}
bool share_pes(const std::vector<wl::Rect>& a, const std::vector<wl::Rect>& b) {
    for (const wl::Rect& r : a)
        for (const wl::Rect& s : b)
            if (overlap(r, s)) return true;
    return false;
}
}  // namespace

// List scheduling of the sequential order (chunk by chunk, stage by stage): each wave takes, in
// that order, every launch whose predecessors ran in earlier waves and whose PEs no launch the
// wave already took uses. The earliest chunk goes first, so the pipeline drains as it fills.
Pipeline pipeline_waves(const std::vector<PipeStage>& stages, int t0, int n, int chunks) {
    Pipeline p;
    p.stages = int(stages.size());
    p.chunks = pipeline_chunks(n, chunks);
    p.t0 = t0;
    p.n = n;
    const int D = p.stages, C = p.chunks, U = D * C;
    if (U == 0) return p;
    std::vector<std::vector<wl::Rect>> pes(static_cast<size_t>(D));   // a launch's PEs: its own and its linked producers'
    for (int k = 0; k < D; k++) {
        pes[size_t(k)] = stages[size_t(k)].pes;
        for (int j : stages[size_t(k)].linked)
            pes[size_t(k)].insert(pes[size_t(k)].end(), stages[size_t(j)].pes.begin(), stages[size_t(j)].pes.end());
    }
    std::vector<std::vector<bool>> shares(static_cast<size_t>(D), std::vector<bool>(static_cast<size_t>(D)));
    for (int a = 0; a < D; a++)
        for (int b = 0; b < D; b++) shares[size_t(a)][size_t(b)] = share_pes(pes[size_t(a)], pes[size_t(b)]);
    std::vector<int> wave_of(static_cast<size_t>(U), -1);
    const auto done_before = [&](int u, int w) { return wave_of[size_t(u)] >= 0 && wave_of[size_t(u)] < w; };
    for (int done = 0, w = 0; done < U; w++) {
        std::vector<PipeLaunch> wave;
        for (int v = 0; v < U; v++) {   // the last stage first: a chain of linked stages then alternates
            const int c = v % C, k = D - 1 - v / C, u = c * D + k;
            if (wave_of[size_t(u)] >= 0 || (c > 0 && !done_before(u - D, w))) continue;
            bool ready = true;
            for (int j : stages[size_t(k)].producers) ready = ready && (j >= k || done_before(c * D + j, w));
            for (const PipeLaunch& l : wave) ready = ready && !shares[size_t(l.stage)][size_t(k)];
            if (!ready) continue;
            wave.push_back({k, c});
            wave_of[size_t(u)] = w;
        }
        if (wave.empty()) throw std::logic_error("pipeline_waves: a stage waits on a later one");
        done += int(wave.size());
        p.busiest = std::max(p.busiest, int(wave.size()));
        std::vector<int> cs;
        for (const PipeLaunch& l : wave)
            if (std::find(cs.begin(), cs.end(), l.chunk) == cs.end()) cs.push_back(l.chunk);
        p.in_flight = std::max(p.in_flight, int(cs.size()));
        p.waves.push_back(std::move(wave));
    }
    p.fill = wave_of[size_t(D - 1)];                                   // the last stage's first chunk
    p.drain = int(p.waves.size()) - 1 - wave_of[size_t((C - 1) * D)];   // after the first stage's last
    return p;
}

std::vector<const PlannedOp*> forward_stages(const MeshPlan& plan) {
    std::vector<const PlannedOp*> out;
    for (const PlannedOp& o : plan.ops)
        if (!o.train_only) out.push_back(&o);
    return out;
}

std::vector<PipeStage> pipeline_stages(const std::vector<const PlannedOp*>& ops) {
    std::map<std::string, int> stage_of;
    for (size_t k = 0; k < ops.size(); k++) stage_of[ops[k]->name] = int(k);
    std::vector<PipeStage> out(ops.size());
    for (size_t k = 0; k < ops.size(); k++) {
        out[k].pes.push_back(ops[k]->rect);
        for (const Transfer& in : ops[k]->inputs) {
            const auto it = stage_of.find(in.tensor);
            if (it == stage_of.end()) continue;
            out[k].producers.push_back(it->second);
            if (!in.colour) continue;
            const wl::Rect& r = ops[size_t(it->second)]->rect;
            if (in.from.x != r.x || in.from.y != r.y || in.from.w != r.w || in.from.h != r.h)
                throw std::logic_error("pipeline: " + ops[k]->name + "'s link is not sent from " + in.tensor + "'s PEs");
            out[k].linked.push_back(it->second);
        }
    }
    return out;
}

Pipeline plan_pipeline(const MeshPlan& plan, int t0, int n, int chunks) {
    return pipeline_waves(pipeline_stages(forward_stages(plan)), t0, n, chunks);
}

// Chunks of about kChunkSteps time steps. A launch has a cost that does not shrink with its chunk
// (a layernorm's sums cross its row, a link's first wavelet crosses the rows between), and shorter
// vector ops cost the emulator more host time; 8 is near the fewest cycles for a training step and
// a batch (docs/model-compiler.md, "Pipelined execution", measures 4 to 16).
int default_chunks(const MeshPlan& plan, int n) {
    constexpr int kChunkSteps = 8;
    return pipeline_chunks(n, std::min((n + kChunkSteps - 1) / kChunkSteps, std::max(1, int(forward_stages(plan).size()))));
}

std::string pipeline_text(const MeshPlan& plan, const Pipeline& p, bool timeline) {
    const std::vector<const PlannedOp*> ops = forward_stages(plan);
    char b[512];
    std::string s;
    std::snprintf(b, sizeof b,
                  "pipeline: %d stages (depth), %d chunks of %d-%d time steps, %zu waves (sequential: %d launches)\n"
                  "  fill %d waves, drain %d; at most %d chunks in flight and %d stages busy in one wave\n",
                  p.stages, p.chunks, p.chunks ? p.n / p.chunks : 0, p.chunks ? (p.n + p.chunks - 1) / p.chunks : 0,
                  p.waves.size(), p.stages * p.chunks, p.fill, p.drain, p.in_flight, p.busiest);
    s += b;
    if (!timeline) return s;
    // op x wave: the chunk each stage works on (".": idle), the picture of a pipeline's fill and drain
    size_t wname = 0;
    for (const PlannedOp* o : ops) wname = std::max(wname, o->name.size());
    for (int k = 0; k < p.stages && k < int(ops.size()); k++) {
        std::string row(p.waves.size(), '.');
        for (size_t w = 0; w < p.waves.size(); w++)
            for (const PipeLaunch& l : p.waves[w])
                if (l.stage == k) row[w] = "0123456789abcdefghijklmnopqrstuvwxyz"[l.chunk % 36];
        std::snprintf(b, sizeof b, "  %-*s %s\n", int(wname), ops[size_t(k)]->name.c_str(), row.c_str());
        s += b;
    }
    return s;
}

}  // namespace wl::model
