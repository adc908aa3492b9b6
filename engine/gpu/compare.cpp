// compare.cpp: glue between the GPU model and the wafer estimate, plus the
// plain-language sentences shown under the charts.
#include "engine/gpu/compare.h"
#include "engine/fabric/mesh.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace wl::gpu {

const char* const kGpuSparsityNote =
    "GPU: dense kernels gain nothing from unstructured sparsity (the zeros are multiplied like any other "
    "weight); 2:4 structured sparsity (two non-zeros in every four weights) doubles tensor-core math on A100 and "
    "H100";
const char* const kGpuSparsitySource =
    "NVIDIA, \"NVIDIA Ampere Architecture In-Depth\" (developer.nvidia.com blog, 2020): fine-grained structured "
    "sparsity \"doubles compute throughput\"; Mishra et al., \"Accelerating Sparse Deep Neural Networks\" "
    "(NVIDIA, arXiv:2104.08378): Sparse Tensor Cores' 2:4 pattern \"leads to twice the math throughput of dense "
    "matrix units\"";

GpuPreset gpu_by_id(const std::string& id, const WaferSpec& emulated) {
    if (id == "a100") return a100_sxm_80gb();
    if (id == "a100-40gb") return a100_sxm_40gb();
    if (id == "h100") return h100_sxm();
    if (id == "same-silicon")
        return same_silicon(emulated.pes(), emulated.clock_hz, emulated.simd_fp32, emulated.sram_bytes());
    throw std::invalid_argument("unknown GPU '" + id + "' (a100 | a100-40gb | h100 | same-silicon)");
}

std::string format_seconds(double s) {
    char b[32];
    if (s >= 1) std::snprintf(b, sizeof b, "%.3g s", s);
    else if (s >= 1e-3) std::snprintf(b, sizeof b, "%.3g ms", s * 1e3);
    else if (s >= 1e-6 || s == 0) std::snprintf(b, sizeof b, "%.3g us", s * 1e6);
    else std::snprintf(b, sizeof b, "%.3g ns", s * 1e9);
    return b;
}

static std::string gpu_sentence(const GpuStep& s) {
    const double total = s.time_by_bound[0] + s.time_by_bound[1] + s.time_by_bound[2];
    const double fc = s.time_by_bound[0] / total, fm = s.time_by_bound[1] / total, fl = s.time_by_bound[2] / total;
    char b[640];
    const char* why;
    if (fl >= fc && fl >= fm)
        why = "the ops are so small that the ~5 us it costs the host to launch each kernel is longer than the "
              "kernel itself: the GPU mostly waits for work";
    else if (fm >= fc)
        why = "most kernels move more bytes than they compute on (low arithmetic intensity), so HBM bandwidth, not "
              "the tensor cores, sets the pace: the memory wall";
    else
        why = s.gpu.bf16_flops > s.gpu.fp32_flops
                  ? "the big matrix multiplies dominate and they reuse each byte many times, so the tensor cores "
                    "are the limit"
                  : "the matrix multiplies dominate and reuse each byte many times, so its arithmetic units are "
                    "the limit";
    std::snprintf(b, sizeof b,
                  "On the %s (%s), %.0f%% of the step is compute-bound, %.0f%% memory-bound and %.0f%% "
                  "launch-bound: %s. It reaches %.1f%% of its peak.%s",
                  s.gpu.name.c_str(), s.profile.id.c_str(), 100 * fc, 100 * fm, 100 * fl, why, 100 * s.mfu,
                  s.mem.fits ? "" : " The model does not fit in its memory at this batch.");
    return b;
}

static std::string wafer_sentence(const WaferEstimate& e, const GpuStep& g) {
    double by[5] = {0, 0, 0, 0, 0};   // compute, sram, fabric, stream, latency
    const char* names[5] = {"compute", "sram", "fabric", "stream", "latency"};
    for (const WaferOpTime& t : e.ops)
        for (int k = 0; k < 5; ++k)
            if (t.bound == names[k]) by[k] += t.time_s;
    const int top = int(std::max_element(by, by + 5) - by);
    const char* why[5] = {
        "each PE's own arithmetic sets the pace: operands sit in the PE's SRAM next to the ALU, so there is no "
        "memory wall, only the wafer's total FLOP/s",
        "SRAM ports (2 reads + 1 write per cycle) set the pace",
        "moving activations between PEs over the mesh links sets the pace: the communication wall moves onto "
        "the wafer",
        "the weights stream in from off-wafer memory over the wafer's I/O: the memory wall returns at the "
        "wafer's edge",
        "the ops are so small that filling and draining the mesh (W + H hops) dominates"};
    char b[640];
    std::snprintf(b, sizeof b,
                  "The wafer (%s, %s) takes %s per step vs the GPU's %s: %s. No kernel launches: tasks start when "
                  "data arrives. SRAM: %s.",
                  e.wafer.name.c_str(), e.kind.c_str(), format_seconds(e.step_s).c_str(), format_seconds(g.step_s).c_str(),
                  why[top], e.verdict.c_str());
    return b;
}

static std::string case_sentence(const WaferEstimate& e, double sparsity) {
    char b[900];
    std::string s;
    if (e.weight_streaming)
        std::snprintf(b, sizeof b,
                      "Streaming: every matmul's weights (%.3g MB a micro-batch%s) come in over the wafer's I/O at "
                      "%.3g GB/s, once per micro-batch of %d x %d tokens; each op's stream overlaps its compute, "
                      "so the stream sets the pace where it is longer (%s of stream a micro-batch).",
                      e.stream_bytes / 1e6, e.with_backward ? ", weight gradients out included" : "",
                      e.wafer.io_bytes_per_s / 1e9, e.B, e.T, format_seconds(e.stream_s).c_str());
    else
        std::snprintf(b, sizeof b, "Resident: every weight stays in the PEs' SRAM; nothing streams.");
    s = b;
    if (sparsity > 0) {
        std::snprintf(b, sizeof b,
                      " Sparsity %.2f: the wafer's qkv, attproj, fch and fcproj matmuls hold and multiply only the "
                      "non-zeros, compute x %.3f (density %.2f x (20 + T) / (2 + T), matmul.wk's cycles per "
                      "non-zero against per dense weight, T = %d), their activations' wavelets unchanged. %s.",
                      sparsity, sparse_matmul_factor(e.density, e.T), e.density, e.T, kGpuSparsityNote);
        s += b;
    }
    return s;
}

Comparison compare(const gpt::GPTConfig& cfg_in, const CompareOptions& o) {
    Comparison c;
    c.cfg = cfg_in;
    if (c.cfg.vocab_size <= 0) {
        c.cfg.vocab_size = o.vocab_if_unset;
        c.vocab_assumed = true;
    }
    const int B = o.batch > 0 ? o.batch : c.cfg.batch_size;
    const int T = o.T > 0 ? o.T : c.cfg.block_size;
    WaferSpec em = emulated_wafer(o.mesh, o.clock_hz);
    GpuPreset g = gpu_by_id(o.gpu, em);
    ExecProfile p = profile_by_id(o.profile);
    if (g.id == "same-silicon") p.gemm_precision = Precision::FP32;   // peaks are all fp32 there
    StepOptions so;
    so.B = B;
    so.T = T;
    so.with_backward = o.with_backward;
    so.grad_accum = o.grad_accum;
    so.gpus = o.gpus;
    c.gpu = model_step(c.cfg, g, p, so);
    if (!o.with_backward) {   // NVIDIA's sparse tensor cores: 2:4 doubles the GEMM's math (kGpuSparsitySource)
        const std::vector<gpt::OpInfo> ops = gpt::op_list(c.cfg, B, T, false);
        double delta = 0;
        bool any = false;
        for (size_t i = 0; i < ops.size() && i < c.gpu.ops.size(); i++) {
            const GpuOpTime& t = c.gpu.ops[i];
            if (ops[i].op != "matmul_forward" || !pruned_gemm(ops[i]) || !t.ex.tensor_core) continue;
            Executed half = t.ex;
            half.flops /= 2;
            delta += time_op(ops[i], half, g, p).time_s - t.time_s;
            any = true;
        }
        if (any) c.gpu_2to4_s = c.gpu.compute_s + c.gpu.opt.grad_accum * delta;
    }
    if (!(o.sparsity >= 0 && o.sparsity <= 0.95)) throw std::invalid_argument("sparsity is 0 .. 0.95");
    const WaferCase wc{o.execution, 1 - o.sparsity};
    c.wafer = estimate_wafer(c.cfg, em, B, T, o.with_backward, o.grad_accum, wc);
    for (const WaferSpec& w : {wse2(), wse3()})
        c.projections.push_back(estimate_wafer(c.cfg, w, B, T, o.with_backward, o.grad_accum, wc));
    // Per-replica comparison: one GPU's step against one wafer's step on the same micro-batch.
    c.ratio = c.gpu.compute_s / c.wafer.step_s;
    if (o.with_backward) c.emulated.why_not = "the emulated column measures one forward (--mode infer); a training step on the mesh is `bench mesh-gpt --train`";
    else if (o.kernels_dir.empty()) c.emulated.why_not = "not asked for";
    else if (o.sparsity > 0) c.emulated.why_not = "the emulated column runs dense weights: `bench sparsity` measures pruned ones";
    else {
        gpt::GPTConfig run = c.cfg;   // the measured forward runs the asked execution (the planner's own check)
        if (o.execution) run.execution = *o.execution;
        c.emulated = model::measure_forward(run, o.mesh.w, o.mesh.h, B, T, model::read_kernels(o.kernels_dir), o.clock_hz);
    }
    c.gpu_sentence = gpu_sentence(c.gpu);
    c.wafer_sentence = wafer_sentence(c.wafer, c.gpu);
    c.case_sentence = case_sentence(c.wafer, o.sparsity);
    return c;
}

std::string projection_sentence(const Comparison& c, double measured_s) {
    if (c.projections.empty()) return "";
    auto grouped = [](long long n) {
        std::string d = std::to_string(n), out;
        for (size_t i = 0; i < d.size(); i++) out += (i && (d.size() - i) % 3 == 0 ? "," : "") + d.substr(i, 1);
        return out;
    };
    const WaferEstimate& p = c.projections.front();
    const WaferSpec& em = c.wafer.wafer;
    const bool measured = measured_s > 0;
    const double mesh_s = measured ? measured_s : c.wafer.step_s;
    const double x = p.step_s > 0 ? mesh_s / p.step_s : 0;
    char b[640];
    std::snprintf(b, sizeof b,
                  "The emulated %d x %d mesh (%s PEs) %s %s per step; the estimate for the same step on a full %s (%s PEs) is %s, %.3gx %s%s.",
                  em.w, em.h, grouped(em.pes()).c_str(), measured ? "measured" : "is estimated at", format_seconds(mesh_s).c_str(),
                  p.wafer.id == "wse2" ? "WSE-2" : p.wafer.id.c_str(), grouped(p.wafer.pes()).c_str(), format_seconds(p.step_s).c_str(),
                  x >= 1 ? x : (x > 0 ? 1 / x : 0), x >= 1 ? "less" : "more",
                  measured ? " (the measured step runs each op on the few PEs the plan gives it, one op after another; the "
                             "projection is the cost model's, every op on the whole wafer)"
                           : "");
    std::string s = b;
    for (size_t i = 1; i < c.projections.size(); i++) {
        const WaferEstimate& q = c.projections[i];
        if (q.step_s <= p.step_s || q.wafer.pes() <= p.wafer.pes()) continue;
        int small = 0;
        for (const WaferOpTime& t : q.ops) small += t.bound == "latency";
        std::snprintf(b, sizeof b,
                      " %s comes out slower than %s (%s against %s) though it has more PEs: %d of the step's %zu ops are too small "
                      "to fill either wafer, so their time is filling and draining the grid (W + H cycles), and its grid is larger "
                      "(%d + %d against %d + %d).",
                      q.wafer.id == "wse3" ? "WSE-3" : q.wafer.id.c_str(), p.wafer.id == "wse2" ? "WSE-2" : p.wafer.id.c_str(),
                      format_seconds(q.step_s).c_str(), format_seconds(p.step_s).c_str(), small, q.ops.size(), q.wafer.w, q.wafer.h,
                      p.wafer.w, p.wafer.h);
        s += b;
    }
    return s;
}

static nlohmann::json emulated_json(const model::MeasuredForward& m) {
    if (!m.ran) return {{"ran", false}, {"why_not", m.why_not}, {"failed", m.failed}};
    nlohmann::json j = {{"ran", true}, {"mesh", {{"w", m.mesh_w}, {"h", m.mesh_h}}}, {"pes_used", m.pes_used}, {"B", m.B}, {"T", m.T},
                        {"cycles", m.cycles}, {"wafer_s", m.seconds}, {"wall_s", m.wall_s}, {"op_cycles", m.op_cycles}};
    j["seconds"] = m.seconds;   // wafer_s's old name, for one release (docs/js-api.md, "Renamed keys")
    return j;
}

nlohmann::json to_json(const Comparison& c) {
    nlohmann::json proj = nlohmann::json::array();
    for (const WaferEstimate& e : c.projections) {
        nlohmann::json j = to_json(e);
        j.erase("ops");   // totals only: the per-op rows are the emulated wafer's
        proj.push_back(j);
    }
    return {{"config",
             {{"n_layer", c.cfg.n_layer},
              {"n_head", c.cfg.n_head},
              {"n_embd", c.cfg.n_embd},
              {"block_size", c.cfg.block_size},
              {"vocab_size", c.cfg.vocab_size},
              {"vocab_assumed", c.vocab_assumed},
              {"parameters", gpt::count_parameters(c.cfg)}}},
            {"gpu", to_json(c.gpu)},
            {"wafer", to_json(c.wafer)},
            {"projections", proj},
            {"ratio_gpu_over_wafer", c.ratio},
            {"emulated", emulated_json(c.emulated)},
            {"gpu_sentence", c.gpu_sentence},
            {"wafer_sentence", c.wafer_sentence},
            {"case",
             {{"execution", execution_name(c.wafer.execution)},
              {"weight_streaming", c.wafer.weight_streaming},
              {"io_bytes_per_s", c.wafer.wafer.io_bytes_per_s},
              {"stream_bytes_per_micro_batch", c.wafer.stream_bytes},
              {"stream_s_per_micro_batch", c.wafer.stream_s},
              {"density", c.wafer.density},
              {"wafer_sparse_factor", sparse_matmul_factor(c.wafer.density, c.wafer.T)},
              {"gpu_sparsity", kGpuSparsityNote},
              {"gpu_sparsity_source", kGpuSparsitySource},
              {"gpu_2to4_step_s", c.gpu_2to4_s > 0 ? nlohmann::json(c.gpu_2to4_s) : nlohmann::json(nullptr)},
              {"sentence", c.case_sentence}}}};
}

nlohmann::json compare_json(const gpt::GPTConfig& cfg, const CompareOptions& o) { return to_json(compare(cfg, o)); }

nlohmann::json compare_call(const nlohmann::json& args, const std::string& models_dir) {
    try {
        if (!args.is_object()) throw std::invalid_argument("compare expects an object of arguments");
        std::string config = args.value("config", std::string("gpt-nano"));
        const bool is_path = config.find('/') != std::string::npos || config.find(".yaml") != std::string::npos;
        gpt::GPTConfig cfg = gpt::load_config(is_path ? config : models_dir + "/" + config + ".yaml");
        gpt::apply_overrides(cfg, args.value("set", std::string()), "set");
        CompareOptions o;
        o.gpu = args.value("gpu", o.gpu);
        o.profile = args.value("profile", o.profile);
        o.batch = args.value("batch", 0);
        o.gpus = args.value("gpus", 1);
        o.grad_accum = args.value("accum", cfg.grad_accum_steps);
        const std::string mode = args.value("mode", std::string("train"));
        if (mode != "train" && mode != "infer") throw std::invalid_argument("mode is train or infer");
        o.with_backward = mode == "train";
        if (!o.with_backward) o.kernels_dir = models_dir + "/kernels";
        if (args.contains("execution")) {
            gpt::Execution e;
            if (!gpt::execution_from_name(args.value("execution", std::string()), &e)) throw std::invalid_argument("execution is resident or streaming");
            o.execution = e;
        }
        o.sparsity = args.value("sparsity", 0.0);
        if (args.contains("mesh")) {
            Mesh m;
            if (!parse_mesh(args.value("mesh", std::string()), &m))
                throw std::invalid_argument("mesh " + mesh_error(args.value("mesh", std::string())));
            o.mesh.w = m.w;
            o.mesh.h = m.h;
        }
        if (o.batch < 0 || o.gpus < 1 || o.grad_accum < 1) throw std::invalid_argument("batch >= 0, gpus and accum >= 1");
        return compare_json(cfg, o);
    } catch (const std::exception& e) {
        return {{"error", e.what()}};
    }
}

}  // namespace wl::gpu
