// check_spec.h: what a lesson's check.txt asks of a kernel, parsed. The format is one
// directive a line (lessons/README.md documents it):
//
//   expect y @ (3,0): 2 4 6 8      a line the host block must print (values within tolerance)
//   when-wrong look at the route at (3,0)    advice shown when the expect line above fails
//   tolerance 1e-5                 |got - want| <= tol * max(1, |want|)   (default 1e-5)
//   cycles 120                     the cycle budget: at most this many cycles
//   pes 2                          exactly this many PEs run a program
//   hint Start from the loop.      shown one at a time, in file order
//   faster-than-gpu a100           the run's wafer time must beat the GPU model's for the same work
//   train tiny.yaml steps 20 kernel crossentropy.wk   train the GPT on the mesh with the student's file
//                                  as that model kernel (config read from the lesson's folder)
//   loss below 3.4                 the training loss after those steps must be below this
//   forward tiny.yaml kernel matmul.wk [mesh WxH] [execution streaming] [sparsity 0.75]
//                                  one forward of the GPT on the mesh with the student's file as that kernel
//   logits match                   its logits must equal the reference's on the same weights, bit for bit
//   cycles below 30000             its emulated cycles must be fewer than this
//   when-wrong ...                 (after an expect, a loss, a logits or a cycles below line) advice shown when it fails
//
// A run that faults never passes. Bad directives are errors naming file:line; so is a directive
// other than expect and hint given twice, a second when-wrong for one line, or a word given twice
// in a train or forward line (each names the first). A rejected line still counts as given for the
// rules that pair lines (a loss below needs a train line, a when-wrong follows what it advises on), so
// its own error is the only one said.
#pragma once
#include "engine/gpt/gpt_config.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wl::lessons {

struct ExpectLine {
    std::string symbol;            // "y"
    int x = 0, y = 0;              // the PE
    std::vector<double> values;
    std::string when_wrong;        // advice for this line, "" if none
    int line = 0;                  // in check.txt
};

// train CONFIG steps N kernel FILE [mesh WxH]: the student's file is not a program with a host
// block but one of the model compiler's kernels (models/kernels/FILE); the check plans the GPT of
// CONFIG for training with it, runs N steps on the mesh and asks for `loss below X`.
struct TrainSpec {
    std::string config;            // relative to the lesson's folder; inside it or models/ (lesson_files.h)
    int steps = 0;
    std::string kernel;            // "gelu.wk": the model kernel the student's file stands in for
    int mesh_w = 32, mesh_h = 32;
    double loss_below = 0;         // from `loss below X`
    std::string when_wrong;        // advice when the loss is not reached (a when-wrong after the loss line)
    int line = 0, loss_line = 0;   // in check.txt
};

// forward CONFIG kernel FILE [mesh WxH] [execution resident|streaming] [sparsity S]: like train, the
// student's file is a model kernel; the check plans the GPT of CONFIG for inference with it (its linear
// layers pruned to sparsity S and planned sparse when S > 0), runs one forward of a prompt on the mesh
// and asks for `logits match` and, optionally, `cycles below N` (forward_check.h).
struct ForwardSpec {
    std::string config;            // relative to the lesson's folder; inside it or models/ (lesson_files.h)
    std::string kernel;            // the model kernel the student's file stands in for
    int mesh_w = 32, mesh_h = 32;
    std::optional<wl::gpt::Execution> execution;   // none: the config's
    double sparsity = 0;           // 0: dense
    bool logits_match = false;     // from `logits match`
    uint64_t cycles_below = 0;     // from `cycles below N`; 0: no bound
    std::string logits_when_wrong, cycles_when_wrong;
    int line = 0, logits_line = 0, cycles_line = 0;   // in check.txt
};

struct CheckSpec {
    std::string dir;               // the lesson's folder (load_lessons sets it): train's files are read from it
    std::vector<ExpectLine> expects;
    double tolerance = 1e-5;
    uint64_t cycle_budget = 0;     // 0: no budget
    int pes = 0;                   // 0: any number
    std::vector<std::string> hints;
    std::string faster_than_gpu;   // a GPU preset id ("a100"), "" for no comparison
    int gpu_line = 0;
    bool trains() const { return train.steps > 0; }
    TrainSpec train;               // steps == 0: no training
    bool forwards() const { return !forward.kernel.empty(); }
    ForwardSpec forward;           // kernel "": no forward
};

struct SpecError {
    int line = 0;
    std::string message;
};

// Parses check.txt; `errors` gets one entry per bad line (the rest still parses).
CheckSpec parse_check_spec(std::string_view text, std::vector<SpecError>* errors);

// The key RunReport::values uses for a printed PE: "y@3,0".
std::string value_key(const std::string& symbol, int x, int y);

}  // namespace wl::lessons
