// op_table.cpp: see op_table.h. The rows follow gpt.cpp's forward(), llm.c's gpt2_forward.
#include "engine/gpt/op_table.h"

#include <charconv>
#include <cstring>
#include <stdexcept>

namespace wl::gpt {

namespace {

using K = OpKind;
using I = OpId;
constexpr Width kOne{Width::One, 1}, kC{Width::Embd, 1}, k3C{Width::Embd, 3}, k4C{Width::Embd, 4}, kV{Width::Vocab, 1};

// id, name, in_block, kind, forward, backward, grad, inputs, in, out, params, tied, prunable, mesh, words
constexpr OpRow kRows[] = {
    {I::Encoded, "encoded", false, K::Embedding, "encoder_forward", "encoder_backward", "dwte,dwpe", {I::Tokens, I::Tokens}, 1, kOne, kC, {"wte", "wpe"}, false, false, OnMesh::Forward,
     "the embedding: each token's vector plus its position's vector"},
    {I::Ln1, "ln1", true, K::LayerNorm, "layernorm_forward", "layernorm_backward", "dresidual", {I::Stream, I::Tokens}, 1, kC, kC, {"ln1w", "ln1b"}, false, false, OnMesh::Forward,
     "the layer norm before attention in layer %d: each token's vector scaled to mean 0 and variance 1"},
    {I::Qkv, "qkv", true, K::Matmul, "matmul_forward", "matmul_backward", "dln1", {I::Ln1, I::Tokens}, 1, kC, k3C, {"qkvw", "qkvb"}, false, true, OnMesh::Forward,
     "the matmul that makes the queries, keys and values for layer %d"},
    {I::Atty, "atty", true, K::Attention, "attention_forward", "attention_backward", "dqkv", {I::Qkv, I::Tokens}, 1, k3C, kC, {nullptr, nullptr}, false, false, OnMesh::Forward,
     "attention in layer %d: each token weighs the earlier tokens' values by how well its query matches their keys"},
    {I::Attproj, "attproj", true, K::Matmul, "matmul_forward", "matmul_backward", "datty", {I::Atty, I::Tokens}, 1, kC, kC, {"attprojw", "attprojb"}, false, true, OnMesh::Forward,
     "the matmul that mixes the attention heads' outputs back together, layer %d"},
    {I::Residual2, "residual2", true, K::Residual, "residual_forward", "residual_backward", "dattproj", {I::Stream, I::Attproj}, 2, kC, kC, {nullptr, nullptr}, false, false, OnMesh::Forward,
     "the residual add after attention in layer %d: the layer's input plus what attention made"},
    {I::Ln2, "ln2", true, K::LayerNorm, "layernorm_forward", "layernorm_backward", "dresidual2", {I::Residual2, I::Tokens}, 1, kC, kC, {"ln2w", "ln2b"}, false, false, OnMesh::Forward,
     "the layer norm before the MLP in layer %d"},
    {I::Fch, "fch", true, K::Matmul, "matmul_forward", "matmul_backward", "dln2", {I::Ln2, I::Tokens}, 1, kC, k4C, {"fcw", "fcb"}, false, true, OnMesh::Forward,
     "the MLP's first matmul in layer %d, which widens each token's vector four times"},
    {I::FchGelu, "fch_gelu", true, K::Gelu, "gelu_forward", "gelu_backward", "dfch", {I::Fch, I::Tokens}, 1, k4C, k4C, {nullptr, nullptr}, false, false, OnMesh::Forward,
     "GELU, the MLP's bend, in layer %d"},
    {I::Fcproj, "fcproj", true, K::Matmul, "matmul_forward", "matmul_backward", "dfch_gelu", {I::FchGelu, I::Tokens}, 1, k4C, kC, {"fcprojw", "fcprojb"}, false, true, OnMesh::Forward,
     "the MLP's second matmul in layer %d, back to the model's width"},
    {I::Residual3, "residual3", true, K::Residual, "residual_forward", "residual_backward", "dfcproj", {I::Residual2, I::Fcproj}, 2, kC, kC, {nullptr, nullptr}, false, false, OnMesh::Forward,
     "the residual add after the MLP in layer %d: the layer's output"},
    {I::Lnf, "lnf", false, K::LayerNorm, "layernorm_forward", "layernorm_backward", "dresidual", {I::Stream, I::Tokens}, 1, kC, kC, {"lnfw", "lnfb"}, false, false, OnMesh::Forward,
     "the final layer norm, before the logits"},
    {I::Logits, "logits", false, K::Matmul, "matmul_forward", "matmul_backward", "dlnf", {I::Lnf, I::Tokens}, 1, kC, kV, {"wte", nullptr}, true, false, OnMesh::Forward,
     "the matmul that scores every token of the vocabulary as the next one (with the embedding's weights, tied)"},
    // softmax's backward is the loss's (crossentropy_softmax_backward); on the mesh the loss's kernel
    // takes the logits and does both
    {I::Probs, "probs", false, K::Softmax, "softmax_forward", nullptr, nullptr, {I::Logits, I::Tokens}, 1, kV, kV, {nullptr, nullptr}, false, false, OnMesh::No,
     "softmax: the logits as probabilities"},
    {I::Losses, "losses", false, K::Loss, "crossentropy_forward", "crossentropy_softmax_backward", "dlogits", {I::Probs, I::Tokens}, 1, kV, kOne, {nullptr, nullptr}, false, false, OnMesh::Training,
     "the loss: softmax over the logits, cross-entropy against the true next token, and its gradient"},
};
static_assert(std::size(kRows) == size_t(OpId::Tokens), "a row per OpId, in order");

using W = When;
constexpr Export kEmbedding[] = {
    {entry::kMain, W::Always}, {entry::kSendY, W::Always}, {entry::kSendY2, W::Always},
    {"tok", W::Always}, {"y", W::Always}, {"wte", W::Always}, {"wpe", W::Always}, {symbol::kT0, W::Always}, {symbol::kTlen, W::Always},
    {entry::kZeroGrad, W::Training}, {entry::kKeepDy, W::Training}, {entry::kBackward, W::Training}, {entry::kAdamW, W::Training},
    {entry::kTieSend, W::Training}, {entry::kTieRecv, W::Training}, {entry::kGradNorm, W::Training},
    {symbol::kDy, W::Training}, {"dwte", W::Training}, {"dwpe", W::Training}, {"mte", W::Training}, {"vte", W::Training},
    {"mpe", W::Training}, {"vpe", W::Training}, {symbol::kHp, W::Training}, {symbol::kGsq, W::Training},
    {symbol::kGnorm, W::Training}, {symbol::kGn, W::Training}, {symbol::kSlot, W::Training},
    {entry::kTakeW, W::Streaming}, {entry::kSendG, W::Streaming},   // STORE: wte is the store's
};
constexpr Export kLayerNorm[] = {
    {entry::kMain, W::Always}, {entry::kSendY, W::Always},
    {"x", W::Always}, {"y", W::Always}, {"w", W::Always}, {"b", W::Always}, {symbol::kT0, W::Always}, {symbol::kTlen, W::Always},
    {entry::kZeroGrad, W::Training}, {entry::kBackward, W::Training}, {entry::kSendDx, W::Training}, {entry::kSendDx2, W::Training},
    {entry::kAdamW, W::Training}, {entry::kGradNorm, W::Training},
    {symbol::kDy, W::Training}, {symbol::kDx, W::Training}, {"dwb", W::Training}, {"mwb", W::Training}, {"vwb", W::Training},
    {symbol::kHp, W::Training}, {symbol::kGsq, W::Training}, {symbol::kGnorm, W::Training}, {symbol::kGn, W::Training},
    {entry::kLoadW, W::Streaming}, {entry::kTakeW, W::Streaming}, {entry::kSendG, W::Streaming},
};
constexpr Export kMatmul[] = {
    {entry::kMain, W::Always}, {entry::kSendY, W::Always},
    {"x", W::Always}, {"y", W::Always}, {"w", W::Always}, {"b", W::Always}, {symbol::kT0, W::Always}, {symbol::kTlen, W::Always},
    {entry::kZeroGrad, W::Training}, {entry::kTransposeW, W::Training}, {entry::kBackward, W::Training}, {entry::kSendDx, W::Training},
    {entry::kAdamW, W::Training}, {entry::kTieSend, W::Training}, {entry::kTieRecv, W::Training}, {entry::kGradNorm, W::Training},
    {symbol::kDy, W::Training}, {symbol::kDx, W::Training}, {"dw", W::Training}, {"db", W::Training}, {"mw", W::Training},
    {"vw", W::Training}, {"mb", W::Training}, {"vb", W::Training}, {symbol::kHp, W::Training}, {symbol::kGsq, W::Training},
    {symbol::kGnorm, W::Training}, {symbol::kGn, W::Training},
    {entry::kLoadW, W::Streaming}, {entry::kTakeW, W::Streaming}, {entry::kTakeWt, W::Streaming}, {entry::kSendG, W::Streaming},
    {entry::kKeepX, W::Streaming},
};
constexpr Export kAttention[] = {
    {entry::kMain, W::Always}, {entry::kSendY, W::Always},
    {"q", W::Always}, {"k", W::Always}, {"v", W::Always}, {"y", W::Always}, {symbol::kT0, W::Always}, {symbol::kTlen, W::Always},
    {entry::kBackward, W::Training}, {entry::kSendDqkv, W::Training},
    {symbol::kDy, W::Training}, {"dq", W::Training}, {"dk", W::Training}, {"dv", W::Training},
};
constexpr Export kResidual[] = {
    {entry::kMain, W::Always}, {entry::kSendY, W::Always}, {entry::kSendY2, W::Always},
    {"a", W::Always}, {"b", W::Always}, {"y", W::Always}, {symbol::kT0, W::Always}, {symbol::kTlen, W::Always},
};
constexpr Export kGelu[] = {
    {entry::kMain, W::Always}, {entry::kSendY, W::Always},
    {"x", W::Always}, {"y", W::Always}, {symbol::kT0, W::Always}, {symbol::kTlen, W::Always},
    {entry::kBackward, W::Training}, {entry::kSendDx, W::Training}, {symbol::kDy, W::Training}, {symbol::kDx, W::Training},
};
constexpr Export kLoss[] = {
    {entry::kZeroLoss, W::Always}, {entry::kMain, W::Always}, {entry::kSendDx, W::Always},
    {"x", W::Always}, {symbol::kDx, W::Always}, {symbol::kT0, W::Always}, {symbol::kTlen, W::Always},
    {symbol::kLoss, W::Always}, {symbol::kLsum, W::Always},
};

// kind, file, inputs, link, output, weights, grads, m, v, packed, train_switch, send_slots, idle,
// writes_dx, takes_dy, relays, row_chain, exports
const KernelInfo kKernels[] = {
    {K::Embedding, "embedding.wk", {"tok"}, {}, "y", {"wte", "wpe"}, {"dwte", "dwpe"}, {"mte", "mpe"}, {"vte", "vpe"}, false,
     true, 2, {"LY2"}, false, false, false, false, kEmbedding},
    {K::LayerNorm, "layernorm.wk", {"x"}, {"LX"}, "y", {"w", "b"}, {"dwb"}, {"mwb"}, {"vwb"}, true,
     true, 1, {"LDX", "LDX2"}, false, true, false, true, kLayerNorm},
    {K::Matmul, "matmul.wk", {"x"}, {"LX"}, "y", {"w", "b"}, {"dw", "db"}, {"mw", "mb"}, {"vw", "vb"}, false,
     true, 1, {"LDX"}, true, true, true, false, kMatmul},
    {K::Attention, "attention.wk", {"q", "k", "v"}, {"LQ", "LQ", "LQ"}, "y", {}, {}, {}, {}, false,
     true, 0, {}, false, false, true, false, kAttention},
    {K::Residual, "residual.wk", {"a", "b"}, {"LA", "LB"}, "y", {}, {}, {}, {}, false,
     false, 2, {"LY2"}, false, false, false, false, kResidual},
    {K::Gelu, "gelu.wk", {"x"}, {"LX"}, "y", {}, {}, {}, {}, false,
     true, 1, {"LDX"}, true, true, false, false, kGelu},
    {K::Loss, "crossentropy.wk", {"x"}, {"LX"}, "dx", {}, {}, {}, {}, false,
     false, 0, {"LDX"}, true, false, false, true, kLoss},
};

std::string block_name(int layer, std::string_view what) {   // appends: GCC 12 warns falsely on "l" + string
    std::string r = "l";
    r += std::to_string(layer);
    r += '.';
    r += what;
    return r;
}

}  // namespace

std::span<const OpRow> op_table() { return kRows; }

const OpRow& op_row(OpId id) {
    if (size_t(id) >= std::size(kRows)) throw std::logic_error("op_row: Tokens and Stream are inputs, not rows");
    return kRows[size_t(id)];
}

std::string op_name(const OpRow& r, int layer) { return r.in_block ? block_name(layer, r.name) : std::string(r.name); }

std::string grad_name(const OpRow& r, int layer) { return r.in_block ? block_name(layer, r.grad) : std::string(r.grad); }

std::string layer_unit_name(int layer, const char* what) { return block_name(layer, what); }

std::string input_name(const OpRow& r, int i, int layer, int n_layer) {
    const OpId in = r.in[i];
    if (in == OpId::Tokens) return "tokens";
    if (in != OpId::Stream) return op_name(op_row(in), layer);
    const int before = r.in_block ? layer - 1 : n_layer - 1;   // the block before's output
    return before < 0 ? op_row(OpId::Encoded).name : op_name(op_row(OpId::Residual3), before);
}

OpName parse_op_name(std::string_view name) {
    OpName n;
    n.rest = std::string(name);
    const size_t dot = name.find('.');
    if (name.size() > 1 && name[0] == 'l' && dot != std::string_view::npos) {
        int layer = -1;
        const auto [end, ec] = std::from_chars(name.data() + 1, name.data() + dot, layer);
        if (ec == std::errc() && end == name.data() + dot && layer >= 0) {
            n.layer = layer;
            n.rest = std::string(name.substr(dot + 1));
        }
    }
    for (const OpRow& r : kRows)
        if (r.in_block == (n.layer >= 0) && (n.rest == r.name || (r.mesh == OnMesh::Training && n.rest == r.grad))) n.row = &r;
    return n;
}

const char* KernelInfo::grad_send(const char* sym) const {
    if (kind == OpKind::Attention) return entry::kSendDqkv;
    return std::strcmp(sym, "x") == 0 && writes_dx ? entry::kSendDx : nullptr;
}

std::span<const KernelInfo> kernel_infos() { return kKernels; }

const KernelInfo& kernel_info(OpKind kind) {
    for (const KernelInfo& k : kKernels)
        if (k.kind == kind) return k;
    throw std::logic_error("kernel_info: softmax has no kernel of its own (the loss's takes the logits)");
}

}  // namespace wl::gpt
