// execution_compare.h: one forward of the same model, the same tokens and the same mesh in
// resident execution (every layer on its own PEs, weights in their SRAM) and in streaming
// execution (one layer's ops serve every layer, each layer's weights streamed in over the
// mesh's edge: docs/weight-streaming.md), side by side: the cycles split into compute and
// streaming, the bytes streamed and copied by the host, and whether the logits agree bit for
// bit. A model too big to be resident says so (ExecutionRun::error) and streaming still runs.
// In units (a plan step, a load step, a forward), for the app's Model window.
//
//   ExecutionCompare c(model, 32, 32, read_kernels("models/kernels"), bench_tokens(T, V));
//   while (c.step()) show(c.activity(), c.progress());
//   c.resident().cycles, c.streaming().stream_cycles, c.logits_differ() ...
#pragma once
#include "engine/gpt/gpt.h"
#include "engine/model/mesh_build.h"
#include "engine/model/mesh_gpt.h"
#include "engine/model/mesh_plan.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wl::model {

struct ExecutionRun {
    gpt::Execution execution = gpt::Execution::Resident;
    bool ran = false;              // planned, loaded and the forward ran
    std::string error;             // why not: the planner's error when it does not fit, or a fault
    bool too_big = false;          // the planner's error is for want of SRAM or rows
    int pes = 0;                   // PEs the plan uses
    uint64_t cycles = 0;           // the forward's, every launch (MeshGPT::last_cycles)
    uint64_t stream_cycles = 0;    // of them, the launches that stream weights in (MeshGPT::last_stream_cycles)
    uint64_t stream_bytes = 0;     // weight bytes streamed in over the edge
    uint64_t host_bytes = 0;       // activation bytes through the host
    std::vector<float> logits;     // (T, V)
    uint64_t compute_cycles() const { return cycles - stream_cycles; }
};

class ExecutionCompare {
public:
    // model: its weights (copied in as each mesh loads; it must outlive the comparison). tokens: the
    // forward's, 1 <= T <= block_size. The model's cfg.execution is ignored: both are run.
    ExecutionCompare(const wl::gpt::GPT& model, int mesh_w, int mesh_h, KernelSource kernels, std::vector<int> tokens,
                     wl::RunMode mode = wl::RunMode::Fast);
    ~ExecutionCompare();
    bool step();                   // one unit; false once done()
    bool done() const { return which_ > 1; }
    std::string activity() const;  // "streaming: compiling kernels: 3 of 9 ...", "resident: forward of 64 tokens"
    double progress() const;       // 0..1
    const ExecutionRun& resident() const { return runs_[0]; }
    const ExecutionRun& streaming() const { return runs_[1]; }
    // Both ran: how many logits differ, as floats (0: bit for bit the same). -1 until both ran.
    long long logits_differ() const;
    int T() const { return int(tokens_.size()); }

private:
    void begin(int which);

    const wl::gpt::GPT& model_;
    int w_, h_;
    KernelSource kernels_;
    std::vector<int> tokens_;
    wl::RunMode mode_;
    int which_ = 0;                // 0 resident, 1 streaming, 2 done
    ExecutionRun runs_[2];
    std::unique_ptr<MeshBuild> build_;
    std::unique_ptr<MeshGPT> mesh_;   // built, its forward not yet run
};

}  // namespace wl::model
