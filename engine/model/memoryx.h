// memoryx.h: the store of streaming execution, Cerebras' MemoryX, "a large-capacity off-chip
// memory service, used to store model weights, gradients, optimizer states" (docs.cerebras.net,
// Glossary): the weights that live off the wafer and, in training, their gradients as the wafers
// stream them out (added up over the step's sequences) and AdamW's moments, which it updates.
//
// One store serves every wafer of a step: SwarmX "broadcasts weights (from MemoryX to the cluster)
// and reduces (sums) gradients (in the other direction)" (docs.cerebras.net, "How Cerebras works"),
// so SwarmX's wafers share one (swarmx.h) and each wafer's gradient streams add into its sums.
// Every array has gpt::GPT's params_memory layout; the store's part of it is the streamed layers'
// parameters and, in training, wte's and wpe's (MeshTrainer::in_store); the rest is the wafer's.
#pragma once
#include <cstdint>
#include <vector>

namespace wl::model {

struct MemoryX {
    std::vector<float> weights;
    std::vector<uint8_t> mask;         // the weights' sparsity mask (gpt::GPT::mask; empty: dense)
    std::vector<float> grads, m, v;    // training: the step's gradient sums, AdamW's moments
    double grads_sq = 0;               // the sums' squares, for the step's norm: AdamW clips them in place
};

}  // namespace wl::model
