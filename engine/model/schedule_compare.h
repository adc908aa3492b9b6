// schedule_compare.h: one training step of a batch under each schedule (wafer.schedule,
// pipeline.h), on two trainers loaded with the same weights: the emulated cycles, the forward's
// share, the whole mesh's utilisation, the host's seconds, and whether the two steps' losses and
// weights agree bit for bit. `waferlab-cli bench mesh-gpt --train` reports it ("schedules"); a batch
// of prompts' forward the same way, `bench mesh-gpt --batch B` ("batch").
//
//   ScheduleCompare c = compare_schedules(plan, model, inputs, targets, B, T, lr);
//   c.runs[1].cycles / double(c.runs[0].cycles)   // pipelined over sequential
#pragma once
#include "engine/fabric/machine.h"
#include "engine/gpt/gpt.h"
#include "engine/model/mesh_plan.h"
#include "engine/model/pipeline.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>

namespace wl::model {

struct ScheduleRun {
    Schedule schedule = Schedule::Sequential;
    uint64_t cycles = 0;             // the step's, every launch (fast mode: estimated)
    uint64_t forward_cycles = 0;     // of which the forwards' (the pipelined part)
    uint64_t busy = 0;               // busy PE-cycles over the step
    int pes = 0;                     // the PEs the plan places ops on
    double seconds = 0;              // host wall time of the step
    float loss = 0;
    // Whole-mesh utilisation: busy PE-cycles over (placed PEs x the step's cycles).
    double utilisation() const { return cycles && pes ? double(busy) / (double(cycles) * pes) : 0; }
};

struct ScheduleCompare {
    ScheduleRun runs[2];             // sequential, pipelined
    bool identical = false;          // the losses and every weight after the step (a batch's forward: the logits), bit for bit
    int batch = 0;                   // compare_batch_schedules': the prompts (no loss, every cycle a forward's)
    double gain() const { return runs[1].cycles ? double(runs[0].cycles) / double(runs[1].cycles) : 0; }
};

// plan must be planned for training; model's weights are the step's start. Throws
// std::runtime_error when a step faults.
ScheduleCompare compare_schedules(const MeshPlan& plan, const gpt::GPT& model, const int* inputs, const int* targets,
                                  int B, int T, double lr, wl::RunMode mode = wl::RunMode::Fast);

// A batch's forward (MeshGPT::forward_batch: B prompts of T tokens, `tokens` (B, T)) under each
// schedule, on two meshes loaded with the same weights: pipelined, the sequences stream through
// the ops one after another (pipeline_run.cpp). Throws std::runtime_error on a fault.
ScheduleCompare compare_batch_schedules(const MeshPlan& plan, const gpt::GPT& model, const int* tokens, int B, int T,
                                        wl::RunMode mode = wl::RunMode::Fast);

nlohmann::json to_json(const ScheduleCompare& c);   // {gain, identical, [batch,] sequential: {...}, pipelined: {...}}

}  // namespace wl::model
