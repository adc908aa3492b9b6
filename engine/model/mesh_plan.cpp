// mesh_plan.cpp: see mesh_plan.h. Tiling rules (docs/model-compiler.md):
// a row of at most pmax PEs per op; a matmul splits its input channels K
// evenly (P divides K) and its output channels in ceil(OC/P) rows per PE;
// elementwise ops split rows, layernorm splits time. Placement puts one op per
// row down bands of rows where they fit (so consecutive ops line up for links),
// else packs the rows left to right, top to bottom, in schedule order; if the
// mesh is too small, pmax halves (fewer, fuller PEs, down to 2) until the plan
// fits or SRAM runs out.
//
// Index of this file:
// [SECTION] graph          the ops of one forward (and training's), their kernels and constants
// [SECTION] tiers          ops too big for their PEs: weights over tiers, a head over PEs
// [SECTION] placement      bands of rows, else rows packed
// (the schedule: links, the gradients' links, relays, edge links: plan_links.cpp)
// [SECTION] memory         each op's SRAM by kind, the compile options, the embedding's stash
// [SECTION] streaming      one layer's graph, and what its ops are as each layer
// [SECTION] PlanBuilder    plan_model in steps
// [SECTION] JSON           to_json
#include "engine/core/read_file.h"
#include "engine/model/mesh_plan.h"
#include "engine/model/plan_links.h"
#include "engine/model/sparsity.h"

#include "engine/core/thousands.h"
#include "engine/gpt/gpt.h"
#include "engine/fabric/mesh.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <filesystem>
#include <set>
#include <span>
#include <sstream>
#include <stdexcept>

namespace wl::model {

int plan_sequences(const gpt::GPTConfig& cfg, bool train) { return train ? cfg.sequences_in_flight : 1; }

int time_pitch(const MeshPlan& plan) { return plan_sequences(plan.cfg, plan.train) * plan.cfg.block_size; }

KernelSource read_kernels(const std::string& dir) {
    return [dir](const std::string& file) {   // "" when missing (the plan says which op wanted it)
        const std::string path = dir + "/" + file;
        std::string text, error;
        std::error_code ec;
        if (!std::filesystem::exists(path, ec)) return text;
        if (!read_file(path, kMaxSourceBytes, "kernel", &text, &error)) throw std::runtime_error(error);
        if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw std::runtime_error(path + ": the kernel file is empty");
        return text;
    };
}

int MeshPlan::pes_used() const {
    int n = 0;
    for (const PlannedOp& o : ops) n += o.rect.w * o.rect.h;
    return n;
}

uint32_t MeshPlan::bytes_max() const {
    uint32_t m = 0;
    for (const PlannedOp& o : ops) m = std::max(m, o.bytes_per_pe);
    return m;
}

double MeshPlan::bytes_mean() const {
    double sum = 0;
    int n = 0;
    for (const PlannedOp& o : ops)
        for (const lang::Placement& p : o.compiled->placements) {
            sum += double(p.program->sram_used) * p.w * p.h;
            n += p.w * p.h;
        }
    return n ? sum / n : 0;
}

const PlannedOp* MeshPlan::find(const std::string& name) const {
    for (const PlannedOp& o : ops)
        if (o.name == name) return &o;
    return nullptr;
}

namespace {

int largest_divisor_at_most(int n, int cap) {
    for (int p = std::min(n, cap); p > 1; p--)
        if (n % p == 0) return p;
    return 1;
}

int ceil_div(int a, int b) { return (a + b - 1) / b; }

// [SECTION] graph

// Graph and kernels: every op of one forward, op_table()'s rows (a block's per layer), with its
// kernel, constants, transfers and weights; a training plan adds the loss's gradient.
std::vector<PlannedOp> graph(const gpt::GPTConfig& cfg, int pmax, bool train) {
    const int NH = cfg.n_head, HS = cfg.n_embd / NH, TS = cfg.block_size, TP = plan_sequences(cfg, train) * TS;
    std::vector<PlannedOp> ops;
    const auto rows = [](std::string t, const char* sym, int per_pe, int nrows, int off = 0) {
        return Transfer{std::move(t), sym, Slice::Rows, per_pe, nrows, off};
    };
    // An input's tensor on the mesh: a row the mesh does not run (softmax) is its reader's work.
    const auto input = [&](const gpt::OpRow& r, int i, int layer) {
        const gpt::OpRow* from = &r;
        while (from->in[i] != gpt::OpId::Tokens && from->in[i] != gpt::OpId::Stream &&
               gpt::op_row(from->in[i]).mesh == gpt::OnMesh::No) {
            from = &gpt::op_row(from->in[i]);
            i = 0;
        }
        return gpt::input_name(*from, i, layer, cfg.n_layer);
    };
    const auto add = [&](const gpt::OpRow& r, int layer) {
        const gpt::KernelInfo& k = gpt::kernel_info(r.kind);
        const bool grad = r.mesh == gpt::OnMesh::Training;   // the op is the row's backward
        PlannedOp o;
        o.id = r.id;
        o.name = grad ? gpt::grad_name(r, layer) : gpt::op_name(r, layer);
        o.op = grad ? r.backward : r.forward;
        o.layer = r.in_block ? layer : -1;
        o.flops = gpt::op_cost(r, cfg, 1, TS, grad, layer).flops;   // a sequence's
        o.kernel = k.file;
        o.train_only = grad;
        for (int i = 0; i < 2; i++)
            if (r.params[i] && k.weights[i]) o.weights.push_back({k.weights[i], r.params[i]});
        const int in_rows = r.in_width.of(cfg), out_rows = r.out_width.of(cfg);
        switch (r.kind) {
        case gpt::OpKind::Embedding: {
            const int P = largest_divisor_at_most(out_rows, pmax), CP = out_rows / P;
            o.constants = {{"P", P}, {"V", cfg.vocab_size}, {"CP", CP}, {"TP", TP}};
            if (TS < TP) o.constants["TS"] = TS;
            o.rect = {0, 0, P, 1};
            o.inputs = {Transfer{"tokens", k.inputs[0], Slice::Tokens, TP, 1, 0}};
            o.output = rows(o.name, k.output, CP, out_rows);
            break;
        }
        case gpt::OpKind::LayerNorm: {
            const int P = largest_divisor_at_most(out_rows, pmax), R = out_rows / P;   // C is even: P >= 2
            o.constants = {{"P", P}, {"C", out_rows}, {"TP", TP}};
            o.rect = {0, 0, P, 1};
            o.inputs = {rows(input(r, 0, layer), k.inputs[0], R, in_rows)};
            o.output = rows(o.name, k.output, R, out_rows);
            break;
        }
        case gpt::OpKind::Matmul: {
            const int K = in_rows, OC = out_rows;
            const int P = largest_divisor_at_most(K, std::min(pmax, OC)), NC = ceil_div(OC, P);
            o.constants = {{"P", P}, {"K", K}, {"NC", NC}, {"TP", TP}, {"BIAS", r.params[1] ? 1 : 0}};
            o.rect = {0, 0, P, 1};
            o.inputs = {rows(input(r, 0, layer), k.inputs[0], K / P, K)};
            o.output = rows(o.name, k.output, NC, OC);
            break;
        }
        case gpt::OpKind::Attention: {   // a PE per head; q, k and v are the thirds of qkv's rows
            o.constants = {{"NH", NH}, {"HS", HS}, {"TP", TP}};
            if (TS < TP) o.constants["TS"] = TS;
            o.rect = {0, 0, NH, 1};
            for (int i = 0; i < 3; i++) o.inputs.push_back(rows(input(r, 0, layer), k.inputs[i], HS, in_rows, i * out_rows));
            o.output = rows(o.name, k.output, HS, out_rows);
            break;
        }
        case gpt::OpKind::Residual:
        case gpt::OpKind::Gelu: {   // elementwise: whole rows per PE
            const int P = largest_divisor_at_most(out_rows, pmax), R = out_rows / P;
            o.constants = {{"P", P}, {"R", R}, {"TP", TP}};
            o.rect = {0, 0, P, 1};
            for (int i = 0; i < r.inputs; i++)
                o.inputs.push_back(rows(input(r, i, layer), r.inputs == 1 ? k.inputs[0] : k.inputs[i], R, out_rows));
            o.output = rows(o.name, k.output, R, out_rows);
            break;
        }
        case gpt::OpKind::Loss: {   // cut as the logits (NC vocabulary rows per PE), so they can be a link
            const std::string in = input(r, 0, layer);
            const auto logits = std::find_if(ops.begin(), ops.end(), [&](const PlannedOp& p) { return p.name == in; });
            if (logits == ops.end()) throw std::logic_error("graph: the loss's input " + in + " is planned after it");
            const int P = int(logits->constants.at("P")), NC = int(logits->constants.at("NC"));
            o.constants = {{"P", P}, {"V", in_rows}, {"NC", NC}, {"TP", TP}};
            o.rect = {0, 0, P, 1};
            o.inputs = {rows(in, k.inputs[0], NC, in_rows)};
            o.output = rows(o.name, k.output, NC, in_rows);
            break;
        }
        case gpt::OpKind::Softmax:
            throw std::logic_error("graph: softmax runs inside the loss's kernel");
        }
        ops.push_back(std::move(o));
    };
    const std::span<const gpt::OpRow> table = gpt::op_table();
    for (size_t i = 0; i < table.size();) {
        size_t end = i + 1;   // a block's rows run once per layer
        while (table[i].in_block && end < table.size() && table[end].in_block) end++;
        for (int l = 0; l < (table[i].in_block ? cfg.n_layer : 1); l++)
            for (size_t j = i; j < end; j++)
                if (table[j].mesh == gpt::OnMesh::Forward || (train && table[j].mesh == gpt::OnMesh::Training))
                    add(table[j], l);
        i = end;
    }
    if (!train) return ops;
    // Training: every op whose kernel has a backward compiles it in (TRAIN = 1); the LM head's w is
    // the embedding's wte (TIED = 1); a layernorm whose input nothing else reads starts its dx at
    // zero (DX0 = 1: lnf), the others at the stream's gradient.
    std::map<std::string, int> readers;
    for (const PlannedOp& o : ops)
        for (const Transfer& in : o.inputs) readers[in.tensor]++;
    // Streaming: wte is the store's (embedding.wk's STORE), the LM head's rows streamed in like a layer's.
    const bool store = cfg.execution == wl::gpt::Execution::Streaming;
    for (PlannedOp& o : ops) {
        if (o.kernel_info().train_switch) o.constants["TRAIN"] = 1;
        if (o.row().tied) o.constants["TIED"] = 1;
        if (store && o.is(gpt::OpKind::Embedding)) o.constants["STORE"] = 1;
        if (o.is(gpt::OpKind::LayerNorm) && readers[o.inputs.front().tensor] == 1) o.constants["DX0"] = 1;
    }
    return ops;
}

// [SECTION] tiers

// matmul.wk's SRAM in training with NC rows a PE: w, dw, W's transpose (wt), a round of it (wb) and
// AdamW's two moments (the store's when streamed), 6 or 4 NC (K + BIAS) floats; x and dx (KP x TP
// each); y, dy and a round of dy (NC x TP each); and xb. An estimate that picks R; the compile
// checks the kernel's real layout.
uint64_t matmul_train_bytes(uint64_t NC, uint64_t K, uint64_t KP, uint64_t TP, uint64_t bias, bool streamed) {
    return 4 * ((streamed ? 4 : 6) * NC * (K + bias) + TP * (2 * KP + 3 * NC) + std::max(2 * K, KP * TP));
}

// Tiers: an op whose weights would take more than half a PE's SRAM on its row (GPT-2's 50,257-row
// embedding and LM head; a wide matmul on a narrow mesh) is cut over R rows of PEs stacked, each a
// copy of its one-row kernel holding a part: the embedding's vocabulary rows, VR a tier, the
// token's row picked by the tier that holds it down a chain (embedding.wk); a matmul's output
// rows, the tiers going on with the row's cut (tier r's PE p holds rows (r*P + p)*NC ..). Every
// tier takes the same input; the output is the last tier's (the embedding) or all of theirs (a
// matmul's rows). Half the SRAM leaves the rest for the activations, which do not shrink with R.
// Training tiers a matmul alone, and only when its row's PEs cannot hold what training keeps
// (matmul_train_bytes): its output rows (R: dx chained down the tiers, matmul.wk), or, where not
// even one output row fits, its input rows (RK: y chained down them; K is then a tier's share);
// not a tied or a sparse one (the tie and the sparse index take a row).
// Streaming keeps its layer ops one row each in inference (the edge link feeds a row); in
// training a tiered matmul takes a link on each of its rows (plan_edge_links).
// The attention, whose SRAM is its keys and values (a head's q, k, v, y and v time-major: 5 x HS x TP floats),
// not weights, spreads the other way: each head's channels over S PEs side by side (attention.wk),
// the fewest S that divides HS and fits, if the row has room for NH x S PEs; in training with
// its gradients too. The GELU, elementwise, tiers its channel rows: tier r's PE p holds the
// op's rows (r*P + p)*R .., the fewest tiers that divide R and fit (a long context, sequences in flight).
void spread_over_pes(std::vector<PlannedOp>& ops, uint32_t sram, int pmax, bool streaming, bool train) {
    const uint64_t budget = sram / 2;
    for (PlannedOp& o : ops) {
        if (o.is(gpt::OpKind::Loss)) {   // cut as the logits, tiers and all, so the two line up
            const auto lg = std::find_if(ops.begin(), ops.end(), [&](const PlannedOp& p) { return p.name == o.inputs.front().tensor; });
            if (lg == ops.end() || lg->tiers() == 1) continue;
            o.constants["NC"] = lg->constants.at("NC");
            o.constants["R"] = lg->tiers();
            o.rect.h = lg->tiers();
            o.inputs.front().per_pe = o.output.per_pe = int(o.constants["NC"]);
            o.inputs.front().tiers = o.output.tiers = Tiers::Split;
            continue;
        }
        if (o.is(gpt::OpKind::Gelu)) {   // x and y (and dy, dx), R x TP floats each, and 3 of TP: its rows over tiers
            const uint64_t R = uint64_t(o.constants.at("R")), TP = uint64_t(o.constants.at("TP"));
            const uint64_t room = sram - std::min<uint64_t>(sram, 1024), arrays = train ? 4 : 2;
            uint64_t tiers = 1;
            while (tiers < R && (R % tiers || 4 * (arrays * (R / tiers) + 3) * TP > room)) tiers++;
            if (tiers == 1) continue;
            o.constants["R"] = double(R / tiers);
            o.rect.h = int(tiers);
            o.inputs.front().per_pe = o.output.per_pe = int(R / tiers);
            o.inputs.front().tiers = o.output.tiers = Tiers::Split;
            continue;
        }
        // A tied matmul tiers only where the store holds wte (streaming; resident, the tie takes a row).
        const bool tierable = o.is(gpt::OpKind::Matmul) && (!o.on("TIED") || streaming) && !o.on("SPARSE");
        if (train && !o.is(gpt::OpKind::Attention) && !tierable) continue;
        if (o.is(gpt::OpKind::Attention)) {   // q, k, v, y, vt (and dy, dq, dk, dv, kt), HC x TP each, and 4 (5) of TP at most
            const int NH = int(o.constants.at("NH")), HS = int(o.constants.at("HS"));
            const uint64_t TP = uint64_t(o.constants.at("TP")), room = sram - std::min<uint64_t>(sram, 1024);   // its scalars
            const uint64_t arrays = train ? 10 : 5, rows = train ? 5 : 4;
            int S = 1;
            while (S < HS && (HS % S || 4 * (arrays * uint64_t(HS / S) + rows) * TP > room)) S++;
            if (S == 1 || NH * S > pmax) continue;
            o.constants["S"] = S;
            o.rect.w = NH * S;
            for (Transfer& in : o.inputs) in.per_pe = HS / S;
            o.output.per_pe = HS / S;
            continue;
        }
        if (streaming && o.layer >= 0 && !train) continue;
        const auto c = [&](const char* k) { return uint64_t(o.constants.at(k)); };
        if (o.is(gpt::OpKind::Embedding)) {   // 4 * CP * (VR + TP) bytes of wte and wpe a PE
            const uint64_t V = c("V"), per_row = 4 * c("CP"), fixed = per_row * c("TP");
            if (per_row * V + fixed <= budget || fixed + per_row > budget) continue;
            const uint64_t R = (V + (budget - fixed) / per_row - 1) / ((budget - fixed) / per_row);
            o.constants["R"] = double(R);
            o.constants["VR"] = double((V + R - 1) / R);
            o.rect.h = int(R);
            o.output.tiers = Tiers::Last;
        } else if (o.is(gpt::OpKind::Matmul) && train) {   // the fewest tiers that fit, if one row does not
            const uint64_t P = c("P"), OC = uint64_t(o.output.rows), room = sram - std::min<uint64_t>(sram, 1024);
            const bool streamed = streaming && (o.layer >= 0 || o.on("TIED"));
            const uint64_t K = c("K"), NC1 = c("NC"), TP = c("TP"), bias = c("BIAS");
            const auto bytes = [&](uint64_t NC, uint64_t k) { return matmul_train_bytes(NC, k, k / P, TP, bias, streamed); };
            if (bytes(NC1, K) <= room) continue;
            if (bytes(1, K) <= room) {   // the output rows over tiers
                uint64_t R = 2;
                while (bytes((OC + R * P - 1) / (R * P), K) > room) R++;
                o.constants["NC"] = double((OC + R * P - 1) / (R * P));
                o.constants["R"] = double(R);
                o.rect.h = int(R);
                o.output.per_pe = int(o.constants["NC"]);
                o.output.tiers = Tiers::Split;
                continue;
            }
            // Not even one output row fits: the input rows over tiers, RK dividing K / P.
            uint64_t RK = 2;
            while (RK <= K / P && ((K / P) % RK || bytes(NC1, K / RK) > room)) RK++;
            if (RK > K / P) continue;   // the compile will say what does not fit
            o.constants["K"] = double(K / RK);
            o.constants["RK"] = double(RK);
            o.rect.h = int(RK);
            o.inputs.front().per_pe = int(K / RK / P);
            o.inputs.front().tiers = Tiers::Split;
            o.output.tiers = Tiers::Last;
        } else if (o.is(gpt::OpKind::Matmul)) {   // 4 * NC * (K + BIAS) bytes of w and b a PE
            const uint64_t row = 4 * (c("K") + c("BIAS")), P = c("P"), OC = uint64_t(o.output.rows);
            if (row * c("NC") <= budget || row > budget) continue;
            const uint64_t pes = (OC + budget / row - 1) / (budget / row), R = (pes + P - 1) / P;
            const uint64_t NC = (OC + R * P - 1) / (R * P);
            o.constants["NC"] = double(NC);
            o.rect.h = int(R);
            o.output.per_pe = int(NC);
            o.output.tiers = Tiers::Split;
        }
    }
}

// [SECTION] placement

// Placement, the preferred way: bands of rows. The mesh is cut into vertical bands as wide as
// the widest op; the ops go down band 0, each on the rows below the last (one, or its tiers), at
// its left edge, then down band 1, and so on. So an op's PE p sits directly above the next op's
// PE p, and an activation whose row slices match is one hop away (plan_links). False when the
// bands hold too few rows.
bool place_in_bands(std::vector<PlannedOp>& ops, int W, int H) {
    int bw = 1;
    for (const PlannedOp& o : ops) bw = std::max(bw, o.rect.w);
    int x = 0, y = 0;
    for (PlannedOp& o : ops) {
        if (y + o.rect.h > H) {   // the next band
            x += bw;
            y = 0;
        }
        if (x + bw > W || o.rect.h > H) return false;
        o.rect.x = x;
        o.rect.y = y;
        y += o.rect.h;
    }
    return true;
}

// Placement where the bands do not fit: ops packed left to right in shelves as tall as their
// tallest op, top to bottom (fewer links line up). False when the mesh is full; *rows_needed is
// then the height this packing needs at width W.
bool place(std::vector<PlannedOp>& ops, int W, int H, std::string* why, int* rows_needed) {
    if (place_in_bands(ops, W, H)) {
        *rows_needed = 0;
        return true;
    }
    int x = 0, y = 0, shelf = 0;
    const PlannedOp* full = nullptr;   // the first op past the last row
    for (PlannedOp& o : ops) {
        if (o.rect.w > W) {
            *why = o.name + " needs a row of " + std::to_string(o.rect.w) + " PEs; the mesh is " + std::to_string(W) + " wide";
            *rows_needed = 0;
            return false;
        }
        if (x + o.rect.w > W) {
            x = 0;
            y += shelf;
            shelf = 0;
        }
        if (y + o.rect.h > H && !full) full = &o;
        o.rect.x = x;
        o.rect.y = y;
        x += o.rect.w;
        shelf = std::max(shelf, o.rect.h);
    }
    *rows_needed = y + shelf;
    if (!full) return true;
    *why = "the mesh is full at " + full->name + ": " + std::to_string(W) + "x" + std::to_string(H) + " PEs are too few";
    return false;
}

// [SECTION] memory

// Each symbol's kind: the kernel's weights, gradients and AdamW moments (gpt::KernelInfo, TRAIN = 1).
MemoryUse memory_use(const PlannedOp& o, const Program& prog) {
    const gpt::KernelInfo& k = o.kernel_info();
    const auto in = [](const char* const (&names)[2], const std::string& s) {
        return (names[0] && s == names[0]) || (names[1] && s == names[1]);
    };
    // A SPARSE = 1 matmul's w (CSR), and training's fixed index of its transposed columns (sparsity.h);
    // its non-zeros' gradients and moments (a dense matmul's are one element each: scratch)
    static const std::set<std::string> sparse = {kSparseValues, kSparseIndices, kSparseRowEnds, kSparseColKeys,
                                                 kSparseColSources, kSparseColRowEnds};
    static const std::set<std::string> sparse_grads = {"dwv"}, sparse_adam = {"mwv", "vwv"};
    const bool is_sparse = sparse_matmul(o);
    MemoryUse m;
    for (const Symbol& s : prog.symbols) {
        const uint32_t bytes = 4 * s.length;
        bool weight = is_sparse && sparse.count(s.name);
        for (const auto& [sym, param] : o.weights) weight |= sym == s.name;
        if (weight) m.weights += bytes;
        else if (in(k.grads, s.name) || (is_sparse && sparse_grads.count(s.name))) m.gradients += bytes;
        else if (in(k.m, s.name) || in(k.v, s.name) || (is_sparse && sparse_adam.count(s.name))) m.adam += bytes;
        else if (s.exported && s.length > 1 && s.name != gpt::symbol::kHp) m.activations += bytes;
        else m.scratch += bytes;
    }
    return m;
}

// A kernel's compile options in the plan: sized here (so the error names the op), optimised (the
// model's kernels run many times: fewer instructions).
lang::CompileOptions plan_options(const std::map<std::string, double>& constants) {
    lang::CompileOptions opt;
    opt.sram_bytes = 1u << 30;
    opt.optimise = true;
    opt.constants = constants;
    opt.optional_constants = {"GATHER"};   // matmul.wk's (plan_links.cpp): a copy without it broadcasts as before
    return opt;
}

// Each distinct (kernel, constants) compiles once.
std::string compile_key(const PlannedOp& o) {
    std::string key = o.kernel;
    for (const auto& [k, v] : o.constants) key += " " + k + "=" + std::to_string(v);
    return key;
}

// The embedding's stash of dy (plan_embedding_grad): a slot per sequence of a step, as many as
// its PEs' SRAM has room for beside everything else it holds, at most kMaxStash; the step's
// sequences past them take the host's way. Measured: compiled with one slot, then with the slots
// the rest would hold, fewer while the compiler's layout does not fit (PlanBuilder's stash steps).
// Where not even one slot fits, the link goes (its routes too) and the host moves dy as before.
constexpr int kMaxStash = 32;

void drop_stash_link(std::vector<PlannedOp>& ops, PlannedOp& o, std::vector<lang::RouteSetting>* routes) {
    const int g = int(o.constants.at("LDY"));
    o.constants.erase("LDY");
    int y1 = o.rect.y;   // the layernorm's row, the link's other end
    for (PlannedOp& ln : ops)
        for (Transfer& in : ln.inputs)
            if (in.tensor == o.name && in.grad_colour == g) {
                in.grad_colour = 0;   // its LDX stays, idle
                y1 = ln.rect.y;
            }
    routes->erase(std::remove_if(routes->begin(), routes->end(), [&](const lang::RouteSetting& r) {
                      return r.colour == g && r.x >= o.rect.x && r.x < o.rect.x + o.rect.w && r.y >= o.rect.y && r.y <= y1;
                  }),
                  routes->end());
}

// [SECTION] streaming

// Streaming: the graph of one layer (the slot every layer runs on)...
gpt::GPTConfig one_layer(gpt::GPTConfig cfg) {
    cfg.n_layer = 1;
    return cfg;
}

// ... whose stream inputs (the embedding's into the layer, the layer's last residual into lnf) come
// from another layer when there are several: the host's, never a link.
void mark_between_layers(std::vector<PlannedOp>& ops) {
    for (PlannedOp& o : ops)
        for (size_t i = 0; i < o.inputs.size() && i < size_t(o.row().inputs); i++)
            if (o.row().in[i] == gpt::OpId::Stream) o.inputs[i].between_layers = true;
}

}  // namespace

PlannedOp layer_instance(const PlannedOp& op, int l, int layers) {
    PlannedOp o = op;
    auto rename = [&](Transfer& t, int layer) {
        const gpt::OpName n = gpt::parse_op_name(t.tensor);
        if (n.layer == 0) t.tensor = gpt::layer_unit_name(layer, n.rest.c_str());
    };
    if (op.layer < 0) {   // lnf: the last layer's stream
        for (Transfer& in : o.inputs)
            if (in.between_layers) rename(in, layers - 1);
        return o;
    }
    o.layer = l;
    o.name = gpt::op_name(op.row(), l);
    for (size_t i = 0; i < o.inputs.size(); i++) {
        Transfer& in = o.inputs[i];
        if (in.between_layers) in.tensor = gpt::input_name(op.row(), int(i), l, layers);
        else rename(in, l);
    }
    rename(o.output, l);
    return o;
}

bool has_backward(const PlannedOp& o) { return o.train_only || o.on("TRAIN"); }

bool PlannedOp::tiers_apart(const std::string& fn) const {
    const auto rk = constants.find("RK");
    return tiers() > 1 && is(gpt::OpKind::Matmul) && fn == gpt::entry::kMain && (rk == constants.end() || rk->second <= 1);
}

uint64_t weight_bytes_per_pe(const PlannedOp& o) {
    const auto c = [&](const char* k) { return uint64_t(o.constants.at(k)); };
    switch (o.row().kind) {
    case gpt::OpKind::Matmul: return 4 * c("NC") * (c("K") + c("BIAS"));
    case gpt::OpKind::Embedding:   // wte's rows, and wpe's: a sequence's steps
        return 4 * c("CP") * (c(o.on("STORE") ? "TP" : o.constants.count("VR") ? "VR" : "V") + c(o.constants.count("TS") ? "TS" : "TP"));
    case gpt::OpKind::LayerNorm: return 4 * 2 * (c("C") / c("P"));
    default: return 0;
    }
}

std::optional<WeightOverflow> weights_never_fit(const gpt::GPTConfig& cfg, uint32_t sram_bytes, bool train) {
    std::vector<PlannedOp> ops = graph(cfg, kMaxMeshSide, train);
    spread_over_pes(ops, sram_bytes, kMaxMeshSide, cfg.execution == wl::gpt::Execution::Streaming, train);
    for (const PlannedOp& o : ops)
        if (const uint64_t b = weight_bytes_per_pe(o); b > sram_bytes) return WeightOverflow{o.name, o.rect.w, b};
    return std::nullopt;
}

std::vector<std::pair<wl::Rect, std::string>> link_senders(const PlannedOp& op) {
    std::vector<std::pair<wl::Rect, std::string>> out;
    for (const Transfer& in : op.inputs)
        if (in.colour && std::none_of(out.begin(), out.end(), [&](const auto& s) {
                return s.first.x == in.from.x && s.first.y == in.from.y && s.second == in.send;
            }))
            out.push_back({in.from, in.send});
    return out;
}

// [SECTION] PlanBuilder: plan_model in steps

PlanBuilder::PlanBuilder(const gpt::GPTConfig& cfg, int mesh_w, int mesh_h, KernelSource kernels, uint32_t sram_bytes, bool train)
    : cfg_(cfg), w_(mesh_w), h_(mesh_h), sram_(sram_bytes), train_(train), kernels_(std::move(kernels)), pmax_(mesh_w) {
    std::string& e = r_.error;
    if (cfg.vocab_size <= 0) e = "the model's vocab_size is not set (it comes from the tokenizer)";
    else if (mesh_w < 1 || mesh_h < 1 || mesh_w > kMaxMeshSide || mesh_h > kMaxMeshSide)
        e = "mesh " + std::to_string(mesh_w) + "x" + std::to_string(mesh_h) + " is outside 1x1..256x256";
    else if (mesh_w < 2)   // rows of at least 2 PEs: the matmul's broadcast needs an east and a west end
        e = "the mesh is " + std::to_string(mesh_w) + " PE wide; the model compiler needs rows of at least 2";
    else if (cfg.n_embd % 2)
        e = "n_embd = " + std::to_string(cfg.n_embd) + " is odd; the mesh's matmul splits its inputs over at least 2 PEs";
    if (!e.empty()) stage_ = Stage::Done;
}

void PlanBuilder::fail(const std::string& why) {
    r_.ok = false;
    r_.error = why;
    r_.too_big = why.find(" available") != std::string::npos;   // the SRAM refusal
    stage_ = Stage::Done;
    job_.reset();
}

void PlanBuilder::begin_job(const std::string& kernel, const std::map<std::string, double>& constants) {
    job_.emplace(kernels_(kernel), kernel, plan_options(constants));
}

// The most loaded PE's bytes of a finished stash compile, or past the SRAM if it failed.
static uint32_t stash_bytes(const lang::CompileResult& r, uint32_t sram) {
    uint32_t used = r.ok() ? 0 : sram + 1;
    for (const lang::Placement& p : r.placements) used = std::max(used, p.program->sram_used);
    return used;
}

bool PlanBuilder::step() {
    if (stage_ == Stage::Done) return false;
    if (job_ && job_->step()) return true;   // a program instance of the compile in progress
    switch (stage_) {
    case Stage::Place: {   // one width of rows a step: pmax halves until the ops fit
        std::vector<PlannedOp> ops = graph(streaming() ? one_layer(cfg_) : cfg_, pmax_, train_);
        if (streaming()) mark_between_layers(ops);
        if (!(train_ && nonzeros_)) spread_over_pes(ops, sram_, pmax_, streaming(), train_);   // sparse training: one row (sparsity.h)
        std::string why;
        int rows = 0;
        const bool placed = place(ops, w_, h_, &why, &rows);
        if (!placed && rows > h_) {   // narrower rows may fit
            if (!fewest_rows_ || rows < fewest_rows_) fewest_rows_ = rows;
            r_.error = why + " (placing its " + std::to_string(ops.size()) + " ops needs " + std::to_string(w_) + "x" +
                       std::to_string(fewest_rows_) + ")";
            r_.too_big = true;
            pmax_ /= 2;
            if (pmax_ < 2) stage_ = Stage::Done;
            return stage_ != Stage::Done;
        }
        if (!placed) {
            fail(why);
            return false;
        }
        ops_ = std::move(ops);
        plan_links(ops_, &links_);
        if (streaming()) {
            plan_edge_links(ops_, &links_);
            for (const PlannedOp& o : ops_)
                if (wants_edge_link(o) && !streamed(o)) {
                    fail(o.name + ": no colour of 8..17 is free along row " + std::to_string(o.rect.y) +
                         " from the mesh's edge for its weights' edge link");
                    return false;
                }
        }
        for (PlannedOp& o : ops_)   // streamed training: W's columns for dx come with the weights (take_wt)
            if (train_ && streamed(o) && o.is(gpt::OpKind::Matmul)) o.constants["WT"] = 1;
        if (nonzeros_ && streaming() && train_) {
            fail("training sparse weights with streaming execution is not built yet (their gradients would stream "
                 "out as the non-zeros' alone): train with wafer.execution: resident with --sparsity");
            return false;
        }
        if (nonzeros_)
            for (PlannedOp& o : ops_) {
                SparseCounts nz = o.is(gpt::OpKind::Matmul) ? nonzeros_(o) : SparseCounts{};
                for (int l = 1; streaming() && o.layer >= 0 && l < cfg_.n_layer; l++) {   // the PEs serve every layer
                    const SparseCounts c = nonzeros_(layer_instance(o, l, cfg_.n_layer));
                    nz.rows = std::max(nz.rows, c.rows);
                    nz.columns = std::max(nz.columns, c.columns);
                }
                if (nz.rows < 0) continue;
                o.constants["SPARSE"] = 1;
                o.constants["NZ"] = std::max(nz.rows, 1);
                if (train_) o.constants["NZT"] = std::max(nz.columns, 1);   // transpose_w's columns
            }
        for (size_t i = 0; i < ops_.size(); i++)
            if (train_ && ops_[i].is(gpt::OpKind::Embedding) && ops_[i].constants.count("LDY") && !ops_[i].on("STORE"))
                stash_.push_back(i);   // STORE: each sequence's dy leaves at once, one slot
        stage_ = Stage::Stash;
        return true;
    }
    case Stage::Stash: {   // per embedding with a stash: compile with NB = 1, then with nb slots, nb-- while too big
        if (stash_next_ >= stash_.size()) {
            std::set<std::string> keys;
            for (const PlannedOp& o : ops_) keys.insert(compile_key(o));
            kernels_total_ = keys.size();
            stage_ = Stage::Compile;
            return true;
        }
        PlannedOp& o = ops_[stash_[stash_next_]];
        if (!job_) {   // the next stash's first compile
            std::map<std::string, double> c = o.constants;
            c["NB"] = 1;
            stash_nb_ = 1;
            stash_measured_ = false;
            begin_job(o.kernel, c);
            return true;
        }
        const uint32_t used = stash_bytes(job_->take(), sram_);
        job_.reset();
        if (!stash_measured_) {   // the NB = 1 compile
            stash_measured_ = true;
            const uint32_t slot = 4u * uint32_t(o.constants.at("CP") * o.constants.at(o.constants.count("TS") ? "TS" : "TP"));   // a sequence's dy
            if (used > sram_) {
                drop_stash_link(ops_, o, &links_);
                stash_next_++;
                return true;
            }
            stash_nb_ = int(std::min<uint32_t>(1 + (sram_ - used) / slot, kMaxStash));
        } else if (used > sram_) {
            stash_nb_--;
        } else {   // nb fits
            o.constants["NB"] = stash_nb_;
            stash_next_++;
            return true;
        }
        if (stash_nb_ <= 1) {
            o.constants["NB"] = stash_nb_;
            stash_next_++;
            return true;
        }
        std::map<std::string, double> c = o.constants;
        c["NB"] = stash_nb_;
        begin_job(o.kernel, c);
        return true;
    }
    case Stage::Compile: {   // each op in order: its kernel's compile (once per key), then its SRAM check
        if (op_next_ >= ops_.size()) {
            r_.ok = true;
            r_.error.clear();
            r_.too_big = false;
            r_.plan = MeshPlan{cfg_, w_, h_, sram_, std::move(ops_), train_, std::move(links_), streaming()};
            stage_ = Stage::Done;
            return false;
        }
        PlannedOp& o = ops_[op_next_];
        const std::string key = compile_key(o);
        auto it = compiled_.find(key);
        if (it == compiled_.end() && !job_) {
            const std::string src = kernels_(o.kernel);
            if (src.empty()) {
                fail("kernel " + o.kernel + " not found (for " + o.name + ")");
                return false;
            }
            job_.emplace(src, o.kernel, plan_options(o.constants));
            return true;
        }
        if (it == compiled_.end()) {   // its compile just finished
            auto cr = std::make_shared<lang::CompileResult>(job_->take());
            job_.reset();
            if (!cr->ok()) {   // the first error (warnings may come before it)
                const auto e = std::find_if(cr->diagnostics.begin(), cr->diagnostics.end(),
                                            [](const lang::Diagnostic& d) { return d.severity == lang::Severity::Error; });
                fail(o.name + ": " + lang::format_diagnostic(e != cr->diagnostics.end() ? *e : cr->diagnostics.front()));
                return false;
            }
            it = compiled_.emplace(key, cr).first;
            kernels_done_++;
        }
        const std::shared_ptr<const lang::CompileResult>& cr = it->second;
        o.compiled = cr;
        o.bytes_per_pe = 0;
        for (const lang::Placement& p : cr->placements) {
            const uint32_t b = p.program->sram_used;
            if (b > sram_) {
                fail(o.name + " needs " + thousands(b) + " bytes on PE (" + std::to_string(o.rect.x + p.x) + "," +
                     std::to_string(o.rect.y + p.y) + "); " + thousands(sram_) + " available");
                return false;
            }
            if (b >= o.bytes_per_pe) o.memory = memory_use(o, *p.program);
            o.bytes_per_pe = std::max(o.bytes_per_pe, b);
        }
        op_next_++;
        return true;
    }
    case Stage::Done:
        break;
    }
    return false;
}

double PlanBuilder::progress() const {
    if (stage_ == Stage::Done) return 1;
    if (stage_ != Stage::Compile || !kernels_total_) return 0;
    double part = 0;
    if (job_ && job_->programs_total()) part = double(job_->programs_done()) / double(job_->programs_total());
    return std::min(1.0, (double(kernels_done_) + part) / double(kernels_total_));
}

std::string PlanBuilder::activity() const {
    const auto programs = [&] {
        return job_ && job_->programs_total() ? ", program " + std::to_string(job_->programs_done()) + " of " +
                                                    std::to_string(job_->programs_total())
                                              : std::string(", parsing and checking");
    };
    switch (stage_) {
    case Stage::Place:
        return "placing the ops (rows of at most " + std::to_string(pmax_) + " PEs)";
    case Stage::Stash:
        if (stash_next_ < stash_.size() && job_)
            return "sizing the embedding's stash: compiling " + ops_[stash_[stash_next_]].kernel + " with " +
                   std::to_string(stash_nb_) + (stash_nb_ == 1 ? " slot" : " slots") + programs();
        return "sizing the embedding's stash";
    case Stage::Compile: {
        if (op_next_ >= ops_.size()) return "compiling kernels: done";
        const PlannedOp& o = ops_[op_next_];
        std::string s = "compiling kernels: " + std::to_string(std::min(kernels_done_ + 1, kernels_total_)) + " of " +
                        std::to_string(kernels_total_) + " (" + o.kernel + " for " + o.name + ")";
        return job_ ? s + programs() : s;
    }
    case Stage::Done:
        break;
    }
    return "";
}

PlanResult PlanBuilder::take() {
    while (step()) {
    }
    return std::move(r_);
}

PlanResult plan_model(const gpt::GPTConfig& cfg, int mesh_w, int mesh_h, const KernelSource& kernels,
                      uint32_t sram_bytes, bool train) {
    return PlanBuilder(cfg, mesh_w, mesh_h, kernels, sram_bytes, train).take();
}

// [SECTION] JSON

nlohmann::json to_json(const MeshPlan& plan) {
    auto transfer = [](const Transfer& t) {
        const char* slice[] = {"rows", "time", "tokens"};
        nlohmann::json j{{"tensor", t.tensor}, {"symbol", t.symbol}, {"slice", slice[int(t.slice)]},
                         {"per_pe", t.per_pe}, {"rows", t.rows}, {"row_offset", t.row_offset}};
        if (t.colour) j["link"] = {{"colour", t.colour}, {"from", {{"x", t.from.x}, {"y", t.from.y}, {"w", t.from.w}, {"h", t.from.h}}}};   // over the fabric; none: the host copies it
        if (t.grad_colour) j["grad_link"] = {{"colour", t.grad_colour}};    // training: its gradient goes back up
        if (t.between_layers) j["between_layers"] = true;                   // streaming: the host carries it
        return j;
    };
    nlohmann::json ops = nlohmann::json::array();
    for (const PlannedOp& o : plan.ops) {
        nlohmann::json in = nlohmann::json::array(), w = nlohmann::json::object();
        for (const Transfer& t : o.inputs) in.push_back(transfer(t));
        for (const auto& [sym, param] : o.weights) w[sym] = param;
        ops.push_back({{"name", o.name}, {"op", o.op}, {"layer", o.layer}, {"flops", o.flops}, {"kernel", o.kernel},
                       {"constants", o.constants}, {"weights", w},
                       {"rect", {{"x", o.rect.x}, {"y", o.rect.y}, {"w", o.rect.w}, {"h", o.rect.h}}},
                       {"bytes_per_pe", o.bytes_per_pe},
                       {"memory", {{"weights", o.memory.weights}, {"gradients", o.memory.gradients}, {"adam", o.memory.adam},
                                   {"activations", o.memory.activations}, {"scratch", o.memory.scratch}}},
                       {"inputs", in}, {"output", transfer(o.output)}, {"host_out", o.host_out}});
    }
    return {{"mesh", {{"w", plan.mesh_w}, {"h", plan.mesh_h}}}, {"sram_bytes", plan.sram_bytes}, {"train", plan.train},
            {"execution", gpt::execution_name(plan.streaming ? gpt::Execution::Streaming : gpt::Execution::Resident)},
            {"pes_used", plan.pes_used()}, {"bytes_max", plan.bytes_max()}, {"bytes_mean", plan.bytes_mean()},
            {"ops", ops}};
}

}  // namespace wl::model
