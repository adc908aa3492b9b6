// train_guide.cpp: see train_guide.h.
#include "ui/train_guide.h"

#include "engine/gpt/op_table.h"

#include <cmath>
#include <cstdio>

namespace wlui {

// What a unit of the step is, in words: an op's from its row of the op table (gpt::OpRow::words,
// %d its layer), the streams and the optimiser's own units from here.
std::string op_in_words(const std::string& name) {
    const wl::gpt::OpName n = wl::gpt::parse_op_name(name);
    const auto with_layer = [&](const char* words) {
        char b[200];
        std::snprintf(b, sizeof b, words, n.layer);
        return std::string(b);
    };
    if (n.row) return with_layer(n.row->words);
    // Streaming training: the tied wte's two ops take it from the store (docs/weight-streaming.md).
    const std::string emb = wl::gpt::op_row(wl::gpt::OpId::Encoded).name, head = wl::gpt::op_row(wl::gpt::OpId::Logits).name;
    if (name == emb + ".weights") return "the rows of wte this sequence's tokens pick, and wpe, streaming in from the store over the mesh's edge";
    if (name == emb + ".grads") return "this sequence's gradient of the embedding streaming out to the store, which adds it into wte's and wpe's rows";
    if (name == head + ".weights") return "the tied wte streaming in from the store to the LM head's PEs over the mesh's edge";
    if (name == head + ".grads") return "the LM head's part of wte's gradient streaming out to the store";
    if (n.layer >= 0 && n.rest == "weights") return with_layer("layer %d's weights streaming in over the mesh's edge");
    if (n.layer >= 0 && n.rest == "grads") return with_layer("layer %d's weight gradients streaming out over the mesh's edge");
    if (name == wl::gpt::entry::kGradNorm) return "the gradients' norm, summed over every PE that holds weights (to clip them)";
    if (name == "store") return "AdamW on the streamed layers' weights, in the store off the wafer";
    return "";
}

TrainGuide train_guide(const TrainGuideInput& in) {
    TrainGuide g;
    g.op = in.op, g.phase = in.phase;
    const std::string words = op_in_words(in.op);
    if (in.op.empty()) {
        g.now = "Between jobs: nothing runs on the mesh until the next step, evaluation or sample begins.";
    } else if (in.phase == "backward") {
        g.now = "backward " + in.op + (in.chunk >= 0 ? ", chunk " + std::to_string(in.chunk) : "") + ": the gradient flowing back through " +
                (words.empty() ? in.op : words);
    } else if (in.phase == "optimiser" && in.op != "grad_norm" && in.op != "store") {
        g.now = "optimiser " + in.op + ": AdamW updating the weights of " + (words.empty() ? in.op : words);
    } else {
        g.now = in.phase + " " + in.op + (in.chunk >= 0 ? ", chunk " + std::to_string(in.chunk) : "") + ": " +
                (words.empty() ? "an op of the plan" : words);
    }
    if (in.lit > 0) {
        const wl::Rect& b = in.box;
        char r[160];
        if (b.h == 1)
            std::snprintf(r, sizeof r, "The lit row: %d PE%s, x %d..%d at y %d.", in.lit, in.lit == 1 ? "" : "s", b.x, b.x + b.w - 1, b.y);
        else
            std::snprintf(r, sizeof r, "The lit PEs: %d of them, x %d..%d, y %d..%d.", in.lit, b.x, b.x + b.w - 1, b.y, b.y + b.h - 1);
        g.row = r;
    }
    const std::string n = std::to_string(in.lit > 0 ? in.lit : 1);
    if (in.phase == "forward" && in.chunk >= 0)
        g.why = "Why several rows: the schedule is pipelined (wafer.schedule). The forward's window is cut into chunks of "
                "about 8 time steps, and each op works on its own chunk while the op after it works on the one before, so " +
                std::to_string(std::max(in.working, 1)) + " ops are lit now, each in its chunk's colour with the chunk written over it. "
                "Each chunk's loss and backward follow as soon as it reaches the top.";
    else if (in.phase == "backward" && in.chunk >= 0)
        g.why = "Why several rows: the schedule is pipelined (wafer.schedule). Each chunk's gradient flows back through the ops in "
                "reverse while the chunks after it follow, and the forward's later chunks may still climb: " +
                std::to_string(std::max(in.working, 1)) + " ops are lit now, the backward's tagged \"back\". The attention's "
                "backward is the one wall: its keys and values take terms from every later query, so the matmul below it waits for "
                "all of its chunks.";
    else if (in.phase == "forward")
        g.why = "Why only this row: the ops run in dependency order, and each forward op needs the previous op's output, "
                "so one op runs at a time for each sequence. The parallelism is inside the row: its " + n +
                " PEs work at once, each on its own slice of the op.";
    else if (in.phase == "backward")
        g.why = "Why only this row: the backward runs the ops in reverse, and each needs the gradient of the op after it, so "
                "again one op runs at a time. Its " + n + " PEs work at once, each on the gradient of its own slice.";
    else if (in.phase == "optimiser")
        g.why = "The step's gradients are all in: each op's PEs now update their own weights (weights, gradients and AdamW's "
                "moments sit in their own SRAM), one op's row after another.";
    else
        g.why = "";
    if (in.vocab > 1) {
        char l[320];
        const double start = std::log(double(in.vocab));
        int n_len = std::snprintf(l, sizeof l,
                                  "The loss (cross-entropy, in nats) starts near ln(vocabulary) = ln %d = %.2f: a model that knows "
                                  "nothing spreads its guess evenly over the %d characters. It falls as the model learns.",
                                  in.vocab, start, in.vocab);
        if (!in.losses.empty() && n_len > 0 && size_t(n_len) < sizeof l)
            std::snprintf(l + n_len, sizeof l - size_t(n_len), " Now %.2f at step %lld%s.", double(in.losses.back()), (long long)in.step,
                          double(in.losses.back()) < start ? ", below a blind guess" : "");
        g.loss = l;
    }
    return g;
}

}  // namespace wlui
