// pipeline.h: the pipelined schedule of a resident model's forward (wafer.schedule: pipelined).
//
// Cerebras' layer-pipelined execution gives every layer its own region of the wafer and lets the
// activations flow from region to region, so that every layer works at once on a different part
// of the stream (docs.cerebras.net, "Cerebras execution modes"). The stream is cut the way GPipe
// cuts a batch into micro-batches (Huang et al., arXiv:1811.06965), with its fill and drain. Here
// the stream is a forward's time steps, cut into chunks: op k works on chunk c while op k+1 works on
// chunk c-1, the activations going over the same links (and host copies) as in the sequential
// schedule. Every launch works on its chunk's columns alone, and an op's PEs keep every earlier
// column (the attention's keys and values: the KV cache), so a chunked forward is the whole
// forward's arithmetic, column by column.
//
// Why the bits cannot change: launch (k, c) starts once (k, c-1) and the launch of each stage
// that makes one of its inputs for chunk c have finished, and no running launch uses one of its
// PEs (its own, and its linked producers', which send while it runs; the host sets a sender's
// window to the chunk first). Every kernel computes and sends only its window's columns and keeps
// the earlier ones, so each launch finds exactly the values the sequential schedule gives it.
// Launches that run at once are on disjoint PEs, their links on colours no two share a router
// with (plan_links.cpp).
//
// MeshGPT runs the launches as they come free (pipeline_run.cpp). pipeline_waves is the same rule
// in lock-step waves, each as long as its slowest launch: the plan compile-model prints, with its
// fill and drain. A stage's PEs serve its own launch and each linked reader's (the residual
// stream's producers have two), so a stage takes a new chunk every 2-3 waves: with D stages and C
// chunks, about 3C + D waves against the sequential schedule's D launches of the whole window.
#pragma once
#include "engine/fabric/machine.h"

#include <string>
#include <vector>

namespace wl::model {

struct MeshPlan;
struct PlannedOp;

enum class Schedule : uint8_t { Sequential, Pipelined };
// The pipelined forward advances the machine in slices of this many cycles, starting launches only
// between them (pipeline_run.cpp): short against a chunk's launch (4,000-40,000 cycles).
inline constexpr uint64_t kPipelineSlice = 256;
// In fast mode its PEs may run this far past a slice's end (Machine::set_lookahead): a launch's
// nests are not cut at every slice, and it is still seen to finish in the slice it does.
inline constexpr uint64_t kPipelineLookahead = uint64_t(1) << 20;
const char* schedule_name(Schedule s);                       // "sequential", "pipelined"
bool schedule_from_name(const std::string& name, Schedule* out);
// The schedule a plan runs with: its config's wafer.schedule, sequential for streaming execution
// (one layer's ops on the wafer at a time).
Schedule plan_schedule(const MeshPlan& plan);

struct PipeLaunch {
    int stage = 0;               // index into the stages (the forward's ops, in schedule order)
    int chunk = 0;
};

struct Pipeline {
    int stages = 0;              // depth: the forward's ops
    int chunks = 0;              // chunks the window is cut into
    int t0 = 0, n = 0;           // the window [t0, t0+n)
    std::vector<std::vector<PipeLaunch>> waves;   // each wave's launches, run side by side
    int fill = 0;                // waves before the last stage first works
    int drain = 0;               // waves after the first stage last works
    int in_flight = 0;           // the most chunks a wave works on
    int busiest = 0;             // the most launches in one wave
    // Chunk c's window.
    int chunk_t0(int c) const { return t0 + int(int64_t(c) * n / chunks); }
    int chunk_n(int c) const { return chunk_t0(c + 1) - chunk_t0(c); }
};

// The chunks a window of n steps is cut into: at most `chunks`, each at least one step.
int pipeline_chunks(int n, int chunks);

struct PipeStage {
    std::vector<wl::Rect> pes;   // the PEs its main runs on
    std::vector<int> producers;  // the earlier stages that make its inputs
    std::vector<int> linked;     // those of them that send over a link (their PEs send while it runs)
};
// The waves for the stages over chunks of [t0, t0+n).
Pipeline pipeline_waves(const std::vector<PipeStage>& stages, int t0, int n, int chunks);
// The same for a plan's forward ops (train_only ones left out): stages are those ops, in order.
std::vector<const PlannedOp*> forward_stages(const MeshPlan& plan);
std::vector<PipeStage> pipeline_stages(const std::vector<const PlannedOp*>& ops);
Pipeline plan_pipeline(const MeshPlan& plan, int t0, int n, int chunks);
// The chunk count a forward of n steps uses: chunks of about 8 steps (pipeline.cpp says why).
int default_chunks(const MeshPlan& plan, int n);

// What compile-model prints: stages, depth, chunks in flight, fill and drain, and the waves as
// rows of "stage: chunk" (the timeline).
std::string pipeline_text(const MeshPlan& plan, const Pipeline& p, bool timeline);

}  // namespace wl::model
