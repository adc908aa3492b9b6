// train_check.h: a lesson's `train ... / loss below X` check (check_spec.h): the student's file
// stands in for one of the model compiler's kernels (models/kernels/), the GPT of the lesson's
// config is planned for training with it (engine/model), trained on the emulated mesh for the
// asked steps with the reference's data loader and learning-rate schedule (as `waferlab-cli
// train --on-mesh`), and its loss afterwards is compared with the threshold:
//   "After 40 steps on the mesh the loss is 2.43 (it started at 3.81); the check wants it
//    below 2.7: the model learned."
// check_kernel (lesson_check.h) calls it; it is here because it is a concept of its own.
#pragma once
#include "engine/lessons/check_spec.h"
#include "engine/lessons/lesson_check.h"

#include <string>
#include <string_view>

namespace wl::lessons {

// Where a lesson's `train` finds the model's other kernels: models/kernels beside the lessons
// folder (lessons/13-x/../../models/kernels; in the browser /models/kernels).
std::string model_kernels_dir(const std::string& lesson_dir);

// Whether the lesson's own files for `train` are usable: "" or why not (load_lessons names the line).
std::string train_files_error(const CheckSpec& spec);

// Plans, trains and measures; appends a Compile item (the model compiler refused the kernel), a
// Fault item (a step faulted or the loss stopped being a number) or the Loss item to *v, and sets
// v->ran, v->cycles (every step's), v->pes, v->loss and v->loss_start.
void check_training(const CheckSpec& spec, std::string_view source, Verdict* v);

}  // namespace wl::lessons
