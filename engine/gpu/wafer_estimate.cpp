// wafer_estimate.cpp: the analytical wafer estimate. Costs come from the ISA
// table (engine/fabric/isa.h), so a change to an instruction's cost moves it.
#include "engine/gpu/wafer_estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <nlohmann/json.hpp>

#include "engine/fabric/isa.h"
#include "engine/gpu/gpu_model.h"

namespace wl::gpu {

namespace {
double per_elem(Op op) { return op_info(op).per_elem; }
double base_cycles(Op op) { return op_info(op).base_cycles; }
}  // namespace

WaferSpec emulated_wafer(const MachineConfig& mc, double clock_hz) {
    WaferSpec s;
    s.id = "emulated";
    s.w = mc.w;
    s.h = mc.h;
    s.clock_hz = clock_hz;
    s.simd_fp32 = mc.simd_fp32;
    s.sram_bytes_per_pe = mc.sram_bytes;
    const WaferFacts& cs = wse2_facts();   // each edge PE gets the CS-2's per-edge-PE share (model::EdgeLink::wse2)
    s.io_bytes_per_s = cs.io_bytes_per_s * double(mc.w + mc.h) / double(cs.grid_w + cs.grid_h);
    char b[128];
    std::snprintf(b, sizeof b, "emulated mesh %d x %d PEs, %d fp32 lane(s), %.2f GHz", s.w, s.h, s.simd_fp32,
                  clock_hz / 1e9);
    s.name = b;
    s.sources = {{"mesh, SRAM, SIMD", "MachineConfig", "engine/fabric/machine.h defaults"},
                 clock_source(),
                 {"I/O for weight streaming", "2 (W+H) edge PEs x the CS-2's 150 GB/s / 3,506 edge PEs",
                  "a CS-2 edge PE's share of its I/O, as weight streaming's edge links (docs/weight-streaming.md)"}};
    return s;
}

// A published wafer at the emulator's cost model (one fp32 lane per PE).
static WaferSpec published(const WaferFacts& f) {
    WaferSpec s;
    s.id = f.id;
    s.name = std::string(f.name) + " (user grid " + std::to_string(f.grid_w) + " x " + std::to_string(f.grid_h) +
             "), fp32 at the emulator's cost model";
    s.w = f.grid_w;
    s.h = f.grid_h;
    s.sram_bytes_per_pe = kSramBytesPerPe;
    s.io_bytes_per_s = f.io_bytes_per_s;
    s.sources = wafer_facts_sources(f);
    return s;
}

WaferSpec wse2() { return published(wse2_facts()); }
WaferSpec wse3() { return published(wse3_facts()); }

const char* execution_name(WaferExecution e) { return e ? gpt::execution_name(*e) : "by fit"; }

// matmul.wk's gemm path (docs/model-compiler.md, "What costs what"): a dense weight costs T
// elements (one fmacs) and about 2 cycles (its pass of a map, a share of the map's set-up), a
// non-zero T and 20 (the index walk), a zero nothing.
double sparse_matmul_factor(double density, int T) { return density * (20.0 + T) / (2.0 + T); }

bool pruned_gemm(const gpt::OpInfo& op) { return op.row && op.row->prunable; }

// [SECTION] per-op cycles

namespace {
struct Cyc {
    double compute = 0, sram = 0, fabric = 0, stream = 0, latency = 0;
};

Cyc op_cycles(const gpt::OpInfo& op, const gpt::GPTConfig& cfg, const WaferSpec& w, int B, int T, bool streaming,
              double density, double* stream_bytes) {
    const double P = double(w.pes()), S = w.simd_fp32, BT = double(B) * T, C = cfg.n_embd, NH = cfg.n_head,
                 hs = C / NH, V = cfg.vocab_size;
    const double pairs = double(B) * NH * T * (T + 1) / 2.0;
    Cyc c;
    c.latency = w.w + w.h;                          // fill and drain across the mesh
    c.sram = op.bytes / (P * kSramBytesPerCycle);   // 2 reads + 1 write of 4 bytes per cycle per PE
    c.compute = op.flops / (P * S);                 // one element op per lane per cycle
    const std::string& n = op.op;
    GemmShape g;
    if (gemm_shape(op, cfg, B, T, &g)) {
        // Weight-stationary: rows of the mesh split IC, columns split OC. Per token each PE runs ic_t fmacs of
        // length oc_t (base + ceil(oc_t * per / simd) cycles each), receives ic_t inputs along its row and
        // forwards oc_t partial sums down its column: the two links work in parallel.
        const double count = std::max(1.0, std::round(op.flops / (2 * g.N * g.IC * g.OC)));   // 1 fwd, 2 bwd
        const double ic_t = std::ceil(g.IC / w.h), oc_t = std::ceil(g.OC / w.w);
        const double fm = base_cycles(Op::FMACS) + std::ceil(oc_t * per_elem(Op::FMACS) / S);
        c.compute = count * g.N * ic_t * fm;
        c.sram = count * g.N * ic_t * oc_t;   // each fmac element reads 2 words and writes 1: one port-cycle
        c.fabric = count * g.N * std::max(ic_t, oc_t);   // activations are dense: the same at any density
        if (density < 1 && pruned_gemm(op)) {
            const double f = sparse_matmul_factor(density, T);
            c.compute *= f;
            c.sram *= f;
        }
        if (streaming) {
            // Weights in, grads out; dense weights (sparse ones do not stream yet, as in the emulator).
            const double wbytes = 4 * g.IC * g.OC * (n == "matmul_backward" ? 2 : 1);
            c.stream = wbytes / w.io_bytes_per_s * w.clock_hz;
            *stream_bytes += wbytes;
        }
    } else if (n == "attention_forward" || n == "attention_backward") {
        const bool fwd = n == "attention_forward";
        // Query rows spread over the PEs; K and V of each (b, head) stream past the PEs holding its rows.
        c.compute = op.flops / 2 / (P * S) + pairs * per_elem(Op::FEXPS) * (fwd ? 1 : 0) / (P * S);
        const double rows_per_pe = std::ceil(double(B) * NH * T / P);
        const double streams = std::max(1.0, std::ceil(rows_per_pe / T));
        c.fabric = streams * (fwd ? 2 : 4) * T * hs;
    } else if (n == "gelu_forward" || n == "gelu_backward") {
        c.compute += BT * 4 * C * (per_elem(Op::FTANHS) - 1) / (P * S);
    } else if (n == "softmax_forward") {
        c.compute += BT * V * (per_elem(Op::FEXPS) - 1) / (P * S);
    } else if (n == "layernorm_forward" || n == "layernorm_backward") {
        c.compute += BT * per_elem(Op::FRSQRTS) / (P * S);
        c.latency *= 2;   // reduce a row across the mesh, then broadcast mean and rstd back
    } else if (n == "adamw_update") {
        if (streaming) return Cyc{};   // runs off-wafer (MemoryX) while weights stream: not modelled here
        const double params = double(gpt::count_parameters(cfg));
        c.compute += params * (per_elem(Op::FSQRTS) + 2 * per_elem(Op::FDIVS)) / (P * S);   // the kernels' update: a root, two divides
    }
    return c;
}
}  // namespace

WaferEstimate estimate_wafer(const gpt::GPTConfig& cfg, const WaferSpec& w, int B, int T, bool with_backward,
                             int grad_accum, const WaferCase& wc) {
    WaferEstimate e;
    e.execution = wc.execution;
    e.density = wc.density;
    e.wafer = w;
    e.B = B;
    e.T = T;
    e.grad_accum = std::max(1, grad_accum);
    e.with_backward = with_backward;
    // What must live in SRAM (fp32, the reference's layout): weights, grads, m, v, saved activations.
    const double P = double(gpt::count_parameters(cfg));
    const double BT = double(B) * T, C = cfg.n_embd, V = cfg.vocab_size, NH = cfg.n_head, L = cfg.n_layer;
    e.sram_weights = 4 * P * (with_backward ? 4 : 1);
    const double per_tok = (with_backward ? L : 1.0) * (18 * C + 4 + NH * T) + 2 * C + 3 + 2 * V;
    e.sram_activations = 4 * BT * per_tok;
    e.sram_needed = e.sram_weights + e.sram_activations;
    const double have = w.sram_bytes();
    e.fits_sram = e.sram_needed <= have;
    e.weight_streaming = wc.execution == gpt::Execution::Streaming || (!wc.execution && !e.fits_sram);
    // Streaming keeps activations plus double-buffered weights of the largest layer on the wafer.
    const double layer_w = 4 * 2 * std::max(12 * C * C, C * V);
    e.activations_fit = e.sram_activations + (e.weight_streaming ? layer_w : 0) <= have;
    auto mb = [](double v) {
        char t[32];
        if (v >= 1e9) std::snprintf(t, sizeof t, "%.3g GB", v / 1e9);
        else std::snprintf(t, sizeof t, "%.3g MB", v / 1e6);
        return std::string(t);
    };
    char b[320];
    if (!e.fits_sram && wc.execution == gpt::Execution::Resident)
        std::snprintf(b, sizeof b,
                      "resident asked, but it needs %s of %s SRAM: it does not fit (the time assumes it did)",
                      mb(e.sram_needed).c_str(), mb(have).c_str());
    else if (e.weight_streaming && e.activations_fit)
        std::snprintf(b, sizeof b,
                      "weight streaming%s: each layer's matmul weights stream in%s over the wafer's %s/s I/O once "
                      "per micro-batch of %d sequences; activations stay on the wafer",
                      e.fits_sram ? " (asked; it would also fit resident)" : "",
                      with_backward ? " (and their gradients out)" : "", mb(w.io_bytes_per_s).c_str(), B);
    else if (e.fits_sram)
        std::snprintf(b, sizeof b, "fits in SRAM: %s of %s; weights stay on the wafer", mb(e.sram_needed).c_str(),
                      mb(have).c_str());
    else if (e.activations_fit)
        std::snprintf(b, sizeof b,
                      "weights (%s with grads and AdamW state) exceed SRAM (%s): weight streaming, activations stay "
                      "on the wafer",
                      mb(e.sram_weights).c_str(), mb(have).c_str());
    else
        std::snprintf(b, sizeof b,
                      "does not fit: activations alone need %s of %s SRAM even with weight streaming; use a smaller "
                      "batch or recompute activations (the estimate assumes they fit)",
                      mb(e.sram_activations).c_str(), mb(have).c_str());
    e.verdict = b;

    double ref_micro = 0, ref_opt = 0;
    for (const gpt::OpInfo& op : gpt::op_list(cfg, B, T, with_backward)) {
        Cyc c = op_cycles(op, cfg, w, B, T, e.weight_streaming, wc.density, &e.stream_bytes);
        e.stream_s += c.stream / w.clock_hz;
        WaferOpTime t;
        t.op = op.op;
        t.tensor = op.tensor;
        t.layer = op.layer;
        t.row = op.row;
        t.flops = op.flops;
        t.bytes = op.bytes;
        const double hz = w.clock_hz;
        t.compute_s = c.compute / hz;
        t.sram_s = c.sram / hz;
        t.fabric_s = c.fabric / hz;
        t.stream_s = c.stream / hz;
        t.latency_s = c.latency / hz;
        const double body = std::max({t.compute_s, t.sram_s, t.fabric_s, t.stream_s});
        t.time_s = body + t.latency_s;
        t.bound = c.compute + c.latency == 0    ? "off-wafer"
                  : t.latency_s > body          ? "latency"
                  : body == t.compute_s         ? "compute"
                  : body == t.stream_s          ? "stream"
                  : body == t.fabric_s          ? "fabric"
                                                : "sram";
        t.intensity = op.bytes > 0 ? op.flops / op.bytes : 0;
        t.achieved_flops = t.time_s > 0 ? op.flops / t.time_s : 0;
        const bool opt = op.op == "adamw_update";
        (opt ? e.optimizer_s : e.micro_s) += t.time_s;
        (opt ? ref_opt : ref_micro) += op.flops;
        e.ops.push_back(std::move(t));
    }
    e.step_s = e.grad_accum * e.micro_s + e.optimizer_s;
    e.tokens_per_s = BT * e.grad_accum / e.step_s;
    e.ref_flops_per_step = e.grad_accum * ref_micro + ref_opt;
    e.achieved_flops = e.ref_flops_per_step / e.step_s;
    e.utilisation = e.achieved_flops / w.peak_flops();
    return e;
}

nlohmann::json to_json(const WaferSpec& w) {
    nlohmann::json src = nlohmann::json::array();
    for (auto& x : w.sources) src.push_back({{"what", x.what}, {"value", x.value}, {"source", x.source}});
    return {{"id", w.id},           {"name", w.name},
            {"w", w.w},             {"h", w.h},
            {"pes", w.pes()},       {"clock_hz", w.clock_hz},
            {"simd_fp32", w.simd_fp32}, {"sram_bytes_per_pe", w.sram_bytes_per_pe},
            {"sram_bytes", w.sram_bytes()}, {"peak_flops", w.peak_flops()},
            {"io_bytes_per_s", w.io_bytes_per_s}, {"sources", src}};
}

nlohmann::json to_json(const WaferEstimate& e) {
    nlohmann::json ops = nlohmann::json::array();
    for (const WaferOpTime& t : e.ops)
        ops.push_back({{"op", t.op},
                       {"tensor", t.tensor},
                       {"layer", t.layer},
                       {"flops", t.flops},
                       {"bytes", t.bytes},
                       {"compute_s", t.compute_s},
                       {"sram_s", t.sram_s},
                       {"fabric_s", t.fabric_s},
                       {"stream_s", t.stream_s},
                       {"latency_s", t.latency_s},
                       {"time_s", t.time_s},
                       {"bound", t.bound},
                       {"intensity", t.intensity},
                       {"achieved_flops", t.achieved_flops}});
    return {{"wafer", to_json(e.wafer)},
            {"kind", e.kind},
            {"batch", e.B},
            {"T", e.T},
            {"grad_accum", e.grad_accum},
            {"with_backward", e.with_backward},
            {"ops", ops},
            {"micro_s", e.micro_s},
            {"optimizer_s", e.optimizer_s},
            {"step_s", e.step_s},
            {"tokens_per_s", e.tokens_per_s},
            {"ref_flops_per_step", e.ref_flops_per_step},
            {"achieved_flops", e.achieved_flops},
            {"utilisation", e.utilisation},
            {"sram_needed", e.sram_needed},
            {"sram_weights", e.sram_weights},
            {"sram_activations", e.sram_activations},
            {"fits_sram", e.fits_sram},
            {"weight_streaming", e.weight_streaming},
            {"activations_fit", e.activations_fit},
            {"execution", execution_name(e.execution)},
            {"density", e.density},
            {"stream_bytes", e.stream_bytes},
            {"stream_s", e.stream_s},
            {"verdict", e.verdict}};
}

}  // namespace wl::gpu
