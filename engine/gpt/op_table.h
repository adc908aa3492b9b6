// op_table.h: the GPT's ops, one row each, and the mesh kernels that run them. Every part
// that walks the model reads these rows: the reference's op list (gpt.h op_list, which
// forward() and backward() are tested against), the model compiler's graph and schedule
// (engine/model), the training queue, the GPU model's GEMM shapes and the app's overlay.
// Adding an op to the GPT is adding a row here and, for the mesh, a kernel.
//
//   for (const OpRow& r : op_table()) ...       // forward order; a block's rows once
//   op_name(op_row(OpId::Qkv), 3)             // "l3.qkv"
//   parse_op_name("l3.qkv")                    // {&row Qkv, layer 3}
//   kernel_info(OpKind::Matmul).file           // "matmul.wk"
//
// The kernels' entry points and the symbols the host moves are named once, here (entry::,
// KernelInfo); tests/unit/op_table_test.cpp compiles each kernel the plan uses and checks it
// exports them.
#pragma once
#include "engine/gpt/gpt_config.h"

#include <span>
#include <string>
#include <string_view>

namespace wl::gpt {

// What an op computes; a mesh kernel runs each kind but softmax (the loss's kernel takes the
// logits whole).
enum class OpKind : uint8_t { Embedding, LayerNorm, Matmul, Attention, Residual, Gelu, Softmax, Loss };

// One id per row, in forward order; Tokens and Stream are inputs, not rows: the token ids, and
// the residual stream into a block (the embedding's output, or the block before's residual3).
enum class OpId : uint8_t {
    Encoded, Ln1, Qkv, Atty, Attproj, Residual2, Ln2, Fch, FchGelu, Fcproj, Residual3, Lnf, Logits, Probs, Losses,
    Tokens, Stream,
};

// A tensor's rows (channels): a multiple of n_embd, or the vocabulary, or one.
struct Width {
    enum Unit : uint8_t { One, Embd, Vocab } unit = Embd;
    int times = 1;
    int of(const GPTConfig& cfg) const {
        return unit == Embd ? times * cfg.n_embd : unit == Vocab ? times * cfg.vocab_size : times;
    }
};

// Where a row runs on the mesh.
enum class OnMesh : uint8_t {
    Forward,    // an op of every plan
    Training,   // an op of a training plan only: its backward (the loss's gradient)
    No,         // the reference's alone (softmax: the loss's kernel does it)
};

struct OpRow {
    OpId id;
    const char* name;        // its output tensor: "qkv" (in a block: "l<N>.qkv")
    bool in_block;           // one per layer
    OpKind kind;
    const char* forward;     // the reference's function: "matmul_forward"
    const char* backward;    // its backward's ("matmul_backward"); nullptr: done by the next row's
    const char* grad;        // what the backward computes, its name in op_list: "dln1"
    OpId in[2];              // its inputs; the second is Tokens when there is one input
    int inputs;              // 1 or 2
    Width in_width, out_width;   // rows in and out (a matmul's K and OC)
    const char* params[2];   // its parameter tensors (param_infos' names) in its kernel's weights' order;
                             // a matmul's second is its bias; nullptr: none
    bool tied;               // its weight is the embedding's (the LM head)
    bool prunable;           // sparsity prunes its weight (the blocks' matmuls)
    OnMesh mesh;
    const char* words;       // what it computes, for a student ("%d": its layer); Training rows: their backward
};

std::span<const OpRow> op_table();          // forward order, a block's rows once
const OpRow& op_row(OpId id);               // a row's id (not Tokens or Stream)
std::string op_name(const OpRow& r, int layer);   // "l3.qkv", or "logits" (layer ignored)
std::string grad_name(const OpRow& r, int layer); // its backward's: "l3.dln1", "dlnf"
// The name of input i of row r in layer l of an n_layer model: "tokens", "encoded", "l2.residual3" ...
std::string input_name(const OpRow& r, int i, int layer, int n_layer);
// Names the layer ops and the training's streams carry: "l3.qkv", "l3.weights"; other names: layer -1.
struct OpName {
    // The op, or nullptr (a stream, "grad_norm", an unknown name); a Training row by its grad
    // name, as the mesh runs it ("dlogits").
    const OpRow* row = nullptr;
    int layer = -1;               // l<N>. names' N
    std::string rest;             // what follows "l<N>." ("qkv", "weights"), or the whole name
};
OpName parse_op_name(std::string_view name);
std::string layer_unit_name(int layer, const char* what);   // "l3.weights"

// [SECTION] the mesh kernels (models/kernels/*.wk)

// The functions the host launches, by name, once.
namespace entry {
inline constexpr const char* kMain = "main";              // the forward (the loss's: its gradient)
inline constexpr const char* kBackward = "backward";
inline constexpr const char* kZeroGrad = "zero_grad";
inline constexpr const char* kAdamW = "adamw";
inline constexpr const char* kGradNorm = "grad_norm";
inline constexpr const char* kTransposeW = "transpose_w";  // matmul: w's transpose for dx
inline constexpr const char* kKeepX = "keep_x";            // matmul: x's window alone (a recomputation that needs no y)
inline constexpr const char* kLoadW = "load_w";            // streaming: weights off the edge link, every PE's (multicast)
inline constexpr const char* kTakeW = "take_w";            // ... the PE's own alone, the link pointed at it
inline constexpr const char* kTakeWt = "take_wt";          // ... and then W's columns for dx (matmul, WT = 1: no transpose_w)
inline constexpr const char* kSendY = "send_y";            // y down a link (a second reader: send_y2)
inline constexpr const char* kSendY2 = "send_y2";
inline constexpr const char* kSendDx = "send_dx";          // dx up a link (the stream's second: send_dx2)
inline constexpr const char* kSendDx2 = "send_dx2";
inline constexpr const char* kSendDqkv = "send_dqkv";      // the attention's dq, dk and dv in one relay
inline constexpr const char* kKeepDy = "keep_dy";          // the embedding's stash of dy
inline constexpr const char* kTieSend = "tie_send";        // the tied weights' stream between embedding and logits
inline constexpr const char* kTieRecv = "tie_recv";
inline constexpr const char* kZeroLoss = "zero_loss";
inline constexpr const char* kSendG = "send_g";            // streaming training: a PE's gradients out to the store
}  // namespace entry

// The symbols the host reads and writes by name beside an op's inputs, output and weights.
namespace symbol {
inline constexpr const char* kT0 = "t0";        // a launch's first time step
inline constexpr const char* kTlen = "tlen";    // and how many
inline constexpr const char* kDy = "dy";        // training: the gradient of y
inline constexpr const char* kDx = "dx";        // and of x
inline constexpr const char* kHp = "hp";        // AdamW's hyperparameters
inline constexpr const char* kGsq = "gsq";      // grad_norm's sum of squares
inline constexpr const char* kGnorm = "gnorm";  // and its square root
inline constexpr const char* kGn = "gn";        // grad_norm's chain: where from, where to
inline constexpr const char* kSlot = "slot";    // the embedding's stash slot for keep_dy
inline constexpr const char* kTier = "tier";    // a tiered op's tier (mesh_plan.cpp's spread_over_pes)
inline constexpr const char* kLoss = "loss";    // the loss's mean over the step
inline constexpr const char* kLsum = "lsum";    // and its running sum
}  // namespace symbol

// When a kernel exports an entry or a symbol.
enum class When : uint8_t { Always, Training, Streaming };
struct Export {
    const char* name;
    When when;
};

struct KernelInfo {
    OpKind kind;
    const char* file;                       // "matmul.wk"
    const char* inputs[3];                  // its input symbols, as many as the op has
    const char* link[3];                    // the constant naming each input's link colour (nullptr: never linked)
    const char* output;                     // "y" (the loss: "dx", the logits' gradient)
    const char* weights[2];                 // weight symbols; the GPT parameters come from the row
    // Training: each weight's gradient and AdamW moments. packed: w's and b's in one array each
    // (layernorm's dwb: w's R channels, then b's), named by grads[0], m[0], v[0].
    const char* grads[2];
    const char* m[2];
    const char* v[2];
    bool packed;
    bool train_switch;                      // TRAIN = 1 compiles its backward and AdamW in
    int send_slots;                         // readers its y can have over links (send_y, send_y2)
    const char* idle[2];                    // send colours looped back on its PEs when unlinked
    bool writes_dx;                         // its backward sends dx whole (the producer's dy)
    bool takes_dy;                          // its backward takes dy whole over a link
    bool relays;                            // its rows relay along the row (attention's heads, matmul's RY/RX)
    bool row_chain;                         // sums pass along its row on colours 1-3 (layernorm, the loss)
    std::span<const Export> exports;        // every entry and symbol the host names
    const char* grad_send(const char* symbol) const;   // the entry that sends input symbol's gradient up
};

const KernelInfo& kernel_info(OpKind kind);   // a kind with a kernel (not Softmax)
std::span<const KernelInfo> kernel_infos();

}  // namespace wl::gpt
