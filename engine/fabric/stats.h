// stats.h: counters the engine keeps per router, per compute engine and for
// the whole machine. Everything the UI or a bench shows about activity is here.
#pragma once
#include <cstddef>
#include <cstdint>

namespace wl {

struct RouterStats {
    uint64_t out[5] = {};         // wavelets sent per output port (RAMP = delivered to this CE)
    uint32_t out_colour[24] = {}; // wavelets forwarded per colour
    uint64_t stalls = 0;          // colour-cycles a ready wavelet waited (link busy or no space)
    uint64_t in[5] = {};          // wavelets accepted per input port (N,S,E,W,RAMP)
};

struct CoreStats {
    uint64_t busy = 0;            // cycles spent issuing instructions / vector work / picking tasks
    uint64_t stall = 0;           // cycles the main thread waited on the fabric
    uint64_t instrs = 0;          // instructions issued
    uint64_t tasks = 0;           // tasks started (incl. host launches)
    uint64_t elems = 0;           // vector elements processed
    uint64_t sent = 0;            // wavelets the CE put on its ramp
    uint64_t received = 0;        // wavelets the CE took from its queues
    // Derived counts (they follow from the ops and elements above), so not part of the goldens'
    // hashes (Machine::checksum, the traffic test): those stay the ones taken before these existed.
    uint64_t flops = 0;           // FP operations done by vector ops (vec_flops_per_elem; scalar ops not counted)
    uint64_t sram_bytes = 0;      // SRAM bytes vector ops read and wrote (4 per mem1d operand element)
};

struct MachineStats {
    uint64_t cycles = 0;          // global clock
    uint64_t hops = 0;            // wavelets forwarded by routers (one per output port)
    uint64_t router_stalls = 0;
    uint64_t instrs = 0, busy = 0, stall = 0, tasks = 0, elems = 0, sent = 0, received = 0;
    uint64_t router_steps = 0;    // router evaluations done (idle routers cost none)
    uint64_t core_steps = 0;      // compute-engine evaluations done
    uint64_t flops = 0, sram_bytes = 0;   // derived, as CoreStats's
};
inline constexpr size_t kHashedCoreStats = offsetof(CoreStats, flops);
inline constexpr size_t kHashedMachineStats = offsetof(MachineStats, flops);

}  // namespace wl
