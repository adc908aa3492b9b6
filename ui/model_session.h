// model_session.h: the Model window's state, without ImGui — a GPT config and a
// mesh size in, the model compiler's plan out (engine/model/mesh_plan.h), then a
// forward pass or text generation on the emulated mesh (engine/model/mesh_gpt.h),
// each checked against the reference GPT it was loaded from. The window
// (model_window.cpp) draws this; the JS hook and tests/ui drive it directly.
//
//   ModelSession s("models");
//   if (!s.compile("gpt-nano", 32, 32)) show(s.error());   // "l2.fch needs 61,440 bytes on PE (3,1); ..."
//   s.forward("Once upon a time");                          // s.last_forward(): cycles per op, logits checked
//   s.start_generation("Once", 20, {.temperature = 0});
//   while (s.step()) redraw();                              // one token per call: the UI stays live
#pragma once
#include "engine/gpt/gpt.h"
#include "engine/gpt/rng.h"
#include "engine/gpt/sampler.h"
#include "engine/gpt/tokenizer.h"
#include "engine/model/forward_record.h"
#include "engine/model/mesh_gpt.h"
#include "engine/model/mesh_plan.h"
#include "engine/model/plan_cache.h"
#include "ui/memory_use.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wlui {

// One compiler stage as a table: what the Model window draws in its section and tests read.
struct PlanStage {
    std::string title;                            // "1. graph"
    std::string summary;                          // one line under the title
    std::vector<std::string> columns;
    std::vector<std::vector<std::string>> rows;   // each as wide as columns
};
std::vector<PlanStage> plan_stages(const wl::model::MeshPlan& plan);   // the six, in the compiler's order

struct SramEntry {                                // one symbol of a PE's program
    std::string symbol;
    uint32_t offset = 0, bytes = 0;               // byte offset in SRAM, and its size
    uint32_t length = 0;                          // elements
};

struct ForwardReport {                            // the last forward pass
    std::string prompt;
    std::vector<int> tokens;                      // what it ran: the prompt's last block_size tokens (each of run.B sequences)
    wl::model::ForwardRecord run;                 // its prompt's last block_size tokens, against the reference
};

struct Generation {                               // text generation, one token per step()
    std::string prompt, text;                     // text: what the model added, decoded
    std::vector<int> tokens;                      // the whole context: prompt + new
    int prompt_tokens = 0, wanted = 0;
    wl::gpt::SampleOptions opt;
    uint64_t cycles = 0;                          // emulated, over the new tokens
    double wall_seconds = 0;                      // host time spent in step()
    std::string error;                            // a fault stops it
    int made() const { return int(tokens.size()) - prompt_tokens; }
    bool running() const { return made() < wanted && error.empty(); }
    double cycles_per_token() const { return made() ? double(cycles) / made() : 0.0; }
    double tokens_per_second() const { return wall_seconds > 0 ? made() / wall_seconds : 0.0; }
};

// As the JS hook returns them (docs/js-api.md); times at the WSE clock (wl::kClockHz).
nlohmann::json to_json(const ForwardReport& f);
nlohmann::json to_json(const Generation& g);
nlohmann::json to_json(const std::vector<SramEntry>& map);

// What opening llm.c's weights from bytes needs at once (ModelSession::check_llmc), from the file's
// header, the config and the mesh, before anything large is allocated. At least this: the plan's
// programs, fast mode's queues and the tokenizer come on top.
struct LlmcNeed {
    std::string name;             // the file's
    uint64_t file = 0;            // the file's bytes: read whole into memory, then parsed
    uint64_t weights = 0;         // the weights as f32, every position the file has
    uint64_t model = 0;           // the config's model (its context may be shorter), kept beside the mesh
    uint64_t mesh = 0;            // the machine: SRAM and state for each of its PEs
    uint64_t store = 0;           // streaming: the mesh's store of the weights (MemoryX), another copy
    uint64_t mesh_limit = 0;      // the most one machine may take in this build (wl::MachineConfig::memory_limit; 0: no limit)
    MemoryUse memory;             // the memory as it was asked
    // The most held at once: the file and the weights while it is parsed, the weights and the
    // config's copy of them, then that copy beside the mesh (and its store).
    uint64_t peak() const { return std::max({file + weights, weights + model, model + mesh + store}); }
    bool fits() const { return peak() <= memory.available() && (!mesh_limit || mesh <= mesh_limit); }
    std::string text(int w, int h) const;   // what it needs, and what there is ("needs at least 3.7 GiB at once: ...")
};
nlohmann::json to_json(const LlmcNeed& n);

class ModelSession {
public:
    // models_dir holds <name>.yaml files and kernels/*.wk.
    explicit ModelSession(std::string models_dir = "models");

    std::vector<std::string> configs() const;     // the <name> of every models_dir/<name>.yaml, sorted

    // Loads the model (a checkpoint, or the config's initial weights from its seed), then plans
    // it for a w x h mesh and loads it there. False, with error(), when anything fails; the last
    // good compile then stays loaded. `config` is a name in configs() or a path to a .yaml;
    // `set` overrides its keys as the CLI's --set does ("optimizer.learning_rate=1e-3,...").
    // The executable comes from this session's PlanCache when its shape, mesh and kernels were
    // compiled before (compile_info() says so); no_cache compiles again.
    bool compile(const std::string& config, int w, int h, const std::string& checkpoint = "", const std::string& set = "",
                 bool no_cache = false);
    // llm.c's weights as bytes, not a file here (the browser's file picker reads them). check_llmc
    // first, with the file's first 1,024 bytes and its size: its header as the engine reads it, the
    // config as compile() takes it (its shape the weights', its context at most theirs), the memory
    // loading it needs against `memory` (*need), its size against the header's, and the plan for the
    // mesh. Then compile_llmc with the whole file: the engine's llmc_model_from_bytes, the same path
    // as compile() with a path, then the plan and the mesh. False, with error(), when anything
    // fails; the last good compile stays loaded. Only the model made from the bytes is kept, so a
    // compile() for another config or set must be given the file again.
    bool check_llmc(const std::string& name, std::string_view head, uint64_t size, const std::string& config, int w, int h,
                    const std::string& set, const MemoryUse& memory, LlmcNeed* need);
    bool compile_llmc(const std::string& name, std::string bytes, const std::string& config, int w, int h, const std::string& set,
                      bool no_cache = false);
    const wl::model::CompileInfo& compile_info() const { return compile_info_; }   // the last good compile's
    bool compiled() const { return mesh_ != nullptr; }
    const std::string& error() const { return error_; }   // the last call's failure, "" after a success
    const wl::model::MeshPlan* plan() const { return mesh_ ? &mesh_->plan() : nullptr; }
    const std::string& model_source() const { return source_; }   // "config gpt-nano, initial weights (seed 1337)"
    const std::string& config_name() const { return config_; }
    nlohmann::json plan_json() const;             // to_json(plan) plus the model's source; null before a compile
    const wl::Machine* machine() const { return mesh_ ? &mesh_->host().machine() : nullptr; }
    const wl::model::MeshGPT* mesh() const { return mesh_.get(); }

    // The op placed on PE (x, y) (nullptr: none), and that PE's SRAM map from the op's compiled program.
    const wl::model::PlannedOp* op_at(int x, int y) const;
    std::vector<SramEntry> sram_map(int x, int y) const;
    std::string kernel_text(const std::string& kernel) const;   // models_dir/kernels/<kernel>, "" if unreadable

    // The schedule forward() runs (engine/model/pipeline.h): the compiled plan's wafer.schedule
    // until set_schedule, which holds for later compiles too. Streaming always runs sequential.
    wl::model::Schedule schedule() const;
    void set_schedule(wl::model::Schedule s);

    // One forward pass over the prompt's tokens, then the reference's over the same tokens.
    // batch > 1 (at most kMaxBatch): the prompt that many times, as a batch of sequences
    // (MeshGPT::forward_batch: pipelined, they stream through the ops one after another).
    static constexpr int kMaxBatch = 16;
    bool forward(const std::string& prompt, int batch = 1);
    const ForwardReport* last_forward() const { return have_forward_ ? &forward_ : nullptr; }

    // The reference GPT's logits (T, V) for tokens: what a replay of a forward must give.
    std::vector<float> reference_logits(const std::vector<int>& tokens);

    // Generation: start, then step() makes one token per call (false when it has nothing to do).
    // The same tokens as gpt::generate with these options: one Rng, the same context window.
    bool start_generation(const std::string& prompt, int tokens, const wl::gpt::SampleOptions& opt);
    bool step();
    void stop_generation() { gen_.wanted = gen_.made(); }
    const Generation& generation() const { return gen_; }
    // gpt::generate on the reference model with the generation's prompt and options (for the check).
    std::vector<int> reference_tokens() const;

    const wl::gpt::Tokenizer* tokenizer() const { return tokenizer_.get(); }
    // The loaded model's weights (the reference's), and models_dir/kernels: what the Model window's
    // density sweep and resident/streaming comparison start from. nullptr before a compile.
    const wl::gpt::GPT* model() const { return model_.get(); }
    wl::model::KernelSource kernels() const;

private:
    bool encode(const std::string& prompt, std::vector<int>* ids);   // false (error_) on text it cannot encode
    struct Loaded {                       // a model made for a compile, before it is swapped in
        std::unique_ptr<wl::gpt::GPT> model;   // null: keep the loaded one
        std::unique_ptr<wl::gpt::Tokenizer> tokenizer;
        std::string source;
        bool from_bytes = false;
    };
    // Plans `m` (or the loaded model) for a w x h mesh, loads it there and swaps it all in; throws,
    // changing nothing, when that fails. `early`: the plan's compile info when it was planned before.
    void install(Loaded m, const std::string& config, const std::string& checkpoint, const std::string& set, int w, int h,
                 bool no_cache, const wl::model::CompileInfo* early);
    std::string config_path(const std::string& config) const;   // a name in models_dir, or a path

    std::string dir_;
    std::string config_, checkpoint_, set_, source_;
    bool from_bytes_ = false;               // the model came from compile_llmc: checkpoint_ names no file
    wl::model::PlanCache cache_;
    wl::model::CompileInfo compile_info_;   // what the loaded model came from
    std::optional<wl::model::CompileInfo> llmc_plan_;   // check_llmc's plan, for the compile_llmc that follows it
    std::unique_ptr<wl::gpt::GPT> model_;
    std::unique_ptr<wl::gpt::Tokenizer> tokenizer_;
    std::unique_ptr<wl::model::MeshGPT> mesh_;
    std::optional<wl::model::Schedule> schedule_;   // set_schedule's
    std::string error_;
    ForwardReport forward_;
    bool have_forward_ = false;
    Generation gen_;
    wl::gpt::Rng rng_;
};

}  // namespace wlui
