// forward_record.h: one forward pass on the mesh, checked against the reference, as one record:
// what `waferlab-cli forward --json`, the JS API's forward() and the app's Model window report,
// through one to_json (docs/js-api.md, docs/model-compiler.md).
//
//   ForwardRecord r;
//   if (!forward_checked(mesh, model, ids, &r)) report(mesh.error());
//   print(to_json(r));   // {T, cycles, clock_hz, wafer_s, mesh_s, ..., schedule, ops: [...], timeline: [...]}
#pragma once
#include "engine/gpt/gpt.h"
#include "engine/model/mesh_gpt.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <vector>

namespace wl::model {

struct ForwardRecord {
    int B = 1;                          // sequences (a batch's: MeshGPT::forward_batch)
    int T = 0;                          // tokens run, each
    uint64_t cycles = 0;                // emulated, every op (fast mode: estimated)
    double mesh_seconds = 0, reference_seconds = 0;   // host wall time of each
    size_t logits = 0, identical = 0;   // logits compared, and how many are bit-identical
    double max_abs_diff = 0;
    size_t not_finite = 0;              // the reference's logits that are NaN or infinite (weights that overflow)
    uint64_t host_bytes = 0;            // activation bytes the host copied between ops
    bool streaming = false;             // the plan's execution
    uint64_t stream_bytes = 0, stream_cycles = 0;   // streaming: the weights brought in, and their cycles
    std::vector<OpRun> ops;             // per op, in order
    Schedule schedule = Schedule::Sequential;   // the one it ran with (streaming, or one step: sequential)
    std::vector<LaunchSpan> timeline;   // its launches over its cycles (launch_timeline.h)
};

// Runs ids on the mesh and then on the reference, and compares the logits bit for bit. False
// when the mesh faults (mesh.error() says where); ref's logits are then its last forward's.
// B > 1: ids is a batch of B sequences (B, T), run as MeshGPT::forward_batch.
bool forward_checked(MeshGPT& mesh, gpt::GPT& ref, const std::vector<int>& ids, ForwardRecord* out, int B = 1);

// {name, op, cycles, instructions, pes, utilisation, hops, flops, wall_s, host_bytes, stream_bytes}, and a
// pipelined forward's op {pipelined: {span, start, chunks}} (OpRun::concurrent)
nlohmann::json to_json(const OpRun& r);
nlohmann::json to_json(const ForwardRecord& f);   // times at wl::kClockHz

}  // namespace wl::model
