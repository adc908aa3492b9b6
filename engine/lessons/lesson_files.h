// lesson_files.h: what a lesson's train or forward line reads besides the student's file, and
// from where. Its config lives in the lesson's folder or the repository's models/ folder
// (lessons/NN-x/../../models), nowhere else: a lessons folder from elsewhere cannot make a check
// read /etc/passwd. Its other kernels come from models/kernels. What the line asks is checked as
// far as it can be without the student's kernel, so a lesson's own mistake (mesh 1x1) is an error
// at its check.txt line when the lesson loads, not a verdict on the student.
#pragma once
#include "engine/gpt/gpt_config.h"

#include <string>

namespace wl::lessons {

// Where a lesson's train or forward line finds the model's other kernels: models/kernels beside
// the lessons folder (lessons/13-x/../../models/kernels; in the browser /models/kernels).
std::string model_kernels_dir(const std::string& lesson_dir);

// The GPT config `config` of a train (train = true) or forward line, read from the lesson's folder
// `lesson_dir`, into *cfg: "" or why it cannot be used, as a lesson-file error ("config
// ../../x.yaml is outside the lesson's folder and the repository's models/ folder ...", the
// config's own error, "the model compiler cannot plan tiny.yaml's GPT on a 1x1 mesh: ...").
std::string lesson_model_config(const std::string& lesson_dir, const std::string& config, int mesh_w, int mesh_h, bool train,
                                wl::gpt::GPTConfig* cfg);

}  // namespace wl::lessons
