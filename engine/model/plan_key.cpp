// plan_key.cpp: see plan_key.h.
#include "engine/model/plan_key.h"

#include "engine/core/fnv.h"

#include <algorithm>

namespace wl::model {

PlanShape PlanShape::of(const wl::gpt::GPTConfig& cfg, int mesh_w, int mesh_h, uint32_t sram_bytes, bool train) {
    return {cfg.n_layer, cfg.n_head, cfg.n_embd, cfg.block_size, cfg.vocab_size, mesh_w, mesh_h, sram_bytes, train,
            cfg.execution == wl::gpt::Execution::Streaming, plan_sequences(cfg, train)};
}

static void add_shape(Fnv1a& f, const PlanShape& s) {
    for (int v : {s.n_layer, s.n_head, s.n_embd, s.block_size, s.vocab_size, s.mesh_w, s.mesh_h, int(s.sram_bytes), int(s.train),
                  int(s.streaming), s.sequences})
        f.add(&v, sizeof v);
}

uint64_t PlanShape::hash() const {
    Fnv1a f;
    add_shape(f, *this);
    return f.value();
}

uint64_t SourceHashes::operator()(const std::string& file) {
    auto it = seen_.find(file);
    if (it != seen_.end()) return it->second;
    const std::string text = kernels_(file);
    Fnv1a f;
    f.add(text.data(), text.size());
    return seen_[file] = f.value();
}

uint64_t PlanKey::value() const {
    Fnv1a f;
    add_shape(f, shape);
    for (const auto& [name, h] : kernels) {
        f.add(name.data(), name.size());
        f.add(&h, sizeof h);
    }
    return f.value();
}

PlanKey PlanKey::of(const PlanShape& shape, const MeshPlan& plan, SourceHashes& hashes) {
    std::vector<std::string> names;
    for (const PlannedOp& o : plan.ops) names.push_back(o.kernel);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    PlanKey k{shape, {}};
    for (const std::string& n : names) k.kernels.push_back({n, hashes(n)});
    return k;
}

bool PlanKey::kernels_unchanged(SourceHashes& now) const {
    for (const auto& [name, h] : kernels)
        if (now(name) != h) return false;
    return true;
}

std::string PlanKey::what_changed(const PlanShape& now, SourceHashes& hashes) const {
    std::string r;
    auto note = [&](const char* what, const std::string& a, const std::string& b) {
        if (a != b) r += (r.empty() ? "" : ", ") + std::string(what) + " " + a + " -> " + b;
    };
    const PlanShape& s = shape;
    note("model.n_layer", std::to_string(s.n_layer), std::to_string(now.n_layer));
    note("model.n_head", std::to_string(s.n_head), std::to_string(now.n_head));
    note("model.n_embd", std::to_string(s.n_embd), std::to_string(now.n_embd));
    note("model.block_size", std::to_string(s.block_size), std::to_string(now.block_size));
    note("model.vocab_size", std::to_string(s.vocab_size), std::to_string(now.vocab_size));
    note("wafer.mesh", std::to_string(s.mesh_w) + "x" + std::to_string(s.mesh_h),
         std::to_string(now.mesh_w) + "x" + std::to_string(now.mesh_h));
    note("SRAM per PE", std::to_string(s.sram_bytes), std::to_string(now.sram_bytes));
    note("planned for", s.train ? "training" : "inference", now.train ? "training" : "inference");
    auto execution = [](bool streaming) { return gpt::execution_name(streaming ? gpt::Execution::Streaming : gpt::Execution::Resident); };
    note("wafer.execution", execution(s.streaming), execution(now.streaming));
    note("wafer.sequences_in_flight", std::to_string(s.sequences), std::to_string(now.sequences));
    for (const auto& [name, h] : kernels)
        if (hashes(name) != h) r += (r.empty() ? "" : ", ") + name + " edited";
    return r;
}

}  // namespace wl::model
