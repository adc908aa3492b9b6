// gpu_model.cpp: the roofline-with-launch model of one GPT step on a GPU.
#include "engine/gpu/gpu_model.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace wl::gpu {

const char* bound_name(Bound b) {
    switch (b) {
    case Bound::Compute: return "compute";
    case Bound::Memory: return "memory";
    case Bound::Launch: return "launch";
    }
    return "?";
}

// [SECTION] workload: what the GPU runs for each reference op

bool gemm_shape(const gpt::OpInfo& op, const gpt::GPTConfig& cfg, int B, int T, GemmShape* out) {
    if (!op.row || op.row->kind != gpt::OpKind::Matmul) return false;
    *out = {double(B) * T, double(op.row->in_width.of(cfg)), double(op.row->out_width.of(cfg))};
    return true;
}

Executed executed(const gpt::OpInfo& op, const gpt::GPTConfig& cfg, int B, int T, const ExecProfile& p) {
    const double BT = double(B) * T, C = cfg.n_embd, V = cfg.vocab_size, NH = cfg.n_head, hs = C / NH;
    const double TT = double(B) * NH * T * T;                  // every (t, t2) score
    const double pairs = double(B) * NH * T * (T + 1) / 2.0;   // causal ones
    Executed e;
    e.flops = op.flops;
    e.bytes = op.bytes * p.act_bytes / 4.0;   // op_list counts fp32 operands
    const std::string& n = op.op;
    if (n == "matmul_forward") {
        e.tensor_core = true;
    } else if (n == "matmul_backward") {
        e.tensor_core = true;
        e.kernels = 3;   // d(input), d(weight), d(bias)
    } else if (n == "attention_forward" || n == "attention_backward") {
        const bool fwd = n == "attention_forward";
        e.tensor_core = true;
        if (p.flash_attention) {
            // Tiles of Q, K, V stay in shared memory; HBM sees q,k,v,out (+ dout, dq,dk,dv) and the row logsumexp.
            e.attention = true;
            e.flops = fwd ? op.flops : op.flops + pairs * 2 * hs;   // backward recomputes QK^T
            e.bytes = p.act_bytes * (fwd ? 4 : 8) * BT * C + 4 * double(B) * NH * T;
            e.kernels = fwd ? 1 : 2;
        } else {
            // softmax(mask(QK^T)) V as batched GEMMs over the full (T, T) matrix, which lives in HBM:
            // forward writes scores, softmax reads and writes them, @V reads them (4 passes);
            // backward reads probs, writes and reads dprobs, writes and reads dscores, reads probs again (6).
            // Under autocast softmax runs in fp32, so the probs pass and the casts around it move 4-byte values:
            // 2 of the forward passes and 4 of the backward passes are fp32 (plus the casts, at act_bytes).
            e.flops = fwd ? TT * (4 * hs + 5) : TT * (8 * hs + 6);
            const double tt_bytes = p.softmax_fp32 && p.act_bytes < 4
                                        ? (fwd ? 4 * p.act_bytes + 2 * 4 : 6 * p.act_bytes + 4 * 4)
                                        : (fwd ? 4 : 6) * p.act_bytes;
            e.bytes = p.act_bytes * (fwd ? 4 : 8) * BT * C + tt_bytes * TT;
            e.kernels = fwd ? 3 : 5;
        }
    } else if (n == "softmax_forward" || n == "crossentropy_forward" || n == "crossentropy_softmax_backward") {
        if (p.fused_classifier) {
            // One kernel reads the logits once and writes dlogits over them: probs never exist.
            if (n == "softmax_forward") e.bytes = p.act_bytes * BT * V;
            else if (n == "crossentropy_forward") { e.bytes = 4.0 * 2 * BT; e.kernels = 0; }
            else { e.bytes = p.act_bytes * BT * V; e.kernels = 0; }
        } else if (p.classifier_fp32) {
            e.bytes = op.bytes;   // fp32 as in the reference
            if (n == "softmax_forward" && p.act_bytes < 4) e.bytes += p.act_bytes * BT * V;   // the upcast reads bf16
        }
    } else if (n == "adamw_update") {
        const double P = double(gpt::count_parameters(cfg));
        // reads param, grad, m, v; writes param, m, v (fp32), plus the low-precision weight copy
        e.bytes = 4.0 * 6 * P + p.grad_bytes * P + p.weight_copy_bytes * P;
        e.kernels = p.fused_adamw ? 1 : gpt::kNumParamTensors;
    }
    return e;
}

// [SECTION] per-op time

GpuOpTime time_op(const gpt::OpInfo& op, const Executed& ex, const GpuPreset& g, const ExecProfile& p) {
    GpuOpTime t;
    t.op = op.op;
    t.tensor = op.tensor;
    t.row = op.row;
    t.layer = op.layer;
    t.ref_flops = op.flops;
    t.ref_bytes = op.bytes;
    t.ex = ex;
    const double peak = ex.tensor_core ? g.peak(p.gemm_precision) : g.fp32_flops;   // non-GEMM math on CUDA cores
    const double eff = ex.attention ? p.attn_eff : p.gemm_eff;
    t.compute_s = ex.flops / (peak * eff);
    t.memory_s = ex.bytes / (g.hbm_bytes_per_s * p.mem_eff);
    t.launch_s = ex.kernels * g.launch_s;
    const double body = std::max(t.compute_s, t.memory_s);
    t.time_s = body + t.launch_s;
    t.bound = t.launch_s > body ? Bound::Launch : (t.compute_s >= t.memory_s ? Bound::Compute : Bound::Memory);
    t.intensity = ex.bytes > 0 ? ex.flops / ex.bytes : 0;
    t.achieved_flops = t.time_s > 0 ? ex.flops / t.time_s : 0;
    return t;
}

// [SECTION] footprint

Footprint footprint(const gpt::GPTConfig& cfg, int B, int T, bool with_backward, const GpuPreset& g,
                    const ExecProfile& p) {
    const double P = double(gpt::count_parameters(cfg));
    const double BT = double(B) * T, C = cfg.n_embd, V = cfg.vocab_size, NH = cfg.n_head, L = cfg.n_layer;
    Footprint f;
    f.params = 4 * P;   // fp32 master weights
    f.weight_copy = p.weight_copy_bytes * P;
    f.grads = with_backward ? p.grad_bytes * P : 0;
    f.adam = with_backward ? 8 * P : 0;   // m and v, fp32
    // Saved activations (gpt.h ActivationTensors): per layer and token 18 C values at act_bytes, 4 fp32 norm stats,
    // and the (T) attention row unless flash attention keeps only the row's logsumexp.
    const double per_layer = p.act_bytes * 18 * C + 4 * 4 + (p.flash_attention ? 4 * NH : p.act_bytes * NH * T);
    const double cls = p.classifier_fp32 ? 4 : p.act_bytes;
    const double final_ = p.act_bytes * 2 * C + 4 * 3 + cls * V * (p.fused_classifier ? 1 : 2);
    const double layers = with_backward ? L : std::min(L, 1.0);   // inference keeps one layer's worth
    f.activations = BT * (layers * per_layer + final_);
    f.grad_acts = with_backward && p.grad_acts_full ? f.activations * 4 / p.act_bytes : 0;
    f.total = f.params + f.weight_copy + f.grads + f.adam + f.activations + f.grad_acts;
    f.capacity = g.mem_bytes;
    f.fits = f.total <= f.capacity;
    char b[256];
    if (f.fits)
        std::snprintf(b, sizeof b, "fits: %.2f GB of %.0f GB (%.0f%%)", f.total / 1e9, f.capacity / 1e9,
                      100 * f.total / f.capacity);
    else
        std::snprintf(b, sizeof b,
                      "does not fit: needs %.1f GB, has %.0f GB; use a smaller micro-batch with gradient "
                      "accumulation, activation recomputation, or shard the model",
                      f.total / 1e9, f.capacity / 1e9);
    f.verdict = b;
    return f;
}

// [SECTION] data parallel

AllReduce ring_allreduce(double bytes, int n, const GpuPreset& g) {
    AllReduce a;
    a.n = n;
    a.bytes = bytes;
    if (n <= 1 || bytes <= 0) {
        a.link = "none";
        return a;
    }
    const int per_node = std::max(1, g.gpus_per_node);
    a.nodes = (n + per_node - 1) / per_node;
    const bool intra = a.nodes == 1;
    a.link = intra ? "NVLink" : "InfiniBand";
    // NCCL runs one ring per NIC, so across nodes each ring's slowest hop is one NIC.
    a.bandwidth = intra ? g.nvlink_bytes_per_s * g.nvlink_eff : g.ib_bytes_per_s * g.ib_eff;
    // Ring: reduce-scatter then all-gather, each n-1 steps moving bytes/n per GPU.
    a.steps = 2 * (n - 1);
    a.inter_steps = intra ? 0 : std::min(a.steps, 2 * a.nodes);
    a.latency_s = g.ring_base_latency_s + (a.steps - a.inter_steps) * g.nvlink_latency_s +
                  a.inter_steps * g.ib_latency_s;
    if (!intra) a.latency_s *= 1.4;   // NCCL's "plateau effect of ring" for multi-node all-reduce (sm80+)
    a.seconds = 2.0 * (n - 1) / n * bytes / a.bandwidth + a.latency_s;
    return a;
}

// [SECTION] the step

GpuStep model_step(const gpt::GPTConfig& cfg, const GpuPreset& g, const ExecProfile& p, const StepOptions& o) {
    GpuStep s;
    s.gpu = g;
    s.profile = p;
    s.opt = o;
    const int accum = std::max(1, o.grad_accum), gpus = std::max(1, o.gpus);
    double ref_micro = 0, ref_opt = 0;
    for (const gpt::OpInfo& op : gpt::op_list(cfg, o.B, o.T, o.with_backward)) {
        GpuOpTime t = time_op(op, executed(op, cfg, o.B, o.T, p), g, p);
        const bool opt_op = op.op == "adamw_update";
        (opt_op ? s.optimizer_s : s.micro_s) += t.time_s;
        (opt_op ? ref_opt : ref_micro) += op.flops;
        s.time_by_bound[int(t.bound)] += t.time_s * (opt_op ? 1 : accum);
        s.ops.push_back(std::move(t));
    }
    s.compute_s = accum * s.micro_s + s.optimizer_s;
    const double P = double(gpt::count_parameters(cfg));
    s.allreduce = ring_allreduce(o.with_backward ? P * p.grad_bytes : 0, gpus, g);
    s.step_s = s.compute_s + s.allreduce.seconds;
    s.tokens_per_step = double(o.B) * o.T * accum * gpus;
    s.tokens_per_s = s.tokens_per_step / s.step_s;
    s.ref_flops_per_step = accum * ref_micro + ref_opt;
    s.achieved_flops_per_gpu = s.ref_flops_per_step / s.step_s;
    s.mfu = s.achieved_flops_per_gpu / g.peak(p.gemm_precision);
    s.mem = footprint(cfg, o.B, o.T, o.with_backward, g, p);
    return s;
}

// [SECTION] JSON

nlohmann::json to_json(const GpuPreset& g) {
    nlohmann::json src = nlohmann::json::array();
    for (auto& x : g.sources) src.push_back({{"what", x.what}, {"value", x.value}, {"source", x.source}});
    return {{"id", g.id},
            {"name", g.name},
            {"fp32_flops", g.fp32_flops},
            {"tf32_flops", g.tf32_flops},
            {"bf16_flops", g.bf16_flops},
            {"hbm_bytes_per_s", g.hbm_bytes_per_s},
            {"l2_bytes", g.l2_bytes},
            {"sms", g.sms},
            {"launch_s", g.launch_s},
            {"mem_bytes", g.mem_bytes},
            {"nvlink_bytes_per_s", g.nvlink_bytes_per_s},
            {"ib_bytes_per_s", g.ib_bytes_per_s},
            {"nvlink_eff", g.nvlink_eff},
            {"ib_eff", g.ib_eff},
            {"ring_base_latency_s", g.ring_base_latency_s},
            {"nvlink_latency_s", g.nvlink_latency_s},
            {"ib_latency_s", g.ib_latency_s},
            {"power_w", g.power_w},
            {"sources", src}};
}

nlohmann::json to_json(const ExecProfile& p) {
    nlohmann::json src = nlohmann::json::array();
    for (auto& x : p.sources) src.push_back({{"what", x.what}, {"value", x.value}, {"source", x.source}});
    return {{"id", p.id},
            {"description", p.description},
            {"gemm_precision", precision_name(p.gemm_precision)},
            {"act_bytes", p.act_bytes},
            {"grad_bytes", p.grad_bytes},
            {"flash_attention", p.flash_attention},
            {"fused_classifier", p.fused_classifier},
            {"fused_adamw", p.fused_adamw},
            {"gemm_eff", p.gemm_eff},
            {"attn_eff", p.attn_eff},
            {"mem_eff", p.mem_eff},
            {"sources", src}};
}

nlohmann::json to_json(const GpuStep& s) {
    nlohmann::json ops = nlohmann::json::array();
    for (const GpuOpTime& t : s.ops)
        ops.push_back({{"op", t.op},
                       {"tensor", t.tensor},
                       {"layer", t.layer},
                       {"ref_flops", t.ref_flops},
                       {"ref_bytes", t.ref_bytes},
                       {"flops", t.ex.flops},
                       {"bytes", t.ex.bytes},
                       {"kernels", t.ex.kernels},
                       {"compute_s", t.compute_s},
                       {"memory_s", t.memory_s},
                       {"launch_s", t.launch_s},
                       {"time_s", t.time_s},
                       {"bound", bound_name(t.bound)},
                       {"intensity", t.intensity},
                       {"achieved_flops", t.achieved_flops}});
    const Footprint& f = s.mem;
    return {{"gpu", to_json(s.gpu)},
            {"profile", to_json(s.profile)},
            {"batch", s.opt.B},
            {"T", s.opt.T},
            {"with_backward", s.opt.with_backward},
            {"grad_accum", s.opt.grad_accum},
            {"gpus", s.opt.gpus},
            {"ops", ops},
            {"micro_s", s.micro_s},
            {"optimizer_s", s.optimizer_s},
            {"compute_s", s.compute_s},
            {"allreduce",
             {{"n", s.allreduce.n},
              {"nodes", s.allreduce.nodes},
              {"steps", s.allreduce.steps},
              {"inter_steps", s.allreduce.inter_steps},
              {"bytes", s.allreduce.bytes},
              {"bandwidth", s.allreduce.bandwidth},
              {"latency_s", s.allreduce.latency_s},
              {"time_s", s.allreduce.seconds},
              {"seconds", s.allreduce.seconds},   // time_s's old name, for one release (docs/js-api.md)
              {"link", s.allreduce.link}}},
            {"step_s", s.step_s},
            {"tokens_per_step", s.tokens_per_step},
            {"tokens_per_s", s.tokens_per_s},
            {"ref_flops_per_step", s.ref_flops_per_step},
            {"achieved_flops_per_gpu", s.achieved_flops_per_gpu},
            {"mfu", s.mfu},
            {"time_by_bound",
             {{"compute", s.time_by_bound[0]}, {"memory", s.time_by_bound[1]}, {"launch", s.time_by_bound[2]}}},
            {"footprint",
             {{"params", f.params},
              {"weight_copy", f.weight_copy},
              {"grads", f.grads},
              {"adam", f.adam},
              {"activations", f.activations},
              {"grad_acts", f.grad_acts},
              {"total", f.total},
              {"capacity", f.capacity},
              {"fits", f.fits},
              {"verdict", f.verdict}}}};
}

}  // namespace wl::gpu
