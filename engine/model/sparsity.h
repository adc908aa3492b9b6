// sparsity.h: unstructured weight sparsity on the mesh: inference, and training with the mask fixed.
//
// Host side: prune_mask() picks which weights of one matrix stay (the largest |w|, or a seeded
// random choice), at density 1 - S; prune_linear_weights() zeroes the rest in every block's four
// linear layers (qkvw, attprojw, fcw, fcprojw: a mask per matrix per layer; the logits keep wte
// dense, as it is also the embedding) and records the mask in the model (gpt::GPT::mask): training
// holds it fixed, the reference's by zeroing those gradients, the mesh's by keeping only the
// non-zeros' gradients and moments (matmul.wk, SPARSE = 1 with TRAIN = 1).
// Planner side: sparse_nonzeros() tells PlanBuilder how many non-zeros each matmul's fullest PE
// holds (its kernel's NZ), and sparse_rows() is what PE p of a SPARSE = 1 matmul keeps in place
// of its dense w (models/kernels/matmul.wk, "Sparsity"; docs/model-compiler.md, "Sparsity").
// Deterministic everywhere: magnitude ties go to the lower index, random masks use gpt::Rng.
//
//   PruneStats s = prune_linear_weights(model, 0.75, MaskKind::Magnitude, cfg.seed);
//   PlanBuilder b(cfg, 32, 32, read_kernels("models/kernels"));
//   b.set_sparse(sparse_nonzeros(model));      // SPARSE = 1 on the pruned matmuls
//   MeshGPT mesh(b.take().plan, model);        // loads wv, wk, wr (sparse_rows) for them
#pragma once
#include "engine/gpt/gpt.h"
#include "engine/model/mesh_plan.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace wl::model {

enum class MaskKind : uint8_t { Magnitude, Random };
bool mask_kind_from_name(const std::string& name, MaskKind* kind);   // "magnitude", "random"
const char* mask_kind_name(MaskKind kind);

// keep[i] = 1 for the weights of w[0..n) that stay: round(density * n) of them, 0 <= density <= 1.
// Magnitude: the largest |w| (ties: the lower index). Random: a uniform choice from Rng(seed).
std::vector<uint8_t> prune_mask(const float* w, size_t n, double density, MaskKind kind, uint64_t seed);

// The weight matrices prune_linear_weights() prunes (GPT parameter names).
const std::vector<std::string>& pruned_parameters();

struct PruneStats {
    size_t weights = 0;   // in the pruned matrices
    size_t kept = 0;      // of them, left as they were (the rest are now 0)
    double density() const { return weights ? double(kept) / double(weights) : 1; }
};

// Zeroes a fraction `sparsity` (0..0.95) of every pruned matrix, each layer's on its own, with a
// seed per (seed, layer, matrix), and sets model.mask (1 everywhere else). Throws
// std::invalid_argument outside 0..0.95.
PruneStats prune_linear_weights(wl::gpt::GPT& model, double sparsity, MaskKind kind, uint64_t seed);
constexpr double kMaxSparsity = 0.95;

// What PE p of a SPARSE = 1 matmul holds instead of w: its rows' non-zeros as CSR, row by row,
// k ascending; wr[j] is where row j's end (it starts where row j-1's end, row 0 at 0). The
// non-zeros are the weights model.mask keeps, or without a mask those that are not 0.
struct SparseRows {
    std::vector<float> wv;       // values
    std::vector<uint32_t> wk;    // their input channel k
    std::vector<uint32_t> wr;    // NC row ends
};
// Their symbols in matmul.wk (the planner counts them as the op's weights).
inline constexpr const char* kSparseValues = "wv";
inline constexpr const char* kSparseIndices = "wk";
inline constexpr const char* kSparseRowEnds = "wr";
// A matmul planned SPARSE = 1 (PlanBuilder::set_sparse): its w is these three arrays.
inline bool sparse_matmul(const PlannedOp& op) {
    const auto it = op.constants.find("SPARSE");
    return it != op.constants.end() && it->second == 1;
}
// op: a matmul.wk op (its P, K, NC); params: the model's params_memory.
SparseRows sparse_rows(const PlannedOp& op, int p, const wl::gpt::GPT& model);
// The same from weights and a mask held elsewhere (streaming: the store's; mask empty: the non-zeros).
SparseRows sparse_rows(const PlannedOp& op, int p, const wl::gpt::GPTConfig& cfg, const float* params,
                       const std::vector<uint8_t>& mask);

// Training (TRAIN = 1): dx on PE p needs W's columns p*KP .. p*KP+KP-1 of every row j of the op
// (OC rows, all PEs'). transpose_w() gathers their non-zeros from each PE's wv in turn; where they
// come from is fixed by the mask, so the host loads it once: entry i (row j ascending, then kk)
// is wv[wts[i]] of PE j / NC, for input row kk = wtk[i] of the PE; wtr[j] is where row j's end.
struct SparseColumns {
    std::vector<uint32_t> wtk;   // the PE's input row kk (0..KP-1)
    std::vector<uint32_t> wts;   // where in the sending PE's wv
    std::vector<uint32_t> wtr;   // OC row ends
};
inline constexpr const char* kSparseColKeys = "wtk";
inline constexpr const char* kSparseColSources = "wts";
inline constexpr const char* kSparseColRowEnds = "wtr";
SparseColumns sparse_columns(const PlannedOp& op, int p, const wl::gpt::GPT& model);

// For PlanBuilder::set_sparse: a matmul whose w is one of pruned_parameters() gets its fullest
// PE's non-zero counts (in the model's weights at the op's cut; NZ and, training, NZT); any other
// op rows = -1 (dense).
using SparseCounts = PlanBuilder::SparseCounts;
std::function<SparseCounts(const PlannedOp&)> sparse_nonzeros(const wl::gpt::GPT& model);

}  // namespace wl::model
