// plan_cache.h: compile once, run many. The model compiler's executable (a MeshPlan: the
// placement, the memory plan and every compiled kernel) is kept, keyed by what it depends
// on: the model's shape (model.*), the mesh, the SRAM per PE, whether it is planned for
// training, and the source of every kernel it compiled. A second compile with the same key
// is a lookup; a changed key recompiles and says what changed, as XLA's recompilation does.
//
// What is not part of the key: the optimiser's settings, the seed, the data, and the batch
// size. The mesh takes a batch's sequences one at a time through the same executable
// (mesh_trainer.h), so on this machine a batch change needs no recompile; the context
// length (model.block_size) does.
//
//   PlanCache cache;
//   CompileInfo info;
//   PlanResult r = cache.plan(cfg, 32, 32, read_kernels("models/kernels"), sram, train, false, &info);
//   // info.cached, info.seconds, info.reason ("model.block_size 64 -> 128"), info.key
//
// One cache per owner (the app's Model window, its Train section); in memory only: the
// CLI compiles once per process and does not keep executables on disk.
#pragma once
#include "engine/model/mesh_plan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wl::model {

struct CompileInfo {
    bool cached = false;   // the executable came from the cache: nothing was compiled
    double seconds = 0;    // the compile's wall time, or the lookup's when cached
    std::string reason;    // why it compiled: "first compile", "--no-cache", "model.block_size 64 -> 128, ..."
    uint64_t key = 0;      // the executable's key (FNV-1a of the shape, the mesh and the kernels)
    // "compiled: cached (0.4 ms)" or "compiled in 85 ms (model.block_size 64 -> 128)": the CLI's and the app's line.
    std::string summary() const;
};

class PlanCache {
public:
    // plan_model() through the cache. no_cache: compile even on a hit (and replace the entry).
    // A failed plan is not cached. The returned plan's cfg is always the caller's (its other
    // settings, such as AdamW's, may differ from the cached entry's).
    PlanResult plan(const wl::gpt::GPTConfig& cfg, int mesh_w, int mesh_h, const KernelSource& kernels,
                    uint32_t sram_bytes, bool train, bool no_cache, CompileInfo* info);
    size_t size() const { return entries_.size(); }
    void clear() { entries_.clear(); }
    static constexpr size_t kMaxEntries = 8;   // the oldest is dropped first
    class SourceHashes;   // the kernels' sources, each read and hashed once per plan()

private:
    struct Shape {
        int n_layer = 0, n_head = 0, n_embd = 0, block_size = 0, vocab_size = 0;
        int mesh_w = 0, mesh_h = 0;
        uint32_t sram_bytes = 0;
        bool train = false;
        bool operator==(const Shape&) const = default;
    };
    struct Entry {
        Shape shape;
        std::vector<std::pair<std::string, uint64_t>> kernels;   // each kernel file it compiled, its source's hash
        uint64_t key = 0;
        MeshPlan plan;
    };
    static std::string what_changed(const Entry& last, const Shape& now, SourceHashes& hashes);
    std::vector<Entry> entries_;   // most recently used last
};

}  // namespace wl::model
