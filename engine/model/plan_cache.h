// plan_cache.h: compile once, run many. The model compiler's executable (a MeshPlan: the
// placement, the memory plan and every compiled kernel) is kept, keyed by what it depends
// on (plan_key.h): the model's shape (model.*), the mesh, the SRAM per PE, whether it is
// planned for training, and the source of every kernel it compiled. A second compile with the
// same key is a lookup; a changed key recompiles and says what changed, as XLA's recompilation
// does.
//
//   PlanCache cache;                                 // in memory: the app's Model window
//   cache.set_dir(PlanStore::default_dir());         // and on disk: waferlab-cli (plan_store.h)
//   CompileInfo info;
//   PlanResult r = cache.plan(cfg, 32, 32, read_kernels("models/kernels"), sram, train, false, &info);
//   // info.cached, info.seconds, info.reason ("model.block_size 64 -> 128"), info.key
//
// Executables live in memory, per cache; with a folder set they are also written there and
// read back by the next process (the CLI). In WebAssembly there is no folder: the in-memory
// cache serves the browser.
#pragma once
#include "engine/model/mesh_plan.h"
#include "engine/model/plan_key.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace wl::model {

struct CompileInfo {
    bool cached = false;   // the executable came from the cache (memory or disk): nothing was compiled
    double seconds = 0;    // the compile's wall time, or the lookup's when cached
    std::string reason;    // why it compiled: "first compile", "--no-cache", "model.block_size 64 -> 128, ...",
                           // "cache file F is corrupt (its checksum does not match)"
    uint64_t key = 0;      // the executable's key (FNV-1a of the shape, the mesh and the kernels)
    std::string file;      // the cache file it was read from or written to; "" in memory only
    std::string warning;   // the executable could not be written to the cache folder: why ("" when it was)
    // "compiled: cached (0.4 ms)" or "compiled in 85 ms (model.block_size 64 -> 128)": the CLI's and the app's line.
    std::string summary() const;
};

// {cached, seconds, reason, key} plus file and warning when set: the CLI's --json and the app's plan.
nlohmann::json to_json(const CompileInfo& info);

class PlanCache {
public:
    // plan_model() through the cache. no_cache: compile even on a hit (and replace the entry and
    // the file). A failed plan is not cached. The returned plan's cfg is always the caller's (its
    // other settings, such as AdamW's, may differ from the cached entry's).
    PlanResult plan(const wl::gpt::GPTConfig& cfg, int mesh_w, int mesh_h, const KernelSource& kernels,
                    uint32_t sram_bytes, bool train, bool no_cache, CompileInfo* info);
    // Also keep executables in this folder (plan_store.h), and look there on a miss in memory; "" for none.
    void set_dir(std::string dir) { dir_ = std::move(dir); }
    const std::string& dir() const { return dir_; }
    size_t size() const { return entries_.size(); }
    void clear() { entries_.clear(); }
    static constexpr size_t kMaxEntries = 8;   // the oldest is dropped first

private:
    struct Entry {
        PlanKey key;
        MeshPlan plan;
    };
    void keep(Entry e);
    std::vector<Entry> entries_;   // most recently used last
    std::string dir_;
};

}  // namespace wl::model
