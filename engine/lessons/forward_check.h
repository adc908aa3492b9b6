// forward_check.h: a lesson's `forward ... / logits match / cycles below N` check (check_spec.h):
// the student's file stands in for one of the model compiler's kernels (models/kernels/), the GPT
// of the lesson's config (its seed's initial weights; pruned first with `sparsity S`) is planned
// for inference with it (resident or streaming execution), and one forward of a prompt from the
// training text runs on the emulated mesh. Its logits are compared with the reference GPT's on
// the same weights, bit for bit, and its emulated cycles with the bound:
//   "412 of 720 logits differ from the reference's; the first at token 3, vocabulary entry 17
//    (the mesh's 0.0312, the reference's -0.1187)."
//   "The forward took 21,480 emulated cycles; the check wants fewer than 30,000."
// A lesson's small config takes about 0.15 s natively, most of it the plan's kernel compiles, so
// KernelCheck (lesson_check.h) runs it whole, as it runs a host block.
#pragma once
#include "engine/lessons/check_spec.h"
#include "engine/lessons/lesson_check.h"

#include <string>
#include <string_view>

namespace wl::lessons {

// Whether the lesson's own files for `forward` are usable: "" or why not (load_lessons names the line).
std::string forward_files_error(const CheckSpec& spec);

// Appends the Compile item (the model compiler refused the kernel), a Fault item (the forward
// faulted, or the model could not be built) or the Values item (the logits) and, with a bound,
// the Cycles item; sets v->ran, v->cycles (the forward's, streaming included) and v->pes.
void check_forward(const CheckSpec& spec, std::string_view source, Verdict* v);

}  // namespace wl::lessons
