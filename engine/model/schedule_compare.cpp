// schedule_compare.cpp: see schedule_compare.h.
#include "engine/model/schedule_compare.h"

#include "engine/model/mesh_gpt.h"
#include "engine/model/mesh_trainer.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace wl::model {

ScheduleCompare compare_schedules(const MeshPlan& plan, const gpt::GPT& model, const int* inputs, const int* targets,
                                  int B, int T, double lr, wl::RunMode mode) {
    ScheduleCompare c;
    std::vector<float> weights[2];
    for (int i = 0; i < 2; i++) {
        const Schedule s = i ? Schedule::Pipelined : Schedule::Sequential;
        MeshTrainer tr(plan, model, mode);
        tr.mesh().set_schedule(s);
        TrainStep st;
        const auto start = std::chrono::steady_clock::now();
        if (!tr.step(inputs, targets, B, T, lr, &st)) throw std::runtime_error(tr.error());
        ScheduleRun& r = c.runs[i];
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        r.schedule = tr.mesh().schedule();
        r.cycles = st.cycles;
        r.loss = st.loss;
        r.pes = plan.pes_used();
        for (const OpRun& o : tr.last_run()) {
            r.busy += o.busy;
            const PlannedOp* op = plan.find(o.name);
            if (op && !op->train_only && (o.op == op->op)) r.forward_cycles += o.cycles;   // a forward launch, not a backward's
        }
        tr.read_params(&weights[i]);
    }
    c.identical = std::memcmp(&c.runs[0].loss, &c.runs[1].loss, sizeof(float)) == 0 && weights[0].size() == weights[1].size() &&
                  std::memcmp(weights[0].data(), weights[1].data(), weights[0].size() * sizeof(float)) == 0;
    return c;
}

ScheduleCompare compare_batch_schedules(const MeshPlan& plan, const gpt::GPT& model, const int* tokens, int B, int T,
                                        wl::RunMode mode) {
    ScheduleCompare c;
    c.batch = B;
    std::vector<float> logits[2];
    for (int i = 0; i < 2; i++) {
        MeshGPT mesh(plan, model, mode);
        mesh.set_schedule(i ? Schedule::Pipelined : Schedule::Sequential);
        const auto start = std::chrono::steady_clock::now();
        if (!mesh.forward_batch(tokens, B, T, &logits[i])) throw std::runtime_error(mesh.error());
        ScheduleRun& r = c.runs[i];
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        r.schedule = mesh.schedule();
        r.cycles = r.forward_cycles = mesh.last_cycles();
        r.pes = plan.pes_used();
        for (const OpRun& o : mesh.last_run()) r.busy += o.busy;
    }
    c.identical = logits[0].size() == logits[1].size() &&
                  std::memcmp(logits[0].data(), logits[1].data(), logits[0].size() * sizeof(float)) == 0;
    return c;
}

nlohmann::json to_json(const ScheduleCompare& c) {
    nlohmann::json j = {{"gain", c.gain()}, {"identical", c.identical}};
    if (c.batch) j["batch"] = c.batch;
    for (const ScheduleRun& r : c.runs) {
        nlohmann::json& k = j[schedule_name(r.schedule)] = {{"cycles", r.cycles},
                                                             {"busy_pe_cycles", r.busy},
                                                             {"pes", r.pes},
                                                             {"utilisation", r.utilisation()},
                                                             {"wall_s", r.seconds},
                                                             {"seconds", r.seconds}};   // wall_s's old name, for one release (docs/js-api.md)
        if (c.batch) continue;
        k["forward_cycles"] = r.forward_cycles;
        k["loss"] = r.loss;
    }
    return j;
}

}  // namespace wl::model
