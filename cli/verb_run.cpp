// verb_run.cpp: `waferlab-cli run <kernel.wk> [--budget N] [--json]` and
// `waferlab-cli check <kernel.wk> [--disasm]`. --arch NAME picks the machine profile (its SRAM
// per PE is the compiler's budget, its lanes the vector ops'), --lanes fp16 its 16-bit lanes.
// run compiles a WaferKernel file, performs its host block on an emulated mesh
// and prints what the block prints, then cycles, PE utilisation and link
// traffic. check only compiles (exit 1 on errors), and
// --disasm prints the compiled code. Diagnostics go to stderr.
#include "cli/mpi_bands.h"
#include "cli/verbs.h"
#include "engine/core/json_text.h"
#include "engine/core/parse_number.h"
#include "engine/core/read_file.h"
#include "engine/core/thousands.h"
#include "engine/lang/compile.h"
#include "engine/lang/literal_limits.h"
#include "engine/lang/run.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace wlcli {

// run_kernel's run, in slices, so that a long one (a large --budget over a loop) says every 10 s on
// stderr how far it is instead of seeming to hang. The slices do not change the run (the app steps
// it the same way).
static wl::lang::RunReport run_with_progress(const wl::lang::CompileResult& cr, const wl::lang::RunOptions& opt) {
    using Clock = std::chrono::steady_clock;
    wl::lang::KernelRun run(std::make_shared<const wl::lang::CompileResult>(cr), opt);
    auto said = Clock::now();
    while (!run.done()) {
        run.step(uint64_t(1) << 26);
        if (run.done() || Clock::now() - said < std::chrono::seconds(10)) continue;
        said = Clock::now();
        std::fprintf(stderr, "waferlab-cli run: at cycle %s (a run statement's budget: %s cycles; Ctrl-C stops)\n",
                     wl::thousands(run.cycle()).c_str(), wl::thousands(opt.cycle_budget).c_str());
    }
    return run.report();
}

// --const's NAME=VALUE lines into CompileOptions::constants; "" or what is wrong ("N=ten: ...").
// Whether the file declares NAME is the compiler's to say.
std::string const_overrides(const std::string& lines, std::map<std::string, double>* out) {
    std::istringstream in(lines);
    for (std::string kv; std::getline(in, kv);) {
        const size_t eq = kv.find('=');
        const std::string name = kv.substr(0, eq), value = kv.substr(eq + 1);
        const bool ident = !name.empty() && (std::isalpha((unsigned char)name[0]) || name[0] == '_') &&
                           std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum((unsigned char)c) || c == '_'; });
        if (!ident) return wl::quote_prefix(kv) + ": expects NAME=VALUE, NAME a constant's name";
        double v = 0;
        // The kernel's rule for a number's text, so 010 cannot be ten here and eight in the file.
        if (std::string why = wl::lang::leading_zero_problem(value); !why.empty()) return name + ": " + wl::lang::shown(value) + " " + why;
        const bool neg = !value.empty() && value[0] == '-';
        const std::string digits = value.substr(neg ? 1 : 0);
        if (digits.size() > 1 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {   // hex, as the file writes it
            const std::string hex = digits.substr(2);
            if (hex.empty() || hex.size() > 8 || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
                return name + ": " + wl::lang::shown(value) + " is not a hex integer of at most 32 bits (0x0 to 0xFFFFFFFF)";
            v = double(std::stoull(hex, nullptr, 16)) * (neg ? -1.0 : 1.0);
        } else if (std::string why = wl::real_or_why(value, wl::NumberRange::any(), &v); !why.empty()) {
            return name + " " + why;
        }
        if (out->count(name) && (*out)[name] != v) return name + " is given twice";
        (*out)[name] = v;
    }
    return "";
}

static int run_or_check(const Args& args, bool check_only) {
    wl::BandLink* bands = mpirun_ranks();   // under mpirun, this rank's band of the mesh
    const std::string path = args.positional[0];
    std::string src, error;
    if (!wl::read_file(path, wl::kMaxSourceBytes, "kernel", &src, &error)) {
        std::fprintf(stderr, "waferlab-cli %s: error: %s\n", check_only ? "check" : "run", error.c_str());
        if (args.has("json")) std::printf("%s\n", wl::json_text({{"ok", false}, {"errors", 1}, {"error", error}}).c_str());   // a reader of --json gets an answer
        return 2;
    }
    // The parser has checked --arch and --lanes against their choices.
    const wl::MachineProfile& arch = *wl::find_machine_profile(args.get("arch", wl::default_profile().id));
    wl::Lanes lanes = wl::Lanes::Fp32;
    wl::lanes_from_name(args.get("lanes", "fp32"), &lanes);
    wl::lang::CompileOptions co;
    co.optimise = args.has("optimise");
    co.sram_bytes = arch.sram_bytes_per_pe;
    if (std::string why = const_overrides(args.get("const"), &co.constants); !why.empty()) {
        std::fprintf(stderr, "waferlab-cli %s: error: --const %s\n", check_only ? "check" : "run", why.c_str());
        return 2;
    }
    wl::lang::CompileResult cr = wl::lang::compile(src, wl::path_in_message(path), co);
    wl::lang::require_layout(cr, src);   // so that `check` fails on it as `run` does
    for (const wl::lang::Diagnostic& d : cr.diagnostics) std::fprintf(stderr, "%s\n", wl::lang::format_diagnostic(d).c_str());
    const bool json = args.has("json");
    if (!cr.ok()) {
        if (json) {
            nlohmann::json j = {{"ok", false}, {"errors", cr.errors}, {"diagnostics", wl::lang::diagnostics_json(cr.diagnostics)}};
            std::printf("%s\n", wl::json_text(j).c_str());
        }
        return 1;
    }
    if (check_only) {
        // One listing per program: PEs whose parameters differ share one image (their values in
        // ldp constants) or, where a parameter changes the code, get their own; the first placement
        // stands for the rest.
        std::set<std::string> shown;
        if (args.has("disasm"))
            for (const wl::lang::Placement& p : cr.placements)
                if (shown.insert(p.program->name.substr(0, p.program->name.find('('))).second)
                    std::printf("; program %s, as placed at PE (%d,%d)\n%s\n", p.program->name.c_str(), p.x, p.y,
                                p.program->disassemble().c_str());
        if (json) {   // as for a failed check: its verdict, and what it compiled to
            nlohmann::json j = {{"ok", true},
                                {"errors", 0},
                                {"warnings", cr.diagnostics.size()},
                                {"diagnostics", wl::lang::diagnostics_json(cr.diagnostics)},
                                {"grid", {{"w", cr.grid_w}, {"h", cr.grid_h}}},
                                {"images", cr.images()}};
            std::printf("%s\n", wl::json_text(j).c_str());
        }
        return 0;
    }
    wl::lang::RunOptions opt;
    opt.machine = wl::machine_config(arch, lanes);
    opt.cycle_budget = uint64_t(args.get_int("budget", (long long)opt.cycle_budget));
    const std::string mode = args.get("mode", "cycle");
    if (!wl::run_mode_from_name(mode, &opt.mode)) {
        std::fprintf(stderr, "waferlab-cli run: --mode must be cycle or fast (got '%s')\n", mode.c_str());
        return 2;
    }
    opt.bands = bands;
    if (bands && bands->ranks() > cr.grid_h) {   // before anything runs: a band is at least one row
        std::fprintf(stderr, "waferlab-cli run: error: %d MPI ranks for a grid of %d row%s: each rank runs a band of at least one row, so start at most %d (mpirun -np %d)\n",
                     bands->ranks(), cr.grid_h, cr.grid_h == 1 ? "" : "s", cr.grid_h, cr.grid_h);
        return 2;
    }
    if (bands && !json) {   // how the mesh is split: rank 0 speaks for all (the others print nothing)
        std::string split;
        for (int r = 0; r < bands->ranks(); r++) {
            const wl::Band b = wl::band_of(r, bands->ranks(), cr.grid_h);
            split += (r ? ", " : "") + std::to_string(b.y0) + "-" + std::to_string(b.y1 - 1);
        }
        std::fprintf(stderr, "split over %d MPI ranks by bands of rows: %s (docs/scale.md)\n", bands->ranks(), split.c_str());
    }
    wl::lang::RunReport rep = run_with_progress(cr, opt);
    int fault_rank = -1;   // split: the rank whose band holds the fault's PE
    if (bands && !rep.ok && rep.fault.y >= 0) fault_rank = wl::band_holding(rep.fault.y, bands->ranks(), cr.grid_h);
    if (json) {
        nlohmann::json j = {{"ok", rep.ok},
                            {"kernel", path},
                            {"grid", {{"w", cr.grid_w}, {"h", cr.grid_h}}},
                            {"mode", wl::run_mode_name(opt.mode)},
                            {"ranks", bands ? bands->ranks() : 1},
                            {"arch", arch.id},
                            {"lanes", {{"type", wl::lanes_name(lanes)}, {"per_cycle", arch.lanes(lanes)}}},
                            {"clock_hz", arch.clock_hz},
                            {"wafer_s", double(rep.cycles) / arch.clock_hz},
                            {"seconds", double(rep.cycles) / arch.clock_hz},   // wafer_s's old name, for one release (docs/js-api.md)
                            {"cycles", rep.cycles},
                            {"pes_loaded", rep.pes_loaded},
                            {"utilisation", rep.utilisation},
                            {"link_wavelets", rep.link_wavelets},
                            {"wavelets_sent", rep.stats.sent},
                            {"instructions", rep.stats.instrs},
                            {"vector_elements", rep.stats.elems},
                            {"busy_per_pe", rep.busy_per_pe},
                            {"link_out_per_pe_nsew", rep.link_out_per_pe},
                            {"output", rep.output}};
        if (!rep.ok) j["error"] = rep.error;
        if (fault_rank >= 0) j["fault_rank"] = fault_rank;
        std::printf("%s\n", wl::json_text(j).c_str());
        return rep.ok ? 0 : 1;
    }
    for (const std::string& line : rep.output) std::printf("%s\n", line.c_str());
    if (!rep.ok) {
        std::fprintf(stderr, "run failed: %s\n", rep.error.c_str());
        if (fault_rank >= 0) {
            const wl::Band b = wl::band_of(fault_rank, bands->ranks(), cr.grid_h);
            std::fprintf(stderr, "  (PE (%d,%d) is on rank %d of %d, which runs rows %d to %d)\n", rep.fault.x, rep.fault.y, fault_rank,
                         bands->ranks(), b.y0, b.y1 - 1);
        }
        return 1;
    }
    std::printf("cycles %llu, PE utilisation %.1f%% over %d PEs, link traffic %llu wavelet-hops (%llu sent), %llu instructions, %llu vector elements\n",
                (unsigned long long)rep.cycles, rep.utilisation * 100.0, rep.pes_loaded, (unsigned long long)rep.link_wavelets,
                (unsigned long long)rep.stats.sent, (unsigned long long)rep.stats.instrs, (unsigned long long)rep.stats.elems);
    if (args.has("arch") || args.has("lanes"))
        std::printf("machine %s (%s): vector ops at %d %s lane(s); %.3g s at %.2f GHz\n", arch.id, arch.name, arch.lanes(lanes),
                    wl::lanes_name(lanes), double(rep.cycles) / arch.clock_hz, arch.clock_hz / 1e9);
    return 0;
}

int verb_run(const Args& args) { return run_or_check(args, false); }
int verb_check(const Args& args) { return run_or_check(args, true); }

}  // namespace wlcli
