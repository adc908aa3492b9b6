// train_check.h: a lesson's `train ... / loss below X` check (check_spec.h): the student's file
// stands in for one of the model compiler's kernels (models/kernels/), the GPT of the lesson's
// config is planned for training with it (engine/model), trained on the emulated mesh for the
// asked steps with the reference's data loader and learning-rate schedule (as `waferlab-cli
// train --on-mesh`), and its loss afterwards is compared with the threshold:
//   "After 20 steps on the mesh the loss is 3.17 (it started at 3.81); the check wants it
//    below 3.40: the model learned."
// KernelCheck (lesson_check.h) runs it; it is here because it is a concept of its own.
#pragma once
#include "engine/lessons/check_spec.h"
#include "engine/lessons/lesson_check.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace wl {
class Machine;
}

namespace wl::lessons {

// Whether the lesson's own files for `train` are usable: "" or why not (load_lessons names the line).
std::string train_files_error(const CheckSpec& spec);

// The check, a step at a time (KernelCheck drives it; a UI draws between steps). The constructor
// builds the model and plans it with `source` as the spec's kernel; a failure there leaves done()
// true. step() runs one training step; after the last it evaluates the loss.
class TrainingCheck {
public:
    TrainingCheck(const CheckSpec& spec, std::string_view source);
    ~TrainingCheck();
    bool done() const { return done_; }
    void step();
    int steps_done() const { return steps_done_; }
    int steps() const { return spec_.train.steps; }
    float batch_loss() const { return batch_loss_; }   // the last step's, as the mesh computed it
    const std::vector<float>& batch_losses() const { return losses_; }   // every step's so far, in order
    const wl::Machine* machine() const;                 // the mesh it trains on (nullptr: none was built)
    // Appends the Compile item (the model compiler refused the kernel), a Fault item (a step
    // faulted, or the model could not be built) or the Loss item, and sets v->ran, v->cycles
    // (every step's), v->pes, v->loss and v->loss_start.
    void finish(Verdict* v) const;

private:
    struct State;
    const CheckSpec spec_;       // a copy: the check may outlive the lesson set it came from
    std::unique_ptr<State> s_;
    bool done_ = false;
    int steps_done_ = 0;
    float batch_loss_ = 0;
    std::vector<float> losses_;
};

}  // namespace wl::lessons
