// mesh_gpt.cpp: see mesh_gpt.h.
#include "engine/model/mesh_gpt.h"

#include "engine/fabric/fault.h"
#include "engine/model/sparsity.h"
#include "engine/model/weight_stream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace wl::model {

bool layer_param(const gpt::GPTConfig& cfg, const gpt::ParamInfo& info) {
    const std::string name = info.name;
    return info.shape.size() >= 2 && info.shape[0] == cfg.n_layer && name != "wte" && name != "wpe";
}

ParamSlice param_slice(const gpt::GPTConfig& cfg, const std::string& name, int layer) {
    size_t base = 0;
    for (const gpt::ParamInfo& info : gpt::param_infos(cfg)) {
        if (info.name == name) {
            std::vector<int> shape = info.shape;
            size_t count = info.count;
            if (layer >= 0 && layer_param(cfg, info)) {
                count /= size_t(cfg.n_layer);
                base += size_t(layer) * count;
                shape.erase(shape.begin());
            }
            return {base, shape.size() == 2 ? shape[0] : 1, shape.size() == 2 ? shape[1] : shape[0]};
        }
        base += info.count;
    }
    throw std::logic_error("mesh_gpt: no parameter " + name);
}

std::vector<WeightPiece> weight_pieces(const PlannedOp& op, int p, const std::string& sym, const ParamSlice& w) {
    std::vector<WeightPiece> out;
    if (op.is(gpt::OpKind::Matmul) && op.constants.count("RK")) {   // tier r: columns r*K.. of its PE's rows; b the last tier's
        const int NC = int(op.constants.at("NC")), K = int(op.constants.at("K")), tier = p / op.rect.w, px = p % op.rect.w;
        const bool b = sym == "b";
        if (b && tier + 1 < op.tiers()) return out;
        const int rows = b ? w.cols : w.rows;
        for (int r = 0; r < NC && px * NC + r < rows; r++)
            out.push_back({size_t(r) * (b ? 1 : K), b ? size_t(px * NC + r) : size_t(px * NC + r) * w.cols + size_t(tier) * K,
                           size_t(b ? 1 : K)});
    } else if (op.is(gpt::OpKind::Matmul)) {   // rows p*NC.. of (OC, K); the last PE's rows past OC stay zero
        const int NC = int(op.constants.at("NC"));
        const int cols = sym == "b" ? 1 : w.cols, rows = sym == "b" ? w.cols : w.rows;
        for (int r = 0; r < NC && p * NC + r < rows; r++)
            out.push_back({size_t(r) * cols, size_t(p * NC + r) * cols, size_t(cols)});
    } else if (op.is(gpt::OpKind::Embedding)) {   // columns of (rows, C) on its tier's PE: wte's rows of the tier, all of wpe's
        const int CP = int(op.constants.at("CP")), tier = p / op.rect.w, px = p % op.rect.w;
        const bool wte = sym == op.kernel_info().weights[0];
        const int VR = wte && op.constants.count("VR") ? int(op.constants.at("VR")) : w.rows, r0 = wte ? tier * VR : 0;
        for (int r = 0; r < VR && r0 + r < w.rows; r++)
            out.push_back({size_t(r) * CP, size_t(r0 + r) * w.cols + size_t(px) * CP, size_t(CP)});
    } else if (op.is(gpt::OpKind::LayerNorm)) {   // w and b: its channels p*R..
        const int R = int(op.constants.at("C") / op.constants.at("P"));
        out.push_back({0, size_t(p) * R, size_t(R)});
    } else {                                    // the whole vector on every PE
        out.push_back({0, 0, size_t(w.rows) * w.cols});
    }
    return out;
}

void OpRun::count(const MachineStats& s0, const MachineStats& s1) {
    cycles = s1.cycles - s0.cycles;
    instructions = s1.instrs - s0.instrs;
    busy = s1.busy - s0.busy;
    hops = s1.hops - s0.hops;
    wavelets = s1.sent - s0.sent;
    vector_flops = s1.flops - s0.flops;
}

MeshGPT::MeshGPT(MeshPlan plan, const gpt::GPT& model, RunMode mode) : MeshGPT(std::move(plan), mode, InSteps{}) {
    while (load_step(model)) {
    }
}

static MachineConfig model_machine(const MeshPlan& p) {
    MachineConfig c{p.mesh_w, p.mesh_h, p.sram_bytes};
    c.fast_run_ahead = kModelRunAhead;
    return c;
}

MeshGPT::MeshGPT(MeshPlan plan, RunMode mode, InSteps)
    : plan_(std::move(plan)), host_(model_machine(plan_)) {
    host_.machine().set_mode(mode);
    schedule_ = plan_schedule(plan_);
}

bool MeshGPT::load_step(const gpt::GPT& model) {
    const size_t n = plan_.ops.size();
    if (loaded()) return false;
    const size_t i = load_next_++;
    if (i < n) {   // the plan's programs are shared by the ops that compiled the same kernel: loaded, not copied
        const PlannedOp& op = plan_.ops[i];
        for (int tier = 0; tier < op.tiers(); tier++) {   // the one-row kernel on each tier, told which it is
            const int y = op.rect.y + tier;
            for (const lang::Placement& p : op.compiled->placements)
                throw_if(host_.load(p.program, {op.rect.x + p.x, y + p.y, p.w, p.h}, p.consts));
            for (const lang::RouteSetting& r : op.compiled->routes)
                throw_if(host_.route(op.rect.x + r.x, y + r.y, r.colour, r.route));
            const uint32_t t = uint32_t(tier);
            const bool told = op.tiers() > 1 && op.compiled->placements.front().program->symbol(gpt::symbol::kTier);
            for (int x = op.rect.x; told && x < op.rect.x + op.rect.w; x++) throw_if(host_.h2d_u32(x, y, gpt::symbol::kTier, &t, 1));
        }
    } else if (i == n) {
        for (const lang::RouteSetting& r : plan_.links) throw_if(host_.route(r.x, r.y, r.colour, r.route));   // over the kernels' loop-backs
        if (plan_.streaming && !store_shared_) {
            store_->weights = model.params_memory;
            store_->mask = model.mask;
            if (plan_.train) {
                store_->grads.assign(model.params_memory.size(), 0.0f);
                store_->m.assign(model.params_memory.size(), 0.0f);
                store_->v.assign(model.params_memory.size(), 0.0f);
            }
        }
        if (plan_.streaming && plan_.train)   // the store's end of each edge link, for the gradients
            for (const PlannedOp& op : plan_.ops)
                for (int y = op.rect.y; streamed(op) && y < op.rect.y + op.tiers(); y++)
                    throw_if(host_.machine().drain(0, y, kWest, int(op.constants.at("LW")), EdgeLink::wse2().cycles_per_wavelet()));
    } else {
        load_weights(model, plan_.ops[i - n - 1]);
    }
    return !loaded();
}

// Each kernel's weights, cut the way its file says (models/kernels/*.wk; weight_pieces).
void MeshGPT::load_weights(const gpt::GPT& model) {
    if (plan_.streaming) {
        store_->weights = model.params_memory;
        store_->mask = model.mask;
        head_in_ = false;
    }
    for (const PlannedOp& op : plan_.ops) load_weights(model, op);
}

void MeshGPT::load_weights(const gpt::GPT& model, const PlannedOp& op) {
    if (streamed(op)) return;   // they stream in when it runs (stream_in, stream_head)
    const bool sparse = sparse_matmul(op);
    for (int p = 0; p < op.pes(); p++) {   // the op's PEs, tier by tier
        const int x = op.pe_x(p), y = op.pe_y(p);
        for (const auto& [sym, name] : op.weights) {
            if (sparse && sym == "w") {   // its non-zeros instead (sparsity.h); the planner sized them
                const SparseRows r = sparse_rows(op, p, model);
                if (r.wv.size() > size_t(op.constants.at("NZ")))
                    throw std::runtime_error(op.name + ": the weights have " + std::to_string(r.wv.size()) +
                                             " non-zeros on one PE; the plan has room for " +
                                             std::to_string(int(op.constants.at("NZ"))) + " (plan it for these weights)");
                if (!r.wv.empty()) throw_if(host_.h2d(x, y, kSparseValues, r.wv.data(), r.wv.size()));
                if (!r.wk.empty()) throw_if(host_.h2d_u32(x, y, kSparseIndices, r.wk.data(), r.wk.size()));
                throw_if(host_.h2d_u32(x, y, kSparseRowEnds, r.wr.data(), r.wr.size()));
                if (op.constants.count("NZT")) {   // training: the fixed index of its transposed columns
                    const SparseColumns c = sparse_columns(op, p, model);
                    if (c.wtk.size() > size_t(op.constants.at("NZT")))
                        throw std::runtime_error(op.name + ": the weights have " + std::to_string(c.wtk.size()) +
                                                 " non-zeros in one PE's columns; the plan has room for " +
                                                 std::to_string(int(op.constants.at("NZT"))) + " (plan it for these weights)");
                    if (!c.wtk.empty()) throw_if(host_.h2d_u32(x, y, kSparseColKeys, c.wtk.data(), c.wtk.size()));
                    if (!c.wts.empty()) throw_if(host_.h2d_u32(x, y, kSparseColSources, c.wts.data(), c.wts.size()));
                    throw_if(host_.h2d_u32(x, y, kSparseColRowEnds, c.wtr.data(), c.wtr.size()));
                }
                continue;
            }
            const ParamSlice w = param_slice(model.cfg, name, op.layer);
            for (const WeightPiece& piece : weight_pieces(op, p, sym, w))
                throw_if(host_.h2d(x, y, sym, model.params_memory.data() + w.offset + piece.model,
                                piece.n, piece.pe));
        }
    }
}

// Streaming: layer l's weights from the store, as wavelets: each of the layer's ops takes its own over
// the edge link of its row (the plan's LW; Machine::feed at the link's rate, weight_stream.h), every
// PE's in turn, and its load_w keeps its part; a tiered op's each tier over its own row's link. The
// ops and tiers stream side by side; the layer waits for the last.
wl::Fault MeshGPT::feed_layer(int l, wl::Host& h, uint64_t* bytes) const {
    for (const PlannedOp& slot : plan_.ops) {
        if (!layer_streamed(slot)) continue;
        const PlannedOp op = layer_instance(slot, l, plan_.cfg.n_layer);
        for (const lang::RouteSetting& r : edge_link_routes(op, false))
            if (Fault f = h.route(r.x, r.y, r.colour, r.route)) return f;
        for (int tier = 0; tier < op.tiers(); tier++) {
            std::vector<uint32_t> words = link_words(op, tier);
            if (bytes) *bytes += 4 * uint64_t(words.size());
            if (Fault f = h.machine().feed(0, op.rect.y + tier, kWest, int(op.constants.at("LW")), std::move(words),
                                           EdgeLink::wse2().cycles_per_wavelet()))
                return f;
        }
        if (Fault f = h.launch(op.rect, gpt::entry::kLoadW)) return f;
    }
    return {};
}

std::vector<uint32_t> MeshGPT::link_words(const PlannedOp& op, int tier) const {
    std::vector<uint32_t> words;   // PE 0's w, b, then PE 1's ...: load_w's order
    for (int p = tier * op.rect.w; p < (tier + 1) * op.rect.w; p++) append_pe_words(op, p, &words);
    return words;
}

void MeshGPT::append_pe_words(const PlannedOp& op, int p, std::vector<uint32_t>* words) const {
    const Program& prog = *op.compiled->placements.front().program;
    auto put = [words](const auto& v, size_t n) {   // v's words, padded with zeros to n
        for (size_t i = 0; i < n; i++) {
            uint32_t u = 0;
            if (i < v.size()) std::memcpy(&u, &v[i], 4);
            words->push_back(u);
        }
    };
    for (const auto& [sym, name] : op.weights) {
        if (op.on("STORE") && sym == op.kernel_info().weights[0]) {   // the rows the window's tokens pick, CP channels each
            const ParamSlice w = param_slice(plan_.cfg, name, -1);
            const int CP = int(op.constants.at("CP")), px = p % op.rect.w;
            std::vector<float> rows(size_t(plan_.cfg.block_size) * CP, 0.0f);
            for (size_t t = 0; t < tokens_.size(); t++)
                std::copy_n(store_->weights.data() + w.offset + size_t(tokens_[t]) * w.cols + size_t(px) * CP, CP, rows.begin() + long(t * CP));
            put(rows, rows.size());
            continue;
        }
        if (sym == "w" && sparse_matmul(op)) {   // only the non-zeros and their indices (sparsity.h)
            const SparseRows r = sparse_rows(op, p, plan_.cfg, store_->weights.data(), store_->mask);
            const size_t NZ = size_t(op.constants.at("NZ"));
            if (r.wv.size() > NZ)
                throw std::runtime_error(op.name + ": the weights have " + std::to_string(r.wv.size()) +
                                         " non-zeros on one PE; the plan has room for " + std::to_string(NZ));
            put(r.wv, NZ);
            put(r.wk, NZ);
            put(r.wr, r.wr.size());
            continue;
        }
        const Symbol* s = prog.symbol(sym);
        if (!s) throw std::logic_error(op.name + ": its kernel has no symbol " + sym);
        std::vector<float> part(s->length, 0.0f);   // the last PE's padding rows stay zero
        const ParamSlice w = param_slice(plan_.cfg, name, op.layer);
        for (const WeightPiece& piece : weight_pieces(op, p, sym, w))
            std::copy_n(store_->weights.data() + w.offset + piece.model, piece.n, part.begin() + long(piece.pe));
        put(part, part.size());
    }
}

// W's columns PE p needs for dx (matmul.wk's wt, transpose_w's layout): rows j = 0 .. P*NC-1 of its
// tier (output rows tier*P*NC + j; RK: every tier holds rows 0.., columns from tier*K), columns
// px*KP .. px*KP+KP-1; the rows past W's are zeros. Cut from the store as it streams (take_wt).
void MeshGPT::append_pe_wt(const PlannedOp& op, int p, std::vector<uint32_t>* words) const {
    const int P = op.rect.w, NC = int(op.constants.at("NC")), K = int(op.constants.at("K")), KP = K / P;
    const int tier = p / P, px = p % P;
    const bool rk = op.constants.count("RK") > 0;
    const ParamSlice w = param_slice(plan_.cfg, op.weights.front().second, op.layer);
    const size_t row0 = rk ? 0 : size_t(tier) * P * NC, col0 = (rk ? size_t(tier) * K : 0) + size_t(px) * KP;
    const size_t rows = size_t(P) * NC, at = words->size();
    words->resize(at + rows * size_t(KP), 0u);   // rows past W's (the last tier's padding) stay zero
    const float* const from = store_->weights.data() + w.offset + col0;
    for (size_t j = 0; j < rows && row0 + j < size_t(w.rows); j++)
        std::memcpy(words->data() + at + j * size_t(KP), from + (row0 + j) * w.cols, size_t(KP) * 4);
}

void MeshGPT::add_link_grads(const PlannedOp& op, int tier, const std::vector<uint32_t>& words, std::vector<float>* grads) const {
    const Program& prog = *op.compiled->placements.front().program;
    size_t at = 0;
    for (int p = tier * op.rect.w; p < (tier + 1) * op.rect.w; p++)
        for (const auto& [sym, name] : op.weights) {
            const size_t n = prog.symbol(sym)->length;
            if (at + n > words.size()) throw std::logic_error(op.name + ": its gradient stream is short");
            const ParamSlice w = param_slice(plan_.cfg, name, op.layer);
            for (const WeightPiece& piece : weight_pieces(op, p, sym, w))
                for (size_t i = 0; i < piece.n; i++) {
                    float g;
                    std::memcpy(&g, &words[at + piece.pe + i], 4);
                    (*grads)[w.offset + piece.model + i] += g;
                }
            at += n;
        }
    if (at != words.size())
        throw std::logic_error(op.name + ": its gradient stream has " + std::to_string(words.size()) + " words, not " + std::to_string(at));
}

std::vector<std::pair<wl::Rect, std::string>> MeshGPT::streamed_weights() const {
    std::vector<std::pair<wl::Rect, std::string>> out;
    for (const PlannedOp& op : plan_.ops)
        if (streamed(op))
            for (const auto& w : op.weights) out.push_back({op.rect, w.first});
    return out;
}

void MeshGPT::point_edge_links(bool out) {
    if (links_ == (out ? Links::Out : Links::In)) return;
    for (const PlannedOp& op : plan_.ops)
        if (layer_streamed(op))
            for (const lang::RouteSetting& r : edge_link_routes(op, out)) throw_if(host_.route(r.x, r.y, r.colour, r.route));
    links_ = out ? Links::Out : Links::In;
}

// The gradients leave as the weights came: each op's PE 0 first, its dw then db (send_g), over
// its row's link, now pointing west and off the mesh. The store asks the PEs in turn (a launch
// and a run each: the link carries one PE's words at a time, in order), the rows (ops and tiers)
// side by side.
bool MeshGPT::stream_out(int l, std::vector<float>* grads) {
    std::vector<PlannedOp> ops;
    for (const PlannedOp& op : plan_.ops)
        if (layer_streamed(op)) ops.push_back(layer_instance(op, l, plan_.cfg.n_layer));
    return stream_out(ops, gpt::layer_unit_name(l, "grads"), grads);
}

bool MeshGPT::stream_out(const std::vector<PlannedOp>& ops, const std::string& name, std::vector<float>* grads) {
    return stream_out_words(ops, name, [&](const PlannedOp& op, int tier, const std::vector<uint32_t>& words) {
        add_link_grads(op, tier, words, grads);
    });
}

bool MeshGPT::stream_out_words(const std::vector<PlannedOp>& ops, const std::string& name,
                               const std::function<void(const PlannedOp&, int, const std::vector<uint32_t>&)>& take) {
    return stream_run(name, "gradient_stream", ops, [&](OpRun* run) {
        if (std::all_of(ops.begin(), ops.end(), layer_streamed)) {
            point_edge_links(true);
        } else {   // the tied wte's ops: their own links alone
            for (const PlannedOp& op : ops)
                for (const lang::RouteSetting& r : edge_link_routes(op, true)) throw_if(host_.route(r.x, r.y, r.colour, r.route));
            links_ = Links::Pointed;   // the layers' links: pointed again before their next stream
        }
        int widest = 0;
        for (const PlannedOp& op : ops) widest = std::max(widest, op.rect.w);
        for (int p = 0; p < widest; p++) {
            for (const PlannedOp& op : ops)
                if (p < op.rect.w) throw_if(host_.launch({op.rect.x + p, op.rect.y, 1, op.tiers()}, gpt::entry::kSendG));
            if (!run_links(name, "gradients")) return false;
        }
        for (const PlannedOp& op : ops)   // into the store, in load_w's order
            for (int tier = 0; tier < op.tiers(); tier++) {
                const std::vector<uint32_t> words = host_.machine().take_drained(0, op.rect.y + tier, kWest, int(op.constants.at("LW")));
                take(op, tier, words);
                run->stream_bytes += 4 * uint64_t(words.size());
            }
        return true;
    });
}

// A stream's run, an OpRun of its own: its machine counts and host seconds around body.
bool MeshGPT::stream_run(const std::string& name, const char* op, const std::vector<PlannedOp>& ops,
                         const std::function<bool(OpRun*)>& body) {
    const auto start = std::chrono::steady_clock::now();
    OpRun run;
    run.name = name;
    run.op = op;
    for (const PlannedOp& o : ops) run.pes += o.pes();
    const MachineStats s0 = host_.stats();
    if (!body(&run)) return false;
    run.count(s0, host_.stats());
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    runs_.push_back(run);
    return true;
}

bool MeshGPT::stream_in(int l, bool for_backward) {
    bool own = true;   // every op's kernel takes its own words from a link pointed at it
    std::vector<PlannedOp> ops;
    for (const PlannedOp& op : plan_.ops)
        if (layer_streamed(op)) {
            ops.push_back(layer_instance(op, l, plan_.cfg.n_layer));
            own = own && op.compiled->placements.front().program->function_index(gpt::entry::kTakeW) >= 0;
        }
    const std::string name = gpt::layer_unit_name(l, "weights");
    return stream_run(name, "weight_stream", ops, [&](OpRun* run) {
        if (own) return stream_in_own(ops, run, for_backward);
        // a kernel that only has load_w (lesson 15's): one multicast stream a row
        throw_if(feed_layer(l, host_, &run->stream_bytes));
        links_ = Links::In;
        return run_links(name, "weights");
    });
}

// Runs what the edge links carry to quiescence; false, with error() naming the unit and what moved, on a fault.
bool MeshGPT::run_links(const std::string& name, const char* what) {
    const RunResult r = host_.run_until_quiescent(cycle_budget);
    if (!r.ok()) error_ = name + " (the layer's " + what + " over the edge links): " + r.fault.to_string();
    return r.ok();
}

// Each row's link pointed at its p-th PE in turn, the rows side by side, a run each: PE p takes its
// words alone (take_w), where a multicast would copy the whole row's to every PE and each drop all
// but its own. The same words cross each link in the same order, at its rate.
bool MeshGPT::stream_in_own(const std::vector<PlannedOp>& ops, OpRun* run, bool for_backward) {
    int widest = 0;
    for (const PlannedOp& op : ops) widest = std::max(widest, op.rect.w);
    for (int p = 0; p < widest; p++) {
        for (const PlannedOp& op : ops) {
            if (p >= op.rect.w) continue;
            for (const lang::RouteSetting& r : edge_link_to(op, p))   // after PE 0, only PE p - 1's and p's routers change
                if (p == 0 || links_ != Links::Pointed || r.x >= op.rect.x + p - 1) throw_if(host_.route(r.x, r.y, r.colour, r.route));
            const bool wt = for_backward && op.on("WT");
            for (int tier = 0; tier < op.tiers(); tier++) {
                std::vector<uint32_t> words;
                append_pe_words(op, tier * op.rect.w + p, &words);
                if (wt) append_pe_wt(op, tier * op.rect.w + p, &words);
                run->stream_bytes += 4 * uint64_t(words.size());
                throw_if(host_.machine().feed(0, op.rect.y + tier, kWest, int(op.constants.at("LW")), std::move(words),
                                              EdgeLink::wse2().cycles_per_wavelet()));
            }
            throw_if(host_.launch({op.rect.x + p, op.rect.y, 1, op.tiers()}, wt ? gpt::entry::kTakeWt : gpt::entry::kTakeW));
        }
        links_ = Links::Pointed;
        if (!run_links(run->name, "weights")) return false;
    }
    return true;
}

// Streaming training: the tied wte's two ops take it from the store when they run: the embedding
// the rows its window's tokens pick (every forward: the tokens change), the LM head the whole
// table, once until the store's wte changes (head_in_).
bool MeshGPT::stream_head(const PlannedOp& op) {
    if (op.on("TIED") && head_in_) return true;
    const bool ok = stream_run(op.name + ".weights", "weight_stream", {op}, [&](OpRun* run) {
        links_ = Links::Pointed;   // the layers' links: pointed again before their next stream
        return stream_in_own({op}, run, /*for_backward=*/true);   // the LM head's wt: the step's backward
    });
    head_in_ = head_in_ || (ok && op.on("TIED"));
    return ok;
}

namespace {
// The PEs that hold a transfer, each with its place p in the cut (Transfer::tiers): an input on
// every tier (one_copy: the first's alone), the last tier's alone, or the tiers going on with the cut.
struct TransferPe {
    int x, y, p;
};
std::vector<TransferPe> transfer_pes(const PlannedOp& op, const Transfer& tr, bool one_copy = false) {
    std::vector<TransferPe> out;
    for (int tier = 0; tier < op.tiers(); tier++) {
        if (tr.tiers == Tiers::Last ? tier + 1 < op.tiers() : tr.tiers == Tiers::Each && one_copy && tier > 0) continue;
        for (int px = 0; px < op.rect.w; px++)
            out.push_back({op.rect.x + px, op.rect.y + tier, tr.tiers == Tiers::Split ? tier * op.rect.w + px : px});
    }
    return out;
}

// A Time slice's part of the window [t0, t0+n) on PE p, in the PE's own steps.
void local_window(const Transfer& tr, int p, int t0, int n, int* lo, int* len) {
    const int a = std::clamp(t0 - p * tr.per_pe, 0, tr.per_pe), b = std::clamp(t0 + n - p * tr.per_pe, 0, tr.per_pe);
    *lo = a;
    *len = b - a;
}
}  // namespace

// Moves the window's columns of a tensor into the op's PEs (earlier columns are already there).
void MeshGPT::put(const PlannedOp& op, const Transfer& tr, int t0, int n) { put(op, tr, t0, n, acts_); }

void MeshGPT::put(const PlannedOp& op, const Transfer& tr, int t0, int n, const Tensors& from) {
    const int TP = time_pitch(plan_);
    std::vector<float> zeros;
    for (const auto& [x, y, p] : transfer_pes(op, tr)) {
        if (tr.slice == Slice::Tokens) {   // tokens_ is the window's sequence: its steps from its first column
            const int s = t0 % plan_.cfg.block_size;
            std::vector<uint32_t> tok(tokens_.begin() + s, tokens_.begin() + s + n);
            throw_if(host_.h2d_u32(x, y, tr.symbol, tok.data(), tok.size(), size_t(t0)));
            continue;
        }
        const std::vector<float>& a = from.at(tr.tensor);
        if (tr.slice == Slice::Rows) {
            for (int r = 0; r < tr.per_pe; r++) {
                const size_t row = size_t(tr.row_offset + p * tr.per_pe + r);
                const float* src = a.data() + row * TP + t0;
                if (row >= size_t(tr.rows)) {   // padding rows of the last PE (a gradient's): zeros
                    zeros.assign(size_t(n), 0.0f);
                    src = zeros.data();
                }
                throw_if(host_.h2d(x, y, tr.symbol, src, size_t(n), size_t(r) * TP + t0));
                host_bytes_ += 4 * uint64_t(n);
            }
        } else {   // Time: (rows, per_pe) on the PE
            int lo, len;
            local_window(tr, p, t0, n, &lo, &len);
            for (int r = 0; len > 0 && r < tr.rows; r++) {
                throw_if(host_.h2d(x, y, tr.symbol, a.data() + size_t(r) * TP + p * tr.per_pe + lo, size_t(len),
                                size_t(r) * tr.per_pe + lo));
                host_bytes_ += 4 * uint64_t(len);
            }
        }
    }
}

void MeshGPT::get(const PlannedOp& op, const Transfer& tr, int t0, int n) { get(op, tr, t0, n, acts_); }

void MeshGPT::get(const PlannedOp& op, const Transfer& tr, int t0, int n, Tensors& into) {
    const int TP = time_pitch(plan_);
    std::vector<float>& a = into[tr.tensor];
    a.resize(size_t(tr.rows) * TP, 0.0f);
    for (const auto& [x, y, p] : transfer_pes(op, tr, /*one_copy=*/true)) {
        if (tr.slice == Slice::Rows) {
            for (int r = 0; r < tr.per_pe && tr.row_offset + p * tr.per_pe + r < tr.rows; r++) {   // the last PE may hold padding rows
                throw_if(host_.d2h(x, y, tr.symbol, a.data() + size_t(tr.row_offset + p * tr.per_pe + r) * TP + t0,
                                size_t(n), size_t(r) * TP + t0));
                host_bytes_ += 4 * uint64_t(n);
            }
        } else {
            int lo, len;
            local_window(tr, p, t0, n, &lo, &len);
            for (int r = 0; len > 0 && r < tr.rows; r++) {
                throw_if(host_.d2h(x, y, tr.symbol, a.data() + size_t(r) * TP + p * tr.per_pe + lo, size_t(len),
                                size_t(r) * tr.per_pe + lo));
                host_bytes_ += 4 * uint64_t(len);
            }
        }
    }
}

// One op: its linked inputs come over the fabric (each producer's send_y, launched with its
// main), the host puts the others; the host gets the output only where some consumer has no link.
bool MeshGPT::run_op(const PlannedOp& op, int t0, int n, bool read_out, const char* fn) {
    if (streamed(op) && !layer_streamed(op) && !stream_head(op)) return false;
    const auto start = std::chrono::steady_clock::now();
    const uint64_t bytes0 = host_bytes_;
    for (const Transfer& tr : op.inputs)
        if (!tr.colour) put(op, tr, t0, n);
    OpRun run;
    if (!launch(op, fn, t0, n, &run, link_senders(op))) return false;
    const bool whole = std::string(fn) == gpt::entry::kMain;   // else it makes no output
    if (op.host_out && read_out && whole) get(op, op.output, t0, n);
    run.host_bytes = host_bytes_ - bytes0;
    if (whole && watch_ && nonfinite_.empty()) look_for_nonfinite(op, t0, n);
    if (!whole) run.op = op.op + ":" + fn;
    else run.flops = op.flops * n / plan_.cfg.block_size;   // op_list counts a full context (attention: roughly)
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    runs_.push_back(run);
    return true;
}

void MeshGPT::look_for_nonfinite(const PlannedOp& op, int t0, int n) {
    const Transfer& tr = op.output;
    const uint64_t bytes = host_bytes_;   // a diagnosis's reads are not the run's traffic
    Tensors out;
    get(op, tr, t0, n, out);
    host_bytes_ = bytes;
    const int TP = time_pitch(plan_);
    const std::vector<float>& y = out[tr.tensor];
    for (int r = 0; r < tr.rows; r++)
        for (int t = t0; t < t0 + n; t++) {
            const float v = y[size_t(r) * TP + size_t(t)];
            if (std::isfinite(v)) continue;
            const int p = tr.slice == Slice::Rows ? (r - tr.row_offset) / tr.per_pe : t / tr.per_pe;
            std::string pe;
            for (const auto& [x, yy, q] : transfer_pes(op, tr, /*one_copy=*/true))
                if (q == p) pe = ", on PE (" + std::to_string(x) + "," + std::to_string(yy) + ")";
            nonfinite_ = op.name + " (" + op.kernel + "): " + (std::isnan(v) ? "NaN" : "an infinity") + " at time step " +
                         std::to_string(t) + ", row " + std::to_string(r) + pe;
            return;
        }
}

void MeshGPT::set_window(const PlannedOp& op, int t0, int n) {
    const Transfer& in = op.inputs.front();
    const Program* image = nullptr;   // t0 and tlen lie at one place in a program image: found once an image
    uint32_t at_t0 = 0, at_tlen = 0;
    for (const auto& [x, y, p] : transfer_pes(op, in)) {   // the window, in the PE's own steps for a Time slice
        int lo = t0, len = n;
        if (in.slice == Slice::Time) local_window(in, p, t0, n, &lo, &len);
        const uint32_t v[2] = {uint32_t(lo), uint32_t(len)};
        if (const Program* here = host_.machine().program_at(x, y); here != image || !here) {
            throw_if(host_.symbol_offset(x, y, gpt::symbol::kT0, 1, 0, &at_t0));
            throw_if(host_.symbol_offset(x, y, gpt::symbol::kTlen, 1, 0, &at_tlen));
            image = here;
        }
        throw_if(host_.machine().write(x, y, at_t0, &v[0], 4));
        throw_if(host_.machine().write(x, y, at_tlen, &v[1], 4));
    }
}

bool MeshGPT::launch(const PlannedOp& op, const char* fn, int t0, int n, OpRun* run, const Senders& senders) {
    set_window(op, t0, n);
    // Everything the run moves stays between the op and its senders (links go down their columns,
    // relays along a row first): their bounding box's counts, not a large mesh's every PE.
    Rect box = op.rect;
    for (const auto& [from, send] : senders) {
        const int x1 = std::max(box.x + box.w, from.x + from.w), y1 = std::max(box.y + box.h, from.y + from.h);
        box.x = std::min(box.x, from.x), box.y = std::min(box.y, from.y);
        box.w = x1 - box.x, box.h = y1 - box.y;
    }
    const MachineStats s0 = host_.stats(box);
    RunResult r;
    if (senders.empty() && op.tiers_apart(fn)) {   // tier by tier in fast mode: a tier's SRAM stays in the host's caches
        std::vector<Rect> tiers;
        for (int t = 0; t < op.tiers(); t++) tiers.push_back({op.rect.x, op.rect.y + t, op.rect.w, 1});
        r = host_.run_apart(tiers, fn, cycle_budget);
    } else {
        throw_if(host_.launch(op.rect, fn));
        for (const auto& [from, send] : senders) throw_if(host_.launch(from, send));   // its window is its own launch's
        r = host_.run_until_quiescent(cycle_budget);
    }
    if (!r.ok()) {
        error_ = op.name + " (" + op.kernel + (std::string(fn) == gpt::entry::kMain ? "" : std::string(", ") + fn) + "): " +
                 r.fault.to_string();
        return false;
    }
    const MachineStats s1 = host_.stats(box);
    run->name = op.name;
    run->op = op.op;
    run->count(s0, s1);
    run->pes = op.rect.w * op.rect.h;
    return true;
}

std::vector<const PlannedOp*> MeshGPT::stages() const { return forward_stages(plan_); }

std::vector<LaunchSpan> MeshGPT::timeline() const {
    if (!runs_.empty() && runs_.front().concurrent) return pipe_timeline_;
    return sequential_timeline(runs_, window_t0_, window_n_);
}

Pipeline MeshGPT::pipeline(int t0, int n) const { return plan_pipeline(plan_, t0, n, default_chunks(plan_, n)); }

// Resident: the ops in schedule order, or pipelined (pipeline.h) in waves. Streaming: the ops
// before the layer, then the layer's ops once per layer, each time after its weights stream in,
// then the rest (lnf reads the last layer).
bool MeshGPT::run_forward_ops(int t0, int n) {
    const int layers = plan_.cfg.n_layer;
    if (schedule_ == Schedule::Pipelined && !plan_.streaming && n > 1) {   // one step: nothing to overlap
        begin_pipeline(stages(), t0, n);
        return run_pipeline();
    }
    for (size_t i = 0; i < plan_.ops.size(); i++) {
        const PlannedOp& op = plan_.ops[i];
        if (op.train_only) continue;
        if (!plan_.streaming) {
            if (!run_op(op, t0, n)) return false;
            continue;
        }
        if (op.layer < 0) {
            if (!run_op(layer_instance(op, 0, layers), t0, n)) return false;
            continue;
        }
        size_t end = i;   // the layer's ops: i .. end-1
        while (end < plan_.ops.size() && plan_.ops[end].layer >= 0) end++;
        for (int l = 0; l < layers; l++) {
            if (!stream_in(l)) return false;
            for (size_t k = i; k < end; k++)
                if (!run_op(layer_instance(plan_.ops[k], l, layers), t0, n)) return false;
        }
        i = end - 1;
    }
    return true;
}

bool MeshGPT::run(int t0, int n, std::vector<float>* logits) {
    runs_.clear();
    window_t0_ = t0, window_n_ = n;
    try {
        if (!run_forward_ops(t0, n)) return false;
    } catch (const std::exception& e) {
        error_ = e.what();
        return false;
    }
    copy_logits(t0, n, logits);
    return true;
}

void MeshGPT::copy_logits(int t0, int n, std::vector<float>* logits) const {
    const int V = plan_.cfg.vocab_size, TP = time_pitch(plan_);
    const std::vector<float>& y = acts_.at(gpt::op_row(gpt::OpId::Logits).name);   // (V, TP) -> (n, V)
    logits->assign(size_t(n) * V, 0.0f);
    for (int v = 0; v < V; v++)
        for (int t = 0; t < n; t++) (*logits)[size_t(t) * V + v] = y[size_t(v) * TP + t0 + t];
}

bool MeshGPT::valid_token(int token, int position) {
    if (token >= 0 && token < plan_.cfg.vocab_size) return true;
    error_ = "forward on the mesh: token " + std::to_string(token) + " at position " + std::to_string(position) +
             " is outside [0, " + std::to_string(plan_.cfg.vocab_size) + ")";
    return false;
}

bool MeshGPT::take_tokens(const int* tokens, int T) {
    error_.clear();
    if (!loaded()) {
        error_ = "forward on the mesh: the mesh is still loading (load_step until loaded())";
        return false;
    }
    tokens_.clear();
    const int TP = plan_.cfg.block_size;
    if (T < 1 || T > TP) {
        error_ = "forward on the mesh: need 1 <= T <= block_size (" + std::to_string(TP) + "), got " + std::to_string(T);
        return false;
    }
    for (int t = 0; t < T; t++)
        if (!valid_token(tokens[t], t)) return false;
    tokens_.assign(tokens, tokens + T);
    return true;
}

bool MeshGPT::forward(const int* tokens, int T, std::vector<float>* logits) {
    if (!take_tokens(tokens, T)) return false;
    if (run(0, T, logits)) return true;
    tokens_.clear();   // the cache is not whole
    return false;
}

bool MeshGPT::forward_batch(const int* tokens, int B, int T, std::vector<float>* logits) {
    error_.clear();
    if (B < 1) {
        error_ = "forward on the mesh: need B >= 1, got " + std::to_string(B);
        return false;
    }
    const int V = plan_.cfg.vocab_size, TP = plan_.cfg.block_size;
    if (B == 1 || schedule_ != Schedule::Pipelined || plan_.streaming || T < 2) {   // one sequence at a time
        std::vector<OpRun> runs;
        std::vector<float> one;
        logits->clear();
        for (int b = 0; b < B; b++) {
            if (!forward(tokens + size_t(b) * T, T, &one)) return false;
            logits->insert(logits->end(), one.begin(), one.end());
            runs.insert(runs.end(), runs_.begin(), runs_.end());
        }
        runs_ = std::move(runs);
        return true;
    }
    if (!loaded()) {
        error_ = "forward on the mesh: the mesh is still loading (load_step until loaded())";
        return false;
    }
    if (T > TP) {
        error_ = "forward on the mesh: need 1 <= T <= block_size (" + std::to_string(TP) + "), got " + std::to_string(T);
        return false;
    }
    std::vector<std::vector<int>> batch(static_cast<size_t>(B));
    for (int b = 0; b < B; b++) {
        for (int t = 0; t < T; t++)
            if (!valid_token(tokens[size_t(b) * T + t], t)) return false;
        batch[size_t(b)].assign(tokens + size_t(b) * T, tokens + size_t(b + 1) * T);
    }
    runs_.clear();
    window_t0_ = 0, window_n_ = T;
    std::vector<Tensors> acts;
    try {
        begin_pipeline(stages(), 0, T, true, std::move(batch), &acts);
        if (!run_pipeline()) {
            tokens_.clear();   // the cache is not whole
            return false;
        }
    } catch (const std::exception& e) {
        error_ = e.what();
        tokens_.clear();
        return false;
    }
    logits->assign(size_t(B) * T * V, 0.0f);
    const int pitch = time_pitch(plan_);
    for (int b = 0; b < B; b++) {
        const std::vector<float>& y = acts[size_t(b)].at(gpt::op_row(gpt::OpId::Logits).name);   // (V, pitch) -> (T, V)
        for (int v = 0; v < V; v++)
            for (int t = 0; t < T; t++) (*logits)[(size_t(b) * T + t) * V + v] = y[size_t(v) * pitch + t];
    }
    return true;
}

bool MeshGPT::extend(int token, std::vector<float>* logits) {
    error_.clear();
    if (!loaded()) {
        error_ = "extend on the mesh: the mesh is still loading (load_step until loaded())";
        return false;
    }
    if (plan_.streaming) {
        error_ = "extend on the mesh: streaming execution has no KV cache (the attention's PEs hold one layer's keys "
                 "and values at a time); run forward on the whole context";
        return false;
    }
    const int T = context();
    if (!valid_token(token, T)) return false;
    if (T < 1 || T >= plan_.cfg.block_size) {
        error_ = "extend on the mesh: the cache holds " + std::to_string(T) + " tokens and block_size is " +
                 std::to_string(plan_.cfg.block_size) + " (run forward first; a full context starts again)";
        return false;
    }
    tokens_.push_back(token);
    if (run(T, 1, logits)) return true;
    tokens_.clear();
    return false;
}

const float* MeshGPT::next_logits(const int* ctx, int T) {
    const int have = context();
    const bool cached = !plan_.streaming && have > 0 && T == have + 1 && std::equal(tokens_.begin(), tokens_.end(), ctx);
    if (cached ? !extend(ctx[T - 1], &logits_) : !forward(ctx, T, &logits_)) throw std::runtime_error(error_);
    return logits_.data() + logits_.size() - size_t(plan_.cfg.vocab_size);
}

uint64_t MeshGPT::last_host_bytes() const {
    uint64_t b = 0;
    for (const OpRun& r : runs_) b += r.host_bytes;
    return b;
}

uint64_t MeshGPT::last_stream_bytes() const {
    uint64_t b = 0;
    for (const OpRun& r : runs_) b += r.stream_bytes;
    return b;
}

uint64_t MeshGPT::last_stream_cycles() const {
    uint64_t c = 0;
    for (const OpRun& r : runs_)
        if (r.stream_bytes) c += r.cycles;
    return c;
}

uint64_t MeshGPT::last_cycles() const {
    uint64_t c = 0;
    for (const OpRun& r : runs_) c += r.cycles;
    return c;
}

}  // namespace wl::model
