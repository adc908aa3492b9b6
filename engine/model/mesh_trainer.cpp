// mesh_trainer.cpp: see mesh_trainer.h. Loading, the fabric's routes for training, the launches
// and the state's transfers; the queues of units that make a step are mesh_train_queue.cpp.
#include "engine/model/mesh_trainer.h"

#include "engine/gpt/encoder.h"
#include "engine/model/sparsity.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <map>
#include <stdexcept>

namespace wl::model {

namespace {

// The consumer's function that sends a linked input's gradient up: send_d<symbol>; the
// attention's relay sends dq, dk and dv in one (attention.wk's send_dqkv).
const char* grad_send(const PlannedOp& consumer, const Transfer& in) {
    return consumer.kernel_info().grad_send(in.symbol.c_str());
}

// The symbol that holds a weight's gradient or AdamW moment (kernels' names), and where in it
// the weight's part starts.
std::string state_symbol(const PlannedOp& op, const std::string& sym, MeshTrainer::State state, size_t* first) {
    *first = 0;
    if (state == MeshTrainer::State::Params) return sym;
    const gpt::KernelInfo& k = op.kernel_info();
    const int i = sym == k.weights[0] ? 0 : 1;
    if (k.packed) {   // its channels' w's and b's in one array (layernorm's dwb): b's after w's R
        if (i == 1) *first = size_t(op.constants.at("C") / op.constants.at("P"));
        return state == MeshTrainer::State::Grads ? k.grads[0] : state == MeshTrainer::State::Moment1 ? k.m[0] : k.v[0];
    }
    return state == MeshTrainer::State::Grads ? k.grads[i] : state == MeshTrainer::State::Moment1 ? k.m[i] : k.v[i];
}

// [SECTION] the residual stream's gradient on the fabric (plan_stream_grads, plan_links.cpp): the
// layernorm that reads a residual's output computes its gradient (dx) and sends it up, to the
// matmul that made the residual's second input (send_dx, into its dy) and to the layernorm that
// reads its first input (send_dx2, into its dx); the residual's input records the colour.

using Ops = std::vector<PlannedOp>;

const PlannedOp* layernorm_reading(const Ops& ops, const std::string& tensor) {
    for (const PlannedOp& o : ops)
        if (o.is(gpt::OpKind::LayerNorm) && o.inputs.front().tensor == tensor) return &o;
    return nullptr;
}

// The layernorm that sends op's dy (op a matmul) or its dx's first value (op a layernorm) over
// such a link, and the function that sends it; {nullptr, nullptr}: the host moves it.
std::pair<const PlannedOp*, const char*> stream_grad_into(const Ops& ops, const PlannedOp& op) {
    for (const PlannedOp& r : ops) {
        if (!r.is(gpt::OpKind::Residual) || r.inputs.size() != 2) continue;
        if (op.is(gpt::OpKind::Matmul) && r.inputs[1].tensor == op.name && r.inputs[1].grad_colour)
            return {layernorm_reading(ops, r.name), gpt::entry::kSendDx};
        if (op.is(gpt::OpKind::LayerNorm) && r.inputs[0].tensor == op.inputs.front().tensor && r.inputs[0].grad_colour)
            return {layernorm_reading(ops, r.name), gpt::entry::kSendDx2};
    }
    return {nullptr, nullptr};
}

// Whether both readers of layernorm ln's dx take it over the fabric, so the host need not read it.
bool stream_grad_kept(const Ops& ops, const PlannedOp& ln) {
    if (!ln.is(gpt::OpKind::LayerNorm)) return false;
    const PlannedOp* r = nullptr;
    for (const PlannedOp& o : ops)
        if (o.name == ln.inputs.front().tensor) r = &o;
    return r && r->is(gpt::OpKind::Residual) && r->inputs.size() == 2 && r->inputs[0].grad_colour && r->inputs[1].grad_colour;
}

// The ops a step runs, in schedule order: the plan's; streaming, each layer's instance of the
// plan's layer ops (layer_instance: their tensors named for their layer) between the others.
Ops unrolled(const MeshPlan& plan) {
    if (!plan.streaming) return plan.ops;
    Ops out;
    size_t first = 0, end = 0;   // the layer's ops: [first, end)
    while (first < plan.ops.size() && plan.ops[first].layer < 0) out.push_back(plan.ops[first++]);
    for (end = first; end < plan.ops.size() && plan.ops[end].layer >= 0;) end++;
    for (int l = 0; l < plan.cfg.n_layer; l++)
        for (size_t i = first; i < end; i++) out.push_back(layer_instance(plan.ops[i], l, plan.cfg.n_layer));
    for (size_t i = end; i < plan.ops.size(); i++) out.push_back(layer_instance(plan.ops[i], 0, plan.cfg.n_layer));
    return out;
}

}  // namespace

MeshTrainer::MeshTrainer(MeshPlan plan, const gpt::GPT& model, RunMode mode) : MeshTrainer(std::move(plan), mode, MeshGPT::InSteps{}) {
    while (load_step(model)) {
    }
}

MeshTrainer::MeshTrainer(MeshPlan plan, RunMode mode, MeshGPT::InSteps)
    : mesh_(std::move(plan), mode, MeshGPT::InSteps{}), ops_(unrolled(mesh_.plan())) {
    if (!mesh_.plan().train) throw std::invalid_argument("MeshTrainer: the plan was not made for training (plan_model's train)");
}

void MeshTrainer::share_store(const MeshTrainer& first) {
    if (!mesh_.plan().streaming || mesh_.load_done() > 0)
        throw std::logic_error("MeshTrainer::share_store: a streamed plan's wafer, before its first load_step");
    mesh_.share_store(first.mesh_.store_);
}

bool MeshTrainer::holds_weights(const PlannedOp& o) const { return o.on("TRAIN") && !o.weights.empty() && !streamed(o); }

bool MeshTrainer::store_tie() const { return op(gpt::OpId::Encoded).on("STORE"); }

bool MeshTrainer::in_store(const gpt::ParamInfo& info) const {
    const std::string name = info.name;
    return mesh_.plan().streaming && (layer_param(mesh_.plan().cfg, info) || (store_tie() && (name == "wte" || name == "wpe")));
}

bool MeshTrainer::load_step(const gpt::GPT& model) {
    if (routed_) return false;
    if (mesh_.load_step(model)) return true;
    route_norm();
    route_tie();
    routed_ = true;
    return false;
}

// The global norm's chains (the kernels' grad_norm): in each mesh row, the PEs that hold weights
// pass their running sum west, each to the next such PE (colours nr0/nr1 alternate, PEs between
// pass it through); each row's westmost one passes its row's sum north to the next row's
// (nc0/nc1, north then along that row). The first row's westmost ends with the mesh's sum.
// The clipping coefficient goes back the same ways as two multicasts, each router copying it
// to its PE and on: from the first row's head along the heads' chain reversed (cc), and from
// each row's head east along its row (cr).
void MeshTrainer::route_norm() {
    constexpr int kNr[2] = {20, 21}, kNc[2] = {22, 23};   // the kernels' nr0, nr1, nc0, nc1
    constexpr int kCr = 18, kCc = 19;                     // cr, cc
    std::map<int, std::vector<int>> rows;                 // y -> x of each weight-holding PE, ascending
    for (const PlannedOp& o : mesh_.plan().ops)
        if (holds_weights(o))
            for (int p = 0; p < o.pes(); p++) rows[o.pe_y(p)].push_back(o.pe_x(p));
    std::map<std::pair<int, int>, std::array<uint32_t, 7>> gn;   // (x, y) -> grad_norm's gn
    auto route = [&](int x, int y, int c, uint8_t rx, uint8_t tx) { throw_if(mesh_.host_.route(x, y, c, Route::of(rx, tx))); };
    std::map<std::pair<int, int>, std::pair<uint8_t, uint8_t>> cc;   // the heads' multicast: (x, y) -> rx, tx
    std::vector<std::pair<int, int>> heads;   // (x, y) of each row's westmost, rows ascending
    for (auto& [y, xs] : rows) {
        std::sort(xs.begin(), xs.end());
        for (int x : xs) gn[{x, y}] = {0, 0, 0, 0, 2, 0, 0};   // by default the coefficient comes along the row
        for (size_t j = xs.size() - 1; j > 0; j--) {   // xs[j] sends west to xs[j-1]
            const int c = kNr[j % 2];
            route(xs[j], y, c, kR, kW);
            for (int x = xs[j] - 1; x > xs[j - 1]; x--) route(x, y, c, kE, kW);
            route(xs[j - 1], y, c, kE, kR);
            gn[{xs[j], y}][1] = uint32_t(j % 2 + 1);
            gn[{xs[j - 1], y}][0] = uint32_t(j % 2 + 1);
        }
        if (xs.size() > 1) {   // cr: the head sends east, the row's other weight PEs take a copy
            route(xs.front(), y, kCr, kR, kE);
            size_t k = 1;
            for (int x = xs.front() + 1; x < xs.back(); x++) {
                const bool holds = xs[k] == x;
                if (holds) k++;
                route(x, y, kCr, kW, holds ? kE | kR : kE);
            }
            route(xs.back(), y, kCr, kW, kR);
            gn[{xs.front(), y}][5] = 1;
        }
        heads.push_back({xs.front(), y});
    }
    for (size_t i = heads.size(); i-- > 1;) {   // heads[i] sends to heads[i-1]
        const auto [x1, y1] = heads[i];
        const auto [x0, y0] = heads[i - 1];
        const int c = kNc[i % 2];
        route(x1, y1, c, kR, kN);
        for (int y = y1 - 1; y > y0; y--) route(x1, y, c, kS, kN);
        const uint8_t along = x0 < x1 ? kW : kE, from = x0 < x1 ? kE : kW;
        if (x0 == x1) {
            route(x0, y0, c, kS, kR);
        } else {
            route(x1, y0, c, kS, along);
            for (int x = x0 < x1 ? x1 - 1 : x1 + 1; x != x0; x += x0 < x1 ? -1 : 1) route(x, y0, c, from, along);
            route(x0, y0, c, from, kR);
        }
        gn[{x1, y1}][3] = uint32_t(i % 2 + 1);
        gn[{x0, y0}][2] = uint32_t(i % 2 + 1);
        // cc, the same path reversed: heads[i-1] along row y0 to column x1, then south to heads[i].
        auto add = [&](int x, int y, uint8_t rx, uint8_t tx) {
            cc[{x, y}].first |= rx;
            cc[{x, y}].second |= tx;
        };
        if (x0 == x1) {
            add(x0, y0, 0, kS);
        } else {
            add(x0, y0, 0, from);
            for (int x = x0 < x1 ? x0 + 1 : x0 - 1; x != x1; x += x0 < x1 ? 1 : -1) add(x, y0, along, from);
            add(x1, y0, along, kS);
        }
        for (int y = y0 + 1; y < y1; y++) add(x1, y, kN, kS);
        add(x1, y1, kN, kR);
        gn[{x1, y1}][4] = 1;
    }
    if (!heads.empty()) {
        gn[heads.front()][4] = 0;   // the chain's end computes the coefficient
        if (heads.size() > 1) {
            gn[heads.front()][6] = 1;
            cc[heads.front()].first |= kR;
        }
    }
    for (const auto& [xy, ports] : cc) route(xy.first, xy.second, kCc, ports.first, ports.second);
    for (const auto& [xy, flags] : gn) throw_if(mesh_.host_.h2d_u32(xy.first, xy.second, "gn", flags.data(), flags.size()));
    norm_origin_ = heads.empty() ? std::pair<int, int>{-1, -1} : heads.front();
}

// Colour c from the PE `from` (which sends: rx ramp) to every PE of the row `to` (a
// multicast: each router there copies the wavelet to its PE and on). Along from's mesh row to
// to's first column, then up or down to to's row, then along it; on one row, straight along it.
void MeshTrainer::route_stream(int c, std::pair<int, int> from, const PlannedOp& to) {
    auto route = [&](int x, int y, uint8_t rx, uint8_t tx) {
        const Router& r = mesh_.host_.machine().router(x, y);
        SavedRoute saved{x, y, c, {}};
        saved.route.npos = r.npos[c];
        std::copy_n(r.sw[c], r.npos[c], saved.route.pos);
        crossed_.push_back(saved);
        throw_if(mesh_.host_.route(x, y, c, Route::of(rx, tx)));
    };
    const int x0 = to.rect.x, x1 = to.rect.x + to.rect.w - 1, ty = to.rect.y;
    auto [x, y] = from;
    uint8_t in = kR;
    if (y == ty && x > x1) {   // to's row to the west: enter at its east end, copy westward
        for (; x > x1 + 1; x--, in = kE) route(x, y, in, kW);
        route(x, y, in, kW);
        for (int k = x1; k >= x0; k--) route(k, y, kE, k > x0 ? kR | kW : kR);
        return;
    }
    if (y == ty && x >= x0) throw std::logic_error("mesh_trainer: a tie stream starts inside its destination's row");
    for (; x != x0; in = x < x0 ? kW : kE, x += x < x0 ? 1 : -1) route(x, y, in, x < x0 ? kE : kW);
    for (; y != ty; in = y < ty ? kN : kS, y += y < ty ? 1 : -1) route(x, y, in, y < ty ? kS : kN);
    for (int k = x0; k <= x1; k++) route(k, ty, k == x0 ? in : kW, k < x1 ? kR | kE : kR);
}

// The tie's relays, once: along the embedding's row (ta0/ta1) and the logits' row (tb0/tb1),
// PE p sends to PE p + 1 on colour p % 2 (a PE receives on one and sends on the other); the
// last PE sends on tw, which route_stream points at the other op before each stream.
void MeshTrainer::route_tie() {
    const PlannedOp& emb = op(gpt::OpId::Encoded);
    const PlannedOp& lg = op(gpt::OpId::Logits);
    if (!lg.on("TIED") || store_tie()) return;
    const int V = mesh_.plan().cfg.vocab_size;
    auto relay = [&](const PlannedOp& o, const int (&colours)[2], auto&& tie_of) {
        for (int p = 0; p < o.rect.w; p++) {
            const int x = o.rect.x + p, y = o.rect.y;
            if (p + 1 < o.rect.w) {
                throw_if(mesh_.host_.route(x, y, colours[p % 2], Route::of(kR, kE)));
                throw_if(mesh_.host_.route(x + 1, y, colours[p % 2], Route::of(kW, kR)));
            }
            std::vector<uint32_t> t = tie_of(p);
            t[0] = p == 0 ? 0 : uint32_t((p - 1) % 2 + 1);
            t[1] = p + 1 < o.rect.w ? uint32_t(p % 2 + 1) : 3;
            throw_if(mesh_.host_.h2d_u32(x, y, "tie", t.data(), t.size()));
        }
    };
    relay(emb, {3, 4}, [](int) { return std::vector<uint32_t>(2); });   // the kernels' ta0, ta1
    const int NC = int(lg.constants.at("NC"));
    relay(lg, {6, 7}, [&](int p) {                                        // tb0, tb1
        const int before = std::min(p * NC, V);
        return std::vector<uint32_t>{0, 0, uint32_t(before), uint32_t(std::min(NC, V - before)), uint32_t(V)};
    });
}

// Two ops' functions launched together and run to quiescence: one streams, the other takes.
bool MeshTrainer::stream(const char* name, const PlannedOp& from, const char* from_fn, const PlannedOp& to, const char* to_fn) {
    const MachineStats s0 = mesh_.host_.stats();
    const auto start = std::chrono::steady_clock::now();
    throw_if(mesh_.host_.launch(to.rect, to_fn));
    throw_if(mesh_.host_.launch(from.rect, from_fn));
    const RunResult r = mesh_.host_.run_until_quiescent(mesh_.cycle_budget);
    for (auto it = crossed_.rbegin(); it != crossed_.rend(); ++it) throw_if(mesh_.host_.route(it->x, it->y, it->colour, it->route));
    crossed_.clear();
    if (!r.ok()) {
        error_ = std::string(name) + ": " + r.fault.to_string();
        return false;
    }
    const MachineStats s1 = mesh_.host_.stats();
    OpRun run;
    run.name = name;
    run.op = name;
    run.count(s0, s1);
    run.pes = from.rect.w * from.rect.h + to.rect.w * to.rect.h;
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    runs_.push_back(run);
    return true;
}

const PlannedOp& MeshTrainer::op(gpt::OpId id) const {
    for (const PlannedOp& o : ops_)
        if (o.id == id && o.layer < 0) return o;
    throw std::logic_error(std::string("mesh_trainer: the plan has no op ") + gpt::op_row(id).name);
}

// A residual's backward is the identity for both inputs: the gradient of its second input
// (attproj, fcproj) is its output's; its first input (the stream) is added by the layernorm
// that reads the stream (layernorm.wk's dx).
std::string MeshTrainer::grad_name(const std::string& tensor) const {
    for (const PlannedOp& o : ops_)
        if (o.is(gpt::OpKind::Residual) && o.inputs.size() == 2 && o.inputs[1].tensor == tensor) return grad_name(o.name);
    return tensor;
}

bool MeshTrainer::launch(const PlannedOp& o, const char* fn, int t0, int n) {
    OpRun run;
    const auto start = std::chrono::steady_clock::now();
    if (!mesh_.launch(o, fn, t0, n, &run)) {
        error_ = mesh_.error();
        return false;
    }
    run.op = o.op + ":" + fn;
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    runs_.push_back(run);
    return true;
}

// crossentropy.wk on the logits of the last forward (over their link, or from the host):
// dlogits into grads_["logits"], or kept for the logits' backward to take up its link; the
// sequence's -log p[target] added on the PEs to the step's running sum (lsum, loss). An
// evaluation (keep_grad false) reads no dlogits: the next step's loss overwrites them.
bool MeshTrainer::loss_grad(const PlannedOp& o, const int* targets, int bt_rows, int T, bool keep_grad) {
    const Transfer& in = o.inputs.front();
    const uint64_t bytes0 = mesh_.host_bytes();
    MeshGPT::Senders senders;
    if (in.colour) senders.push_back({in.from, in.send});
    else mesh_.put(o, in, 0, T);
    write_targets(o, targets, bt_rows, T);
    OpRun run;
    const auto start = std::chrono::steady_clock::now();
    if (!mesh_.launch(o, gpt::entry::kMain, 0, T, &run, senders)) {
        error_ = mesh_.error();
        return false;
    }
    if (keep_grad && !in.grad_colour) {
        Transfer out = o.output;
        out.tensor = op(gpt::OpId::Logits).name;
        mesh_.get(o, out, 0, T, grads_);
    }
    run.op = o.op + ":main";
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    run.host_bytes = mesh_.host_bytes() - bytes0;
    runs_.push_back(run);
    return true;
}

void MeshTrainer::write_targets(const PlannedOp& o, const int* targets, int bt_rows, int n, int t0) {
    const uint32_t bt = uint32_t(bt_rows);
    const std::vector<uint32_t> tgt(targets, targets + n);   // every PE: its rows may hold any step's target
    for (int p = 0; p < o.pes(); p++) {   // every tier's
        const int x = o.pe_x(p), y = o.pe_y(p);
        throw_if(mesh_.host_.h2d_u32(x, y, "tgt", tgt.data(), tgt.size(), size_t(t0)));
        throw_if(mesh_.host_.h2d_u32(x, y, "bt", &bt, 1));
    }
}

std::pair<const PlannedOp*, const Transfer*> MeshTrainer::grad_link_into(const PlannedOp& o) const {
    for (const PlannedOp& c : ops_)   // by name: streaming's layers share the PEs
        for (const Transfer& in : c.inputs)
            if (in.grad_colour && has_backward(c) && in.tensor == o.name) return {&c, &in};
    return {nullptr, nullptr};
}

// One op's backward over steps [0, T): its output's gradient in as dy, its inputs' out as
// d<symbol>. A gradient with a link (Transfer::grad_colour) goes up it instead: dy from the
// consumer's send_d<symbol>, launched with this backward; and the host does not read it. The
// residual stream's gradient likewise comes from the layernorm below (stream_grad_into).
bool MeshTrainer::backward_op(const PlannedOp& o, int T) {
    const uint64_t bytes0 = mesh_.host_bytes();
    MeshGPT::Senders senders;
    for (const auto& [from, send] : backward_senders(o)) senders.push_back({from->rect, send});
    for (const Transfer& t : backward_puts(o)) mesh_.put(o, t, 0, T, grads_);
    OpRun run;
    const auto start = std::chrono::steady_clock::now();
    if (!mesh_.launch(o, gpt::entry::kBackward, 0, T, &run, senders)) {
        error_ = mesh_.error();
        return false;
    }
    backward_gets(o, 0, T);
    run.op = o.op + ":backward";
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    run.host_bytes = mesh_.host_bytes() - bytes0;
    runs_.push_back(run);
    return true;
}

std::vector<std::pair<const PlannedOp*, std::string>> MeshTrainer::backward_senders(const PlannedOp& o) const {
    std::vector<std::pair<const PlannedOp*, std::string>> out;
    const auto [below, via] = grad_link_into(o);
    const auto [stream_from, stream_send] = stream_grad_into(ops_, o);
    if (below) out.push_back({below, grad_send(*below, *via)});
    if (stream_from) out.push_back({stream_from, stream_send});
    return out;
}

std::vector<Transfer> MeshTrainer::backward_puts(const PlannedOp& o) const {
    std::vector<Transfer> out;
    const auto [stream_from, stream_send] = stream_grad_into(ops_, o);
    if (!grad_link_into(o).first && !(stream_from && o.is(gpt::OpKind::Matmul))) {
        Transfer dy = o.output;
        dy.tensor = grad_name(o.name);
        dy.symbol = gpt::symbol::kDy;
        if (o.constants.count("RK")) dy.tiers = Tiers::Each;   // each tier's dW and dx take all of it (matmul.wk)
        out.push_back(dy);
    }
    // A layernorm's dx starts as the stream's gradient, from the residual that also reads x:
    // over a link, or through the host; the last layernorm's starts at zero on its PEs (DX0).
    if (o.is(gpt::OpKind::LayerNorm) && !stream_from && !o.constants.count("DX0")) {
        Transfer stream = o.inputs.front();
        stream.symbol = gpt::symbol::kDx;
        stream.tensor.clear();
        for (const PlannedOp& r : ops_)
            if (r.is(gpt::OpKind::Residual) && r.inputs.front().tensor == o.inputs.front().tensor) stream.tensor = r.name;
        if (stream.tensor.empty()) throw std::logic_error("mesh_trainer: " + o.name + "'s input has no residual reader and no DX0");
        out.push_back(stream);
    }
    return out;
}

void MeshTrainer::backward_gets(const PlannedOp& o, int t0, int n) {
    for (Transfer in : o.inputs) {
        if (in.grad_colour || stream_grad_kept(ops_, o)) {   // it goes up a link when its reader runs
            grads_.erase(in.tensor);
            continue;
        }
        in.symbol = "d" + in.symbol;
        if (in.tiers == Tiers::Each && o.tiers() > 1) in.tiers = Tiers::Last;   // R: dx ends on the last tier (matmul.wk)
        mesh_.get(o, in, t0, n, grads_);
    }
}

int MeshTrainer::stash_slots() const {
    const PlannedOp& emb = op(gpt::OpId::Encoded);
    return emb.constants.count("LDY") ? int(emb.constants.at("NB")) : 0;
}

// The embedding's dy for sequence b: the first layernorm's dx, up its link into the embedding's
// stash (slot b: its send_dx with the embedding's keep_dy), or, with no link or past the stash's
// slots, through the host, for the embedding's backward after the tie's stream.
bool MeshTrainer::keep_dy(int b) {
    const PlannedOp& emb = op(gpt::OpId::Encoded);
    const auto [ln, x] = grad_link_into(emb);
    cur_.dencoded.emplace_back();
    if (!ln) {   // backward_op read it
        cur_.dencoded.back() = grads_.at(emb.name);
        return true;
    }
    const int T = cur_.T;
    const int slot = store_tie() ? 0 : b;   // STORE: each sequence's dy leaves before the next comes
    if (slot >= stash_slots()) {
        Transfer dx = *x;
        dx.symbol = gpt::symbol::kDx;
        mesh_.get(*ln, dx, 0, T, grads_);
        cur_.dencoded.back() = grads_.at(emb.name);
        return true;
    }
    for (int p = 0; p < emb.rect.w; p++) {
        const uint32_t s = uint32_t(slot);
        throw_if(mesh_.host_.h2d_u32(emb.rect.x + p, emb.rect.y, gpt::symbol::kSlot, &s, 1));
    }
    OpRun run;
    const auto start = std::chrono::steady_clock::now();
    if (!mesh_.launch(emb, gpt::entry::kKeepDy, 0, T, &run, {{ln->rect, gpt::entry::kSendDx}})) {
        error_ = mesh_.error();
        return false;
    }
    run.op = emb.op + ":keep_dy";
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    runs_.push_back(run);
    return true;
}

// STORE: sequence b's dy (the stash's slot 0) out over the embedding's edge link, PE 0's channels
// first: y's layout, (C, TP). Without the link keep_dy read it through the host already.
bool MeshTrainer::stream_dy_out(int b) {
    const PlannedOp& emb = op(gpt::OpId::Encoded);
    if (!grad_link_into(emb).first) return true;
    std::vector<float>& dy = cur_.dencoded.at(size_t(b));
    dy.clear();
    const bool ok = mesh_.stream_out_words({emb}, emb.name + ".grads", [&](const PlannedOp&, int, const std::vector<uint32_t>& words) {
        dy.resize(words.size());
        std::memcpy(dy.data(), words.data(), 4 * words.size());
    });
    if (!ok) error_ = mesh_.error();
    else runs_.push_back(mesh_.runs_.back());
    return ok;
}

// STORE: the embedding's backward where wte and wpe are, engine/gpt/encoder.cpp's encoder_backward
// on each sequence's dy in turn, after the LM head's part of dwte (the reference's order).
void MeshTrainer::store_encoder_backward() {
    const gpt::GPTConfig& cfg = mesh_.plan().cfg;
    const int C = cfg.n_embd, TP = time_pitch(mesh_.plan()), T = cur_.T;
    float* dwte = mesh_.store_->grads.data() + param_slice(cfg, "wte", -1).offset;
    float* dwpe = mesh_.store_->grads.data() + param_slice(cfg, "wpe", -1).offset;
    std::vector<float> dout(size_t(T) * C);   // (T, C), as the reference holds it
    for (size_t b = 0; b < cur_.tokens.size(); b++) {
        const std::vector<float>& dy = cur_.dencoded.at(b);   // (C, TP)
        for (int t = 0; t < T; t++)
            for (int i = 0; i < C; i++) dout[size_t(t) * C + i] = dy[size_t(i) * TP + t];
        gpt::encoder_backward(dwte, dwpe, dout.data(), cur_.tokens[b].data(), 1, T, C);
    }
}

void MeshTrainer::read_params(std::vector<float>* out) { transfer(State::Params, out, false); }
void MeshTrainer::read_grads(std::vector<float>* out) { transfer(State::Grads, out, false); }

std::vector<float>& MeshTrainer::store_array(State state) {
    MemoryX& x = *mesh_.store_;
    std::vector<float>* store[] = {&x.weights, &x.grads, &x.m, &x.v};   // by State
    return *store[int(state)];
}

void MeshTrainer::transfer(State state, std::vector<float>* buf, bool write) {
    const size_t n = gpt::count_parameters(mesh_.plan().cfg);
    if (!write) buf->assign(n, 0.0f);
    else if (buf->size() != n) throw std::invalid_argument("MeshTrainer: state of " + std::to_string(buf->size()) +
                                                           " floats for " + std::to_string(n) + " parameters");
    if (mesh_.plan().streaming) {   // the layers' state is the store's
        std::vector<float>& st = store_array(state);
        const gpt::GPTConfig& cfg = mesh_.plan().cfg;
        for (const gpt::ParamInfo& info : gpt::param_infos(cfg)) {
            if (!in_store(info)) continue;
            const size_t at = param_slice(cfg, info.name, -1).offset;
            if (write) std::copy_n(buf->data() + at, info.count, st.data() + at);
            else std::copy_n(st.data() + at, info.count, buf->data() + at);
        }
    }
    if (write && state == State::Params) mesh_.store_changed();
    transfer_wafer(state, [buf](size_t i) { return buf->data() + i; }, write);
}

const std::vector<float>& MeshTrainer::gathered(State state) {
    if (!mesh_.plan().streaming) throw std::logic_error("MeshTrainer::gathered: the weights are the wafer's (read_params)");
    std::vector<float>& st = store_array(state);   // the store never reads the entries of the wafer's part
    transfer_wafer(state, [&st](size_t i) { return st.data() + i; }, false);
    return st;
}

// The wafer's own part of params_memory's layout, packed: the parameters that are not the store's.
std::vector<MeshTrainer::OwnRange> MeshTrainer::own_ranges() const {
    std::vector<OwnRange> out;
    size_t packed = 0;
    const gpt::GPTConfig& cfg = mesh_.plan().cfg;
    for (const gpt::ParamInfo& info : gpt::param_infos(cfg)) {
        if (in_store(info)) continue;
        out.push_back({param_slice(cfg, info.name, -1).offset, info.count, packed});
        packed += info.count;
    }
    return out;
}

size_t MeshTrainer::own_parameters() const {
    const std::vector<OwnRange> r = own_ranges();
    return r.empty() ? 0 : r.back().packed + r.back().count;
}

std::vector<float> MeshTrainer::read_own(State state) {
    const std::vector<OwnRange> r = own_ranges();
    std::vector<float> out(own_parameters(), 0.0f);
    transfer_wafer(state, [&](size_t i) { return out.data() + packed_at(r, i); }, false);
    return out;
}

void MeshTrainer::write_own(State state, std::vector<float>& packed) {
    const std::vector<OwnRange> r = own_ranges();
    if (packed.size() != own_parameters())
        throw std::invalid_argument("MeshTrainer::write_own: " + std::to_string(packed.size()) + " floats for the wafer's part");
    transfer_wafer(state, [&](size_t i) { return packed.data() + packed_at(r, i); }, true);
}

size_t MeshTrainer::packed_at(const std::vector<OwnRange>& ranges, size_t i) {
    for (const OwnRange& r : ranges)
        if (i >= r.offset && i < r.offset + r.count) return r.packed + (i - r.offset);
    throw std::logic_error("MeshTrainer: parameter " + std::to_string(i) + " is the store's, not the wafer's");
}

void MeshTrainer::transfer_wafer(State state, const std::function<float*(size_t)>& at, bool write) {
    for (const PlannedOp& o : mesh_.plan().ops)
        for (const auto& [sym, name] : o.weights) {
            if (streamed(o)) continue;
            // The tied wte: the embedding holds the weights, the summed gradient and the moments.
            if (o.on("TIED") && sym == "w" && !(write && state == State::Params)) continue;
            const ParamSlice w = param_slice(mesh_.plan().cfg, name, o.layer);
            if (sym == "w" && sparse_matmul(o)) {
                transfer_sparse(o, w, state, at, write);
                continue;
            }
            size_t first = 0;
            const std::string ss = state_symbol(o, sym, state, &first);
            for (int p = 0; p < o.pes(); p++)
                for (const WeightPiece& piece : weight_pieces(o, p, sym, w)) {
                    float* data = at(w.offset + piece.model);
                    const int x = o.pe_x(p), y = o.pe_y(p);
                    throw_if(write ? mesh_.host_.h2d(x, y, ss, data, piece.n, first + piece.pe)
                                : mesh_.host_.d2h(x, y, ss, data, piece.n, first + piece.pe));
                }
        }
}

// A SPARSE = 1 matmul's w: its non-zeros' state (wv, dwv, mwv, vwv) by the CSR index the PE holds
// (wk, wr: sparsity.h's sparse_rows). Reading leaves the masked weights' entries 0; writing takes
// only the non-zeros' (a masked weight has no place on the PE).
void MeshTrainer::transfer_sparse(const PlannedOp& o, const ParamSlice& w, State state, const std::function<float*(size_t)>& at,
                                  bool write) {
    static const char* const kSymbols[] = {kSparseValues, "dwv", "mwv", "vwv"};   // by State
    const std::string ss = kSymbols[int(state)];
    const size_t NC = size_t(o.constants.at("NC")), NZ = size_t(o.constants.at("NZ"));
    std::vector<uint32_t> wr(NC), wk(NZ);
    std::vector<float> v(NZ);
    for (int p = 0; p < o.rect.w; p++) {
        const int x = o.rect.x + p, y = o.rect.y;
        throw_if(mesh_.host_.d2h_u32(x, y, kSparseRowEnds, wr.data(), NC));
        throw_if(mesh_.host_.d2h_u32(x, y, kSparseIndices, wk.data(), NZ));
        if (!write) throw_if(mesh_.host_.d2h(x, y, ss, v.data(), NZ));
        else std::fill(v.begin(), v.end(), 0.0f);   // the padding past the PE's non-zeros stays 0
        const std::vector<WeightPiece> rows = weight_pieces(o, p, "w", w);
        size_t i = 0;
        for (size_t j = 0; j < rows.size(); j++)
            for (; i < wr[j]; i++) {
                float& model = *at(w.offset + rows[j].model + wk[i]);
                if (write) v[i] = model;
                else model = v[i];
            }
        if (write) throw_if(mesh_.host_.h2d(x, y, ss, v.data(), NZ));
    }
}

std::vector<float> MeshTrainer::activation_grad(const std::string& tensor, int T) const {
    const int TP = time_pitch(mesh_.plan());
    const std::string name = grad_name(tensor);
    for (const PlannedOp& c : ops_) {   // a gradient that went up a link: out of its op's d<symbol>
        std::vector<float> out;
        std::vector<float> row(static_cast<size_t>(T));
        for (const Transfer& in : c.inputs) {   // a relay's: several inputs (dq, dk, dv), each its rows
            if (in.tensor != name || !((in.grad_colour && has_backward(c)) || stream_grad_kept(ops_, c))) continue;
            out.resize(size_t(T) * in.rows);
            for (int p = 0; p < c.rect.w; p++)
                for (int r = 0; r < in.per_pe && in.row_offset + p * in.per_pe + r < in.rows; r++) {   // not the padding rows
                    throw_if(mesh_.host().d2h(c.rect.x + p, c.rect.y, "d" + in.symbol, row.data(), size_t(T), size_t(r) * TP));
                    const size_t at = size_t(in.row_offset + p * in.per_pe + r);
                    for (int t = 0; t < T; t++) out[size_t(t) * in.rows + at] = row[size_t(t)];
                }
        }
        if (!out.empty()) return out;
    }
    auto it = grads_.find(name);
    if (it == grads_.end()) return {};
    const int rows = int(it->second.size() / size_t(TP));
    std::vector<float> out(size_t(T) * rows);
    for (int r = 0; r < rows; r++)
        for (int t = 0; t < T; t++) out[size_t(t) * rows + r] = it->second[size_t(r) * TP + t];
    return out;
}

}  // namespace wl::model
