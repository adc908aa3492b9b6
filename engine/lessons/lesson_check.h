// lesson_check.h: runs a student's kernel against a lesson's check and says, in words a
// student understands, what passed and what did not:
//   "y @ (3,0) should be 2 4 6 8; you got 2 4 6 0 — the last value never arrived or was
//    never written (it is still 0): look at the route at (3,0)"
// The kernel is compiled (wl::lang::compile) and run in cycle mode (wl::lang::run_kernel)
// on the default machine; a `train` check instead trains the GPT with it (train_check.h), a
// `forward` check runs one forward of the GPT with it (forward_check.h), and
// `faster-than-gpu` compares the run with the GPU model (gpu_check.h). The app, the CLI and the
// tests all call check_kernel.
#pragma once
#include "engine/lessons/check_spec.h"

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace wl {
class Machine;
}

namespace wl::lessons {

enum class CheckKind { Compile, Fault, Values, Cycles, Pes, Loss, Gpu };
const char* check_kind_name(CheckKind k);   // "compile", "fault", "values", "cycles", "pes", "loss", "gpu"

struct CheckItem {
    CheckKind kind = CheckKind::Values;
    bool ok = false;
    std::string message;        // one or a few sentences, for a student
};

struct Verdict {
    bool passed = false;
    bool compiled = false;
    bool ran = false;           // the run ended without a fault
    bool lesson_error = false;  // it fails whatever the kernel (the lesson's model, its own kernels): the lesson's doing
    uint64_t cycles = 0;            // a training check: every step's, summed
    int pes = 0;
    double loss = -1, loss_start = -1;   // a training check: the loss after the steps and before them (-1: none)
    double wafer_s = 0, gpu_s = 0;  // faster-than-gpu: the run's time on the wafer and the GPU model's (0: none)
    std::vector<CheckItem> items;   // in the order: compile, fault, each expect line, cycles, pes, gpu; or loss
    std::string summary() const;    // "Passed: ..." or "Not yet: 2 of 4 checks failed"
};

// What fails whatever the student writes (a model that cannot be built, or that the lesson's own
// kernels cannot plan either) is the lesson's error at its check.txt line, not a failed check.
void lesson_fault(Verdict* v, int line, const std::string& why);

// 16384 -> "16,384": the numbers in a verdict's words.
std::string grouped(uint64_t n);

// The run's own cycle limit: past it the run stops with a watchdog fault. A budget (or a
// forward's `cycles below`) leaves room to see by how much a kernel misses it; with none, a
// generous fixed limit. A forward check applies it to each op's launch.
uint64_t watchdog_cycles(const CheckSpec& spec);

Verdict check_kernel(const CheckSpec& spec, std::string_view source, std::string_view file);

class TrainingCheck;   // train_check.h

// check_kernel in pieces, for a UI that draws while a training check runs (lesson 13's 20 steps
// take about half a second natively, longer in a browser). The constructor compiles, and does
// the whole check when it has no training; advance() runs one training step. check_kernel is
// this, run to the end.
class KernelCheck {
public:
    KernelCheck(const CheckSpec& spec, std::string_view source, std::string_view file);
    ~KernelCheck();
    KernelCheck(KernelCheck&&) noexcept;
    KernelCheck& operator=(KernelCheck&&) noexcept;
    bool done() const;
    void advance();                 // one training step; nothing once done()
    int steps_done() const;         // training steps run (0 without training)
    int steps() const;              // training steps asked
    float batch_loss() const;       // the last step's loss on its batch, as the mesh computed it
    const std::vector<float>& batch_losses() const;   // every step's so far (empty without training)
    const wl::Machine* machine() const;               // the training's mesh (nullptr without training)
    const Verdict& verdict() const { return v_; }   // complete once done()

private:
    Verdict v_;
    std::unique_ptr<TrainingCheck> train_;
};

// The verdict as `waferlab-cli lesson check --json` and the app's check_lesson() give it:
// {"passed", "cycles", "pes", "summary", "checks": [{"kind", "ok", "message"}]}, with "loss" and
// "loss_start" after a training check and "wafer_s" and "gpu_s" after a GPU comparison.
nlohmann::json verdict_json(const Verdict& v);

}  // namespace wl::lessons
