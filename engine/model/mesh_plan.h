// mesh_plan.h: the model compiler — a GPT config in, a plan for running its
// forward pass on a mesh of PEs out, in the stages of a dataflow compiler:
//
//   1. graph      the ops of one forward (gpt::op_table's rows), with shapes
//   2. placement  a rectangle of PEs per op; every op keeps its own PEs, so
//                 weights stay resident between forward passes
//   3. memory     each op's SRAM map per PE, checked against the PE's SRAM
//   4. kernels    the WaferKernel file (models/kernels/) each op instantiates,
//                 with its constants (sizes and tiling)
//   5. schedule   the order of launches, and how each activation reaches its
//                 op: as wavelets over a link from the op directly above
//                 (Transfer::colour), or through the host where no link is
//                 planned (docs/model-compiler.md, "Links between ops")
//   6. executable the compiled kernels, ready for MeshGPT (mesh_gpt.h) to load
//
// Layout convention: an activation is channel-major, one row of TP floats per
// channel (TP = block_size; the first T are valid), so a vector op runs along
// time and the matmul's output rows are the next matmul's input rows.
//
//   PlanResult r = plan_model(cfg, 32, 32, read_kernels("models/kernels"));
//   if (!r.ok) report(r.error);   // "l2.fch needs 61,440 bytes on PE (3,1); 49,152 available"
#pragma once
#include "engine/fabric/machine.h"
#include "engine/gpt/gpt_config.h"
#include "engine/gpt/op_table.h"
#include "engine/lang/compile.h"

#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wl::model {

// A kernel file's text by name ("matmul.wk"); "" when there is none.
using KernelSource = std::function<std::string(const std::string& file)>;
KernelSource read_kernels(const std::string& dir);   // from files in dir

// How an activation is cut across an op's row of PEs.
enum class Slice : uint8_t {
    Rows,    // PE p gets rows off + p*n .. off + p*n+n-1 (whole time rows); past the end: zeros
    Time,    // PE p gets time steps p*n .. p*n+n-1 of every row
    Tokens,  // every PE gets the token ids
};

// How an activation lies across the tiers of an op cut over several rows (PlannedOp::tiers).
enum class Tiers : uint8_t {
    Each,    // every tier holds the same cut (an input all of them read)
    Split,   // the tiers go on cutting it: tier r's PE p is the op's PE r*w + p (a matmul's output rows)
    Last,    // only the last tier holds it (the embedding's, after the chain down its tiers)
};

struct Transfer {                  // one activation into or out of an op
    std::string tensor;            // "l0.ln1", or "tokens"
    std::string symbol;            // the kernel's variable
    Slice slice = Slice::Rows;
    int per_pe = 0;                // rows or time steps per PE
    int rows = 0;                  // the tensor's rows (channels)
    int row_offset = 0;            // first row of the tensor this transfer reads (q/k/v of qkv)
    Tiers tiers = Tiers::Each;
    // An input's link: the producing op, on the PEs `from`, sends it down the mesh on this colour
    // (its send_y; a relay's goes along its row first and to every PE of this op's row) while
    // this op's main receives it. 0: the host copies it (d2h, h2d).
    int colour = 0;
    wl::Rect from{0, 0, 0, 0};
    std::string send = "";         // the producer's function that sends it: send_y, or send_y2 (a second reader)
    // Training: the input's gradient goes back up the same columns on this colour (this op's
    // send_d<symbol>, or the attention's send_dqkv, launched with the producer's backward, which
    // takes it as dy). 0: the host.
    // A residual's inputs (its backward is the identity): the layernorm that reads its output
    // sends that gradient up, to the second input's matmul (dy) and the first input's other
    // reader, a layernorm (dx); plan_links.cpp's plan_stream_grads.
    int grad_colour = 0;
    // Streaming execution: the residual stream from one layer into the next (one layer's ops serve
    // every layer, so the stream's producer is the same layer's last op): never linked; the host
    // carries it (docs/weight-streaming.md).
    bool between_layers = false;
};

// What an op's SRAM holds on its most loaded PE, by kind (bytes).
struct MemoryUse {
    uint32_t weights = 0;          // the op's weights (w, b, wte, wpe)
    uint32_t gradients = 0;        // their gradients (training)
    uint32_t adam = 0;             // AdamW's m and v (training)
    uint32_t activations = 0;      // inputs and outputs, kept for backward, and their gradients
    uint32_t scratch = 0;          // the kernel's own buffers (statistics kept for backward included)
};

struct PlannedOp {
    gpt::OpId id = gpt::OpId::Encoded;   // its row of gpt::op_table()
    std::string name;              // the tensor it computes, op_list's name: "l0.qkv"
    std::string op;                // op_list's op: "matmul_forward"
    int layer = -1;
    double flops = 0;              // op_list's count at T = block_size
    std::string kernel;            // its kind's kernel file, kernel_info().file: "matmul.wk"
    std::map<std::string, double> constants;
    std::vector<std::pair<std::string, std::string>> weights;   // kernel symbol -> GPT parameter ("w" -> "qkvw")
    wl::Rect rect;                 // placement on the mesh: a row of PEs, or rect.h tiers of them
    uint32_t bytes_per_pe = 0;     // SRAM used on its most loaded PE
    MemoryUse memory;              // bytes_per_pe by kind
    std::vector<Transfer> inputs;
    Transfer output;
    std::shared_ptr<const wl::lang::CompileResult> compiled;
    bool train_only = false;       // not part of the forward (the loss's gradient)
    bool host_out = true;          // the host reads its output (a consumer without a link, or the logits)

    const gpt::OpRow& row() const { return gpt::op_row(id); }
    const gpt::KernelInfo& kernel_info() const { return gpt::kernel_info(row().kind); }
    bool is(gpt::OpKind k) const { return row().kind == k; }
    // Tiers: an op whose weights are too many for one row of PEs runs as rect.h copies of its
    // one-row kernel stacked, each holding a part of them (mesh_plan.cpp's spread_over_pes).
    int tiers() const { return rect.h; }
    // Its PEs tier by tier, p = tier * rect.w + px (the matmul's and embedding's cut goes on so).
    int pes() const { return rect.w * rect.h; }
    int pe_x(int p) const { return rect.x + p % rect.w; }
    int pe_y(int p) const { return rect.y + p / rect.w; }
    // Whether its tiers exchange nothing in kernel function fn, so fast mode may run them apart
    // (Machine::run_apart): a matmul's tiers of output rows in its forward (their dx chain is the
    // backward's; tiers of input rows chain y).
    bool tiers_apart(const std::string& fn) const;

    // A kernel switch set to 1: "TRAIN" (the op's backward and AdamW are compiled in), "TIED" (its
    // weights are the embedding's).
    bool on(const char* constant) const {
        const auto it = constants.find(constant);
        return it != constants.end() && it->second == 1;
    }
};

// Training: an op with a backward (TRAIN = 1), or the loss's op (its main is the gradient).
bool has_backward(const PlannedOp& o);

// Streaming: an op whose weights are the store's, streamed in over an edge link (its LW) and, in
// training, their gradients out: every layer op that holds weights, and in training the tied wte's
// two ops, the LM head (TIED) and the embedding (STORE; docs/weight-streaming.md, "The vocabulary").
// Planned: the op has its link's colour (LW); a resident plan's ops have none.
inline bool streamed(const PlannedOp& o) { return o.constants.count("LW") > 0; }
// Before it is planned, in a streaming plan: whether the op takes an edge link (plan_edge_links).
inline bool wants_edge_link(const PlannedOp& o) {
    return !o.weights.empty() && (o.layer >= 0 || o.on("TIED") || o.on("STORE"));
}
// ... and of those, the ones that run with their layer (every layer's in turn), not once a step or a window.
inline bool layer_streamed(const PlannedOp& o) { return o.layer >= 0 && streamed(o); }

struct MeshPlan {
    wl::gpt::GPTConfig cfg;
    int mesh_w = 0, mesh_h = 0;
    uint32_t sram_bytes = 0;
    std::vector<PlannedOp> ops;    // in schedule order
    bool train = false;            // planned for training: gradients, AdamW moments, the loss op
    std::vector<wl::lang::RouteSetting> links;   // the links' routes, mesh coordinates (after the kernels')
    // Streaming execution (cfg.execution "streaming"; docs/weight-streaming.md): the ops are one
    // layer's, l0.*, and serve every layer of cfg in turn, its weights streamed in before each
    // (layer_instance); the embedding, lnf and the logits stay resident.
    bool streaming = false;
    int pes_used() const;
    uint32_t bytes_max() const;    // over all used PEs
    double bytes_mean() const;     // over used PEs
    const PlannedOp* find(const std::string& name) const;
};

struct PlanResult {
    bool ok = false;
    std::string error;             // names the op, the PE and the bytes, or the kernel's file:line:col
    bool too_big = false;          // it failed for want of SRAM or of rows: fit_advice.h says what fits
    MeshPlan plan;
};

// Streaming: what a layer op of the plan (layer 0) is when it runs layer l of `layers`: its layer,
// its tensors' names (l0.* -> l<l>.*), and its stream input, which for l > 0 is the layer before's
// residual3. lnf (layer -1) reads the last layer's residual3. Other ops come back as they are.
PlannedOp layer_instance(const PlannedOp& op, int l, int layers);

// Streaming: the routes of a layer op's edge link (its LW, along its row from the west edge): in,
// as planned (the store's words east, each of the op's PEs taking a copy), or out (training: the
// op's PEs send west, one at a time, off the mesh to the store).
std::vector<wl::lang::RouteSetting> edge_link_routes(const PlannedOp& op, bool out);
// ... or in to PE px of each of its rows alone (take_w): the routers before it pass the words on, it takes them.
std::vector<wl::lang::RouteSetting> edge_link_to(const PlannedOp& op, int px);

// The sends that bring an op's linked inputs, each (producer's PEs, function) once: a relay
// brings several inputs in one (the attention's q, k and v). Launched with the op's main.
std::vector<std::pair<wl::Rect, std::string>> link_senders(const PlannedOp& op);

// The sequences a plan's ops hold side by side in their time columns: a training plan's
// wafer.sequences_in_flight (sequence s of a pipelined step in columns (s mod n) * block_size ..,
// pipeline_run.cpp), else 1. The time pitch TP is n * block_size; TS, a sequence's steps, is block_size.
int plan_sequences(const wl::gpt::GPTConfig& cfg, bool train);
int time_pitch(const MeshPlan& plan);   // TP: plan_sequences * block_size

// cfg.vocab_size must be set. Never throws for a model that does not fit: ok is false.
// train: every op also gets its backward's and AdamW's arrays (TRAIN = 1 in its kernel: the
// gradients, the moments, the activations kept for backward), and the loss's gradient is an op
// of its own; the memory plan then counts all of it (docs/model-compiler.md, "Training").
PlanResult plan_model(const wl::gpt::GPTConfig& cfg, int mesh_w, int mesh_h, const KernelSource& kernels,
                      uint32_t sram_bytes = wl::MachineConfig{}.sram_bytes, bool train = false);

// plan_model in steps, for a UI that must draw between them (the app's Train): placing the ops
// at one row width is a step, and every kernel compile goes a program instance a step
// (lang::Compilation). plan_model is this run to its end: the same plan however it is stepped.
//
//   PlanBuilder b(cfg, 32, 32, read_kernels("models/kernels"), sram, /*train=*/true);
//   while (b.step()) show(b.activity(), b.progress());   // "compiling kernels: 3 of 17 (matmul.wk for l0.qkv), program 5 of 16"
//   PlanResult r = b.take();
class PlanBuilder {
public:
    PlanBuilder(const wl::gpt::GPTConfig& cfg, int mesh_w, int mesh_h, KernelSource kernels,
                uint32_t sram_bytes = wl::MachineConfig{}.sram_bytes, bool train = false);
    bool step();                       // one unit; false once done() (nothing runs then)
    bool done() const { return stage_ == Stage::Done; }
    std::string activity() const;      // what the next step does, in words; "" when done
    double progress() const;           // 0..1: the kernels compiled (0 while placing)
    PlanResult take();                 // runs what is left, then the result (once)
    // Sparsity (sparsity.h, sparse_nonzeros): before the first step. A matmul with
    // nonzeros(op).rows >= 0 is planned SPARSE = 1 with NZ = that count (at least 1): only its
    // non-zeros in SRAM; -1 keeps it dense. A training plan also sizes the transposed columns
    // with NZT = .columns (matmul.wk's transpose_w).
    struct SparseCounts {
        int rows = -1;      // NZ: the most non-zeros any PE's rows hold (sparse_rows)
        int columns = 0;    // NZT: the most any PE's block of columns holds (sparse_columns)
    };
    void set_sparse(std::function<SparseCounts(const PlannedOp&)> nonzeros) { nonzeros_ = std::move(nonzeros); }

private:
    enum class Stage : uint8_t { Place, Stash, Compile, Done };
    bool streaming() const { return cfg_.execution == wl::gpt::Execution::Streaming; }   // MeshPlan::streaming
    void fail(const std::string& why);
    void begin_job(const std::string& kernel, const std::map<std::string, double>& constants);

    wl::gpt::GPTConfig cfg_;
    int w_, h_;
    uint32_t sram_;
    bool train_;
    KernelSource kernels_;
    std::function<SparseCounts(const PlannedOp&)> nonzeros_;   // set_sparse
    Stage stage_ = Stage::Place;
    PlanResult r_;
    int pmax_, fewest_rows_ = 0;       // the row width tried; over those tried, the fewest rows any packing needs
    std::vector<PlannedOp> ops_;
    std::vector<wl::lang::RouteSetting> links_;
    std::vector<size_t> stash_;        // the ops whose stash is sized
    size_t stash_next_ = 0;
    int stash_nb_ = 0;                 // the slots tried
    bool stash_measured_ = false;      // the compile with one slot has run
    std::map<std::string, std::shared_ptr<const wl::lang::CompileResult>> compiled_;   // by compile key
    size_t op_next_ = 0, kernels_done_ = 0, kernels_total_ = 0;
    std::optional<wl::lang::Compilation> job_;   // the compile in progress
};

// The bytes an op's weights alone take on its fullest PE, as its kernel cuts them (mesh_gpt.cpp's
// weight_pieces: a matmul's NC rows of K, the embedding's CP columns of wte and wpe, a layernorm's
// R channels of w and b): a floor that no context, batch or mesh height lowers.
uint64_t weight_bytes_per_pe(const PlannedOp& o);

// An op whose weights alone overflow a PE even on the widest row a mesh has (kMaxMeshSide PEs),
// and in inference even cut over tiers, so that no mesh and no shorter context can hold it (training
// a GPT-2-sized vocabulary): the first such op, else nullopt. Cheap (no kernel is compiled): fit
// advice asks it before trying remedies that cannot work.
struct WeightOverflow {
    std::string op;        // "encoded"
    int row = 0;           // the row of PEs it was cut over
    uint64_t bytes = 0;    // its weights' bytes on its fullest PE there
};
std::optional<WeightOverflow> weights_never_fit(const wl::gpt::GPTConfig& cfg, uint32_t sram_bytes, bool train);

// Every stage as data: {mesh, sram_bytes, train, pes_used, bytes_max, bytes_mean, ops: [{name, op, layer,
// flops, kernel, constants, weights, rect, bytes_per_pe, memory: {weights, gradients, adam,
// activations, scratch}, inputs: [{..., colour, from}], output, host_out}]} (the CLI's --json, the app).
nlohmann::json to_json(const MeshPlan& plan);

}  // namespace wl::model
