// mesh_trainer.h: training the GPT on the emulated mesh. A MeshPlan planned
// with train = true puts every op's backward and AdamW on the PEs that run its
// forward: the weights, their gradients, AdamW's m and v and the activations
// kept for backward all stay in those PEs' SRAM (models/kernels/*.wk, TRAIN = 1).
//
// One step on B sequences: for each sequence, the forward (MeshGPT's), the
// loss and its gradient (crossentropy.wk: -log p[target] with the PE's flog,
// summed along its row in the reference's order) and the backward ops in
// reverse order; each op adds its weight gradients into running sums on its
// PEs, so B sequences give the reference's sums over B*T rows. Then the tied
// wte's gradient (the logits' part, streamed row by row over the fabric to the
// embedding's PEs, first, then the embedding's, as engine/gpt: each sequence's
// dy waited for it in a stash in the embedding's SRAM, keep_dy),
// the global norm (a sum of squares over the fabric; at its end the square root
// and the clipping coefficient, which goes back over the fabric to every PE
// that holds a weight), AdamW on those PEs, and the updated wte streamed from
// the embedding's PEs to the logits' (route_tie, route_stream).
//
// Pipelined (wafer.schedule: pipelined; mesh_train_pipeline.cpp): a sequence's forward, loss and
// backward are one pipeline over chunks of its time steps, the same launches' work column by
// column, so the same bits in fewer cycles; the embedding's part and the update run as above.
//
// Streaming execution (MeshPlan::streaming; docs/weight-streaming.md, "Training"): the plan's one
// layer of ops serves every layer. A step streams each layer's weights in before its ops, a layer
// at a time over the batch; the backward takes the layers in reverse, each (but the last, still on
// the PEs) streamed in again and each sequence's activations brought back (recomputed), then its
// backward, and its gradients streamed out over the same edge links (MeshGPT::stream_out) into the
// store, once a step (queue_streamed_batch). The update: the wafer's sum of squares plus the store's
// make the norm; AdamW runs on the PEs for the resident ops and in the store (adamw_update) for the
// layers. ops_ lists every layer's instances (layer_instance), so links and names resolve per layer.
//
// Gradient accumulation (optimizer.grad_accum_steps N): a step on N micro-batches of B
// sequences is step() on their N*B sequences (gpt::Trainer::step_batches lays them out). The PEs
// already take a step's sequences one at a time and add their weight gradients into the sums in
// SRAM, and crossentropy.wk weighs each row 1/bt with bt = N*B*T: so nothing on the mesh grows
// with N, and the update is the reference's for N accumulated micro-batches (to the order of
// the sums: tests/unit/gpt_grad_accum_test.cpp).
//
// What the host does (docs/model-compiler.md, "Training"): moves the activations
// and gradients that have no link between ops (the planned links carry the rest as
// wavelets: a gradient goes back up its activation's columns where both backwards
// move it whole, and the residual stream's gradient from the layernorm that computes it
// to its two readers, Transfer::grad_colour; TrainStep::host_bytes counts the rest), feeds the
// tokens and targets, writes each step's AdamW hyperparameters (the learning
// rate and its schedule, the bias corrections, grad_clip), reads the loss and
// the norm back out of SRAM, and sets routes: once for the norm's chains and
// the tie's relays, and before each of the tie's two streams a step, the way
// colour 5 runs (embedding to logits, or back).
//
//   auto r = plan_model(cfg, 32, 32, read_kernels("models/kernels"), sram, /*train=*/true);
//   MeshTrainer tr(r.plan, model);                       // weights from a gpt::GPT
//   TrainStep s;
//   if (!tr.step(inputs, targets, B, T, lr, &s)) report(tr.error());
//   tr.read_params(&model.params_memory);                // the trained weights back
//
// A step in slices, for a UI that must draw between them (a gpt-nano step is about
// 0.8 s natively): begin_step() queues the step's units of work, one op launch each
// (the same launches, in the same order, as step()); run_slice(n) runs the next n.
// Same bits however it is sliced (tests/unit/model_mesh_train_slice_test.cpp).
//   tr.begin_step(inputs, targets, B, T, lr);
//   while (tr.stepping()) { tr.run_slice(1); redraw(tr.next_work()); }   // tr.last_step(): the result
//
// Evaluation and sampling run on the same PEs, with the training plan's kernels: only the data
// loader (and the sampler's draw from the logits, as `generate --on-mesh`) stays on the host.
// - eval_loss: a batch's mean loss by the forward and the loss's op alone (crossentropy.wk's main:
//   its loss sum is zeroed first and read out of SRAM at the end). No backward runs and no gradient
//   sum is touched; the dlogits it leaves in the loss's SRAM are overwritten by the next step's loss
//   before that step's backward reads them. Its loss is gpt::GPT::forward's mean_loss, bit for bit.
// - sample: gpt::generate's loop with the mesh's logits: the prompt's forward, then one time step
//   at a time from the KV cache (the attention's PEs keep every earlier step's keys and values, as
//   MeshGPT::extend), the last block_size tokens again once the context is full.
// Both come as units too (begin_eval, begin_sample; then run_slice while busy()), one op launch
// each, the same bits however they are sliced.
#pragma once
#include "engine/gpt/adamw.h"
#include "engine/gpt/rng.h"
#include "engine/gpt/sampler.h"
#include "engine/model/mesh_gpt.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace wl::model {

// The AdamW hyperparameters a step writes into every kernel's hp array, by index.
enum AdamHp : int {
    kHpBeta1,         // b1
    kHpOneMinusBeta1, // 1 - b1 (fp32, as the reference)
    kHpBeta2,
    kHpOneMinusBeta2,
    kHpEps,
    kHpStepSize,      // lr / (1 - b1^t)
    kHpBc2Sqrt,       // sqrt(1 - b2^t)
    kHpDecay,         // 1 - lr * weight_decay (1 when off: the multiply is then exact)
    kHpClip,          // the clipping coefficient, 1 when the norm is under grad_clip: grad_norm() computes it
    kHpGradClip,      // grad_clip, the largest norm (-1: no clipping)
    kHpCount
};

struct TrainStep {
    float loss = 0;               // mean over B*T, the reference's sum order
    float grad_norm = 0;          // before clipping
    uint64_t cycles = 0;          // emulated, every launch of the step
    uint64_t instructions = 0;
    double seconds = 0;           // host wall time
    uint64_t host_bytes = 0;      // activation and gradient bytes the host copied between ops (tokens, targets not counted)
    uint64_t stream_bytes = 0;    // streaming: weight bytes in and gradient bytes out over the edge links
    uint64_t stream_cycles = 0;   // ... and the cycles those streams took (in cycles)
};

enum class TrainPhase : uint8_t { Forward, Backward, Optimiser };
const char* train_phase_name(TrainPhase p);   // "forward", "backward", "optimiser"

// What the queued units make: an optimiser step, one evaluation batch's loss, or sampled tokens.
enum class MeshJob : uint8_t { Step, Eval, Sample };
const char* mesh_job_name(MeshJob j);         // "step", "evaluation", "sampling"

struct TrainWork {                // one unit of a job: what it runs, for a progress display
    TrainPhase phase = TrainPhase::Forward;
    std::string op;               // the plan's op name ("l0.qkv"), or "grad_norm"
    int sequence = -1;            // 0..B-1 in the forward/backward of one sequence; -1: the whole batch
    int token = -1;               // sampling: 0..n-1, the new token this forward makes
    // Streaming: a unit that moves or recomputes layer `layer` as a whole says what it does:
    // "weights in", "weights in again" (backward), "activations back" (backward), "gradients out".
    int layer = -1;
    const char* streaming = nullptr;
    // Pipelined (pipeline.h): the chunk of op's launch, the one that has run longest of those working
    // when the unit starts (MeshGPT::in_flight); the unit runs the pipeline until one more launch
    // has finished. -1: the whole window, op alone.
    int chunk = -1;
};

// What a unit does, in words: "forward l0.qkv" ("forward l0.qkv, chunk 3" pipelined), or for a streamed
// layer's unit "l1 backward, gradients out".
// Brief (a step's units in a row): the phase alone, "forward", or the streamed layer's words alone.
std::string work_text(const TrainWork& w, bool brief = false);

class MeshTrainer {
public:
    // plan.train must be true; model's config must be the plan's. Weights are copied in now.
    MeshTrainer(MeshPlan plan, const wl::gpt::GPT& model, wl::RunMode mode = wl::RunMode::Fast);
    // The same, loaded in steps (the app's Train draws between them): MeshGPT::load_step's, then
    // the norm's and the tie's routes; false once loaded(). The first constructor is this run to
    // its end (the same machine, bit for bit). Every job refuses until loaded().
    MeshTrainer(MeshPlan plan, wl::RunMode mode, MeshGPT::InSteps);
    bool load_step(const wl::gpt::GPT& model);
    bool loaded() const { return routed_; }
    size_t load_done() const { return mesh_.load_done() + routed_; }
    size_t load_total() const { return mesh_.load_total() + 1; }

    // inputs and targets (B, T), 1 <= T <= block_size. One optimiser step at learning rate lr.
    // False (and error()) on a fault or bad input; the weights may then be half updated.
    bool step(const int* inputs, const int* targets, int B, int T, double lr, TrainStep* out);
    // The first half of step(): zeroes the gradients, then forward and backward for the B
    // sequences; gradients stay on the PEs (read_grads). *loss as TrainStep::loss.
    // loss_rows: the rows the loss is the mean over (0: B*T). A data-parallel shard of a larger
    // batch passes the whole batch's B*T, so the shards' gradients add up to the batch's (swarmx.h).
    bool backward(const int* inputs, const int* targets, int B, int T, float* loss, int loss_rows = 0);
    // The second half: global norm, clipping, AdamW on the PEs, the tied wte streamed across.
    bool update(double lr, float* grad_norm);
    // The two halves sliced (SwarmX's sliced step): queued as begin_step queues them, then
    // run_slice while busy(); backward's loss is then last_step().loss. False (error()) as above.
    bool begin_backward(const int* inputs, const int* targets, int B, int T, int loss_rows = 0);
    bool begin_update(double lr);
    // The loss's running sum over the last step's or evaluation's rows, before the division
    // (crossentropy.wk's lsum): what data-parallel shards add up.
    float loss_sum() const;
    // The clipping coefficient the last update() used, as the PE at (x, y) holds it (one that holds weights).
    float clip_at(int x, int y) const;
    // The PE where the global norm's sum ends and the clipping coefficient is computed.
    std::pair<int, int> norm_origin() const { return norm_origin_; }

    // The sliced step (see the header comment). begin_step: false (error()) on bad input or while
    // a job is still queued; nothing has run then. run_slice: false on a fault (error()); the
    // rest of the job is dropped and the weights may be half updated, as with step().
    bool begin_step(const int* inputs, const int* targets, int B, int T, double lr);
    bool run_slice(int units = 1);
    bool busy() const { return next_ < queue_.size(); }            // a job's units are queued
    MeshJob job() const { return job_; }                           // the queued (or last) job
    bool stepping() const { return busy() && job_ == MeshJob::Step; }
    const TrainWork* next_work() const { return busy() ? &queue_[next_].what : nullptr; }
    size_t work_done() const { return next_; }
    size_t work_total() const { return queue_.size(); }
    const TrainStep& last_step() const { return last_; }   // the last step that finished

    // Evaluation (header comment): the mean loss over B sequences (B, T), as gpt::Trainer::eval_loss
    // takes of each batch. False (error()) on bad input, while a job is queued, or on a fault.
    bool eval_loss(const int* inputs, const int* targets, int B, int T, float* loss);
    // Where a loss that is NaN or infinite came from: each sequence's forward again, an op at a time,
    // each op's output looked at (MeshGPT::watch_nonfinite) on the weights the mesh holds now (SwarmX
    // does not apply such a step). *where: "sequence 2 of 4: l3.fch (matmul.wk): NaN at time step 5,
    // row 17, on PE (9,3)", or empty when every op's output is finite. False (error()) on a fault.
    bool find_nonfinite(const int* inputs, const int* targets, int B, int T, std::string* where);
    bool begin_eval(const int* inputs, const int* targets, int B, int T);   // then run_slice while busy()
    float last_eval() const { return last_eval_; }   // the last evaluation that finished
    // Sampling (header comment): n tokens after prompt (not empty), as gpt::generate with opt and the
    // mesh's forward; *out is prompt + n tokens. False (error()) on bad input, a queued job or a fault.
    bool sample(const std::vector<int>& prompt, int n, const wl::gpt::SampleOptions& opt, std::vector<int>* out);
    bool begin_sample(const std::vector<int>& prompt, int n, const wl::gpt::SampleOptions& opt);
    const std::vector<int>& sampled() const { return samp_.tokens; }   // the prompt and the tokens so far

    // The mesh's weights / gradients in gpt::GPT's params_memory layout (num_parameters).
    void read_params(std::vector<float>* out);
    void read_grads(std::vector<float>* out);
    // Any of the per-parameter state, in that layout, out of the PEs or into them (write: buf
    // must hold num_parameters floats). Moments with updates() make a checkpoint's AdamW state.
    enum class State { Params, Grads, Moment1, Moment2 };
    void transfer(State state, std::vector<float>* buf, bool write);
    // Streaming: the store's array of `state`, made whole (the wafer's own part, the final layer
    // norm's, read into it), for a checkpoint written from where it lies: GPT-small's weights and
    // moments are 1.5 GB, never copied (the CLI's train). Valid until the next step or transfer.
    const std::vector<float>& gathered(State state);
    // The state the wafer itself holds, packed in params_memory's order: resident, every parameter
    // (transfer's layout); streaming, those that are not the store's (the final layer norm's). What
    // SwarmX sums and compares between wafers that share one store.
    std::vector<float> read_own(State state);
    void write_own(State state, std::vector<float>& packed);
    size_t own_parameters() const;   // their count
    // Streaming: this wafer uses `first`'s store (MemoryX) instead of one of its own, as SwarmX's
    // wafers share one. Before the first load_step. The first wafer of a step zeroes the store's
    // gradient sums and runs AdamW in it; the others add their gradients and take its weights.
    void share_store(const MeshTrainer& first);
    const MemoryX& store() const { return *mesh_.store_; }
    void set_updates(int64_t t) { t_ = t; }   // AdamW's step count, when resuming
    // The gradient of one activation of the last sequence, (T, rows) as engine/gpt's grads_acts
    // ("l0.ln1", "encoded", "logits" ...); empty when there is none. Read it before an evaluation:
    // the loss's main leaves that evaluation's dlogits in the loss's SRAM.
    std::vector<float> activation_grad(const std::string& tensor, int T) const;

    // Every launch of the last job (a step's since its backward(): forwards, backwards, the norm,
    // AdamW; an evaluation's or a sample's forwards).
    const std::vector<OpRun>& last_run() const { return runs_; }
    const std::string& error() const { return error_; }
    MeshGPT& mesh() { return mesh_; }
    const MeshGPT& mesh() const { return mesh_; }
    int64_t updates() const { return t_; }

private:
    using Tensors = MeshGPT::Tensors;
    struct Unit {
        TrainWork what;
        std::function<bool()> run;   // false: error_ says why
    };
    bool check_idle(const char* what);
    bool check_batch(const char* what, const int* inputs, const int* targets, int B, int T);
    void begin_job(MeshJob job);
    void add(TrainWork what, std::function<bool()> run);   // a unit at the queue's end
    void queue_forward(TrainWork what, int t0, int n, bool read_logits, std::function<void()> before,
                       std::function<bool()> after = nullptr);   // one forward's units (mesh_trainer.cpp)
    void queue_forward(int b, bool read_logits);   // sequence b of cur_'s batch, an op a unit
    void queue_pipeline(TrainWork what, int units, std::function<void()> begin, std::function<bool()> after = nullptr);
    // Streaming, a layer at a time over the batch (mesh_train_queue.cpp): each layer streams in once
    // for the batch's forwards, once for its backwards, and its gradients out once.
    void queue_streamed_batch(const PlannedOp& loss);
    void queue_zero_grad(const PlannedOp& o);   // a step's zero_grad (and transpose_w) for o
    // One op's forward over [t0, t0+n) (fn: main, or matmul's keep_x), its OpRuns kept.
    bool forward_op(const PlannedOp& o, int t0, int n, bool read_out, const char* fn = gpt::entry::kMain);
    // What a recomputation of layer l launches for its backward: each op's entry, in order.
    std::vector<std::pair<const PlannedOp*, const char*>> recomputed(int l) const;
    struct Sequence {              // a sequence's host state while another's is in mesh_ and grads_
        Tensors acts, grads;
        std::vector<int> tokens;
    };
    std::vector<Sequence> seqs_;
    std::function<bool()> in_sequence(int b, std::function<bool()> f);   // f with sequence b's state in place
    void queue_backward();           // from cur_'s batch: zero_grad, B forwards and backwards, the tied wte, the loss
    void queue_eval();               // from cur_'s batch: zero_loss, then B forwards and losses
    void queue_sample(int n);        // n tokens after samp_.tokens: a forward each
    void queue_update();             // the norm, AdamW on every weight-holding op, the tie
    bool run_all();
    bool launch(const PlannedOp& op, const char* fn, int t0, int n);
    // keep_grad false: the loss only (an evaluation), the host reads no dlogits.
    // bt: the rows the loss is the mean over.
    bool loss_grad(const PlannedOp& op, const int* targets, int bt, int T, bool keep_grad = true);
    const PlannedOp& loss_op() const;
    // The loss's tgt[t0 .. t0+n) and bt, every PE.
    void write_targets(const PlannedOp& loss, const int* targets, int bt, int n, int t0 = 0);
    std::string loss_nonfinite(const int* targets, int T) const;   // find_nonfinite's look at the loss's own terms
    bool backward_op(const PlannedOp& op, int T);
    // Its parts: the links that bring op's gradients (their senders, launched with it), the
    // gradients the host puts in first (from grads_), and those it gets out after, over [t0, t0+n).
    std::vector<std::pair<const PlannedOp*, std::string>> backward_senders(const PlannedOp& op) const;
    std::vector<Transfer> backward_puts(const PlannedOp& op) const;
    void backward_gets(const PlannedOp& op, int t0, int n);
    // Pipelined (wafer.schedule: pipelined): sequence b's forward, loss and backward as one
    // pipeline over chunks of its time steps (mesh_train_pipeline.cpp), a unit per launch.
    // Sequences b0 .. b0+count-1 (count > 1: a training plan's wafer.sequences_in_flight side by side
    // in the ops' columns, each sequence's dy kept in the embedding's stash), then, for each, what
    // the embedding's backward needs later.
    void queue_pipelined(int b0, int count);
    int pipelined_together() const;  // the sequences one pipeline takes: cur_.B, or 1
    bool keep_dy(int b);             // the embedding's dy for sequence b, kept until its backward
    int stash_slots() const;         // the sequences whose dy the embedding's stash takes over its link (0: none)
    std::string grad_name(const std::string& tensor) const;   // through the residuals' identity backward
    // The input whose gradient goes up a link into op's dy (its consumer's send_d<symbol>), or nullptr.
    std::pair<const PlannedOp*, const Transfer*> grad_link_into(const PlannedOp& op) const;
    const PlannedOp& op(gpt::OpId id) const;   // an op outside the blocks (the embedding, the logits)
    std::vector<float>& store_array(State state);   // streaming: the store's arrays, by State
    // The PEs' part of transfer(): each of the wafer's parameters at(its index in params_memory's layout).
    void transfer_wafer(State state, const std::function<float*(size_t)>& at, bool write);
    void transfer_sparse(const PlannedOp& o, const ParamSlice& w, State state, const std::function<float*(size_t)>& at, bool write);
    struct OwnRange {              // a parameter tensor of the wafer's own part: where it is, packed
        size_t offset, count, packed;
    };
    std::vector<OwnRange> own_ranges() const;
    static size_t packed_at(const std::vector<OwnRange>& ranges, size_t i);
    bool stream_in(int layer, bool for_backward);   // streaming: MeshGPT's, its OpRun kept
    bool holds_weights(const PlannedOp& o) const;   // its weights, gradients and AdamW live on its PEs (not the store's)
    bool in_store(const gpt::ParamInfo& info) const;   // streaming: the parameter's weights, gradients and moments are the store's
    bool store_tie() const;                             // streaming: wte is the store's (embedding.wk's STORE)
    bool stream_dy_out(int b);                          // STORE: sequence b's dy from the embedding to the store
    void store_encoder_backward();                      // STORE: the embedding's backward, in the store
    void finish_norm();              // streaming: the store's part of the norm, and the clipping coefficient
    void route_norm();
    void route_tie();
    void route_stream(int colour, std::pair<int, int> from, const PlannedOp& to);
    bool stream(const char* name, const PlannedOp& from, const char* from_fn, const PlannedOp& to, const char* to_fn);
    static constexpr int kTieColour = 5;   // the kernels' tw
    // The routes route_stream replaced, put back once its stream has run: its way may cross an op
    // that takes the colour for itself (a head over several PEs, attention.wk).
    struct SavedRoute {
        int x, y, colour;
        wl::Route route;
    };
    std::vector<SavedRoute> crossed_;

    MeshGPT mesh_;
    std::vector<PlannedOp> ops_;   // the plan's ops, as a step runs them (streaming: every layer's instances)
    Tensors grads_;                // gradient of each activation (rows, TP), channel-major
    std::vector<OpRun> runs_;
    std::vector<Unit> queue_;      // the job (a step, half a step, an evaluation, a sample) in progress
    size_t next_ = 0;              // its next unit
    MeshJob job_ = MeshJob::Step;
    struct Current {               // what the queued units share
        std::vector<int> inputs, targets;
        int B = 0, T = 0;
        int bt = 0;                                // the rows the loss is the mean over (B*T, or a shard's whole batch)
        double lr = 0;
        std::vector<std::vector<int>> tokens;      // each sequence's tokens, for the embedding's backward
        std::vector<std::vector<float>> dencoded;  // and its gradient
        float hp[kHpCount] = {};
        wl::gpt::AdamWStep adam;                   // this step's constants (the store's AdamW takes them too)
        uint64_t host_bytes0 = 0;                  // mesh_.host_bytes() when the step began
        TrainStep step;
        float eval_loss = 0;
    } cur_;
    struct Sampling {              // what a sample's units share
        std::vector<int> tokens;   // the prompt and the tokens so far
        wl::gpt::SampleOptions opt;
        wl::gpt::Rng rng;
    } samp_;
    TrainStep last_;
    float last_eval_ = 0;
    std::string error_;
    int64_t t_ = 0;                // AdamW updates done
    std::pair<int, int> norm_origin_{-1, -1};   // the PE where grad_norm's sum ends
    bool routed_ = false;          // the norm's and the tie's routes are set: loaded
};

}  // namespace wl::model
