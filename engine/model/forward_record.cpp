// forward_record.cpp: see forward_record.h.
#include "engine/model/forward_record.h"

#include "engine/fabric/wafer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

namespace wl::model {

bool forward_checked(MeshGPT& mesh, gpt::GPT& ref, const std::vector<int>& ids, ForwardRecord* out, int B) {
    using Clock = std::chrono::steady_clock;
    const auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
    ForwardRecord f;
    f.B = std::max(B, 1);
    f.T = int(ids.size()) / f.B;
    std::vector<float> logits;
    const auto t0 = Clock::now();
    if (!(f.B == 1 ? mesh.forward(ids.data(), f.T, &logits) : mesh.forward_batch(ids.data(), f.B, f.T, &logits))) return false;
    f.mesh_seconds = since(t0);
    f.ops = mesh.last_run();
    f.schedule = !f.ops.empty() && f.ops.front().concurrent ? Schedule::Pipelined : Schedule::Sequential;   // one step runs whole
    f.timeline = mesh.timeline();
    f.cycles = mesh.last_cycles();
    f.host_bytes = mesh.last_host_bytes();
    f.streaming = mesh.plan().streaming;
    f.stream_bytes = mesh.last_stream_bytes();
    f.stream_cycles = mesh.last_stream_cycles();
    const auto t1 = Clock::now();
    ref.forward(ids.data(), nullptr, f.B, f.T);
    f.reference_seconds = since(t1);
    f.logits = logits.size();
    for (size_t i = 0; i < logits.size(); i++) {
        f.identical += std::memcmp(&logits[i], &ref.logits()[i], sizeof(float)) == 0;
        f.max_abs_diff = std::max(f.max_abs_diff, std::fabs(double(logits[i]) - double(ref.logits()[i])));
        f.not_finite += !std::isfinite(ref.logits()[i]);
    }
    *out = std::move(f);
    return true;
}

nlohmann::json to_json(const OpRun& r) {
    nlohmann::json j = {{"name", r.name},   {"op", r.op},       {"cycles", r.cycles},   {"instructions", r.instructions},
                        {"pes", r.pes},     {"utilisation", r.utilisation()},           {"hops", r.hops},
                        {"flops", r.flops}, {"wall_s", r.seconds}, {"host_bytes", r.host_bytes}, {"stream_bytes", r.stream_bytes}};
    j["seconds"] = r.seconds;   // wall_s's old name, for one release (docs/js-api.md, "Renamed keys")
    if (r.concurrent) j["pipelined"] = {{"span", r.span}, {"start", r.start}, {"chunks", r.chunks}};   // pipeline.h
    return j;
}

nlohmann::json to_json(const ForwardRecord& f) {
    nlohmann::json ops = nlohmann::json::array();
    for (const OpRun& r : f.ops) ops.push_back(to_json(r));
    nlohmann::json timeline = nlohmann::json::array();
    for (const LaunchSpan& s : f.timeline) timeline.push_back(to_json(s));
    return {{"B", f.B},
            {"T", f.T},
            {"cycles", f.cycles},
            {"clock_hz", kClockHz},
            {"wafer_s", double(f.cycles) / kClockHz},
            {"mesh_s", f.mesh_seconds},
            {"reference_s", f.reference_seconds},
            {"logits", f.logits},
            {"logits_identical", f.identical},
            {"max_abs_diff", f.max_abs_diff},
            {"host_bytes", f.host_bytes},
            {"execution", gpt::execution_name(f.streaming ? gpt::Execution::Streaming : gpt::Execution::Resident)},
            {"stream_bytes", f.stream_bytes},
            {"stream_cycles", f.stream_cycles},
            {"schedule", schedule_name(f.schedule)},
            {"ops", ops},
            {"timeline", timeline}};
}

}  // namespace wl::model
