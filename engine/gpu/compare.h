// compare.h: the wafer-versus-GPU comparison the CLI verb, the app window and
// the JS hook share: one GPT config, one GPU (preset + profile), the emulated
// wafer estimate, and its projections to WSE-2 and WSE-3.
//
//   CompareOptions o; o.gpu = "a100"; o.profile = "tuned-bf16";
//   Comparison c = compare(cfg, o);             // or compare_json(cfg, o)
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/fabric/machine.h"
#include "engine/gpt/gpt_config.h"
#include "engine/gpu/gpu_model.h"
#include "engine/gpu/wafer_estimate.h"
#include "engine/model/mesh_measure.h"

namespace wl::gpu {

struct CompareOptions {
    std::string gpu = "a100";              // a100 | a100-40gb | h100 | same-silicon
    std::string profile = "tuned-bf16";    // reference-fp32 | pytorch-bf16 | tuned-bf16 | flash1-bf16
    int batch = 0;                         // micro-batch per GPU; 0: the config's batch_size
    int T = 0;                             // 0: the config's block_size
    int gpus = 1;
    int grad_accum = 1;
    bool with_backward = true;             // false: one forward (inference)
    MachineConfig mesh;                    // the emulated wafer
    double clock_hz = WaferSpec{}.clock_hz;
    int vocab_if_unset = 65;               // configs with vocab_size = 0 take it from a tokenizer
    // One forward (with_backward false) is also run on the emulated mesh when this names the
    // kernel folder (models/kernels) and the model fits the mesh: the measured "emulated" column.
    std::string kernels_dir;
    // The case: resident or streaming weights (ByFit: stream only when they do not fit SRAM), and
    // unstructured sparsity S of the blocks' linear layers (the wafer's matmuls skip zeros; the GPU's
    // dense kernels do not).
    WaferExecution execution;   // none: by fit
    double sparsity = 0;                   // 0 .. 0.95
};

// What the GPU makes of sparsity, with its sources: one text for the CLI, the window and --json.
extern const char* const kGpuSparsityNote;
extern const char* const kGpuSparsitySource;

GpuPreset gpu_by_id(const std::string& id, const WaferSpec& emulated);   // throws std::invalid_argument

struct Comparison {
    gpt::GPTConfig cfg;          // with vocab_size filled in
    bool vocab_assumed = false;
    GpuStep gpu;
    WaferEstimate wafer;         // the emulated mesh
    std::vector<WaferEstimate> projections;   // WSE-2, WSE-3
    model::MeasuredForward emulated;          // measured on the mesh (ran = false: why_not says why)
    double ratio = 0;            // GPU step time / wafer step time (> 1: the wafer is faster)
    // Inference on tensor cores: the GPU's step if the blocks' linear layers were pruned 2:4 instead
    // (their GEMMs' math halved; bytes and launches as dense). 0: not applicable (training, no tensor cores).
    double gpu_2to4_s = 0;
    std::string gpu_sentence;    // what bounds the GPU here, in plain words
    std::string wafer_sentence;  // why the wafer differs
    std::string case_sentence;   // the case in plain words: what streams at what bandwidth, the sparsity model
};

Comparison compare(const gpt::GPTConfig& cfg, const CompareOptions& o);
// How a step on the emulated mesh relates to the projections for a full wafer, in one sentence:
// measured_s is the step's wafer time as the emulator measured it (0: the estimate for the mesh
// instead). When a larger wafer projects slower, a second sentence says why (its ops too small to
// fill either grid pay the larger grid's fill and drain).
std::string projection_sentence(const Comparison& c, double measured_s = 0);
nlohmann::json to_json(const Comparison& c);
std::string format_seconds(double s);   // "3.2 ms", "41 us", "131 ns", "1.5 s": three significant digits
nlohmann::json compare_json(const gpt::GPTConfig& cfg, const CompareOptions& o);   // compare() then to_json()

// The JS hook's entry: args {"config": "gpt-nano" | "path/to/file.yaml", "gpu": "a100", "profile": "tuned-bf16",
// "batch": 0, "gpus": 1, "accum": the config's, "mode": "train" | "infer", "mesh": "32x32", "set": "key=value,...",
// "execution": "resident" | "streaming" (default: by fit), "sparsity": 0 .. 0.95};
// a bare name is read from models_dir/<name>.yaml; "infer" also measures the forward on the mesh (kernels from models_dir/kernels).
// Never throws: a bad argument returns {"error": "..."}.
nlohmann::json compare_call(const nlohmann::json& args, const std::string& models_dir = "models");

}  // namespace wl::gpu
