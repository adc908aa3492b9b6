// pipeline_run.cpp: MeshGPT's pipelined forward (pipeline.h, wafer.schedule: pipelined).
//
// The forward's launches, (op k, chunk c) for every forward op and chunk of the window, start as
// soon as they may and run side by side: (k, c) starts once (k, c-1) has finished, the launch of
// each op that makes one of its inputs for chunk c has finished, and none of its PEs (its own and
// its linked producers', which send while it runs) is in use by a running launch. Between starts
// the machine advances in slices of kPipelineSlice cycles (pipeline.h); a launch has finished when every one of its PEs
// is idle (no function or task running or pending, no wavelet waiting at its CE). Its outputs are
// then read (where the host carries them) and its PEs are free for the next. A sender whose PEs
// are idle has sent its window: they are let go at once, while the reader still computes (the
// wavelets are on their way in order, and the sender's next launch writes other columns).
//
// Training (mesh_train_pipeline.cpp) adds stages after the forward's: PipeTasks, the loss and each
// op's backward, over the same chunks, each waiting for the stages it names (or for every chunk of
// them: the attention's backward).
//
// A batch of sequences (forward_batch) streams through as more chunks: sequence s's chunk c is
// slot s*C + c, and a stage takes its slots in order. Sequence s+1 writes the columns sequence s
// wrote, so a stage's launch of slot u also waits until each linked reader has taken slot u-C from
// it; the host keeps each sequence's tokens and activations apart.
//
// Each PE therefore sees the launches the sequential schedule gives it, in an order that changes
// no value it computes (pipeline.h says why), so the logits are the sequential schedule's bit for
// bit. Only the cycles differ: a launch starts at the end of the slice in which its last
// predecessor finished, in cycle mode and fast mode alike.
#include "engine/model/mesh_gpt.h"

#include "engine/fabric/fault.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace wl::model {

namespace {

struct Counts {                   // what a launch's OpRun counts, from MachineStats
    uint64_t instrs = 0, busy = 0, sent = 0, flops = 0, hops = 0;
    Counts& operator+=(const Counts& o) {
        instrs += o.instrs, busy += o.busy, sent += o.sent, flops += o.flops, hops += o.hops;
        return *this;
    }
    Counts& operator-=(const Counts& o) {
        instrs -= o.instrs, busy -= o.busy, sent -= o.sent, flops -= o.flops, hops -= o.hops;
        return *this;
    }
};
}  // namespace

struct MeshGPT::PipeRun {
    std::vector<const PlannedOp*> stages;    // the forward's: stages 0 .. F-1
    std::vector<PipeTask> tasks;             // the rest: stages F .. D-1 (training's loss and backward)
    int F = 0;
    std::vector<PipeStage> deps;
    std::vector<std::vector<int>> after_all; // per stage: the stages whose every chunk it waits for
    std::vector<std::vector<int>> readers;   // per stage: the stages it sends to over a link
    int D = 0, C = 0, S = 1, t0 = 0, n = 0;  // stages, chunks a sequence, sequences
    int columns = 1;                         // the sequences the ops' columns hold side by side (plan_sequences)
    bool read_logits = true;
    std::vector<std::vector<int>> tokens;    // a batch's: each sequence's (one sequence: tokens_)
    std::vector<Tensors> acts;               // a batch's forward: each sequence's activations (else acts_)
    std::vector<size_t> seq_done;            // per sequence: its launches that have finished
    std::vector<Tensors>* acts_out = nullptr;
    enum class St : uint8_t { Waiting, Running, Done };
    std::vector<St> st;            // per launch u = slot * D + k, slot = sequence * C + chunk
    struct Live {
        int u = 0;
        uint64_t start = 0;
        std::vector<int> pes;      // its PEs (own and senders' still sending): cores counted, idle checked
        std::vector<int> claimed;  // the routers it holds the counts of (its box, where no other launch held them)
        Counts at_start;           // pes' and claimed's counts at its start
        std::vector<std::vector<int>> senders;   // each sender's PEs while it sends; empty once let go
        std::vector<Counts> sender_start;
        Counts let_go;             // what the senders let go did for it
        uint64_t host_bytes = 0;
    };
    std::vector<Live> live;
    std::vector<uint8_t> in_use;   // per mesh PE: a running launch's
    std::vector<uint8_t> claim;    // per mesh PE: a running launch holds its router's counts
    size_t done = 0;
    uint64_t began = 0, last_end = 0;
    wl::MachineStats all0;
    std::vector<OpRun> runs;
    std::vector<int> run_stage;    // each run's stage
    std::vector<std::vector<LaunchSpan>> launches;   // per stage, as they finished: in slot order (a stage takes its slots in order)
    int chunk_t0(int c) const { return t0 + int(int64_t(c) * n / C); }
    // The first of sequence seq's columns on every op: sequences side by side in the time pitch.
    int col0(int seq, int block) const { return seq % columns * block; }
    const PlannedOp& op_of(int k) const { return k < F ? *stages[size_t(k)] : *tasks[size_t(k - F)].op; }
};

MeshGPT::Tensors& MeshGPT::pipe_acts(int sequence) { return pipe_->acts.empty() ? acts_ : pipe_->acts[size_t(sequence)]; }

size_t MeshGPT::pipeline_launches() const { return pipe_ ? pipe_->st.size() : 0; }

bool MeshGPT::begin_forward(const int* tokens, int T) {
    if (!take_tokens(tokens, T)) return false;
    if (schedule_ != Schedule::Pipelined || plan_.streaming || T < 2) {
        tokens_.clear();
        error_ = "a forward a slice at a time is a pipelined one: a resident plan, wafer.schedule pipelined, at least 2 tokens";
        return false;
    }
    runs_.clear();
    window_t0_ = 0, window_n_ = T;
    begin_pipeline(stages(), 0, T);
    return true;
}

bool MeshGPT::advance_forward(size_t slices, std::vector<float>* logits) {
    if (!pipe_) return true;
    if (!run_pipeline(slices)) {
        tokens_.clear();   // the cache is not whole
        return false;
    }
    if (!pipe_) copy_logits(0, window_n_, logits);
    return true;
}

std::vector<LaunchSpan> MeshGPT::in_flight() const {
    std::vector<LaunchSpan> out;
    if (!pipe_) return out;
    const PipeRun& p = *pipe_;
    const uint64_t now = host_.machine().now() - p.began;
    for (const PipeRun::Live& l : p.live) {
        const int c = l.u / p.D % p.C, t0 = p.chunk_t0(c);
        const int k = l.u % p.D;
        out.push_back({p.op_of(k).name, l.u / p.D / p.C, c, t0, p.chunk_t0(c + 1) - t0, l.start - p.began, now + 1,
                       k >= p.F});
    }
    return out;
}

void MeshGPT::begin_pipeline(const std::vector<const PlannedOp*>& stages, int t0, int n, bool read_logits,
                             std::vector<std::vector<int>> batch, std::vector<Tensors>* acts_out, std::vector<PipeTask> tasks) {
    auto p = std::make_shared<PipeRun>();
    p->stages = stages;
    p->F = int(stages.size());
    p->deps = pipeline_stages(stages);
    p->after_all.resize(stages.size());
    for (const PipeTask& t : tasks) {
        p->deps.push_back({{t.op->rect}, t.after, {}});
        p->after_all.push_back(t.after_all);
    }
    p->tasks = std::move(tasks);
    p->D = int(p->deps.size());
    p->readers.resize(size_t(p->D));
    for (size_t m = 0; m < stages.size(); m++)
        for (int k : p->deps[m].linked) p->readers[size_t(k)].push_back(int(m));
    p->C = default_chunks(plan_, n);
    p->S = std::max<int>(1, int(batch.size()));
    p->columns = plan_sequences(plan_.cfg, plan_.train);
    p->t0 = t0, p->n = n;
    p->read_logits = read_logits;
    if (batch.size() > 1) {
        p->tokens = std::move(batch);
        if (p->tasks.empty()) p->acts.resize(p->tokens.size());   // training's sequences keep to their own columns of acts_
        p->acts_out = acts_out;
    }
    p->seq_done.assign(size_t(p->S), 0);
    p->st.assign(size_t(p->D) * size_t(p->C) * size_t(p->S), PipeRun::St::Waiting);
    p->launches.resize(size_t(p->D));
    const size_t pes = size_t(plan_.mesh_w) * size_t(plan_.mesh_h);
    p->in_use.assign(pes, 0);
    p->claim.assign(pes, 0);
    p->began = p->last_end = host_.machine().now();
    p->all0 = host_.stats();
    pipe_ = std::move(p);
}

namespace {
Counts counts_of(const wl::Machine& m, const std::vector<int>& cores, const std::vector<int>& routers) {
    Counts c;
    const int w = m.config().w;
    for (int i : cores) {
        const wl::MachineStats s = m.stats(wl::Rect{i % w, i / w, 1, 1});
        c.instrs += s.instrs, c.busy += s.busy, c.sent += s.sent, c.flops += s.flops;
    }
    for (int i : routers) c.hops += m.stats(wl::Rect{i % w, i / w, 1, 1}).hops;
    return c;
}

// Nothing running or pending on the PE's CE, nothing waiting for it there, and its clock reached.
bool pe_idle(const wl::Machine& m, int i) {
    const int w = m.config().w, x = i % w, y = i / w;
    const wl::Core& c = m.core(x, y);
    if (c.state != wl::ThreadState::Idle || c.launch_fn >= 0 || c.tasks_active || c.ut_busy) return false;
    if (c.ready_at > m.now()) return false;   // fast mode: its clock ran past the slice; it finishes then, not now
    return !m.ce_any_queued(x, y);
}

bool overlap(const wl::Rect& a, const wl::Rect& b) {
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

void add_rect(std::vector<int>& out, const wl::Rect& r, int mesh_w) {
    for (int y = r.y; y < r.y + r.h; y++)
        for (int x = r.x; x < r.x + r.w; x++) out.push_back(y * mesh_w + x);
}
}  // namespace

bool MeshGPT::run_pipeline_finishes(size_t launches) {
    if (!pipe_) return true;
    return run_pipeline(SIZE_MAX, std::min(pipe_->st.size(), pipe_->done + launches));
}

bool MeshGPT::run_pipeline(size_t slices, size_t until_done) {
    if (!pipe_) return true;   // finished already (a later launch's unit found it done)
    PipeRun& p = *pipe_;
    wl::Machine& m = host_.machine();
    const int W = plan_.mesh_w, TS = plan_.cfg.block_size;
    const size_t U = p.st.size();
    const int slots = p.C * p.S;
    const auto done = [&](int slot, int k) { return p.st[size_t(slot * p.D + k)] == PipeRun::St::Done; };
    const auto start_ready = [&] {   // the earliest slot first, and of a slot the last stage first
        for (int slot = 0; slot < slots; slot++)
            for (int k = p.D - 1; k >= 0; k--) {
                const int u = slot * p.D + k, c = slot % p.C, seq = slot / p.C;
                if (p.st[size_t(u)] != PipeRun::St::Waiting || (slot > 0 && !done(slot - 1, k))) continue;
                bool ready = true;
                for (int j : p.deps[size_t(k)].producers) ready = ready && done(slot, j);
                for (int j : p.after_all[size_t(k)]) ready = ready && done(seq * p.C + p.C - 1, j);
                if (seq >= p.columns) {   // the same columns as sequence seq - columns: every linked reader has them,
                    const int before = slot - p.C * p.columns;
                    for (int r : p.readers[size_t(k)]) ready = ready && done(before, r);
                    // and in training that sequence's backward and loss (what reads the ops' columns of it) have finished
                    if (!p.tasks.empty()) ready = ready && p.seq_done[size_t(seq - p.columns)] == size_t(p.D * p.C);
                }
                if (!ready) continue;
                const PlannedOp& op = p.op_of(k);
                const PipeTask* task = k >= p.F ? &p.tasks[size_t(k - p.F)] : nullptr;
                Senders senders;                        // launched with it: its links' senders
                std::vector<const PlannedOp*> windowed;   // and the ops they are: each sends the chunk's window
                if (task) {
                    for (const auto& [from, send] : task->senders) senders.push_back({from->rect, send}), windowed.push_back(from);
                } else {
                    senders = link_senders(op);
                    for (const Transfer& tr : op.inputs)
                        if (tr.colour)
                            for (const PlannedOp* from : p.stages)
                                if (from->name == tr.tensor) windowed.push_back(from);
                }
                PipeRun::Live l;
                l.u = u;
                add_rect(l.pes, op.rect, W);
                for (size_t i = 0; i < senders.size(); i++) {
                    const Rect& from = senders[i].first;
                    add_rect(l.pes, from, W);
                    l.senders.emplace_back();   // let go when done, unless its PEs serve another part of the launch too
                    bool own = !overlap(from, op.rect);
                    for (size_t j = 0; j < senders.size(); j++) own = own && (j == i || !overlap(from, senders[j].first));
                    if (own) add_rect(l.senders.back(), from, W);
                }
                if (std::any_of(l.pes.begin(), l.pes.end(), [&](int i) { return p.in_use[size_t(i)]; })) continue;
                const int t0 = p.col0(seq, TS) + p.chunk_t0(c), n = p.chunk_t0(c + 1) - p.chunk_t0(c);   // its columns
                const uint64_t bytes0 = host_bytes_;
                if (p.S > 1) tokens_ = p.tokens[size_t(seq)];   // the embedding's put reads them
                if (task && task->before) task->before(seq, t0, n);
                if (!task)
                    for (const Transfer& tr : op.inputs)
                        if (!tr.colour) put(op, tr, t0, n, pipe_acts(seq));
                set_window(op, t0, n);
                for (const PlannedOp* from : windowed) set_window(*from, t0, n);   // a sender sends its window: the chunk's
                l.host_bytes = host_bytes_ - bytes0;
                Rect box = op.rect;   // the launch's routers: the box around it and its senders (MeshGPT::launch's)
                for (const auto& [from, send] : senders) {
                    const int x1 = std::max(box.x + box.w, from.x + from.w), y1 = std::max(box.y + box.h, from.y + from.h);
                    box.x = std::min(box.x, from.x), box.y = std::min(box.y, from.y);
                    box.w = x1 - box.x, box.h = y1 - box.y;
                }
                std::vector<int> routers;
                add_rect(routers, box, W);
                for (int i : routers)
                    if (!p.claim[size_t(i)]) {
                        p.claim[size_t(i)] = 1;
                        l.claimed.push_back(i);
                    }
                for (int i : l.pes) p.in_use[size_t(i)] = 1;
                l.at_start = counts_of(m, l.pes, l.claimed);
                for (const std::vector<int>& g : l.senders) l.sender_start.push_back(counts_of(m, g, {}));
                l.start = m.now();
                throw_if(host_.launch(op.rect, task ? task->fn : gpt::entry::kMain));
                for (const auto& [from, send] : senders) throw_if(host_.launch(from, send));
                p.st[size_t(u)] = PipeRun::St::Running;
                p.live.push_back(std::move(l));
            }
    };
    const auto finish = [&](const PipeRun::Live& l) {
        const int k = l.u % p.D, c = l.u / p.D % p.C, seq = l.u / p.D / p.C;
        const PlannedOp& op = p.op_of(k);
        const PipeTask* task = k >= p.F ? &p.tasks[size_t(k - p.F)] : nullptr;
        const int t0 = p.col0(seq, TS) + p.chunk_t0(c), n = p.chunk_t0(c + 1) - p.chunk_t0(c);   // its columns
        Counts e = counts_of(m, l.pes, l.claimed);
        e += l.let_go;
        OpRun run;
        run.name = op.name;
        run.op = task ? op.op + ":" + task->fn : op.op;
        run.span = m.now() - l.start;
        run.start = l.start - p.began;
        run.instructions = e.instrs - l.at_start.instrs, run.busy = e.busy - l.at_start.busy;
        run.wavelets = e.sent - l.at_start.sent, run.vector_flops = e.flops - l.at_start.flops;
        run.hops = e.hops - l.at_start.hops;
        run.pes = op.rect.w * op.rect.h;
        run.concurrent = true;
        run.flops = task ? 0 : op.flops * n / TS;   // the model's FLOPs are the forward's (the sequential backward's too)
        const uint64_t bytes0 = host_bytes_;
        if (task && task->finish) task->finish(seq, t0, n);
        else if (!task && op.host_out && (p.read_logits || op.id != gpt::OpId::Logits)) get(op, op.output, t0, n, pipe_acts(seq));
        run.host_bytes = l.host_bytes + host_bytes_ - bytes0;
        for (int i : l.pes) p.in_use[size_t(i)] = 0;
        for (int i : l.claimed) p.claim[size_t(i)] = 0;
        p.st[size_t(l.u)] = PipeRun::St::Done;
        p.done++;
        p.seq_done[size_t(seq)]++;
        p.launches[size_t(k)].push_back({op.name, seq, c, p.chunk_t0(c), n, run.start, run.start + run.span, task != nullptr});
        p.runs.push_back(std::move(run));
        p.run_stage.push_back(k);
    };
    const auto wall = std::chrono::steady_clock::now();
    const size_t first_run = p.runs.size();
    struct Lookahead {   // fast mode: PEs run on past each slice (the same bits and clocks), for this call only
        wl::Machine& m;
        Lookahead(wl::Machine& mm, uint64_t cycles) : m(mm) { m.set_lookahead(cycles); }
        ~Lookahead() { m.set_lookahead(0); }
    } lookahead(m, lookahead_);
    try {
        bool finished = true;   // what may start changes only when a launch finishes (its outputs, its PEs)
        const size_t target = until_done ? until_done : U;
        for (size_t slice = 0; slice < slices && p.done < target; slice++) {
            if (finished) start_ready();
            if (p.live.empty()) throw std::logic_error("pipelined forward: no launch can start");
            RunResult r = m.advance(kPipelineSlice);
            for (const PipeRun::Live& l : p.live)   // each launch has the sequential schedule's budget
                if (r.ok() && m.now() - l.start > cycle_budget) {
                    r.status = RunStatus::Faulted;
                    r.fault = m.watchdog(cycle_budget);
                }
            if (!r.ok()) {   // named as the sequential schedule names it: the launch on the fault's PE
                const PipeRun::Live* at = p.live.empty() ? nullptr : &p.live.front();
                for (const PipeRun::Live& l : p.live)
                    if (std::find(l.pes.begin(), l.pes.end(), r.fault.y * W + r.fault.x) != l.pes.end()) at = &l;
                const PlannedOp* op = at ? &p.op_of(at->u % p.D) : nullptr;
                error_ = (op ? op->name + " (" + op->kernel + ", chunk " + std::to_string(at->u / p.D) + " of the pipeline): " : "") +
                         r.fault.to_string();
                pipe_.reset();
                return false;
            }
            const bool quiet = r.status == RunStatus::Quiescent;
            // A sender that has sent its window is let go: its PEs may start their next launch
            // while the reader still computes (the wavelets it sent are on their way, in order).
            bool let_go = false;
            for (PipeRun::Live& l : p.live)
                for (size_t g = 0; g < l.senders.size(); g++) {
                    std::vector<int>& pes = l.senders[g];
                    if (pes.empty() || quiet || !std::all_of(pes.begin(), pes.end(), [&](int pe) { return pe_idle(m, pe); })) continue;
                    Counts done_now = counts_of(m, pes, {});
                    done_now -= l.sender_start[g];
                    l.let_go += done_now;
                    l.at_start -= l.sender_start[g];
                    for (int i : pes) {
                        p.in_use[size_t(i)] = 0;
                        l.pes.erase(std::find(l.pes.begin(), l.pes.end(), i));
                    }
                    pes.clear();
                    let_go = true;
                }
            const size_t had = p.runs.size();
            for (size_t i = 0; i < p.live.size();) {
                if (quiet || std::all_of(p.live[i].pes.begin(), p.live[i].pes.end(), [&](int pe) { return pe_idle(m, pe); })) {
                    finish(p.live[i]);
                    p.live.erase(p.live.begin() + long(i));
                } else {
                    i++;
                }
            }
            finished = p.runs.size() > had || let_go;
            if (p.runs.size() > had) {   // the cycles since the last finish, shared by those that finished now
                const uint64_t delta = m.now() - p.last_end, k = p.runs.size() - had;
                for (size_t i = had; i < p.runs.size(); i++) p.runs[i].cycles = delta / k + (i == had ? delta % k : 0);
                p.last_end = m.now();
            }
        }
        // What may start now starts before the call returns (at the same cycle as at the next call's
        // start): a caller drawing between calls sees every launch working (in_flight).
        if (finished && p.done < U) start_ready();
    } catch (const std::exception& e) {
        error_ = e.what();
        pipe_.reset();
        return false;
    }
    if (p.runs.size() > first_run)   // host time, on the first launch this call finished
        p.runs[first_run].seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
    if (p.done < U) return true;
    // Done: an OpRun per op, in the schedule's order, its launches' counts added up (the sequential
    // schedule's one run per op). What no launch held (routers between launches that only passed
    // wavelets on) goes to the first, so the runs add up to the machine's counts. A launch's hops are
    // its box's routers' while it ran: fast mode counts a wavelet's hops as it is sent, its PEs ahead
    // of the slice, so a hop on a router another launch holds may go to either op (their sum is the
    // same). Every op's window is the whole one again, as the sequential schedule leaves it (what
    // runs next reads its producers' windows over links).
    std::vector<OpRun> ops(size_t(p.D));
    for (int k = 0; k < p.D; k++) {
        const PlannedOp& op = p.op_of(k);
        ops[size_t(k)].name = op.name, ops[size_t(k)].op = k < p.F ? op.op : op.op + ":" + p.tasks[size_t(k - p.F)].fn;
        ops[size_t(k)].pes = op.rect.w * op.rect.h;
        ops[size_t(k)].concurrent = true, ops[size_t(k)].start = UINT64_MAX;
    }
    for (size_t i = 0; i < p.runs.size(); i++) {
        const OpRun& r = p.runs[i];
        OpRun& o = ops[size_t(p.run_stage[i])];
        o.cycles += r.cycles, o.span += r.span, o.start = std::min(o.start, r.start);
        o.instructions += r.instructions, o.busy += r.busy, o.hops += r.hops, o.wavelets += r.wavelets;
        o.vector_flops += r.vector_flops, o.flops += r.flops, o.seconds += r.seconds, o.host_bytes += r.host_bytes;
        o.chunks++;
    }
    const wl::MachineStats all = host_.stats();
    OpRun& first = ops.front();
    uint64_t instrs = 0, busy = 0, sent = 0, flops = 0, hops = 0;
    for (const OpRun& r : ops) instrs += r.instructions, busy += r.busy, sent += r.wavelets, flops += r.vector_flops, hops += r.hops;
    first.instructions += (all.instrs - p.all0.instrs) - instrs;
    first.busy += (all.busy - p.all0.busy) - busy;
    first.wavelets += (all.sent - p.all0.sent) - sent;
    first.vector_flops += (all.flops - p.all0.flops) - flops;
    first.hops += (all.hops - p.all0.hops) - hops;
    for (int k = 0; k < p.D; k++) set_window(p.op_of(k), p.t0, p.n);
    runs_.insert(runs_.end(), ops.begin(), ops.end());
    pipe_timeline_.clear();   // by op, then by slot: the timeline's rows in schedule order
    for (const std::vector<LaunchSpan>& stage : p.launches) pipe_timeline_.insert(pipe_timeline_.end(), stage.begin(), stage.end());
    if (p.S > 1) {   // the KV cache holds the last sequence
        tokens_ = p.tokens.back();
        if (p.acts_out) *p.acts_out = std::move(p.acts);
    }
    pipe_.reset();
    return true;
}

}  // namespace wl::model
