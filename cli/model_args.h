// model_args.h: what the mesh-GPT verbs share — the model (--checkpoint, or
// --config with its seeded initial weights), its tokenizer, and the plan for
// --mesh WxH (default 32x32) from the kernels in --kernels (default models/kernels).
#pragma once
#include "cli/args.h"
#include "engine/gpt/gpt.h"
#include "engine/gpt/tokenizer.h"
#include "engine/model/mesh_plan.h"

#include <memory>
#include <string>

namespace wlcli {

struct LoadedModel {
    std::unique_ptr<wl::gpt::GPT> model;
    std::unique_ptr<wl::gpt::Tokenizer> tokenizer;
    std::string source;   // "checkpoint F (step N)" or "config F, initial weights (seed S)"
};

LoadedModel load_model(const Args& args);             // throws with a message naming the flag
// train: with the backward's and AdamW's arrays (plan_model's train). Throws the planner's error.
wl::model::MeshPlan plan_for(const Args& args, const wl::gpt::GPTConfig& cfg, bool train = false);
double wse_clock_hz();                                 // the clock emulated cycles are timed at

}  // namespace wlcli
