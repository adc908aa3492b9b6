// mesh_gpt.h: a GPT's forward pass on the emulated mesh. Loads a MeshPlan's
// kernels on their rectangles of one machine and the model's weights into
// their PEs' SRAM (once: they stay resident), then runs each op as a kernel
// launch, in the plan's schedule. Inside an op every value that moves between
// PEs is a wavelet, and so is every activation the plan links (Transfer::colour):
// the producer's send_y is launched with the consumer's main, and the rows go
// down the mesh (a relay's along the producer's row first: the attention's
// heads). The host moves only the rest (d2h from one op's PEs, h2d into
// the next's) and counts those bytes (OpRun::host_bytes).
//
// A launch computes a window of time steps: a prompt's [0, T), or one new
// token's [T, T+1). Only the window's columns move, and the attention PEs keep
// every earlier step's keys and values in SRAM: the KV cache.
//
// Streaming execution (MeshPlan::streaming; docs/weight-streaming.md): the plan's one layer of
// ops runs every layer in turn. Before layer l, its weights stream in from the store (here,
// MeshGPT's copy of the parameters: MemoryX) as wavelets over each op's edge link (Machine::feed
// at weight_stream.h's rate; the ops' load_w), an OpRun "l<l>.weights" of its own; the residual
// stream between layers goes through the host. Training (MeshTrainer) also streams each layer's
// gradients back out to the store (stream_out).
// The attention's PEs then hold one layer's keys and values, so there is no KV cache: every
// token is a full forward.
//
//   MeshGPT mesh(plan, model);                  // fast mode by default
//   std::vector<float> logits;                  // (T, V)
//   if (!mesh.forward(tokens, T, &logits)) report(mesh.error());
//   mesh.extend(next_token, &logits);           // (V): one step, from the cache
//   for (const OpRun& r : mesh.last_run()) ...  // per-op cycles, FLOPs, traffic
#pragma once
#include "engine/fabric/host.h"
#include "engine/gpt/gpt.h"
#include "engine/model/memoryx.h"
#include "engine/model/mesh_plan.h"
#include "engine/model/launch_timeline.h"
#include "engine/model/pipeline.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace wl::model {

// One layer's slice of a GPT parameter tensor (layer -1: the whole tensor) in params_memory.
struct ParamSlice {
    size_t offset = 0;
    int rows = 0, cols = 0;       // the slice as a matrix (vectors: 1 row)
};
ParamSlice param_slice(const wl::gpt::GPTConfig& cfg, const std::string& name, int layer);
// A tensor with one slice per layer (l0 ... of qkvw, ln1w ...): not wte, wpe, lnfw, lnfb.
bool layer_param(const wl::gpt::GPTConfig& cfg, const wl::gpt::ParamInfo& info);

// Where PE p of an op keeps its part of a weight: n floats at element pe of the kernel's
// symbol are n floats at element model of the slice. The one statement of each kernel's cut.
struct WeightPiece {
    size_t pe = 0, model = 0, n = 0;
};
std::vector<WeightPiece> weight_pieces(const PlannedOp& op, int p, const std::string& sym, const ParamSlice& w);

struct OpRun {                    // one op of the last forward
    std::string name, op;
    uint64_t cycles = 0;          // emulated (estimated in fast mode: docs/engine.md)
    uint64_t instructions = 0;
    uint64_t busy = 0;            // busy PE-cycles
    uint64_t hops = 0;            // wavelet hops between routers
    uint64_t wavelets = 0;        // wavelets its PEs' CEs sent (each counted once, however far it went)
    uint64_t vector_flops = 0;    // FP operations its vector ops did (an fmacs element: 2; scalar ops not counted)
    int pes = 0;
    double flops = 0;             // at this forward's T
    double seconds = 0;           // host wall time
    uint64_t host_bytes = 0;      // activation bytes the host copied for it (in and out; tokens not counted)
    uint64_t stream_bytes = 0;    // streaming: weight bytes it brought in from the store over the edge (or gradients out)
    // Pipelined (pipeline.h): its launches, one per chunk, ran side by side with other ops'. cycles is
    // then what they added to the forward's span (the cycles from one slice in which launches finished
    // to the next, shared by the launches that finished in it), so a forward's runs still add up to
    // its cycles; span is
    // its launches' own start-to-end cycles added up, and start the first's (from the forward's
    // start). busy ... flops are its own PEs'; hops, the routers' it held (its PEs and its links'
    // way) while no other launch did.
    bool concurrent = false;
    uint64_t span = 0, start = 0;
    int chunks = 0;               // pipelined: its launches (the chunks of the window)
    void count(const wl::MachineStats& before, const wl::MachineStats& after);   // the machine's counts between the two
    // busy / (cycles x PEs) (pipelined: span). Fast mode estimates both, and its small error can take the
    // ratio a little past 1 (docs/engine.md): shown as at most 1.
    double utilisation() const {
        const uint64_t c = concurrent ? span : cycles;
        return c && pes ? std::min(1.0, double(busy) / (double(c) * pes)) : 0;
    }
};

// Fast mode's leash on the model's machines (MachineConfig::fast_run_ahead): a matmul row takes a
// root's block each round, a round some thousands of cycles (GPT-small's backward: about 3,500),
// and a leash of several rounds lets each PE run them in one turn, its SRAM still in the host's
// caches (docs/engine.md, "Fast mode": a streamed 111M layer's step 16.8 s against 21.9 s at a
// kernel's 4,096). The queued blocks stay few: the rounds are long.
inline constexpr uint64_t kModelRunAhead = 32768;

class MeshGPT {
public:
    // The model's config must be the plan's. Weights are copied in now.
    MeshGPT(MeshPlan plan, const wl::gpt::GPT& model, wl::RunMode mode = wl::RunMode::Fast);
    // The same, loaded in steps (a UI draws between them): each load_step(model) loads one op's
    // programs and routes, then the links' routes, then one op's weights; false once loaded().
    // The first constructor is this run to its end. Nothing runs on the mesh before loaded().
    struct InSteps {};
    MeshGPT(MeshPlan plan, wl::RunMode mode, InSteps);
    bool load_step(const wl::gpt::GPT& model);
    bool loaded() const { return load_next_ > 2 * plan_.ops.size(); }
    size_t load_done() const { return load_next_; }
    size_t load_total() const { return 2 * plan_.ops.size() + 1; }

    // logits (T, V) for tokens[0..T), 1 <= T <= block_size. False (and error()) on a fault or bad input.
    bool forward(const int* tokens, int T, std::vector<float>* logits);
    // A batch of B prompts of T tokens each (B, T): logits (B, T, V). Pipelined, the sequences stream
    // through the ops one after another, every op on its own (sequence, chunk) (pipeline_run.cpp);
    // sequential, forward() B times. last_run(): the batch's runs. The KV cache then holds the last.
    bool forward_batch(const int* tokens, int B, int T, std::vector<float>* logits);
    // One more token after the last forward/extend (context() < block_size): its logits (V).
    // Not in streaming execution (no KV cache there): an error.
    bool extend(int token, std::vector<float>* logits);
    int context() const { return int(tokens_.size()); }   // tokens the cache holds
    // For the sampler (gpt::generate): the last step's logits (V) for this context, by extend()
    // when it is the cached one plus a token, else by forward(). Throws std::runtime_error on a fault.
    const float* next_logits(const int* context, int T);
    const std::string& error() const { return error_; }

    // Copies the weights in again (after training changed them); streaming: into the store.
    void load_weights(const wl::gpt::GPT& model);
    void load_weights(const wl::gpt::GPT& model, const PlannedOp& op);   // one op's

    const MeshPlan& plan() const { return plan_; }
    // Streaming: layer l's weights fed to h's edge links and its ops' load_w launched (stream_in runs
    // it on this mesh; the app replays it on a copy in cycle mode). *bytes += what the links carry.
    wl::Fault feed_layer(int l, wl::Host& h, uint64_t* bytes = nullptr) const;
    std::vector<std::pair<wl::Rect, std::string>> streamed_weights() const;   // (PEs, symbol) a stream writes
    // Streaming training: layer l's weight gradients out over the same edge links, turned around
    // (edge_link_routes), each op's PEs in turn (send_g) into the store's drain; added into *grads
    // (params_memory's layout). An OpRun "l<l>.grads" of its own. False (and error()) on a fault.
    bool stream_out(int layer, std::vector<float>* grads);
    // ... any streamed ops' (the tied wte's LM head, once a step), as one OpRun `name`.
    bool stream_out(const std::vector<PlannedOp>& ops, const std::string& name, std::vector<float>* grads);
    // ... their words as they came, per op and tier (the embedding's dy: the store's backward).
    bool stream_out_words(const std::vector<PlannedOp>& ops, const std::string& name,
                          const std::function<void(const PlannedOp&, int, const std::vector<uint32_t>&)>& take);
    // Streaming training: the tied wte's op (the embedding, the LM head) takes its weights from the
    // store (run_op does it before the op runs); the store's wte changed: the LM head's are stale.
    bool stream_head(const PlannedOp& op);
    void store_changed() { head_in_ = false; }
    const std::vector<OpRun>& last_run() const { return runs_; }
    uint64_t last_cycles() const;             // the sum over the ops
    uint64_t last_host_bytes() const;         // activation bytes through the host in the last forward/extend
    uint64_t last_stream_bytes() const;       // streaming: weight bytes streamed in during the last forward
    uint64_t last_stream_cycles() const;      // ... and the cycles that took (in last_cycles())
    uint64_t host_bytes() const { return host_bytes_; }   // since construction (every put and get)
    const wl::Host& host() const { return host_; }

    uint64_t cycle_budget = 200'000'000;      // per op launch

    // Diagnosis: while on, each op that runs has its output read off its PEs and looked at, and the
    // first that holds a NaN or an infinity is named, with the element and its PE: "l1.fch
    // (matmul.wk): NaN at time step 3, row 17, on PE (5,2)". Off by default: it costs the reads.
    void watch_nonfinite(bool on) { watch_ = on, nonfinite_.clear(); }
    const std::string& first_nonfinite() const { return nonfinite_; }

    // The schedule forward() runs (pipeline.h): the plan config's wafer.schedule, sequential for
    // streaming execution. set_schedule changes it for the next forward (streaming: ignored).
    Schedule schedule() const { return schedule_; }
    void set_schedule(Schedule s) { schedule_ = plan_.streaming ? Schedule::Sequential : s; }
    // How far past a pipeline's slice its PEs may run in fast mode (pipeline.h): the same launches
    // at the same cycles whatever it is; 0 stops every PE at every slice's end.
    void set_lookahead(uint64_t cycles) { lookahead_ = cycles; }
    // The waves a pipelined forward over [t0, t0+n) is planned as (its chunks: default_chunks).
    Pipeline pipeline(int t0, int n) const;
    // While a pipelined forward runs: the launches working now (op, sequence, chunk, window), their
    // cycles from the forward's start so far, [start, now + 1) (the app lights them during training).
    std::vector<LaunchSpan> in_flight() const;
    // The last forward's launches over its cycles (launch_timeline.h): pipelined, one per op and
    // chunk as they ran; sequential, one per run, end to end.
    std::vector<LaunchSpan> timeline() const;
    // A pipelined forward a few slices at a time (the app replays one in cycle mode on the canvas):
    // begin_forward queues it (false, error(): not pipelined, or bad tokens); each advance_forward
    // runs at most `slices` more of the schedule's slices, the same slices forward() runs, so the
    // same cycles; false (error()) on a fault. forward_running() until every launch has finished;
    // the call that finishes it fills *logits (T, V).
    bool begin_forward(const int* tokens, int T);
    bool advance_forward(size_t slices, std::vector<float>* logits);
    bool forward_running() const { return pipe_ != nullptr; }
    uint64_t now() const { return host_.machine().now(); }
    void trace_hops(size_t events) { host_.machine().trace().set_capacity(events); }   // the canvas's wavelets

private:
    friend class MeshTrainer;   // mesh_trainer.h: runs the backward ops on the same machine
    using Tensors = std::map<std::string, std::vector<float>>;   // tensor -> (rows, TP), channel-major

    bool take_tokens(const int* tokens, int T);   // a forward's tokens into tokens_; false (error()) on bad ones
    bool run(int t0, int n, std::vector<float>* logits);   // every forward op over steps [t0, t0+n)
    void copy_logits(int t0, int n, std::vector<float>* logits) const;   // the logits op's output (n, V), from acts_
    bool run_forward_ops(int t0, int n);                    // run()'s ops, in order (streaming: layer by layer)
    // Streaming: the layer's weights from the store; for_backward: its matmuls' wt too (WT, take_wt).
    bool stream_in(int layer, bool for_backward = false);
    void point_edge_links(bool out);                        // streaming: the edge links' routes in or out
    // fn: main, or an entry that takes the op's input alone (matmul's keep_x), which writes no output.
    bool run_op(const PlannedOp& op, int t0, int n, bool read_out = true, const char* fn = gpt::entry::kMain);   // read_out false: not even the logits
    void look_for_nonfinite(const PlannedOp& op, int t0, int n);   // watch_nonfinite's look at op's output
    // Pipelined (pipeline.h; pipeline_run.cpp): the forward's launches over chunks of [t0, t0+n),
    // each started as soon as its inputs are made and its PEs are free, the machine advanced in
    // slices between. begin_pipeline queues them; run_pipeline runs them (all, or until `launches`
    // more have finished); when all have, an OpRun per stage (OpRun::concurrent). read_logits
    // false: the logits stay on their PEs.
    // batch: a batch's sequences' tokens, streamed through one after another (forward_batch); their
    // activations go to *acts_out at the end. Empty: one sequence, tokens_ and acts_.
    // tasks: launches after the forward's (training's loss and backward, MeshTrainer), stages D,
    // D+1 ... of the same pipeline, each over the same chunks of every sequence. Sequence s keeps to
    // its own columns on every op, (s mod plan_sequences) * block_size on (plan_sequences > 1: a
    // training plan's wafer.sequences_in_flight), and, in training, starts only once the sequence
    // before it in those columns has finished.
    using Senders = std::vector<std::pair<wl::Rect, std::string>>;
    struct PipeTask {
        const PlannedOp* op = nullptr;
        std::string fn;                                             // its entry: backward, main
        std::vector<std::pair<const PlannedOp*, std::string>> senders;   // launched with it, each on the chunk's window
        std::vector<int> after;       // stages whose launch of the same chunk must have finished
        std::vector<int> after_all;   // stages whose every chunk must have finished (the attention's dk and dv)
        // The host's transfers into it and out of it: the launch's sequence, and its columns [t0, t0+n).
        std::function<void(int seq, int t0, int n)> before, finish;
    };
    void begin_pipeline(const std::vector<const PlannedOp*>& stages, int t0, int n, bool read_logits = true,
                        std::vector<std::vector<int>> batch = {}, std::vector<Tensors>* acts_out = nullptr,
                        std::vector<PipeTask> tasks = {});
    Tensors& pipe_acts(int sequence);   // the host's activations of a pipeline's sequence
    // At most `slices` slices of kPipelineSlice cycles; until_done > 0: until that many launches have finished.
    bool run_pipeline(size_t slices = SIZE_MAX, size_t until_done = 0);
    bool run_pipeline_finishes(size_t launches);   // until `launches` more have finished (or all)
    size_t pipeline_launches() const;
    std::vector<const PlannedOp*> stages() const;   // the forward's ops, as pipeline()'s stages
    void set_window(const PlannedOp& op, int t0, int n);   // t0 and tlen on the op's PEs
    // Sets the window (t0, tlen) on the op's PEs, launches fn, runs until quiescent; the
    // op's cycles, instructions and traffic into *run. False (and error_) on a fault.
    // senders: (PEs, function) launched in the same run: the links into op (send_y, send_dx).
    bool launch(const PlannedOp& op, const char* fn, int t0, int n, OpRun* run, const Senders& senders = {});
    void put(const PlannedOp& op, const Transfer& tr, int t0, int n);   // from acts_
    void get(const PlannedOp& op, const Transfer& tr, int t0, int n);   // into acts_
    void put(const PlannedOp& op, const Transfer& tr, int t0, int n, const Tensors& from);
    void get(const PlannedOp& op, const Transfer& tr, int t0, int n, Tensors& into);
    bool valid_token(int token, int position);   // false, with error(), outside the vocabulary
    // Streaming: one tier's edge link carries its PEs' weights in load_w's order, and their gradients
    // back in send_g's (the same order): the words in, and the words out added into *grads.
    std::vector<uint32_t> link_words(const PlannedOp& op, int tier) const;
    void append_pe_words(const PlannedOp& op, int p, std::vector<uint32_t>* words) const;   // PE p's part of them
    void append_pe_wt(const PlannedOp& op, int p, std::vector<uint32_t>* words) const;      // ... and its wt (WT)
    // Every op takes its own words (take_w; for_backward, a WT op's take_wt).
    bool stream_in_own(const std::vector<PlannedOp>& ops, OpRun* run, bool for_backward = false);
    bool run_links(const std::string& name, const char* what);   // an edge-link run; false (error()) on a fault
    bool stream_run(const std::string& name, const char* op, const std::vector<PlannedOp>& ops,
                    const std::function<bool(OpRun*)>& body);   // a stream's OpRun around body
    void add_link_grads(const PlannedOp& op, int tier, const std::vector<uint32_t>& words, std::vector<float>* grads) const;

    MeshPlan plan_;
    wl::Host host_;
    Tensors acts_;
    // Streaming: the store (memoryx.h), this mesh's own or, on SwarmX's wafers after the first,
    // the first's (share_store: the weights are loaded into it once).
    std::shared_ptr<MemoryX> store_ = std::make_shared<MemoryX>();
    bool store_shared_ = false;
    void share_store(std::shared_ptr<MemoryX> store) { store_ = std::move(store), store_shared_ = true; }
    enum class Links : uint8_t { In, Out, Pointed };   // the edge links: load_w's way, stream_out's, or at a PE (take_w)
    Links links_ = Links::In;
    bool head_in_ = false;        // streaming training: the LM head holds the store's wte
    bool watch_ = false;          // watch_nonfinite
    std::string nonfinite_;
    std::vector<int> tokens_;
    std::vector<OpRun> runs_;
    int window_t0_ = 0, window_n_ = 0;        // the last forward's steps
    std::vector<LaunchSpan> pipe_timeline_;   // the last pipelined forward's launches (timeline())
    std::vector<float> logits_;   // next_logits' result
    std::string error_;
    uint64_t host_bytes_ = 0;     // activation bytes put and got, ever
    Schedule schedule_ = Schedule::Sequential;
    uint64_t lookahead_ = kPipelineLookahead;
    struct PipeRun;                  // a pipelined forward in progress (pipeline_run.cpp)
    std::shared_ptr<PipeRun> pipe_;
    size_t load_next_ = 0;        // load_step's next: op i's programs (i < n), the links (n), op i's weights (n + 1 + i)
};

}  // namespace wl::model
