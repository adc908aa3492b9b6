// mesh_train_queue.cpp: MeshTrainer's jobs as queues of units (mesh_trainer.h's header comment):
// a step (forward and backward per sequence, or streamed a layer at a time over the batch, then the norm, the
// clipping and AdamW), an evaluation and a sample, each unit one launch or one host transfer, so
// the app draws between them and step() is the queue run to its end.
#include "engine/model/mesh_trainer.h"

#include "engine/gpt/adamw.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <iterator>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace wl::model {

const char* train_phase_name(TrainPhase p) {
    return p == TrainPhase::Forward ? "forward" : p == TrainPhase::Backward ? "backward" : "optimiser";
}

const char* mesh_job_name(MeshJob j) {
    return j == MeshJob::Step ? "step" : j == MeshJob::Eval ? "evaluation" : "sampling";
}

std::string work_text(const TrainWork& w, bool brief) {
    const std::string phase = train_phase_name(w.phase);
    if (!w.streaming) return brief ? phase : phase + " " + w.op + (w.chunk >= 0 ? ", chunk " + std::to_string(w.chunk) : "");
    std::string s = "l" + std::to_string(w.layer) + " " + phase + ", " + w.streaming;
    if (!brief && w.op.find(".weights") == std::string::npos && w.op.find(".grads") == std::string::npos) s += " (" + w.op + ")";
    return s;
}

bool MeshTrainer::check_idle(const char* what) {
    error_.clear();
    if (!routed_) {
        error_ = std::string(what) + ": the mesh is still loading (load_step until loaded())";
        return false;
    }
    if (!busy()) return true;
    error_ = std::string(what) + ": a " + mesh_job_name(job_) + " is still in progress (run_slice until busy() is false)";
    return false;
}

bool MeshTrainer::check_batch(const char* what, const int* inputs, const int* targets, int B, int T) {
    if (!check_idle(what)) return false;
    const int V = mesh_.plan().cfg.vocab_size;
    if (B < 1 || T < 1 || T > mesh_.plan().cfg.block_size) {
        error_ = std::string(what) + ": need B >= 1 and 1 <= T <= block_size (" +
                 std::to_string(mesh_.plan().cfg.block_size) + "), got B=" + std::to_string(B) + " T=" + std::to_string(T);
        return false;
    }
    for (int i = 0; i < B * T; i++)   // all checked before anything runs: a bad batch changes nothing
        for (const auto& [kind, ids] : {std::pair<const char*, const int*>{"token", inputs}, {"target", targets}})
            if (ids[i] < 0 || ids[i] >= V) {
                error_ = std::string(what) + ": " + kind + " " + std::to_string(ids[i]) + " at position " +
                         std::to_string(i) + " is outside [0, " + std::to_string(V) + ")";
                return false;
            }
    cur_.inputs.assign(inputs, inputs + size_t(B) * T);
    cur_.targets.assign(targets, targets + size_t(B) * T);
    cur_.B = B, cur_.T = T;
    cur_.bt = B * T;
    return true;
}

void MeshTrainer::begin_job(MeshJob job) {
    job_ = job;
    cur_.step = TrainStep{};
    cur_.host_bytes0 = mesh_.host_bytes();
    queue_.clear();
    next_ = 0;
    runs_.clear();
}

void MeshTrainer::add(TrainWork what, std::function<bool()> run) { queue_.push_back({std::move(what), std::move(run)}); }

const PlannedOp& MeshTrainer::loss_op() const {
    for (const PlannedOp& o : ops_)
        if (o.train_only) return o;
    throw std::logic_error("mesh_trainer: the plan has no loss op (crossentropy.wk)");
}

// One forward over the window [t0, t0+n), an op a unit (MeshGPT::forward's launches); streaming:
// each layer's weights stream in first (a unit). before: at the first unit; after: at the last op's.
// read_logits false: the loss takes them over their link, the host need not read them.
void MeshTrainer::queue_forward(TrainWork what, int t0, int n, bool read_logits, std::function<void()> before,
                                std::function<bool()> after) {
    const PlannedOp* last = nullptr;
    for (const PlannedOp& o : ops_)
        if (!o.train_only) last = &o;
    if (mesh_.schedule() == Schedule::Pipelined && n > 1) {   // pipeline_run.cpp
        const std::vector<const PlannedOp*> stages = mesh_.stages();
        const int units = int(stages.size()) * mesh_.pipeline(t0, n).chunks;
        queue_pipeline(what, units, [this, stages, t0, n, read_logits, before] {
            if (before) before();
            mesh_.begin_pipeline(stages, t0, n, read_logits);
        }, after);
        return;
    }
    int layer = -1;
    for (const PlannedOp& o : ops_) {
        if (o.train_only) continue;
        if (mesh_.plan().streaming && o.layer > layer) {
            layer = o.layer;
            TrainWork in = what;
            in.op = gpt::layer_unit_name(layer, "weights");
            in.layer = layer;
            in.streaming = "weights in";
            add(in, [this, layer] { return stream_in(layer, false); });   // a step's streams: queue_streamed_batch
        }
        what.op = o.name;
        const bool read_out = read_logits || o.id != gpt::OpId::Logits;
        add(what, [this, &o, t0, n, read_out, before = &o == &ops_.front() ? before : nullptr, after = &o == last ? after : nullptr] {
            if (before) before();
            return forward_op(o, t0, n, read_out) && (!after || after());
        });
    }
}

// Sequence b of cur_'s batch through the forward.
void MeshTrainer::queue_forward(int b, bool read_logits) {
    queue_forward({TrainPhase::Forward, "", b}, 0, cur_.T, read_logits, [this, b] {
        const int T = cur_.T;
        mesh_.tokens_.assign(cur_.inputs.begin() + size_t(b) * T, cur_.inputs.begin() + size_t(b + 1) * T);
        mesh_.runs_.clear();
    });
}

// A pipeline's units (pipeline_run.cpp), one per launch: the first begins it, each runs it until
// one more launch has finished, whichever it is (they finish in the order the pipeline takes them),
// and names the launch that has run longest for the unit after it: what the app lights and the
// progress line says. The last runs it to its end, then after.
void MeshTrainer::queue_pipeline(TrainWork what, int units, std::function<void()> begin, std::function<bool()> after) {
    const auto stages = mesh_.stages();
    what.op = stages.front()->name;   // the first launch: the embedding's chunk 0
    what.chunk = 0;
    for (int i = 0; i < units; i++) {
        const size_t at = queue_.size();
        add(what, [this, i, units, at, begin = i == 0 ? begin : nullptr, after = i + 1 == units ? after : nullptr] {
            if (begin) begin();
            const size_t had = mesh_.runs_.size();
            if (!(i + 1 == units ? mesh_.run_pipeline() : mesh_.run_pipeline_finishes(1))) {
                mesh_.tokens_.clear();   // the cache is not whole
                error_ = mesh_.error();
                return false;
            }
            runs_.insert(runs_.end(), mesh_.runs_.begin() + long(had), mesh_.runs_.end());
            const std::vector<LaunchSpan> working = mesh_.in_flight();
            if (i + 1 < units && !working.empty()) {
                const LaunchSpan& oldest = *std::min_element(working.begin(), working.end(),
                                                             [](const LaunchSpan& x, const LaunchSpan& y) { return x.start < y.start; });
                TrainWork& next = queue_[at + 1].what;
                next.phase = oldest.backward ? TrainPhase::Backward : TrainPhase::Forward;
                next.op = oldest.op;
                next.chunk = oldest.chunk;
            }
            return !after || after();
        });
    }
}

bool MeshTrainer::stream_in(int layer, bool for_backward) {
    if (!mesh_.stream_in(layer, for_backward)) {
        error_ = mesh_.error();
        return false;
    }
    runs_.push_back(mesh_.runs_.back());
    return true;
}

// A step's start for op o: its gradients zeroed, and W's columns for a matmul's dx (once a step, as
// the weights change once; WT: take_wt brings them with the weights).
void MeshTrainer::queue_zero_grad(const PlannedOp& o) {
    if (!o.weights.empty()) add({TrainPhase::Backward, o.name, -1}, [this, &o] { return launch(o, gpt::entry::kZeroGrad, 0, 0); });
    if (o.is(gpt::OpKind::Matmul) && !o.on("WT"))
        add({TrainPhase::Backward, o.name, -1}, [this, &o] { return launch(o, gpt::entry::kTransposeW, 0, 0); });
}

// Each sequence: the forward op by op (MeshGPT::forward's launches), the loss's gradient, the
// backward ops in reverse. Then wte's gradient: the logits' part (summed over every sequence on
// the logits' PEs) first, then the embedding's, sequence by sequence, as engine/gpt's backward
// adds them; the loss is the crossentropy op's (summed and divided on its PEs).
void MeshTrainer::queue_backward() {
    const int B = cur_.B;
    cur_.tokens.clear();
    cur_.dencoded.clear();
    const auto& ops = ops_;
    auto add = [&](TrainPhase ph, const std::string& op, int seq, std::function<bool()> f) { this->add({ph, op, seq}, std::move(f)); };
    const PlannedOp* ce = &loss_op();
    const bool streaming = mesh_.plan().streaming;
    // The store's sums start from zero with the step: its first wafer's part (SwarmX's others add to them).
    if (streaming && !mesh_.store_shared_) std::fill(mesh_.store_->grads.begin(), mesh_.store_->grads.end(), 0.0f);
    for (const PlannedOp& o : ops) {
        if (!o.on("TRAIN") || layer_streamed(o) || o.on("STORE")) continue;   // a layer's: per sequence; STORE: the store's
        if (streamed(o))   // the LM head, wte from the store, before its transpose
            add(TrainPhase::Backward, o.name + ".weights", -1, [this, &o] {
                const size_t had = mesh_.runs_.size();   // none if it holds the store's wte already
                if (!mesh_.stream_head(o)) {
                    error_ = mesh_.error();
                    return false;
                }
                runs_.insert(runs_.end(), mesh_.runs_.begin() + long(had), mesh_.runs_.end());
                return true;
            });
        queue_zero_grad(o);
    }
    add(TrainPhase::Backward, ce->name, -1, [this, ce] { return launch(*ce, gpt::entry::kZeroLoss, 0, 0); });
    const bool pipelined = mesh_.schedule() == Schedule::Pipelined && cur_.T > 1;   // never streaming (set_schedule)
    const int together = pipelined ? pipelined_together() : 1;
    if (streaming) queue_streamed_batch(*ce);
    for (int b = 0; b < B && !streaming; b += together) {   // resident: a sequence at a time
        if (pipelined) {
            queue_pipelined(b, together);   // and, for each sequence, what the embedding's backward needs
            continue;
        }
        queue_forward(b, !ce->inputs.front().colour);
        add(TrainPhase::Backward, ce->name, b, [this, ce, b] {
            return loss_grad(*ce, cur_.targets.data() + size_t(b) * cur_.T, cur_.bt, cur_.T);
        });
        for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
            const PlannedOp& o = *it;
            if (!o.on("TRAIN") || o.is(gpt::OpKind::Embedding)) continue;
            add(TrainPhase::Backward, o.name, b, [this, &o] { return backward_op(o, cur_.T); });
        }
        add(TrainPhase::Backward, op(gpt::OpId::Encoded).name, b, [this, b] {   // what the embedding's backward needs later
            cur_.tokens.push_back(mesh_.tokens_);
            return keep_dy(b) && (!store_tie() || stream_dy_out(b));
        });
    }
    const PlannedOp& emb = op(gpt::OpId::Encoded);
    const PlannedOp& lg = op(gpt::OpId::Logits);
    if (store_tie()) {   // the LM head's dwte out, then the embedding's part added in the store
        add(TrainPhase::Backward, lg.name + ".grads", -1, [this, &lg, ce] {
            if (!mesh_.stream_out({lg}, lg.name + ".grads", &mesh_.store_->grads)) {
                error_ = mesh_.error();
                return false;
            }
            runs_.push_back(mesh_.runs_.back());
            store_encoder_backward();
            throw_if(mesh_.host_.d2h(ce->rect.x, ce->rect.y, gpt::symbol::kLoss, &cur_.step.loss, 1));
            return true;
        });
        return;
    }
    add(TrainPhase::Backward, lg.name, -1, [this, &emb, &lg] {   // the logits' part of dwte, over the fabric
        route_stream(kTieColour, {lg.rect.x + lg.rect.w - 1, lg.rect.y}, emb);
        return stream("tie_grad", lg, gpt::entry::kTieSend, emb, gpt::entry::kTieRecv);
    });
    for (int b = 0; b < B; b++)
        add(TrainPhase::Backward, emb.name, b, [this, &emb, ce, b] {
            const int T = cur_.T;
            mesh_.tokens_ = cur_.tokens[size_t(b)];
            mesh_.put(emb, emb.inputs.front(), 0, T);
            const uint32_t slot = uint32_t(std::min(b, stash_slots()));   // the stash's slot, or past it: dy from the host
            for (int p = 0; p < emb.rect.w; p++) throw_if(mesh_.host_.h2d_u32(emb.rect.x + p, emb.rect.y, gpt::symbol::kSlot, &slot, 1));
            if (slot == uint32_t(stash_slots())) {
                Tensors g{{emb.name, cur_.dencoded[size_t(b)]}};
                Transfer dy = emb.output;
                dy.symbol = gpt::symbol::kDy;
                mesh_.put(emb, dy, 0, T, g);
            }
            if (!launch(emb, gpt::entry::kBackward, 0, T)) return false;
            // Summed and divided on the PEs (crossentropy.wk); every PE of its row holds it.
            if (b == cur_.B - 1) throw_if(mesh_.host_.d2h(ce->rect.x, ce->rect.y, gpt::symbol::kLoss, &cur_.step.loss, 1));
            return true;
        });
}

// Streaming, as a CS system streams: a layer's weights come in once for every sequence of the step
// (MemoryX to the wafer, then the batch through the layer), not once a sequence; its gradients sum
// on its PEs over the step's sequences in order, the reference's one running sum over B*T rows, and
// go out once. The host keeps each sequence's activations and gradients (seqs_) meanwhile:
//   each sequence's embedding; then layer by layer, weights in, every sequence through it;
//   the last layer (its weights in with W's columns, WT, its gradients zeroed), sequence by
//   sequence: its forward, lnf, the logits, the loss and back down to the layer's backward, while
//   its PEs hold that sequence's forward;
//   from the layer below it down: weights in again, zero_grad, each sequence's activations back
//   (recomputed) and its backward, then the gradients out.
void MeshTrainer::queue_streamed_batch(const PlannedOp& loss) {
    const int B = cur_.B, T = cur_.T, L = mesh_.plan().cfg.n_layer;
    seqs_.assign(size_t(B), {});
    for (int b = 0; b < B; b++) seqs_[size_t(b)].tokens.assign(cur_.inputs.begin() + size_t(b) * T, cur_.inputs.begin() + size_t(b + 1) * T);
    const bool read_logits = !loss.inputs.front().colour;
    const auto fwd = [this, T](const PlannedOp& o, bool read_out) { return [this, &o, T, read_out] { return forward_op(o, 0, T, read_out); }; };
    const auto bwd = [this, T](const PlannedOp& o) { return [this, &o, T] { return backward_op(o, T); }; };
    const auto layer_ops = [this](int l) {
        std::vector<const PlannedOp*> v;
        for (const PlannedOp& o : ops_)
            if (o.layer == l && !o.train_only) v.push_back(&o);
        return v;
    };
    const auto zero_grads = [this](int l) {
        for (const PlannedOp& o : ops_)
            if (o.layer == l && o.on("TRAIN")) queue_zero_grad(o);
    };
    const auto layer_backward = [&](int l, int b) {   // its ops' backward for sequence b, in reverse
        for (auto it = ops_.rbegin(); it != ops_.rend(); ++it)
            if (it->layer == l && it->on("TRAIN")) add({TrainPhase::Backward, it->name, b}, in_sequence(b, bwd(*it)));
        if (l == 0)   // what the embedding's backward needs later
            add({TrainPhase::Backward, op(gpt::OpId::Encoded).name, b}, in_sequence(b, [this, b] {
                cur_.tokens.push_back(mesh_.tokens_);
                return keep_dy(b) && (!store_tie() || stream_dy_out(b));
            }));
    };
    const auto grads_out = [this](int l) {
        add({TrainPhase::Backward, gpt::layer_unit_name(l, "grads"), -1, -1, l, "gradients out"}, [this, l] {
            if (!mesh_.stream_out(l, &mesh_.store_->grads)) {
                error_ = mesh_.error();
                return false;
            }
            runs_.push_back(mesh_.runs_.back());
            return true;
        });
    };
    for (int b = 0; b < B; b++)   // the embedding (and anything else before the layers)
        for (const PlannedOp& o : ops_) {
            if (o.layer >= 0) break;
            if (!o.train_only) add({TrainPhase::Forward, o.name, b}, in_sequence(b, fwd(o, true)));
        }
    for (int l = 0; l < L; l++) {
        add({TrainPhase::Forward, gpt::layer_unit_name(l, "weights"), -1, -1, l, "weights in"}, [this, l, L] { return stream_in(l, l == L - 1); });
        if (l == L - 1) zero_grads(l);
        for (int b = 0; b < B; b++) {
            for (const PlannedOp* o : layer_ops(l)) add({TrainPhase::Forward, o->name, b}, in_sequence(b, fwd(*o, true)));
            if (l < L - 1) continue;
            bool after = false;   // lnf, the logits, the loss, and back to the last layer's backward
            for (const PlannedOp& o : ops_) {
                after = after || o.layer >= 0;
                if (o.layer < 0 && after && !o.train_only)
                    add({TrainPhase::Forward, o.name, b}, in_sequence(b, fwd(o, read_logits || o.id != gpt::OpId::Logits)));
            }
            add({TrainPhase::Backward, loss.name, b}, in_sequence(b, [this, &loss, b] {
                return loss_grad(loss, cur_.targets.data() + size_t(b) * cur_.T, cur_.bt, cur_.T);
            }));
            for (auto it = ops_.rbegin(); it != ops_.rend() && it->layer < 0; ++it)
                if (it->on("TRAIN") && !it->is(gpt::OpKind::Embedding)) add({TrainPhase::Backward, it->name, b}, in_sequence(b, bwd(*it)));
            layer_backward(l, b);
        }
    }
    grads_out(L - 1);
    for (int l = L - 2; l >= 0; l--) {
        add({TrainPhase::Backward, gpt::layer_unit_name(l, "weights"), -1, -1, l, "weights in again"}, [this, l] { return stream_in(l, true); });
        zero_grads(l);
        for (int b = 0; b < B; b++) {
            for (const auto& [o, fn] : recomputed(l))
                add({TrainPhase::Backward, o->name, b, -1, l, "activations back"}, in_sequence(b, [this, o = o, fn = fn, T] {
                        return forward_op(*o, 0, T, true, fn);
                    }));
            layer_backward(l, b);
        }
        grads_out(l);
    }
}

// A backward reads what its op's forward left on its PEs: its input and what else the forward
// keeps for it (a layernorm's statistics), no output. So, from the layer's last op back: an op whose
// output a later launch takes over a link runs whole; else a matmul takes its input alone (keep_x:
// from the host's copy of it, which the forward wrote out, or over its link), an op without a
// backward (a residual) does not run, and the others (the layernorms, the attention, the GELU:
// no input-only entry, and little work) run whole. What runs takes its linked inputs, so their
// producers run whole; an input the host copies comes from its copy, so its producer need not.
std::vector<std::pair<const PlannedOp*, const char*>> MeshTrainer::recomputed(int l) const {
    std::vector<std::pair<const PlannedOp*, const char*>> out;
    std::set<std::string> linked;   // tensors a later launch takes over a link
    for (auto it = ops_.rbegin(); it != ops_.rend(); ++it) {
        const PlannedOp& o = *it;
        if (o.layer != l || o.train_only) continue;
        const char* fn = gpt::entry::kMain;
        if (!linked.count(o.output.tensor)) {
            if (!o.on("TRAIN")) continue;
            if (o.is(gpt::OpKind::Matmul)) fn = gpt::entry::kKeepX;
        }
        for (const Transfer& in : o.inputs)
            if (in.colour) linked.insert(in.tensor);
        out.push_back({&o, fn});
    }
    std::reverse(out.begin(), out.end());
    return out;
}

bool MeshTrainer::forward_op(const PlannedOp& o, int t0, int n, bool read_out, const char* fn) {
    const size_t had = mesh_.runs_.size();   // the tied wte's stream in first, where it is the store's
    if (!mesh_.run_op(o, t0, n, read_out, fn)) {
        mesh_.tokens_.clear();   // the cache is not whole
        error_ = mesh_.error();
        return false;
    }
    runs_.insert(runs_.end(), mesh_.runs_.begin() + long(had), mesh_.runs_.end());
    return true;
}

std::function<bool()> MeshTrainer::in_sequence(int b, std::function<bool()> f) {
    return [this, b, f = std::move(f)] {
        struct Swapped {   // sequence b's state in mesh_ and grads_ while f runs; back after it, a throw too
            MeshTrainer& t;
            Sequence& s;
            Swapped(MeshTrainer& tr, Sequence& sq) : t(tr), s(sq) { swap(); }
            ~Swapped() { swap(); }
            void swap() {
                std::swap(t.mesh_.acts_, s.acts);
                std::swap(t.grads_, s.grads);
                std::swap(t.mesh_.tokens_, s.tokens);
            }
        } in(*this, seqs_.at(size_t(b)));
        return f();
    };
}

void MeshTrainer::queue_update() {
    queue_.push_back({{TrainPhase::Optimiser, "grad_norm", -1}, [this] {
        const gpt::GPTConfig& cfg = mesh_.plan().cfg;
        // This step's hyperparameters; the clipping coefficient (hp[kHpClip]) grad_norm computes.
        t_ += 1;
        cur_.adam = gpt::AdamWStep::at(cfg, cur_.lr, t_);
        const gpt::AdamWStep& a = cur_.adam;
        float* hp = cur_.hp;
        hp[kHpBeta1] = a.b1;
        hp[kHpOneMinusBeta1] = a.one_minus_b1;
        hp[kHpBeta2] = a.b2;
        hp[kHpOneMinusBeta2] = a.one_minus_b2;
        hp[kHpEps] = a.eps;
        hp[kHpStepSize] = a.step_size;
        hp[kHpBc2Sqrt] = a.bc2_sqrt;
        hp[kHpDecay] = a.decay;
        hp[kHpClip] = 1.0f;
        // Streaming: the wafer's sum is part of the norm; the store finishes it (below).
        const bool streaming = mesh_.plan().streaming;
        hp[kHpGradClip] = cfg.grad_clip > 0 && !streaming ? float(cfg.grad_clip) : -1.0f;
        for (const PlannedOp& o : mesh_.plan().ops)
            if (holds_weights(o))
                for (int p = 0; p < o.pes(); p++) throw_if(mesh_.host_.h2d(o.pe_x(p), o.pe_y(p), gpt::symbol::kHp, hp, kHpCount));
        // The sum of squares over the fabric (route_norm's chains), fp32 (the reference sums in
        // double); at its end the norm and the clipping coefficient, which comes back over the fabric.
        const MachineStats s0 = mesh_.host_.stats();
        const auto start = std::chrono::steady_clock::now();
        for (const PlannedOp& o : mesh_.plan().ops)
            if (holds_weights(o)) throw_if(mesh_.host_.launch(o.rect, gpt::entry::kGradNorm));
        const RunResult r = mesh_.host_.run_until_quiescent(mesh_.cycle_budget);
        if (!r.ok()) {
            error_ = "grad_norm: " + r.fault.to_string();
            return false;
        }
        const MachineStats s1 = mesh_.host_.stats();
        OpRun run;
        run.name = "grad_norm";
        run.op = "grad_norm";
        run.count(s0, s1);
        run.pes = int(mesh_.plan().pes_used());
        run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        runs_.push_back(run);
        throw_if(mesh_.host_.d2h(norm_origin_.first, norm_origin_.second, gpt::symbol::kGnorm, &cur_.step.grad_norm, 1));
        if (streaming) finish_norm();
        return true;
    }});
    for (const PlannedOp& o : mesh_.plan().ops) {
        if (!holds_weights(o)) continue;
        queue_.push_back({{TrainPhase::Optimiser, o.name, -1}, [this, &o] { return launch(o, gpt::entry::kAdamW, 0, 0); }});
    }
    if (mesh_.plan().streaming)   // once a step: the store's first wafer runs it; every wafer's LM head takes the new wte
        queue_.push_back({{TrainPhase::Optimiser, "store", -1}, [this] {   // AdamW on the layers' weights, in the store
            const gpt::GPTConfig& cfg = mesh_.plan().cfg;
            MemoryX& x = *mesh_.store_;
            if (!mesh_.store_shared_)
                for (const gpt::ParamInfo& info : gpt::param_infos(cfg)) {
                    if (!in_store(info)) continue;
                    const size_t at = param_slice(cfg, info.name, -1).offset;
                    gpt::adamw_update(cur_.adam, info.decay && float(cfg.weight_decay) != 0.0f, x.weights.data() + at,
                                      x.grads.data() + at, x.m.data() + at, x.v.data() + at, info.count);
                }
            mesh_.store_changed();   // the LM head takes the new wte before it next runs
            return true;
        }});
    if (store_tie()) return;
    queue_.push_back({{TrainPhase::Optimiser, op(gpt::OpId::Encoded).name, -1}, [this] {   // the updated wte to the logits' PEs
        const PlannedOp& emb = op(gpt::OpId::Encoded);
        const PlannedOp& lg = op(gpt::OpId::Logits);
        route_stream(kTieColour, {emb.rect.x + emb.rect.w - 1, emb.rect.y}, lg);
        return stream("tie_weights", emb, gpt::entry::kTieSend, lg, gpt::entry::kTieRecv);
    }});
}

// Streaming: the wafer's sum of squares (gsq at the chain's end, fp32) plus the store's over the
// layers' gradients (in double, in index order, as the reference sums: one long fp32 sum would lose
// digits a PE's short ones do not); the store's coefficient back into the wafer's hp.
void MeshTrainer::finish_norm() {
    const gpt::GPTConfig& cfg = mesh_.plan().cfg;
    float wafer = 0;
    throw_if(mesh_.host_.d2h(norm_origin_.first, norm_origin_.second, gpt::symbol::kGsq, &wafer, 1));
    MemoryX& x = *mesh_.store_;
    if (!mesh_.store_shared_) {   // the store's first wafer; the others take its sum (their AdamW comes after its)
        x.grads_sq = 0;
        for (const gpt::ParamInfo& info : gpt::param_infos(cfg)) {
            if (!in_store(info)) continue;
            const float* g = x.grads.data() + param_slice(cfg, info.name, -1).offset;
            for (size_t i = 0; i < info.count; i++) x.grads_sq += double(g[i]) * g[i];
        }
    }
    cur_.step.grad_norm = float(std::sqrt(x.grads_sq + wafer));
    cur_.adam.set_clip(cfg, cur_.step.grad_norm);
    cur_.hp[kHpClip] = cur_.adam.clip;
    for (const PlannedOp& o : mesh_.plan().ops)
        if (holds_weights(o))
            for (int p = 0; p < o.pes(); p++) throw_if(mesh_.host_.h2d(o.pe_x(p), o.pe_y(p), gpt::symbol::kHp, cur_.hp, kHpCount));
}

bool MeshTrainer::begin_step(const int* inputs, const int* targets, int B, int T, double lr) {
    if (!check_batch("train on the mesh", inputs, targets, B, T)) return false;
    begin_job(MeshJob::Step);
    cur_.lr = lr;
    queue_backward();
    queue_update();
    return true;
}

// Each sequence's forward, then the loss's op on its logits (its main alone: the loss, and the
// dlogits that no one reads); the loss summed on the PEs over the batch, in the reference's order.
void MeshTrainer::queue_eval() {
    const PlannedOp& ce = loss_op();
    add({TrainPhase::Forward, ce.name, -1}, [this, &ce] { return launch(ce, gpt::entry::kZeroLoss, 0, 0); });
    for (int b = 0; b < cur_.B; b++) {
        queue_forward(b, !ce.inputs.front().colour);
        add({TrainPhase::Forward, ce.name, b}, [this, &ce, b] {
            if (!loss_grad(ce, cur_.targets.data() + size_t(b) * cur_.T, cur_.bt, cur_.T, /*keep_grad=*/false)) return false;
            if (b == cur_.B - 1) throw_if(mesh_.host_.d2h(ce.rect.x, ce.rect.y, gpt::symbol::kLoss, &cur_.eval_loss, 1));
            return true;
        });
    }
}

bool MeshTrainer::begin_eval(const int* inputs, const int* targets, int B, int T) {
    if (!check_batch("evaluate on the mesh", inputs, targets, B, T)) return false;
    begin_job(MeshJob::Eval);
    queue_eval();
    return true;
}

bool MeshTrainer::eval_loss(const int* inputs, const int* targets, int B, int T, float* loss) {
    if (!begin_eval(inputs, targets, B, T) || !run_all()) return false;
    *loss = last_eval_;
    return true;
}

bool MeshTrainer::find_nonfinite(const int* inputs, const int* targets, int B, int T, std::string* where) {
    where->clear();
    const Schedule schedule = mesh_.schedule();
    mesh_.set_schedule(Schedule::Sequential);   // an op a launch, each output looked at as it is made
    mesh_.watch_nonfinite(true);
    bool ok = true;
    for (int b = 0; b < B && ok && where->empty(); b++) {
        ok = begin_eval(inputs + size_t(b) * T, targets + size_t(b) * T, 1, T) && run_all();
        const std::string op = !ok ? "" : !mesh_.first_nonfinite().empty() ? mesh_.first_nonfinite() : loss_nonfinite(targets + size_t(b) * T, T);
        if (!op.empty()) *where = "sequence " + std::to_string(b + 1) + " of " + std::to_string(B) + ": " + op;
    }
    mesh_.watch_nonfinite(false);
    mesh_.set_schedule(schedule);
    return ok;
}

// From finite logits the loss's terms are -log of each step's target probability (crossentropy.wk's
// pt, on the PE that holds the target's row): one that is 0 makes an infinity.
std::string MeshTrainer::loss_nonfinite(const int* targets, int T) const {
    const PlannedOp& ce = loss_op();
    const int NC = ce.constants.at("NC");
    for (int t = 0; t < T; t++) {
        const int p = targets[t] / NC, x = ce.pe_x(p), y = ce.pe_y(p);
        float pt = 0;
        throw_if(mesh_.host_.d2h(x, y, "pt", &pt, 1, size_t(t)));
        if (pt > 0 && std::isfinite(pt)) continue;
        return ce.name + " (" + ce.kernel + "): the target's probability at time step " + std::to_string(t) + " is " +
               (pt == 0 ? "0, its -log an infinity" : "not a number") + ", on PE (" + std::to_string(x) + "," + std::to_string(y) + ")";
    }
    return "";
}

// gpt::generate's loop, a forward per new token (MeshGPT::next_logits' choice of window): the
// whole context when the cache cannot serve it (the first token, or a context past block_size:
// the last block_size tokens again), else the one new time step from the cache. The forward's
// last op also draws the token from its logits (gpt::sample_token, the sampler's seeded Rng).
void MeshTrainer::queue_sample(int n) {
    const int TP = mesh_.plan().cfg.block_size;
    const int prompt = int(samp_.tokens.size());
    for (int i = 0; i < n; i++) {
        const int len = prompt + i;   // the context this token sees, before the window slides
        const bool cached = i > 0 && len <= TP && !mesh_.plan().streaming;   // streaming keeps no KV cache
        const int t0 = cached ? len - 1 : 0, w = cached ? 1 : std::min(len, TP);
        queue_forward({TrainPhase::Forward, "", -1, i}, t0, w, true,
                      [this, cached, w] {
                          const std::vector<int>& ids = samp_.tokens;
                          if (cached) mesh_.tokens_.push_back(ids.back());
                          else mesh_.tokens_.assign(ids.end() - w, ids.end());
                          mesh_.runs_.clear();
                      },
                      [this, t0, w, TP] {
                          const int V = mesh_.plan().cfg.vocab_size, t = t0 + w - 1;
                          const std::vector<float>& y = mesh_.acts_.at(op(gpt::OpId::Logits).name);   // (V, TP)
                          std::vector<float> logits(static_cast<size_t>(V));
                          for (int v = 0; v < V; v++) logits[size_t(v)] = y[size_t(v) * TP + t];
                          samp_.tokens.push_back(gpt::sample_token(logits.data(), V, samp_.opt.temperature, samp_.opt.top_k, samp_.rng));
                          return true;
                      });
    }
}

bool MeshTrainer::begin_sample(const std::vector<int>& prompt, int n, const gpt::SampleOptions& opt) {
    if (!check_idle("sample on the mesh")) return false;
    const int V = mesh_.plan().cfg.vocab_size;
    if (prompt.empty() || n < 0) {
        error_ = "sample on the mesh: need a prompt of at least one token and n >= 0";
        return false;
    }
    for (size_t i = 0; i < prompt.size(); i++)
        if (prompt[i] < 0 || prompt[i] >= V) {
            error_ = "sample on the mesh: token " + std::to_string(prompt[i]) + " at position " + std::to_string(i) +
                     " is outside [0, " + std::to_string(V) + ")";
            return false;
        }
    begin_job(MeshJob::Sample);
    samp_.tokens = prompt;
    samp_.opt = opt;
    samp_.rng = gpt::Rng(opt.seed);
    mesh_.tokens_.clear();   // the cache holds a training sequence's keys: the prompt starts it again
    queue_sample(n);
    return true;
}

bool MeshTrainer::sample(const std::vector<int>& prompt, int n, const gpt::SampleOptions& opt, std::vector<int>* out) {
    if (!begin_sample(prompt, n, opt) || !run_all()) return false;
    *out = samp_.tokens;
    return true;
}

bool MeshTrainer::run_slice(int units) {
    for (int i = 0; i < units && busy(); i++) {
        const auto start = std::chrono::steady_clock::now();
        bool ok = false;
        try {
            ok = queue_[next_].run();
        } catch (const std::exception& e) {
            error_ = e.what();
        }
        cur_.step.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!ok) {
            queue_.clear();
            next_ = 0;
            return false;
        }
        next_++;
    }
    if (!queue_.empty() && !busy()) {   // done: a step's totals over every launch since the batch began
        if (job_ == MeshJob::Step) {
            cur_.step.cycles = cur_.step.instructions = cur_.step.stream_bytes = cur_.step.stream_cycles = 0;
            for (const OpRun& r : runs_) {
                cur_.step.cycles += r.cycles;
                cur_.step.instructions += r.instructions;
                cur_.step.stream_bytes += r.stream_bytes;
                if (r.stream_bytes) cur_.step.stream_cycles += r.cycles;
            }
            cur_.step.host_bytes = mesh_.host_bytes() - cur_.host_bytes0;
            last_ = cur_.step;
        } else if (job_ == MeshJob::Eval) {
            last_eval_ = cur_.eval_loss;
        }
        queue_.clear();
        next_ = 0;
    }
    return true;
}

float MeshTrainer::loss_sum() const {
    const PlannedOp& ce = loss_op();
    float s = 0;
    throw_if(mesh_.host_.d2h(ce.rect.x, ce.rect.y, gpt::symbol::kLsum, &s, 1));
    return s;
}

// The clipping coefficient AdamW used in the last update(), as the PE at (x, y) holds it (hp[kHpClip]).
float MeshTrainer::clip_at(int x, int y) const {
    float hp[kHpCount];
    throw_if(mesh_.host_.d2h(x, y, gpt::symbol::kHp, hp, kHpCount));
    return hp[kHpClip];
}

bool MeshTrainer::run_all() { return run_slice(int(queue_.size() - next_)); }

bool MeshTrainer::begin_backward(const int* inputs, const int* targets, int B, int T, int loss_rows) {
    if (!check_batch("train on the mesh", inputs, targets, B, T)) return false;
    if (loss_rows != 0 && loss_rows < B * T) {
        error_ = "train on the mesh: the loss's rows (" + std::to_string(loss_rows) + ") are fewer than the batch's B*T = " +
                 std::to_string(B * T);
        return false;
    }
    if (loss_rows) cur_.bt = loss_rows;
    begin_job(MeshJob::Step);
    queue_backward();
    return true;
}

bool MeshTrainer::backward(const int* inputs, const int* targets, int B, int T, float* loss, int loss_rows) {
    if (!begin_backward(inputs, targets, B, T, loss_rows) || !run_all()) return false;
    *loss = cur_.step.loss;
    return true;
}

bool MeshTrainer::begin_update(double lr) {
    if (!check_idle("train on the mesh")) return false;
    job_ = MeshJob::Step;
    cur_.lr = lr;
    queue_update();   // appends its launches to backward's
    return true;
}

bool MeshTrainer::update(double lr, float* grad_norm) {
    if (!begin_update(lr) || !run_all()) return false;
    *grad_norm = cur_.step.grad_norm;
    return true;
}

bool MeshTrainer::step(const int* inputs, const int* targets, int B, int T, double lr, TrainStep* out) {
    if (!begin_step(inputs, targets, B, T, lr) || !run_all()) return false;
    *out = last_;
    return true;
}

}  // namespace wl::model
