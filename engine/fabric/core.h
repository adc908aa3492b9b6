// core.h: the compute engine (CE) of one PE — registers, DSD registers, call
// frames, the task table state, the main thread and its microthreads.
//
// The CE's state is plain data, separate from the code that advances it
// (Machine::core_step in core.cpp), so a functional "fast mode" can run one
// PE until it blocks with the same interpreter.
#pragma once
#include "engine/fabric/dsd.h"
#include "engine/fabric/program.h"
#include "engine/fabric/stats.h"

#include <cstdint>

namespace wl {

constexpr uint64_t kNever = ~uint64_t(0);   // a cycle that never comes

enum class ThreadState : uint8_t {
    Idle,        // no task: the picker runs
    Run,         // executing at pc (next instruction at ready_at)
    Stalled,     // the instruction at pc could not issue (fabric full/empty, no free microthread)
    Vec,         // a synchronous fabric vector op is in progress (vop)
};

enum class StallWhy : uint8_t { None, Recv, Send, Slot };

// A vector op in flight: on the main thread (synchronous) or a microthread.
struct VecOp {
    Op op = Op::NOP;
    uint8_t flags = 0;                // VecFlags
    uint8_t task = 0;                 // completion target
    uint8_t dreg = kNoReg;            // FSUMS destination (absolute register index)
    uint32_t scalar = 0;              // rD's bits for *S ops; FSUMS accumulator
    uint32_t i = 0, n = 0;            // progress
    uint32_t pc = 0;                  // issuing instruction (faults, completion trace)
    uint64_t done_at = 0;             // memory-only ops: completion cycle
    Dsd dst, a, b;
};

struct Frame {
    uint32_t ret_pc = 0;
    uint8_t base = 0;                 // caller's register base
    uint8_t dest = kNoReg;            // caller's register for the return value (relative)
    uint16_t fn = 0;                  // caller's function
};

struct Core {
    uint32_t reg[kRegs];
    uint32_t konst[kPeConsts];        // this PE's constants (ldp), from Machine::load
    Dsd dsd[kDsdRegs];
    uint32_t dstep[kDsdRegs];         // map's step of each DSD's base a pass, in bytes (dstep); a map sets its op's to 0
    Frame frame[kMaxDepth];
    VecOp vop;                        // the main thread's fabric op
    VecOp ut[kMicrothreads];          // microthreads
    uint64_t ready_at;                // main thread: next cycle it may issue
    uint64_t listed;                  // the cycle whose active list holds this CE
    uint64_t stall_since;
    uint64_t ramp_cycle;              // last cycle a wavelet went up the ramp (1 per cycle)
    uint32_t pc;
    uint32_t tasks_active, tasks_blocked;
    uint32_t reading;                 // colours an in-flight fabin op reads (data tasks wait)
    int32_t prog;                     // loaded program index, -1 = none (one per PE at most)
    uint32_t sram_used;               // bytes [0, sram_used) of SRAM may be non-zero, the rest is zero: snapshots copy only these
    int16_t launch_fn;                // host launch pending, -1 = none
    uint16_t fn;                      // current function
    uint16_t rx, ry, rw, rh;          // position in its rectangle and the rectangle's size
    uint8_t depth, base;
    ThreadState state;
    StallWhy why;
    int8_t task;                      // running task, -1 = none (or host launch)
    uint8_t ut_busy;                  // microthread slots in use
    uint8_t wait_colour;
    CoreStats stats;
};

}  // namespace wl
