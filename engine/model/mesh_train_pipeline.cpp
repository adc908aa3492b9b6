// mesh_train_pipeline.cpp: a training sequence under wafer.schedule: pipelined. Its forward, its
// loss and its backward are one pipeline over chunks of its time steps (pipeline_run.cpp): op k's
// backward works on chunk c while op k-1's works on chunk c-1, and while the forward's lower ops
// still work on later chunks. GPipe cuts a batch into micro-batches the same way (Huang et al.,
// arXiv:1811.06965); here the micro-batches are a sequence's chunks of time steps.
//
// Why the bits cannot change: every backward kernel works on its window's columns alone and adds
// its window's terms to the weight gradients' running sums time step after time step, so chunks
// in order add the terms in the sequential schedule's order. A launch (k, c) waits for (k, c-1)
// and for the launches that make its gradients for chunk c: the backward that sends its dy (and,
// for a layernorm, the residual stream's part of dx) over a link, or whose output the host carries.
// Only the attention's backward mixes time steps: the keys and values of chunk c take terms from
// every later query, so the backward that takes its dq, dk and dv waits for its every chunk, and
// where the host carries them it reads them once, after the last.
// The loss takes its chunk of logits over their link and adds its steps' terms to the running sum
// in order too.
#include "engine/model/mesh_trainer.h"

#include <map>
#include <string>
#include <vector>

namespace wl::model {

int MeshTrainer::pipelined_together() const {
    const PlannedOp& emb = op(gpt::OpId::Encoded);
    const bool side_by_side = plan_sequences(mesh_.plan().cfg, mesh_.plan().train) > 1;
    return side_by_side && grad_link_into(emb).first && cur_.B <= stash_slots() ? cur_.B : 1;
}

void MeshTrainer::queue_pipelined(int b0, int count) {
    const PlannedOp& ce = loss_op();
    const std::vector<const PlannedOp*> stages = mesh_.stages();
    const int F = int(stages.size());
    std::map<std::string, int> forward_at;   // op name -> its forward stage
    for (int k = 0; k < F; k++) forward_at[stages[size_t(k)]->name] = k;
    std::vector<MeshGPT::PipeTask> tasks;
    std::map<std::string, int> backward_at;   // op name -> its backward's (or the loss's) stage
    // The stages that write tensor's gradient for the host (their inputs' gradients, got after them).
    const auto writers = [&](const std::string& tensor) {
        std::vector<const PlannedOp*> out;
        for (const auto& [name, k] : backward_at)
            for (const Transfer& in : tasks[size_t(k - F)].op->inputs)
                if (in.tensor == tensor) out.push_back(tasks[size_t(k - F)].op);
        return out;
    };
    const auto wait_for = [&](MeshGPT::PipeTask& t, const PlannedOp& from) {   // the attention's every chunk
        (from.is(gpt::OpKind::Attention) ? t.after_all : t.after).push_back(backward_at.at(from.name));
    };

    MeshGPT::PipeTask loss;   // crossentropy.wk's main: the loss's terms and dlogits
    loss.op = &ce;
    loss.fn = gpt::entry::kMain;
    const Transfer& x = ce.inputs.front();
    loss.after = {forward_at.at(x.tensor)};
    if (x.colour) loss.senders.push_back({stages[size_t(forward_at.at(x.tensor))], x.send});
    loss.before = [this, &ce, x, b0](int seq, int t0, int n) {   // the chunk's targets, at its columns
        if (!x.colour) mesh_.put(ce, x, t0, n, mesh_.pipe_acts(seq));
        const int s = t0 % mesh_.plan().cfg.block_size;   // its steps in the sequence
        write_targets(ce, cur_.targets.data() + size_t(b0 + seq) * cur_.T + s, cur_.bt, n, t0);
    };
    loss.finish = [this, &ce, x](int, int t0, int n) {
        if (x.grad_colour) return;
        Transfer out = ce.output;
        out.tensor = op(gpt::OpId::Logits).name;
        mesh_.get(ce, out, t0, n, grads_);
    };
    backward_at[ce.name] = F;
    tasks.push_back(std::move(loss));
    for (auto it = ops_.rbegin(); it != ops_.rend(); ++it) {   // backward_op's, in the sequential step's order
        const PlannedOp& o = *it;
        if (!o.on("TRAIN") || o.is(gpt::OpKind::Embedding)) continue;
        MeshGPT::PipeTask t;
        t.op = &o;
        t.fn = gpt::entry::kBackward;
        t.senders = backward_senders(o);
        for (const auto& [from, send] : t.senders) wait_for(t, *from);
        const std::vector<Transfer> puts = backward_puts(o);
        for (const Transfer& in : puts)
            for (const PlannedOp* w : writers(in.tensor)) wait_for(t, *w);
        t.before = [this, &o, puts](int, int t0, int n) {
            for (const Transfer& in : puts) mesh_.put(o, in, t0, n, grads_);
        };
        t.finish = [this, &o](int, int t0, int n) {
            if (o.is(gpt::OpKind::Attention)) {   // a chunk adds into every earlier key's dk and dv: all, after the last
                const int s0 = t0 - t0 % mesh_.plan().cfg.block_size;
                if (t0 + n - s0 < cur_.T) return;
                n += t0 - s0, t0 = s0;
            }
            backward_gets(o, t0, n);
        };
        backward_at[o.name] = F + int(tasks.size());
        tasks.push_back(std::move(t));
    }
    // The embedding's dy (the first layernorm's dx) up its link into the stash, chunk by chunk
    // after that layernorm's backward: keep_dy with the sequence's slot (keep_dy() without a pipeline).
    const PlannedOp& emb = op(gpt::OpId::Encoded);
    const PlannedOp* ln = grad_link_into(emb).first;
    const bool kept = ln && b0 + count <= stash_slots();
    if (kept) {
        MeshGPT::PipeTask keep;
        keep.op = &emb;
        keep.fn = gpt::entry::kKeepDy;
        keep.senders = {{ln, gpt::entry::kSendDx}};
        keep.after = {backward_at.at(ln->name)};
        keep.before = [this, &emb, b0](int seq, int, int) {
            const uint32_t slot = uint32_t(b0 + seq);
            for (int p = 0; p < emb.rect.w; p++) throw_if(mesh_.host_.h2d_u32(emb.rect.x + p, emb.rect.y, gpt::symbol::kSlot, &slot, 1));
        };
        tasks.push_back(std::move(keep));
    }

    const int T = cur_.T, units = (F + int(tasks.size())) * mesh_.pipeline(0, T).chunks * count;
    queue_pipeline({TrainPhase::Forward, "", b0}, units, [this, b0, count, stages, tasks = std::move(tasks), &ce] {
        const int T = cur_.T;
        std::vector<std::vector<int>> batch;
        for (int b = b0; b < b0 + count; b++) batch.emplace_back(cur_.inputs.begin() + size_t(b) * T, cur_.inputs.begin() + size_t(b + 1) * T);
        mesh_.tokens_ = batch.front();
        mesh_.runs_.clear();
        mesh_.begin_pipeline(stages, 0, T, !ce.inputs.front().colour, count > 1 ? std::move(batch) : std::vector<std::vector<int>>{},
                             nullptr, tasks);
    });
    for (int b = b0; b < b0 + count; b++)   // what the embedding's backward needs later
        add({TrainPhase::Backward, emb.name, b}, [this, b, kept] {
            const int T = cur_.T;
            cur_.tokens.emplace_back(cur_.inputs.begin() + size_t(b) * T, cur_.inputs.begin() + size_t(b + 1) * T);
            if (kept) {   // in the stash
                cur_.dencoded.emplace_back();
                return true;
            }
            return keep_dy(b) && (!store_tie() || stream_dy_out(b));
        });
}

}  // namespace wl::model
