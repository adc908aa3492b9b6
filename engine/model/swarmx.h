// swarmx.h: data parallelism over N emulated wafers, as Cerebras' SwarmX does it: "broadcasts
// weights (from MemoryX to the cluster) and reduces (sums) gradients (in the other direction)"
// (docs.cerebras.net, "How Cerebras works").
//
// N wafers (1..kMaxWafers), each a MeshTrainer on its own Machine with the same plan and the same
// starting weights. A step on B sequences (B a multiple of N):
//   1. wafer k takes sequences k*B/N .. (k+1)*B/N - 1 through forward and backward, its loss
//      weighted by the whole batch (1/(B*T), MeshTrainer::backward's loss_rows), so the wafers'
//      gradient sums add up to the whole batch's;
//   2. SwarmX reduces: the wafers' gradients summed in a fixed order (wafer 0, 1, ...), and the
//      sum broadcast back into every wafer's gradient arrays;
//   3. every wafer runs the norm, the clipping and AdamW on its own PEs: the same inputs, so the
//      same weights on every wafer (step() checks it, bit for bit, and fails if not).
// Streamed, one store serves every wafer (memoryx.h), as one MemoryX serves a cluster: in 1 each
// wafer's gradient streams add into the store's sums as they come, wafer after wafer; 2 sums
// only what the wafers hold themselves (the final layer norm's); in 3 AdamW on the store's part
// runs once, in the store, and every wafer takes the new weights from it.
// The step's loss is the shards' loss sums (crossentropy.wk's lsum) added in wafer order, over B*T:
// the reference's one fp32 sum, except that each shard's sum starts from zero (docs/weight-streaming.md).
//
// Time: each wafer's emulated cycles as MeshTrainer counts them; the step's compute is the slowest
// wafer's (they run in parallel on real hardware). SwarmX's reduce and broadcast are modelled, not
// emulated: the gradient's bytes over links of a stated bandwidth (SwarmXLinks), up and down a tree
// of depth ceil(log2 N); the step's total is compute + SwarmX (no overlap modelled).
//
//   SwarmX sx(plan, model, 2);                        // two wafers, the same weights
//   SwarmXStep s;
//   if (!sx.step(inputs, targets, B, T, lr, &s)) report(sx.error());
//   sx.wafer(0).read_params(&model.params_memory);    // every wafer holds the same
//
// The step in slices, for the app's Train (a frame between them): begin_step checks the batch and
// queues nothing yet; each run_slice unit is one unit of the step in the order step() runs them:
// wafer 0's shard a MeshTrainer unit (one op launch) at a time, then wafer 1's ..., the reduction
// (one unit), each wafer's update a unit at a time, the check (one unit). step() is begin_step and
// run_slice to the end: the same bits however it is sliced (tests/unit/model_swarmx_slice_test.cpp).
//   sx.begin_step(inputs, targets, B, T, lr);
//   while (sx.stepping()) { sx.run_slice(1); redraw(sx.next_work()); }   // sx.last_step(): the result
//
// Over several processes (waferlab-cli train under mpirun, docs/scale.md), each process runs one
// wafer, its rank's: the same step, with what a stage needs of the other wafers (their shards' loss
// sums, their gradients, their norms, their weights) gathered from every rank in wafer order, so
// the sums are added in the same order and the step is the same bits as in one process.
#pragma once
#include "engine/core/ranks.h"
#include "engine/model/mesh_trainer.h"

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace wl::model {

// The links between the wafers and SwarmX, the one place for their parameters. cs_links(): each
// wafer's link is one CS system's I/O, "1.2 Tbps I/O to and from the chip" (Argonne ALCF SC24
// tutorial, Cerebras section), 150 GB/s each way (wse2_facts().io_bytes_per_s), timed at the clock
// the rest of the product converts cycles at (kClockHz; engine/fabric/wafer.h).
struct SwarmXLinks {
    double bytes_per_s = 0;   // one wafer's link, each way
    double clock_hz = 0;      // the emulated cycles' clock
    int depth(int wafers) const;   // levels of the tree: ceil(log2 wafers), 0 for one wafer
    // Cycles to move `bytes` from every wafer up the tree (a reduce), or to every wafer down it (a
    // broadcast): each level a link's full transfer, level after level (store and forward).
    uint64_t cycles(uint64_t bytes, int wafers) const;
};
SwarmXLinks cs_links();

struct SwarmXShard {               // one wafer's part of a step
    float loss = 0;                // its shard's loss sum over the whole batch's B*T: its share of the step's mean loss
    uint64_t cycles = 0;           // its emulated cycles: the shard's forward and backward, the norm, AdamW
    uint64_t stream_bytes = 0;     // streaming: its weights in and gradients out
    uint64_t stream_cycles = 0;    // ... and their cycles (in cycles)
};

struct SwarmXStep {
    float loss = 0;                // the whole batch's mean (see the header comment)
    float grad_norm = 0;           // before clipping; every wafer computes the same
    int wafers = 1;
    uint64_t compute_cycles = 0;   // the slowest wafer's: forward, backward, norm, AdamW
    uint64_t swarmx_bytes = 0;     // over the wafers' links: each wafer's gradient up, the sum back down (0 for one wafer)
    uint64_t swarmx_cycles = 0;    // the reduce and the broadcast (SwarmXLinks::cycles)
    uint64_t cycles = 0;           // the step's: compute + SwarmX
    uint64_t instructions = 0;     // every wafer's
    uint64_t host_bytes = 0;       // every wafer's (TrainStep::host_bytes)
    uint64_t stream_bytes = 0;     // streaming: every wafer's weights in and gradients out (TrainStep::stream_bytes)
    uint64_t stream_cycles = 0;    // ... the slowest wafer's cycles for them (in compute_cycles)
    double seconds = 0;            // host wall time: every wafer, one after another, and the reduction
    // False when the loss is NaN or infinite: nothing after the shards ran, every wafer holds the
    // weights from before the step (MeshTrainer::find_nonfinite can look for where it came from).
    bool applied = true;
    std::vector<SwarmXShard> shards;   // by wafer
};
// One training step as `waferlab-cli train --on-mesh --json` prints it and train_state().last
// carries it: {loss, grad_norm, cycles, wafer_s (at kClockHz), step_s, instructions, host_bytes,
// compute_cycles, stream_bytes, stream_cycles, swarmx_bytes, swarmx_cycles, wafers, applied, shards:
// [{loss, cycles, stream_bytes, stream_cycles}]}.
nlohmann::json to_json(const SwarmXStep& s);

// Where a sliced step is: a wafer's shard (forward and backward), the reduce and broadcast, a
// wafer's update (norm, clipping, AdamW), or the check that every wafer holds the same weights.
enum class SwarmXStage : uint8_t { Idle, Shard, Reduce, Update, Check };
const char* swarmx_stage_name(SwarmXStage s);   // "idle", "shard", "reduce", "update", "check"

struct SwarmXWork {                // the next unit of a sliced step, for a progress display
    SwarmXStage stage = SwarmXStage::Idle;
    int wafer = -1;                // the wafer it runs on (Shard, Update); -1: all of them
    const TrainWork* work = nullptr;   // that wafer's next launch; nullptr before its part is queued, or Reduce / Check
};

// A step's next unit in words: SwarmX's between the wafers, or wafer k's launch ("wafer 2 of 2: "
// with several). Brief: work_text's brief, and "" for the unit that queues a wafer's part.
std::string step_unit_text(const SwarmXWork& sw, int wafers, bool brief = false);

class SwarmX {
public:
    // Each wafer in this process is a whole Machine; four shows data parallelism's 2- and 4-way cases and keeps memory in check.
    static constexpr int kMaxWafers = 4;
    // plan.train must be true; model's config the plan's. Throws std::invalid_argument outside 1..kMaxWafers.
    // ranks: one wafer a rank (ranks->ranks() == wafers): this process runs wafer ranks->rank() alone.
    // Resident plans only: a streamed plan's wafers share one store, in one process.
    SwarmX(const MeshPlan& plan, const wl::gpt::GPT& model, int wafers, wl::RunMode mode = wl::RunMode::Fast,
           const SwarmXLinks& links = cs_links(), Ranks* ranks = nullptr);
    // Wafers already made and loaded (the app loads each in steps, MeshTrainer's InSteps): the same
    // plan and starting weights on each, as the caller made them; streamed, every wafer after the
    // first shares its store (MeshTrainer::share_store). Throws as above, or if one is not loaded() or
    // a streamed one has a store of its own.
    explicit SwarmX(std::vector<std::unique_ptr<MeshTrainer>> wafers, const SwarmXLinks& links = cs_links());

    // One data-parallel optimiser step on B sequences (B, T) at learning rate lr. False (error())
    // when B is not a multiple of the wafers (nothing runs then), on a fault, or if the wafers'
    // weights come out different.
    bool step(const int* inputs, const int* targets, int B, int T, double lr, SwarmXStep* out);

    // The sliced step (header comment). begin_step: false (error()) on a batch that does not split,
    // or while a step is in progress; nothing has run then. run_slice: false on a fault, or weights
    // that differ (error()); the rest of the step is dropped, the weights may be half updated.
    bool begin_step(const int* inputs, const int* targets, int B, int T, double lr);
    bool run_slice(int units = 1);
    bool stepping() const { return stage_ != SwarmXStage::Idle; }
    SwarmXWork next_work() const;
    // 0..1 of the step in progress: its units over the last step's (the same batch shape gives the
    // same units); the first step, by parts (each wafer's shard and update, the reduction, the check).
    double progress() const;
    const SwarmXStep& last_step() const { return last_; }   // the last step that finished

    // Why a batch of B sequences does not split over `wafers` (B a multiple of it, at least one
    // each), naming B and N; empty when it does. step() refuses such a batch with it.
    static std::string split_error(int B, int wafers);

    int wafers() const { return ranks_ ? ranks_->ranks() : int(wafers_.size()); }
    int first_wafer() const { return first_; }   // the first this process runs (its rank's, over ranks; else 0)
    MeshTrainer& wafer(int i) { return *wafers_.at(size_t(i - first_)); }   // one this process runs
    const MeshTrainer& wafer(int i) const { return *wafers_.at(size_t(i - first_)); }
    const SwarmXLinks& links() const { return links_; }
    const std::string& error() const { return error_; }
    // Per-parameter state into every wafer (resuming: AdamW's moments), and AdamW's step count.
    void write_all(MeshTrainer::State state, std::vector<float>* buf);
    void set_updates(int64_t t);
    // What the reduction moves of one wafer's gradient: the part the wafer holds, fp32 (resident,
    // every parameter's; streamed, the store's part went out with the wafer's gradient streams,
    // which SwarmX sums on their way to MemoryX, in their bytes and cycles already).
    uint64_t gradient_bytes() const;

private:
    void check_links() const;
    bool unit();                   // the next unit of the sliced step; false on a failure (error_)
    // One blob per wafer, in wafer order: `here`, this process's wafers' own, with every other rank's.
    std::vector<std::string> every_wafer(std::vector<std::string> here) const;
    bool fail(int wafer, const std::string& why);   // error_, and the step dropped

    std::vector<std::unique_ptr<MeshTrainer>> wafers_;   // the ones this process runs: wafers first_, first_ + 1, ...
    Ranks* ranks_ = nullptr;
    int first_ = 0;
    SwarmXLinks links_;
    std::string error_;
    // The sliced step: where it is, and what its units share.
    SwarmXStage stage_ = SwarmXStage::Idle;
    int k_ = 0;                    // the wafer of the current Shard or Update, in wafers_
    bool queued_ = false;          // wafer k_'s part is queued on it
    std::vector<int> inputs_, targets_;
    int B_ = 0, T_ = 0;
    double lr_ = 0;
    float lsum_ = 0;
    std::vector<std::string> here_;   // this process's wafers' parts of the stage, for every_wafer
    size_t units_ = 0, last_units_ = 0;   // units this step has run; the last step's (0: none yet)
    SwarmXStep cur_, last_;
};

}  // namespace wl::model
