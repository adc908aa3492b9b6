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
// [SECTION] placement      bands of rows, else rows packed
// (the schedule: links, the gradients' links, relays, edge links: plan_links.cpp)
// [SECTION] memory         each op's SRAM by kind, the compile options, the embedding's stash
// [SECTION] streaming      one layer's graph, and what its ops are as each layer
// [SECTION] PlanBuilder    plan_model in steps
// [SECTION] JSON           to_json
#include "engine/model/mesh_plan.h"
#include "engine/model/plan_links.h"
#include "engine/model/sparsity.h"

#include "engine/gpt/gpt.h"
#include "engine/fabric/mesh.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace wl::model {

KernelSource read_kernels(const std::string& dir) {
    return [dir](const std::string& file) {
        std::ifstream in(dir + "/" + file, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
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

std::string thousands(uint64_t v) {   // 61440 -> "61,440"
    std::string s = std::to_string(v);
    for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(size_t(i), ",");
    return s;
}

int largest_divisor_at_most(int n, int cap) {
    for (int p = std::min(n, cap); p > 1; p--)
        if (n % p == 0) return p;
    return 1;
}

int ceil_div(int a, int b) { return (a + b - 1) / b; }

std::string layer_name(int l, const char* s) { return "l" + std::to_string(l) + "." + s; }

// [SECTION] graph

// Graph and kernels: every op of one forward with its kernel, constants, transfers and weights.
std::vector<PlannedOp> graph(const gpt::GPTConfig& cfg, int pmax, bool train) {
    const int C = cfg.n_embd, NH = cfg.n_head, HS = C / NH, V = cfg.vocab_size, TP = cfg.block_size;
    std::map<std::string, double> flops;
    for (const gpt::OpInfo& o : gpt::op_list(cfg, 1, TP, false)) flops[o.tensor] = o.flops;
    std::vector<PlannedOp> ops;
    auto add = [&](std::string name, const char* op, int layer, const char* kernel) -> PlannedOp& {
        PlannedOp o;
        o.flops = flops[name];
        o.name = std::move(name);
        o.op = op;
        o.layer = layer;
        o.kernel = kernel;
        ops.push_back(std::move(o));
        return ops.back();
    };
    auto rows = [](std::string t, std::string sym, int per_pe, int nrows, int off = 0) {
        return Transfer{std::move(t), std::move(sym), Slice::Rows, per_pe, nrows, off};
    };
    auto layernorm = [&](std::string name, int layer, const std::string& in, const std::string& w, const std::string& b) {
        const int P = largest_divisor_at_most(C, pmax), R = C / P;   // C is even: P >= 2
        PlannedOp& o = add(std::move(name), "layernorm_forward", layer, "layernorm.wk");
        o.constants = {{"P", P}, {"C", C}, {"TP", TP}};
        o.rect = {0, 0, P, 1};
        o.inputs = {rows(in, "x", R, C)};
        o.output = rows(o.name, "y", R, C);
        o.weights = {{"w", w}, {"b", b}};
    };
    auto matmul = [&](std::string name, int layer, const std::string& in, int K, int OC, const std::string& w,
                      const std::string& b) {
        const int P = largest_divisor_at_most(K, std::min(pmax, OC)), NC = ceil_div(OC, P);
        PlannedOp& o = add(std::move(name), "matmul_forward", layer, "matmul.wk");
        o.constants = {{"P", P}, {"K", K}, {"NC", NC}, {"TP", TP}, {"BIAS", b.empty() ? 0 : 1}};
        o.rect = {0, 0, P, 1};
        o.inputs = {rows(in, "x", K / P, K)};
        o.output = rows(o.name, "y", NC, OC);
        o.weights = {{"w", w}};
        if (!b.empty()) o.weights.push_back({"b", b});
    };
    auto rowwise = [&](std::string name, const char* op, int layer, const char* kernel, int nrows,
                       std::vector<std::string> in) {
        const int P = largest_divisor_at_most(nrows, pmax), R = nrows / P;
        PlannedOp& o = add(std::move(name), op, layer, kernel);
        o.constants = {{"P", P}, {"R", R}, {"TP", TP}};
        o.rect = {0, 0, P, 1};
        const char* syms[] = {"a", "b"};
        for (size_t i = 0; i < in.size(); i++) o.inputs.push_back(rows(in[i], in.size() == 1 ? "x" : syms[i], R, nrows));
        o.output = rows(o.name, "y", R, nrows);
    };

    {
        const int P = largest_divisor_at_most(C, pmax), CP = C / P;
        PlannedOp& o = add("encoded", "encoder_forward", -1, "embedding.wk");
        o.constants = {{"P", P}, {"V", V}, {"CP", CP}, {"TP", TP}};
        o.rect = {0, 0, P, 1};
        o.inputs = {Transfer{"tokens", "tok", Slice::Tokens, TP, 1, 0}};
        o.output = rows("encoded", "y", CP, C);
        o.weights = {{"wte", "wte"}, {"wpe", "wpe"}};
    }
    for (int l = 0; l < cfg.n_layer; l++) {
        const std::string res = l == 0 ? "encoded" : layer_name(l - 1, "residual3");
        const auto n = [l](const char* s) { return layer_name(l, s); };
        layernorm(n("ln1"), l, res, "ln1w", "ln1b");
        matmul(n("qkv"), l, n("ln1"), C, 3 * C, "qkvw", "qkvb");
        {
            PlannedOp& o = add(n("atty"), "attention_forward", l, "attention.wk");
            o.constants = {{"NH", NH}, {"HS", HS}, {"TP", TP}};
            o.rect = {0, 0, NH, 1};
            o.inputs = {rows(n("qkv"), "q", HS, 3 * C, 0), rows(n("qkv"), "k", HS, 3 * C, C),
                        rows(n("qkv"), "v", HS, 3 * C, 2 * C)};
            o.output = rows(o.name, "y", HS, C);
        }
        matmul(n("attproj"), l, n("atty"), C, C, "attprojw", "attprojb");
        rowwise(n("residual2"), "residual_forward", l, "residual.wk", C, {res, n("attproj")});
        layernorm(n("ln2"), l, n("residual2"), "ln2w", "ln2b");
        matmul(n("fch"), l, n("ln2"), C, 4 * C, "fcw", "fcb");
        rowwise(n("fch_gelu"), "gelu_forward", l, "gelu.wk", 4 * C, {n("fch")});
        matmul(n("fcproj"), l, n("fch_gelu"), 4 * C, C, "fcprojw", "fcprojb");
        rowwise(n("residual3"), "residual_forward", l, "residual.wk", C, {n("residual2"), n("fcproj")});
    }
    layernorm("lnf", -1, layer_name(cfg.n_layer - 1, "residual3"), "lnfw", "lnfb");
    matmul("logits", -1, "lnf", C, V, "wte", "");
    if (!train) return ops;
    // Training: the loss's gradient on its own row, cut as the logits (NC vocabulary rows per PE,
    // so they can be a link); every op with a backward gets its training arrays; the logits' w is
    // the embedding's wte (tied).
    {
        const std::map<std::string, double> lg = ops.back().constants;
        const int P = int(lg.at("P")), NC = int(lg.at("NC"));
        PlannedOp& o = add("dlogits", "crossentropy_softmax_backward", -1, "crossentropy.wk");
        o.constants = {{"P", P}, {"V", V}, {"NC", NC}, {"TP", TP}};
        o.rect = {0, 0, P, 1};
        o.inputs = {rows("logits", "x", NC, V)};
        o.output = rows("dlogits", "dx", NC, V);
        o.train_only = true;
    }
    for (PlannedOp& o : ops)
        if (o.kernel != "residual.wk" && o.kernel != "crossentropy.wk") o.constants["TRAIN"] = 1;
    ops[ops.size() - 2].constants["TIED"] = 1;   // the logits
    ops[ops.size() - 3].constants["DX0"] = 1;    // lnf: nothing else reads its input, so its dx starts at zero
    return ops;
}

// [SECTION] placement

// Placement, the preferred way: bands of rows. The mesh is cut into vertical bands as wide as
// the widest op; the ops go down band 0 one row each, at its left edge, then down band 1, and so
// on. So an op's PE p sits directly above the next op's PE p, and an activation whose row slices
// match is one hop away (plan_links). False when the bands hold too few rows.
bool place_in_bands(std::vector<PlannedOp>& ops, int W, int H) {
    int bw = 1;
    for (const PlannedOp& o : ops) bw = std::max(bw, o.rect.w);
    const int bands = W / bw;
    if (bw > W || size_t(bands) * size_t(H) < ops.size()) return false;
    for (size_t i = 0; i < ops.size(); i++) {
        ops[i].rect.x = int(i / size_t(H)) * bw;
        ops[i].rect.y = int(i % size_t(H));
    }
    return true;
}

// Placement where the bands do not fit: rows of PEs packed left to right, top to bottom (fewer
// links line up). False when the mesh is full; *rows_needed is then the height this packing
// needs at width W.
bool place(std::vector<PlannedOp>& ops, int W, int H, std::string* why, int* rows_needed) {
    if (place_in_bands(ops, W, H)) {
        *rows_needed = 0;
        return true;
    }
    int x = 0, y = 0;
    const PlannedOp* full = nullptr;   // the first op past the last row
    for (PlannedOp& o : ops) {
        if (o.rect.w > W) {
            *why = o.name + " needs a row of " + std::to_string(o.rect.w) + " PEs; the mesh is " + std::to_string(W) + " wide";
            *rows_needed = 0;
            return false;
        }
        if (x + o.rect.w > W) {
            x = 0;
            y++;
        }
        if (y >= H && !full) full = &o;
        o.rect.x = x;
        o.rect.y = y;
        x += o.rect.w;
    }
    *rows_needed = y + 1;
    if (!full) return true;
    *why = "the mesh is full at " + full->name + ": " + std::to_string(W) + "x" + std::to_string(H) + " PEs are too few";
    return false;
}

// [SECTION] memory

// The kernels' names for gradients and AdamW moments (models/kernels/*.wk, TRAIN = 1).
MemoryUse memory_use(const PlannedOp& o, const Program& prog) {
    static const std::set<std::string> grads = {"dw", "db", "dwb", "dwte", "dwpe"};
    static const std::set<std::string> adam = {"mw", "vw", "mb", "vb", "mwb", "vwb", "mte", "vte", "mpe", "vpe"};
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
        else if (grads.count(s.name) || (is_sparse && sparse_grads.count(s.name))) m.gradients += bytes;
        else if (adam.count(s.name) || (is_sparse && sparse_adam.count(s.name))) m.adam += bytes;
        else if (s.exported && s.length > 1 && s.name != "hp") m.activations += bytes;
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
        for (Transfer& in : o.inputs)
            if ((o.layer >= 0 && in.tensor == "encoded") || (o.layer < 0 && in.tensor == layer_name(0, "residual3")))
                in.between_layers = true;
}

}  // namespace

PlannedOp layer_instance(const PlannedOp& op, int l, int layers) {
    PlannedOp o = op;
    const std::string prefix = layer_name(0, "");
    auto rename = [&](Transfer& t, int layer) {
        if (t.tensor.compare(0, prefix.size(), prefix) == 0) t.tensor = layer_name(layer, t.tensor.c_str() + prefix.size());
    };
    if (op.layer < 0) {   // lnf: the last layer's stream
        for (Transfer& in : o.inputs)
            if (in.between_layers) rename(in, layers - 1);
        return o;
    }
    o.layer = l;
    o.name = layer_name(l, op.name.c_str() + prefix.size());
    for (Transfer& in : o.inputs) {
        if (in.between_layers && l > 0) in.tensor = layer_name(l - 1, "residual3");
        else rename(in, l);
    }
    rename(o.output, l);
    return o;
}

bool has_backward(const PlannedOp& o) { return o.train_only || o.on("TRAIN"); }

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
                if (o.layer >= 0 && !o.weights.empty() && !o.constants.count("LW")) {
                    fail(o.name + ": no colour of 8..17 is free along row " + std::to_string(o.rect.y) +
                         " from the mesh's edge for its weights' edge link");
                    return false;
                }
        }
        if (nonzeros_ && streaming() && train_) {
            fail("training sparse weights with streaming execution is not built yet (their gradients would stream "
                 "out as the non-zeros' alone): train with wafer.execution: resident with --sparsity");
            return false;
        }
        if (nonzeros_)
            for (PlannedOp& o : ops_) {
                SparseCounts nz = o.kernel == "matmul.wk" ? nonzeros_(o) : SparseCounts{};
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
            if (train_ && ops_[i].kernel == "embedding.wk" && ops_[i].constants.count("LDY")) stash_.push_back(i);
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
            const uint32_t slot = 4u * uint32_t(o.constants.at("CP") * o.constants.at("TP"));
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
            {"execution", plan.streaming ? "streaming" : "resident"},
            {"pes_used", plan.pes_used()}, {"bytes_max", plan.bytes_max()}, {"bytes_mean", plan.bytes_mean()},
            {"ops", ops}};
}

}  // namespace wl::model
