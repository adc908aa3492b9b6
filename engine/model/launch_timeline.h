// launch_timeline.h: a forward's launches as they ran, op by op over the emulated cycles — the
// picture Cerebras and GPipe draw of a pipeline (op x time, each launch coloured by the chunk it
// works on; docs.cerebras.net, "Cerebras execution modes"; Huang et al., arXiv:1811.06965). The
// sequential schedule's is one launch per op, end to end; the pipelined one's (pipeline_run.cpp)
// a launch per op and chunk, many at once. The app's Model window draws it and lights the ops in
// flight at a cycle on the canvas; forward --json and the JS API report it.
//
//   const std::vector<LaunchSpan> t = mesh.timeline();
//   for (size_t i : in_flight_at(t, 120000)) say(t[i].op, t[i].chunk);   // "l0.atty" 5 ...
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace wl::model {

struct OpRun;

struct LaunchSpan {
    std::string op;                 // the run's name: "l0.qkv" (streaming: "l2.qkv", "l2.weights")
    int sequence = 0;               // a batch's sequence (forward_batch), else 0
    int chunk = 0;                  // the pipeline's chunk of the window; 0 when it runs whole
    int t0 = 0, n = 0;              // its window of time steps
    uint64_t start = 0, end = 0;    // emulated cycles from the forward's start, [start, end)
    bool backward = false;          // a training step's backward launch (or its loss's) on op's PEs
};

// The sequential schedule's timeline: each run after the one before, over its own cycles, each
// of a batch's sequences after the last (a sequence starts again at the first run's name).
std::vector<LaunchSpan> sequential_timeline(const std::vector<OpRun>& runs, int t0, int n);

// The launches running at `cycle` (start <= cycle < end), as indices in t's order.
std::vector<size_t> in_flight_at(const std::vector<LaunchSpan>& t, uint64_t cycle);
// The last launch's end: the timeline's length in cycles.
uint64_t timeline_end(const std::vector<LaunchSpan>& t);
// The ops in the order they first launch: the timeline's rows.
std::vector<std::string> timeline_rows(const std::vector<LaunchSpan>& t);

nlohmann::json to_json(const LaunchSpan& s);   // {op, sequence, chunk, t0, n, start, end}, and backward: true

}  // namespace wl::model
