// mesh_gpt.cpp: see mesh_gpt.h.
#include "engine/model/mesh_gpt.h"

#include "engine/fabric/fault.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace wl::model {

namespace {

// One layer's slice of a GPT parameter tensor (layer -1: the whole tensor).
struct Param {
    const float* data = nullptr;
    int rows = 0, cols = 0;       // the slice as a matrix (vectors: 1 row)
};

Param param(const gpt::GPT& m, const std::string& name, int layer) {
    const float* base = m.params_memory.data();
    for (const gpt::ParamInfo& info : gpt::param_infos(m.cfg)) {
        if (info.name == name) {
            std::vector<int> shape = info.shape;
            size_t count = info.count;
            const bool per_layer = layer >= 0 && shape.size() >= 2 && shape[0] == m.L && name != "wte" && name != "wpe";
            if (per_layer) {
                count /= size_t(m.L);
                base += size_t(layer) * count;
                shape.erase(shape.begin());
            }
            return {base, shape.size() == 2 ? shape[0] : 1, shape.size() == 2 ? shape[1] : shape[0]};
        }
        base += info.count;
    }
    throw std::logic_error("mesh_gpt: no parameter " + name);
}

int constant(const PlannedOp& op, const char* k) { return int(op.constants.at(k)); }

void check(const Fault& f) {   // host calls fail only on a plan/kernel mismatch
    if (f) throw std::runtime_error(f.to_string());
}

}  // namespace

MeshGPT::MeshGPT(MeshPlan plan, const gpt::GPT& model, RunMode mode)
    : plan_(std::move(plan)), host_(MachineConfig{plan_.mesh_w, plan_.mesh_h, plan_.sram_bytes}) {
    host_.machine().set_mode(mode);
    for (const PlannedOp& op : plan_.ops) {
        for (const lang::Placement& p : op.compiled->placements)
            check(host_.load(*p.program, {op.rect.x + p.x, op.rect.y + p.y, p.w, p.h}));
        for (const lang::RouteSetting& r : op.compiled->routes)
            check(host_.route(op.rect.x + r.x, op.rect.y + r.y, r.colour, r.route));
    }
    load_weights(model);
}

// Each kernel's weights, cut the way its file says (models/kernels/*.wk).
void MeshGPT::load_weights(const gpt::GPT& model) {
    for (const PlannedOp& op : plan_.ops) {
        for (int p = 0; p < op.rect.w; p++) {
            const int x = op.rect.x + p, y = op.rect.y;
            for (const auto& [sym, name] : op.weights) {
                const Param w = param(model, name, op.layer);
                std::vector<float> buf;
                if (op.kernel == "matmul.wk") {          // rows p*NC.. of (OC, K), zero past OC
                    const int NC = constant(op, "NC");
                    const int cols = sym == "b" ? 1 : w.cols, rows = sym == "b" ? w.cols : w.rows;
                    buf.assign(size_t(NC) * cols, 0.0f);
                    for (int r = 0; r < NC && p * NC + r < rows; r++)
                        std::copy_n(w.data + size_t(p * NC + r) * cols, cols, buf.begin() + size_t(r) * cols);
                } else if (op.kernel == "embedding.wk") {   // columns p*CP.. of (rows, C)
                    const int CP = constant(op, "CP");
                    buf.resize(size_t(w.rows) * CP);
                    for (int r = 0; r < w.rows; r++)
                        std::copy_n(w.data + size_t(r) * w.cols + size_t(p) * CP, CP, buf.begin() + size_t(r) * CP);
                } else {                                    // the whole vector on every PE
                    buf.assign(w.data, w.data + size_t(w.rows) * w.cols);
                }
                check(host_.h2d(x, y, sym, buf.data(), buf.size()));
            }
        }
    }
}

void MeshGPT::put(const PlannedOp& op, const Transfer& tr, int T) {
    const int TP = plan_.cfg.block_size;
    for (int p = 0; p < op.rect.w; p++) {
        const int x = op.rect.x + p, y = op.rect.y;
        if (tr.slice == Slice::Tokens) {
            std::vector<uint32_t> tok(size_t(TP), 0);
            for (int t = 0; t < T; t++) tok[size_t(t)] = uint32_t(tokens_[size_t(t)]);
            check(host_.h2d_u32(x, y, tr.symbol, tok.data(), tok.size()));
            continue;
        }
        const std::vector<float>& a = acts_.at(tr.tensor);
        std::vector<float> buf;
        if (tr.slice == Slice::Rows) {
            buf.assign(size_t(tr.per_pe) * TP, 0.0f);
            for (int r = 0; r < tr.per_pe; r++) {
                const int row = tr.row_offset + p * tr.per_pe + r;
                if (row < tr.row_offset + tr.rows && row < int(a.size() / size_t(TP)))
                    std::copy_n(a.begin() + size_t(row) * TP, TP, buf.begin() + size_t(r) * TP);
            }
        } else {   // Time: (rows, per_pe) from (rows, TP)
            buf.assign(size_t(tr.rows) * tr.per_pe, 0.0f);
            for (int r = 0; r < tr.rows; r++)
                for (int j = 0; j < tr.per_pe && p * tr.per_pe + j < TP; j++)
                    buf[size_t(r) * tr.per_pe + j] = a[size_t(r) * TP + p * tr.per_pe + j];
        }
        check(host_.h2d(x, y, tr.symbol, buf.data(), buf.size()));
    }
}

void MeshGPT::get(const PlannedOp& op, const Transfer& tr) {
    const int TP = plan_.cfg.block_size;
    std::vector<float>& a = acts_[tr.tensor];
    a.assign(size_t(tr.rows) * TP, 0.0f);
    for (int p = 0; p < op.rect.w; p++) {
        const int x = op.rect.x + p, y = op.rect.y;
        if (tr.slice == Slice::Rows) {
            const int n = std::min(tr.per_pe, tr.rows - p * tr.per_pe);   // the last PE may hold padding
            if (n > 0) check(host_.d2h(x, y, tr.symbol, a.data() + size_t(p) * tr.per_pe * TP, size_t(n) * TP));
        } else {
            std::vector<float> buf(size_t(tr.rows) * tr.per_pe);
            check(host_.d2h(x, y, tr.symbol, buf.data(), buf.size()));
            for (int r = 0; r < tr.rows; r++)
                for (int j = 0; j < tr.per_pe && p * tr.per_pe + j < TP; j++)
                    a[size_t(r) * TP + p * tr.per_pe + j] = buf[size_t(r) * tr.per_pe + j];
        }
    }
}

bool MeshGPT::run_op(const PlannedOp& op, int T) {
    const auto t0 = std::chrono::steady_clock::now();
    for (const Transfer& tr : op.inputs) put(op, tr, T);
    for (int p = 0; p < op.rect.w; p++) {   // valid time steps: all of T, or this PE's share of them
        const Transfer& in = op.inputs.front();
        const int n = in.slice == Slice::Time ? std::clamp(T - p * in.per_pe, 0, in.per_pe) : T;
        const uint32_t v = uint32_t(n);
        check(host_.h2d_u32(op.rect.x + p, op.rect.y, "tlen", &v, 1));
    }
    const MachineStats s0 = host_.stats();
    check(host_.launch(op.rect, "main"));
    const RunResult r = host_.run_until_quiescent(cycle_budget);
    if (!r.ok()) {
        error_ = op.name + " (" + op.kernel + "): " + r.fault.to_string();
        return false;
    }
    const MachineStats s1 = host_.stats();
    get(op, op.output);
    OpRun run;
    run.name = op.name;
    run.op = op.op;
    run.cycles = s1.cycles - s0.cycles;
    run.instructions = s1.instrs - s0.instrs;
    run.busy = s1.busy - s0.busy;
    run.hops = s1.hops - s0.hops;
    run.pes = op.rect.w * op.rect.h;
    run.flops = op.flops * T / plan_.cfg.block_size;
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    runs_.push_back(run);
    return true;
}

bool MeshGPT::forward(const int* tokens, int T, std::vector<float>* logits) {
    error_.clear();
    runs_.clear();
    const int V = plan_.cfg.vocab_size, TP = plan_.cfg.block_size;
    if (T < 1 || T > TP) {
        error_ = "forward on the mesh: need 1 <= T <= block_size (" + std::to_string(TP) + "), got " + std::to_string(T);
        return false;
    }
    for (int t = 0; t < T; t++)
        if (tokens[t] < 0 || tokens[t] >= V) {
            error_ = "forward on the mesh: token " + std::to_string(tokens[t]) + " at " + std::to_string(t) +
                     " is outside [0, " + std::to_string(V) + ")";
            return false;
        }
    tokens_.assign(tokens, tokens + T);
    try {
        for (const PlannedOp& op : plan_.ops)
            if (!run_op(op, T)) return false;
    } catch (const std::exception& e) {
        error_ = e.what();
        return false;
    }
    const std::vector<float>& y = acts_.at("logits");   // (V, TP) -> (T, V)
    logits->assign(size_t(T) * V, 0.0f);
    for (int v = 0; v < V; v++)
        for (int t = 0; t < T; t++) (*logits)[size_t(t) * V + v] = y[size_t(v) * TP + t];
    return true;
}

uint64_t MeshGPT::last_cycles() const {
    uint64_t c = 0;
    for (const OpRun& r : runs_) c += r.cycles;
    return c;
}

}  // namespace wl::model
