// run.h: runs a compiled kernel's host block on an emulated machine — the
// host driver that `waferlab-cli run`, the tests and the app share.
//   fill   -> Host::h2d by symbol (values from a generator, row-major by PE)
//   launch -> Host::launch of an exported function
//   run    -> the machine runs until quiescent, within a cycle budget (a fault stops the run)
//   print  -> Host::d2h; one output line per PE: "y @ (3,0): 1 2 3"
// KernelRun does this in slices of cycles (the app runs one slice a frame);
// run_kernel() does it all at once. Slicing never changes a result.
#pragma once
#include "engine/fabric/fault.h"
#include "engine/fabric/host.h"
#include "engine/fabric/machine.h"
#include "engine/fabric/stats.h"
#include "engine/lang/compile.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace wl::lang {

// The most cycles a user may ask one run for (the CLI's --budget, the JS API's run(cycles), a
// lesson's `cycles`): 15 minutes of the wafer at 1.1 GHz, and past what a tab could emulate.
constexpr uint64_t kMaxCycleBudget = 1'000'000'000'000;

struct RunOptions {
    uint64_t cycle_budget = 50'000'000;   // per 'run' statement
    wl::RunMode mode = wl::RunMode::Cycle;   // fast: functional, cycles estimated (docs/engine.md)
    wl::MachineConfig machine;            // w/h are taken from the layout's grid
    // Bytes of text a host block's prints may emit in all; past it a line is cut at the limit and one
    // notice line follows (print_truncated_notice). A log is for reading: megabytes would stall the app.
    uint64_t print_limit = 1024 * 1024;
    // Floats of printed values kept for checks (RunReport::values) in all; past it a print keeps its
    // text (up to print_limit) but not its values, so printing a whole 256x256 mesh's SRAM cannot
    // hold gigabytes. A lesson's expect lines read a few PEs.
    uint64_t values_limit = uint64_t(16) << 20;
    // Split the mesh by bands of rows (band.h): this process runs band bands->rank(). Every band
    // runs the same kernel with the same options and ends with the same report. Cycle mode only.
    wl::BandLink* bands = nullptr;
};

// The line that ends a host block's output once it reaches `limit` bytes.
std::string print_truncated_notice(uint64_t limit);

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
    uint64_t host_in_bytes = 0;           // what fill copied onto the PEs: the operation's inputs
    uint64_t host_out_bytes = 0;          // what print read back: its outputs
    bool output_truncated = false;        // print reached RunOptions::print_limit; `output` ends with the notice
    std::vector<uint64_t> busy_per_pe;    // row-major over the grid
    std::vector<uint64_t> link_out_per_pe;   // row-major, 4 per PE: wavelets sent N, S, E, W
};

// One host-block statement's output line, with the statement's place.
struct OutputLine {
    std::string text;
    int line = 0, col = 0;
};

// A kernel's host block in progress. Copyable: a copy is a snapshot (the
// compiled kernel is shared, the machine is deep-copied), which is how the
// app rewinds.
class KernelRun {
public:
    // Loads the placements and routes; a failure shows as error() and done().
    explicit KernelRun(std::shared_ptr<const CompileResult> cr, const RunOptions& opt = {});

    // Performs host statements and runs machine cycles until `max_cycles`
    // cycles have passed, the host block has ended, or a fault. Returns the cycles run.
    uint64_t step(uint64_t max_cycles);
    void finish();                          // to the end of the host block (budgets still apply)

    bool done() const { return next_ >= cr_->host.size() || !error_.empty(); }
    bool ok() const { return error_.empty(); }
    const std::string& error() const { return error_; }      // a fault or load error, "" if none
    const wl::Fault& fault() const { return fault_; }
    const wl::Machine& machine() const { return host_.machine(); }
    uint64_t cycle() const { return host_.machine().now(); }
    const CompileResult& kernel() const { return *cr_; }
    const HostAction* current() const { return done() ? nullptr : &cr_->host[next_]; }   // what runs next
    const std::vector<OutputLine>& output() const { return output_; }
    const std::map<std::string, std::vector<float>>& values() const { return values_; }
    int pes_loaded() const { return pes_loaded_; }
    uint64_t host_in_bytes() const { return host_in_bytes_; }     // fill's bytes so far
    uint64_t host_out_bytes() const { return host_out_bytes_; }   // print's bytes so far
    bool output_truncated() const { return output_truncated_; }   // print reached RunOptions::print_limit

    RunReport report() const;               // everything so far, as run_kernel returns it

private:
    void fail(const wl::Fault& f, const HostAction* at = nullptr);   // `at`: the host statement that faulted
    void perform(const HostAction& a);      // fill, launch or print (no cycles pass)
    void emit(std::string line, const HostAction& a);   // one print line, within RunOptions::print_limit

    std::shared_ptr<const CompileResult> cr_;
    RunOptions opt_;
    wl::Host host_;
    size_t next_ = 0;                       // the host statement to perform next
    uint64_t run_start_ = 0;                // the cycle the current `run` began (its budget counts from here)
    bool in_run_ = false;
    std::string error_;
    wl::Fault fault_;
    std::vector<OutputLine> output_;
    std::map<std::string, std::vector<float>> values_;
    uint64_t values_kept_ = 0;              // floats in values_ (RunOptions::values_limit)
    int pes_loaded_ = 0;
    uint64_t host_in_bytes_ = 0, host_out_bytes_ = 0;
    uint64_t output_bytes_ = 0;             // text in output_, the notice aside
    bool output_truncated_ = false;
};

// Loads the placements and routes, then performs the host block.
RunReport run_kernel(const CompileResult& cr, const RunOptions& opt = {});

// The value generators of `fill`, exposed so tests can compute references.
float fill_value(GenKind g, const std::vector<double>& args, uint64_t k);


}  // namespace wl::lang
