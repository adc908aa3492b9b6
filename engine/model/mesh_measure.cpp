// mesh_measure.cpp: see mesh_measure.h.
#include "engine/model/mesh_measure.h"

#include "engine/gpt/gpt.h"
#include "engine/model/mesh_gpt.h"

#include <chrono>

namespace wl::model {

std::vector<int> bench_tokens(int n, int V) {
    std::vector<int> t(size_t(n > 0 ? n : 0));
    for (size_t i = 0; i < t.size(); i++) t[i] = int((i * 7 + 3) % size_t(V));
    return t;
}

void bench_batch(int B, int T, int V, std::vector<int>* inputs, std::vector<int>* targets) {
    *inputs = bench_tokens(B * T, V);
    targets->resize(inputs->size());
    for (size_t i = 0; i < targets->size(); i++) (*targets)[i] = int((i * 7 + 10) % size_t(V));
}

MeasuredForward measure_forward(const gpt::GPTConfig& cfg, int mesh_w, int mesh_h, int B, int T,
                                const KernelSource& kernels, double clock_hz) {
    MeasuredForward m;
    m.mesh_w = mesh_w;
    m.mesh_h = mesh_h;
    m.B = B;
    m.T = T;
    PlanResult plan = plan_model(cfg, mesh_w, mesh_h, kernels);
    if (!plan.ok) {
        m.why_not = plan.error;
        m.failed = !plan.too_big;
        return m;
    }
    m.pes_used = plan.plan.pes_used();
    gpt::GPT model(cfg);
    model.init_weights(cfg.seed);
    MeshGPT mesh(std::move(plan.plan), model);
    const std::vector<int> tokens = bench_tokens(T, cfg.vocab_size);
    std::vector<float> logits;
    const auto start = std::chrono::steady_clock::now();
    if (!mesh.forward(tokens.data(), T, &logits)) {
        m.why_not = mesh.error();
        m.failed = true;
        return m;
    }
    m.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (const OpRun& r : mesh.last_run()) m.op_cycles[r.name] = r.cycles * uint64_t(B);
    m.cycles = mesh.last_cycles() * uint64_t(B);
    m.seconds = double(m.cycles) / clock_hz;
    m.ran = true;
    return m;
}

}  // namespace wl::model
