// weight_stream.h: what streaming a layer's weights onto the wafer costs (docs/weight-streaming.md).
//
// In streaming execution (MeshPlan::streaming) the weights live off the wafer, in a store
// (Cerebras' MemoryX), and come in through the mesh's edge before the layer that needs them runs:
// each weight-holding op of the layer takes its weights over the edge link of its own row, so
// the ops of a layer stream side by side and the layer waits for the longest. An edge link moves
// what the real wafer's I/O gives one of its edge PEs:
//
//   CS-2 I/O, 1.2 Tb/s each way (150 GB/s; wl::wse2_facts().io_bytes_per_s, engine/fabric/wafer.h),
//   over the WSE-2 user grid's 2 x (757 + 996) = 3,506 edge PEs, at 1.1 GHz:
//   0.0389 bytes, about 1/103 of a wavelet, per cycle per edge PE.
//
// A scaled-down mesh keeps the per-edge-PE rate, not the whole wafer's: a layer of our small
// GPT is a few rows, as a real layer spread over the whole wafer meets all of its edge.
#pragma once
#include <cstdint>

namespace wl::model {

struct EdgeLink {
    double bytes_per_cycle = 0;   // into the mesh through one edge PE
    static EdgeLink wse2();       // the CS-2's I/O shared by the WSE-2's edge PEs (above)
    // Cycles to bring `bytes` in over one such link (a whole number: the last wavelet's arrival).
    uint64_t cycles(uint64_t bytes) const;
    double cycles_per_wavelet() const { return 4 / bytes_per_cycle; }   // Machine::feed's rate
};

}  // namespace wl::model
