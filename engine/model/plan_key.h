// plan_key.h: what a compiled model executable (a MeshPlan) depends on, so that a cache can
// tell when it may reuse one and say why it may not: the model's shape (model.*), the mesh,
// the SRAM per PE, inference or training, resident or streaming (the PlanShape), and the source of every kernel file
// the plan compiled (their hashes). The key is FNV-1a over all of it.
//
// Not in the key: the optimiser's settings, the seed, the data and the batch size. The mesh
// takes a batch's sequences one at a time through the same executable (mesh_trainer.h), so a
// batch change needs no recompile; the context length (model.block_size) does. The build of
// the compiler that made it is checked apart from the key, by the files that keep executables
// (plan_file.h), since within one process it never changes.
#pragma once
#include "engine/gpt/gpt_config.h"
#include "engine/model/mesh_plan.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace wl::model {

struct PlanShape {
    int n_layer = 0, n_head = 0, n_embd = 0, block_size = 0, vocab_size = 0;
    int mesh_w = 0, mesh_h = 0;
    uint32_t sram_bytes = 0;
    bool train = false;
    bool streaming = false;   // wafer.execution: streaming (one layer's ops serve every layer)
    int sequences = 1;        // a training plan's wafer.sequences_in_flight: its time pitch is that many block_sizes
    static PlanShape of(const wl::gpt::GPTConfig& cfg, int mesh_w, int mesh_h, uint32_t sram_bytes, bool train);
    bool operator==(const PlanShape&) const = default;
    uint64_t hash() const;   // FNV-1a of the fields: names the shape's file in a cache folder
};

// Each kernel source's hash now: read and hashed once however many keys ask.
class SourceHashes {
public:
    explicit SourceHashes(const KernelSource& kernels) : kernels_(kernels) {}
    explicit SourceHashes(KernelSource&&) = delete;   // it keeps a reference: not to a temporary
    uint64_t operator()(const std::string& file);

private:
    const KernelSource& kernels_;
    std::map<std::string, uint64_t> seen_;
};

struct PlanKey {
    PlanShape shape;
    std::vector<std::pair<std::string, uint64_t>> kernels;   // each kernel file it compiled, its source's hash, sorted
    uint64_t value() const;                                  // FNV-1a of the shape and the kernels

    static PlanKey of(const PlanShape& shape, const MeshPlan& plan, SourceHashes& hashes);
    bool kernels_unchanged(SourceHashes& now) const;
    // What differs between this key and a plan of `now`'s shape with today's sources:
    // "model.block_size 64 -> 128, gelu.wk edited"; "" when nothing does.
    std::string what_changed(const PlanShape& now, SourceHashes& hashes) const;
};

}  // namespace wl::model
