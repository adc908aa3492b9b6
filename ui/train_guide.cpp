// train_guide.cpp: see train_guide.h.
#include "ui/train_guide.h"

#include <cctype>
#include <cmath>
#include <cstdio>

namespace wlui {

// The one place the UI says what each op of the plan is (keyed by the op's name, as the plan and
// the trainer's units name it); %d is the layer.
std::string op_in_words(const std::string& name) {
    struct Words {
        const char* key;
        const char* words;
    };
    static constexpr Words kLayer[] = {
        {"ln1", "the layer norm before attention in layer %d: each token's vector scaled to mean 0 and variance 1"},
        {"qkv", "the matmul that makes the queries, keys and values for layer %d"},
        {"atty", "attention in layer %d: each token weighs the earlier tokens' values by how well its query matches their keys"},
        {"attproj", "the matmul that mixes the attention heads' outputs back together, layer %d"},
        {"residual2", "the residual add after attention in layer %d: the layer's input plus what attention made"},
        {"ln2", "the layer norm before the MLP in layer %d"},
        {"fch", "the MLP's first matmul in layer %d, which widens each token's vector four times"},
        {"fch_gelu", "GELU, the MLP's bend, in layer %d"},
        {"fcproj", "the MLP's second matmul in layer %d, back to the model's width"},
        {"residual3", "the residual add after the MLP in layer %d: the layer's output"},
        {"weights", "layer %d's weights streaming in over the mesh's edge"},
        {"grads", "layer %d's weight gradients streaming out over the mesh's edge"},
    };
    static constexpr Words kWhole[] = {
        {"encoded", "the embedding: each token's vector plus its position's vector"},
        {"lnf", "the final layer norm, before the logits"},
        {"logits", "the matmul that scores every character of the vocabulary as the next one (with the embedding's weights, tied)"},
        {"dlogits", "the loss: softmax over the logits, cross-entropy against the true next character, and its gradient"},
        {"grad_norm", "the gradients' norm, summed over every PE that holds weights (to clip them)"},
        {"store", "AdamW on the streamed layers' weights, in the store off the wafer"},
    };
    int layer = -1, used = 0;
    if (name.size() > 1 && name[0] == 'l' && std::isdigit(static_cast<unsigned char>(name[1])) &&
        std::sscanf(name.c_str(), "l%d.%n", &layer, &used) == 1 && used > 0) {
        const std::string key = name.substr(size_t(used));
        for (const Words& w : kLayer)
            if (key == w.key) {
                char b[200];
                std::snprintf(b, sizeof b, w.words, layer);
                return b;
            }
        return "";
    }
    for (const Words& w : kWhole)
        if (name == w.key) return w.words;
    return "";
}

TrainGuide train_guide(const TrainGuideInput& in) {
    TrainGuide g;
    g.op = in.op, g.phase = in.phase;
    const std::string words = op_in_words(in.op);
    if (in.op.empty()) {
        g.now = "Between jobs: nothing runs on the mesh until the next step, evaluation or sample begins.";
    } else if (in.phase == "backward") {
        g.now = "backward " + in.op + ": the gradient flowing back through " + (words.empty() ? in.op : words);
    } else if (in.phase == "optimiser" && in.op != "grad_norm" && in.op != "store") {
        g.now = "optimiser " + in.op + ": AdamW updating the weights of " + (words.empty() ? in.op : words);
    } else {
        g.now = in.phase + " " + in.op + ": " + (words.empty() ? "an op of the plan" : words);
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
    if (in.phase == "forward")
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
