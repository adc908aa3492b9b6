// density_sweep.h: emulated cycles and wavelets against weight density, for one
// matmul, the whole forward, one generation step and one training step, beside the dense plan
// and the ideal (density x dense). What `waferlab-cli bench sparsity` prints and plots and the
// app's Model window shows ("Density"): both run this.
//
// The points: the dense plan (SPARSE = 0) on the model's weights, then at each of
// sweep_densities() the same weights pruned (prune_linear_weights, the mask fixed) and planned
// SPARSE = 1 (sparsity.h). At each point: the forward over `tokens` (T of them), checked against
// the reference on the same weights as floats; one generation step (the last token from the KV
// cache of the ones before it: the gemv path); and, when a batch is given, one training step on
// it with a training plan (whose sparse layout may not fit: DensityPoint::train_error).
// Emulated figures, not timings: the same on any host.
//
// In units, for a UI that must draw between them (a plan step, a load step, a forward, an op
// launch of the training step); the same figures however it is stepped.
//
//   DensitySweepSettings s;  s.mesh_w = s.mesh_h = 32;  s.tokens = bench_tokens(T, V);
//   bench_batch(B, T, V, &s.inputs, &s.targets);  s.B = B, s.T = T;
//   DensitySweep sweep(model, read_kernels("models/kernels"), s);
//   while (sweep.step()) show(sweep.activity(), sweep.progress());
//   for (const DensityPoint& p : sweep.points()) ...   // points()[0] is the dense plan
#pragma once
#include "engine/gpt/gpt.h"
#include "engine/model/mesh_build.h"
#include "engine/model/mesh_gpt.h"
#include "engine/model/mesh_plan.h"
#include "engine/model/mesh_trainer.h"
#include "engine/model/sparsity.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wl::model {

const std::vector<double>& sweep_densities();   // 1, 0.5, 0.25, 0.1: the sparse points, in order

// A matmul whose row is prunable (its w one of pruned_parameters()): the launches a density changes.
bool pruned_matmul(const PlannedOp& op);

struct RunFigures {                // emulated, summed over some launches
    uint64_t cycles = 0;
    uint64_t wavelets = 0;         // sent by the CEs (OpRun::wavelets)
};

struct DensityPoint {
    bool sparse = false;           // false: the dense plan
    double density = 1;            // of the pruned matrices (PruneStats::density); 1 for the dense plan
    // The forward over the sweep's tokens.
    RunFigures op;                 // the settings' matmul (DensitySweepSettings::op)
    RunFigures matmuls;            // the pruned matmuls' forwards together
    RunFigures forward;            // every launch
    RunFigures generation;         // one generation step
    uint32_t op_weight_bytes = 0;  // the settings' matmul's weights on its most loaded PE
    int logits_differ = 0;         // against the reference on the same weights (as floats)
    bool measured = false;         // the forward and the generation step ran
    // The training step (when the settings give a batch).
    RunFigures train_step;         // every launch of the step: forward, backward, norm, AdamW
    RunFigures train_matmuls;      // the pruned matmuls' launches in it (forward, backward, transpose_w, zero_grad, AdamW)
    bool trained = false;          // the step ran
    std::string train_error;       // the planner's: the training plan does not fit (the step did not run)
};

// Ideal cycles at a point: density x the dense plan's.
inline double ideal_cycles(const DensityPoint& p, const RunFigures& dense) { return p.density * double(dense.cycles); }

struct DensitySweepSettings {
    int mesh_w = 32, mesh_h = 32;
    std::string op = "l0.fch";     // the one matmul measured on its own
    MaskKind mask = MaskKind::Magnitude;
    uint64_t seed = 0;             // the masks' (prune_linear_weights)
    wl::RunMode mode = wl::RunMode::Fast;
    std::vector<int> tokens;       // the forward's, 2 <= T <= block_size
    // The training step: B sequences of T tokens and their targets, at learning rate lr. B = 0: none.
    std::vector<int> inputs, targets;
    int B = 0, T = 0;
    double lr = 0;
};

class DensitySweep {
public:
    // model: the weights every point starts from (copied now; its mask, if any, is dropped).
    // Throws std::invalid_argument on settings that cannot run (no tokens, a batch of the wrong size).
    DensitySweep(const wl::gpt::GPT& model, KernelSource kernels, DensitySweepSettings s);
    ~DensitySweep();
    bool step();                   // one unit; false once done() or failed (error())
    bool done() const { return point_ >= total_points(); }
    // What stopped the sweep: a forward plan that does not fit (the planner's error), a fault, or
    // settings.op is not a matmul of the model. The points before it stay.
    const std::string& error() const { return error_; }
    std::string activity() const;  // "density 0.50: training step, forward l0.fch, sequence 3 of 8"
    double progress() const;       // 0..1 over the whole sweep
    const std::vector<DensityPoint>& points() const { return points_; }   // [0]: dense; then one per density begun
    int total_points() const { return 1 + int(sweep_densities().size()); }
    const DensitySweepSettings& settings() const { return s_; }

private:
    enum class Stage { Prune, PlanForward, Forward, Generate, PlanTrain, Train };
    void fail(const std::string& why);
    DensityPoint& cur() { return points_.back(); }

    DensitySweepSettings s_;
    KernelSource kernels_;
    std::vector<float> initial_;
    std::unique_ptr<wl::gpt::GPT> model_;   // pruned at each point
    Stage stage_ = Stage::Prune;
    int point_ = 0;
    std::vector<DensityPoint> points_;
    std::unique_ptr<MeshBuild> build_;
    std::unique_ptr<MeshGPT> mesh_;
    std::unique_ptr<MeshTrainer> trainer_;
    int gen_unit_ = 0;
    std::string error_;
};

}  // namespace wl::model
