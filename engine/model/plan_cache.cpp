// plan_cache.cpp: see plan_cache.h.
#include "engine/model/plan_cache.h"

#include "engine/core/fnv.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

namespace wl::model {

static uint64_t hash_text(const std::string& s) {
    Fnv1a f;
    f.add(s.data(), s.size());
    return f.value();
}

// Each kernel source's hash now, read and hashed once per plan() however many entries ask.
class PlanCache::SourceHashes {
public:
    explicit SourceHashes(const KernelSource& kernels) : kernels_(kernels) {}
    uint64_t operator()(const std::string& name) {
        auto it = seen_.find(name);
        return it != seen_.end() ? it->second : seen_[name] = hash_text(kernels_(name));
    }

private:
    const KernelSource& kernels_;
    std::map<std::string, uint64_t> seen_;
};

namespace {

// The kernel files a plan compiled, each with its source's hash now.
std::vector<std::pair<std::string, uint64_t>> kernel_hashes(const MeshPlan& p, PlanCache::SourceHashes& hashes) {
    std::vector<std::string> names;
    for (const PlannedOp& o : p.ops) names.push_back(o.kernel);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::vector<std::pair<std::string, uint64_t>> out;
    for (const std::string& n : names) out.push_back({n, hashes(n)});
    return out;
}

bool kernels_unchanged(const std::vector<std::pair<std::string, uint64_t>>& had, PlanCache::SourceHashes& now) {
    for (const auto& [name, h] : had)
        if (now(name) != h) return false;
    return true;
}

}  // namespace

std::string CompileInfo::summary() const {
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.1f ms", seconds * 1e3);
    return cached ? "compiled: cached (" + std::string(ms) + ")" : "compiled in " + std::string(ms) + " (" + reason + ")";
}

std::string PlanCache::what_changed(const Entry& last, const Shape& now, SourceHashes& hashes) {
    std::string r;
    auto note = [&](const char* what, const std::string& a, const std::string& b) {
        if (a != b) r += (r.empty() ? "" : ", ") + std::string(what) + " " + a + " -> " + b;
    };
    const Shape& s = last.shape;
    note("model.n_layer", std::to_string(s.n_layer), std::to_string(now.n_layer));
    note("model.n_head", std::to_string(s.n_head), std::to_string(now.n_head));
    note("model.n_embd", std::to_string(s.n_embd), std::to_string(now.n_embd));
    note("model.block_size", std::to_string(s.block_size), std::to_string(now.block_size));
    note("model.vocab_size", std::to_string(s.vocab_size), std::to_string(now.vocab_size));
    note("wafer.mesh", std::to_string(s.mesh_w) + "x" + std::to_string(s.mesh_h),
         std::to_string(now.mesh_w) + "x" + std::to_string(now.mesh_h));
    note("SRAM per PE", std::to_string(s.sram_bytes), std::to_string(now.sram_bytes));
    note("planned for", s.train ? "training" : "inference", now.train ? "training" : "inference");
    for (const auto& [name, h] : last.kernels)
        if (hashes(name) != h) r += (r.empty() ? "" : ", ") + name + " edited";
    return r;
}

PlanResult PlanCache::plan(const wl::gpt::GPTConfig& cfg, int mesh_w, int mesh_h, const KernelSource& kernels,
                           uint32_t sram_bytes, bool train, bool no_cache, CompileInfo* info) {
    const auto start = std::chrono::steady_clock::now();
    const Shape shape{cfg.n_layer, cfg.n_head, cfg.n_embd, cfg.block_size, cfg.vocab_size, mesh_w, mesh_h, sram_bytes, train};
    CompileInfo got;
    SourceHashes hashes(kernels);
    auto hit = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
        if (it->shape == shape && kernels_unchanged(it->kernels, hashes)) hit = it;
    PlanResult r;
    if (hit != entries_.end() && !no_cache) {
        Entry e = std::move(*hit);   // to the back: the most recently used
        entries_.erase(hit);
        entries_.push_back(std::move(e));
        r.ok = true;
        r.plan = entries_.back().plan;
        r.plan.cfg = cfg;
        got.cached = true;
        got.key = entries_.back().key;
    } else {
        if (no_cache) got.reason = "--no-cache";
        else if (entries_.empty()) got.reason = "first compile";
        else {
            got.reason = what_changed(entries_.back(), shape, hashes);
            if (got.reason.empty()) got.reason = "not in the cache";   // an older shape, since dropped
        }
        r = plan_model(cfg, mesh_w, mesh_h, kernels, sram_bytes, train);
        if (r.ok) {
            if (hit != entries_.end()) entries_.erase(hit);
            Entry e{shape, kernel_hashes(r.plan, hashes), 0, r.plan};
            Fnv1a f;
            for (int v : {shape.n_layer, shape.n_head, shape.n_embd, shape.block_size, shape.vocab_size, shape.mesh_w,
                          shape.mesh_h, int(shape.sram_bytes), int(shape.train)})
                f.add(&v, sizeof v);
            for (const auto& [name, h] : e.kernels) {
                f.add(name.data(), name.size());
                f.add(&h, sizeof h);
            }
            e.key = got.key = f.value();
            if (entries_.size() == kMaxEntries) entries_.erase(entries_.begin());
            entries_.push_back(std::move(e));
        }
    }
    got.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (info) *info = got;
    return r;
}

}  // namespace wl::model
