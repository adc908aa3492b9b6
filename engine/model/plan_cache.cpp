// plan_cache.cpp: see plan_cache.h.
#include "engine/model/plan_cache.h"

#include "engine/model/fit_advice.h"
#include "engine/model/plan_store.h"

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace wl::model {

std::string CompileInfo::summary() const {
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.1f ms", seconds * 1e3);
    return cached ? "compiled: cached (" + std::string(ms) + ")" : "compiled in " + std::string(ms) + " (" + reason + ")";
}

nlohmann::json to_json(const CompileInfo& info) {
    nlohmann::json j = {{"cached", info.cached}, {"wall_s", info.seconds}, {"reason", info.reason}, {"key", info.key}};
    j["seconds"] = info.seconds;   // wall_s's old name, for one release (docs/js-api.md, "Renamed keys")
    if (!info.file.empty()) j["file"] = info.file;
    if (!info.warning.empty()) j["warning"] = info.warning;
    return j;
}

void PlanCache::keep(Entry e) {
    if (entries_.size() == kMaxEntries) entries_.erase(entries_.begin());
    entries_.push_back(std::move(e));
}

PlanResult PlanCache::plan(const wl::gpt::GPTConfig& cfg, int mesh_w, int mesh_h, const KernelSource& kernels,
                           uint32_t sram_bytes, bool train, bool no_cache, CompileInfo* info) {
    const auto start = std::chrono::steady_clock::now();
    const PlanShape shape = PlanShape::of(cfg, mesh_w, mesh_h, sram_bytes, train);
    CompileInfo got;
    SourceHashes hashes(kernels);
    const PlanStore store(dir_);
    if (!dir_.empty()) got.file = store.path_of(shape);
    auto hit = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
        if (it->key.shape == shape && it->key.kernels_unchanged(hashes)) hit = it;
    PlanResult r;
    std::string refused;   // why the folder's file for this shape was not used
    if (hit != entries_.end() && !no_cache) {
        Entry e = std::move(*hit);   // to the back: the most recently used
        entries_.erase(hit);
        entries_.push_back(std::move(e));
        r.ok = true;
        r.plan = entries_.back().plan;
        got.cached = true;
        got.key = entries_.back().key.value();
    } else if (!dir_.empty() && !no_cache) {
        Entry e;
        if (store.load(cfg, shape, hashes, &e.key, &e.plan, &refused) == PlanStore::Found::Hit) {
            r.ok = true;
            r.plan = e.plan;
            got.cached = true;
            got.key = e.key.value();
            keep(std::move(e));
        }
    }
    if (!got.cached) {
        PlanKey last;
        if (no_cache) got.reason = "--no-cache";
        else if (!refused.empty()) got.reason = refused;
        else if (!entries_.empty()) got.reason = entries_.back().key.what_changed(shape, hashes);
        else if (!dir_.empty() && store.newest_key(&last)) got.reason = last.what_changed(shape, hashes);
        else got.reason = "first compile";
        if (got.reason.empty()) got.reason = "not in the cache";   // an older shape, since dropped
        r = plan_model(cfg, mesh_w, mesh_h, kernels, sram_bytes, train);
        if (r.too_big) r.error += fit_advice(cfg, mesh_w, mesh_h, kernels, sram_bytes, train);
        if (r.ok) {
            if (hit != entries_.end()) entries_.erase(hit);
            Entry e{PlanKey::of(shape, r.plan, hashes), r.plan};
            got.key = e.key.value();
            if (!dir_.empty()) got.warning = store.save(e.key, e.plan);
            keep(std::move(e));
        }
        if (!r.ok || !got.warning.empty()) got.file.clear();   // no file holds this executable
    }
    r.plan.cfg = cfg;
    got.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (info) *info = got;
    return r;
}

}  // namespace wl::model
