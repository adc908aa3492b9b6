// plan_check.h: whether a plan can run, judged from the plan alone: every name the host will
// use on an op's PEs (its inputs', output's and weights' symbols, and the entries and symbols
// its kernel exports: gpt::KernelInfo::exports) is in each of its programs. A compile-cache
// file whose checksum was made to match after a symbol was renamed reads back as a well-formed
// plan that fails on every run; with this check it is refused, named, and recompiled.
#pragma once
#include "engine/model/mesh_plan.h"

#include <string>

namespace wl::model {

// "" when every name is there, else the first missing one: "op l0.qkv's kernel matmul.wk has no 'w' (its weights)".
std::string plan_run_problem(const MeshPlan& plan);

}  // namespace wl::model
