// train_guide.h: the words of the Train section's guide — what the lit row of PEs computes, why it
// runs alone, and what the loss should do — for the op the canvas lights this frame. No ImGui:
// tests/ui checks the words; model_train_view.cpp draws them, each term with its glossary entry.
//
//   TrainGuide g = train_guide({"forward", "l0.qkv", 3, {0, 4, 3, 1}, 65, losses, 12});
//   g.now  // "forward l0.qkv: the matmul that makes the queries, keys and values for layer 0"
#pragma once
#include "engine/fabric/machine.h"

#include <string>
#include <vector>

namespace wlui {

// What an op of the training plan computes, in words, from its name: the part after "l<N>." for a
// layer's op ("l0.qkv": "the matmul that makes the queries, keys and values for layer 0"), else
// the whole name ("logits", "grad_norm"). "" for a name it does not know.
std::string op_in_words(const std::string& name);

struct TrainGuideInput {
    std::string phase;                  // "forward", "backward", "optimiser"; "" between jobs
    std::string op;                     // the plan's op name ("l0.qkv"), "" between jobs
    int lit = 0;                        // PEs lit on the canvas for it
    wl::Rect box{0, 0, 0, 0};           // the box around them
    int vocab = 0;                      // the run's vocabulary
    std::vector<float> losses;          // per step so far
    int64_t step = 0;
    int chunk = -1;                     // a pipelined forward's unit: its chunk; -1: the op runs alone
    int working = 0;                    // ... and the launches working with it (ops lit)
};

struct TrainGuide {
    std::string op, phase;              // what it describes ("" between jobs)
    std::string now;                    // "forward l0.qkv: the matmul that ..."
    std::string row;                    // where the lit PEs are: "the lit row: 3 PEs, x 0..2 at y 4"
    std::string why;                    // why this op runs alone, and where the parallelism is
    std::string loss;                   // where the loss starts (ln of the vocabulary) and where it is
};

TrainGuide train_guide(const TrainGuideInput& in);

}  // namespace wlui
