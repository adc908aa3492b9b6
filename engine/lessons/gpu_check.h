// gpu_check.h: a lesson's `faster-than-gpu GPU` check (check_spec.h). The finished run's work, as
// it counted it (FLOPs of its vector ops, bytes its host block filled and printed), goes to the GPU
// model (engine/gpu/kernel_compare.h); the run passes when its wafer time (cycles / clock) is
// shorter than the GPU's roofline-plus-launch time for that work:
//   "The wafer took 2.17 us (2,389 cycles at 1.1 GHz); the NVIDIA A100 SXM4 80GB takes 5.01 us for
//    the same 16,384 FLOPs and 33,280 bytes: 5 us to launch the kernel, 0.02 us to move the
//    bytes, 0.001 us of arithmetic, so it is launch-bound. The wafer is 2.3 times faster."
#pragma once
#include "engine/lang/compile.h"
#include "engine/lang/run.h"
#include "engine/lessons/check_spec.h"
#include "engine/lessons/lesson_check.h"

namespace wl::lessons {

// The Gpu item for a finished run; sets v->wafer_s and v->gpu_s when the run ended cleanly.
CheckItem check_gpu(const CheckSpec& spec, const wl::lang::CompileResult& cr, const wl::lang::RunReport& rep, Verdict* v);

}  // namespace wl::lessons
