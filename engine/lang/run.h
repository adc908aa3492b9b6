// run.h: runs a compiled kernel's host block on an emulated machine — the
// host driver that `waferlab-cli run`, the tests and the app share.
//   fill   -> Host::h2d by symbol (values from a generator, row-major by PE)
//   launch -> Host::launch of an exported function
//   run    -> Machine::run_until_quiescent (a fault stops the run)
//   print  -> Host::d2h; one output line per PE: "y @ (3,0): 1 2 3"
#pragma once
#include "engine/fabric/fault.h"
#include "engine/fabric/machine.h"
#include "engine/fabric/stats.h"
#include "engine/lang/compile.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace wl::lang {

struct RunOptions {
    uint64_t cycle_budget = 50'000'000;   // per 'run' statement
    wl::MachineConfig machine;            // w/h are taken from the layout's grid
};

struct RunReport {
    bool ok = false;
    std::string error;                    // a fault (with PE, colour and kernel file:line:col) or a load error
    wl::Fault fault;
    std::vector<std::string> output;      // print lines
    std::map<std::string, std::vector<float>> values;   // "y@3,0" -> what print read (as floats; ints converted)
    uint64_t cycles = 0;
    wl::MachineStats stats;
    int pes_loaded = 0;                   // PEs with a program
    double utilisation = 0;               // busy cycles / (cycles x loaded PEs)
    uint64_t link_wavelets = 0;           // wavelets that crossed a PE-to-PE link
    std::vector<uint64_t> busy_per_pe;    // row-major over the grid
    std::vector<uint64_t> link_out_per_pe;   // row-major, 4 per PE: wavelets sent N, S, E, W
};

// Loads the placements and routes, then performs the host block.
RunReport run_kernel(const CompileResult& cr, const RunOptions& opt = {});

// The value generators of `fill`, exposed so tests can compute references.
float fill_value(GenKind g, const std::vector<double>& args, uint64_t k);

// "file:line:col" of a fault's instruction when it has one.
std::string fault_text(const wl::Fault& f);

}  // namespace wl::lang
