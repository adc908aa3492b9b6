// compile.h: the kernel compiler's single entry point.
//
//   wl::lang::CompileResult r = wl::lang::compile(source, "hello.wk");
//   if (!r.ok()) for (auto& d : r.diagnostics) show(d);       // data, never printed here
//   else for (auto& p : r.placements) host.machine().load(p.program, {p.x, p.y, p.w, p.h}, p.consts);
//
// WaferKernel (.wk) files hold a layout (grid, placements, routes), programs
// (PE code) and an optional host block (what `waferlab-cli run` does).
#pragma once
#include "engine/fabric/machine.h"
#include "engine/fabric/program.h"
#include "engine/fabric/router.h"
#include "engine/lang/ast.h"
#include "engine/lang/diagnostics.h"

#include <map>
#include <set>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace wl::lang {

struct CompileOptions {
    uint32_t sram_bytes = wl::MachineConfig{}.sram_bytes;   // per-PE budget: the machine's, by default
    bool codegen = true;               // false: check only (the editor's live errors)
    // true: the optimising code generator (immediate operands, folded address arithmetic, loops
    // tested at the bottom): the same results in fewer instructions and cycles. Off by default,
    // so a kernel's code reads as its source and the lessons' cycle counts hold.
    bool optimise = false;
    // Values for top-level constants, by name, replacing the file's (`const P = 8;` -> P = 16):
    // how C++ sizes a kernel without rewriting its text. A name with no such constant is an error.
    std::map<std::string, double> constants;
    // Names among `constants` a file may lack: a feature switch an older copy of the kernel (a
    // lesson's, a user's) does not know, which then keeps the behaviour it had. Set only where declared.
    std::set<std::string> optional_constants;
    // true: PEs whose programs differ only in `place ... with` values share one image, the values
    // loaded per PE (shared_images.h); the same results and cycles. false: one image per instance.
    bool share_images = true;
};

// One program image on one rectangle of PEs (a 1x1 rectangle when a program's
// parameters differ from PE to PE: then placements share one image, with their own consts).
struct Placement {
    std::shared_ptr<const wl::Program> program;
    int x = 0, y = 0, w = 1, h = 1;
    std::vector<uint32_t> consts;      // the rectangle's per-PE constants (program->nconsts): Machine::load
};

struct RouteSetting {                  // Machine::set_route(x, y, colour, route)
    int x = 0, y = 0, colour = 0;
    wl::Route route;
};

// The host block, resolved: what to fill, launch, run and print, in order.
struct HostAction {
    HostKind kind = HostKind::Run;
    std::string name;                  // symbol / function
    int x = 0, y = 0, w = 1, h = 1;    // rectangle
    GenKind gen = GenKind::Iota;
    std::vector<double> args;          // generator arguments / list values
    int line = 0, col = 0;
};

struct CompileResult {
    std::vector<Diagnostic> diagnostics;   // errors and warnings, in source order of discovery
    std::string file;                      // as given to compile(): faults and diagnostics name it
    int errors = 0;
    bool ok() const { return errors == 0; }
    int grid_w = 0, grid_h = 0;            // 0 when the file has no layout
    std::vector<Placement> placements;
    std::vector<RouteSetting> routes;
    std::vector<HostAction> host;
    std::vector<std::string> colour_names; // colour_names[c], "" if unnamed
    size_t images() const;                 // distinct program images: placements share them (shared_images.h)
};

CompileResult compile(std::string_view source, std::string_view file, const CompileOptions& opt = {});

// For a kernel that is to run (`run`, `check`, a lesson's Check): a file that compiles but places
// nothing gets an error, at 1:1 when it is empty, else at its last line where the layout would go.
void require_layout(CompileResult& cr, std::string_view source);

// The same compile in steps, for a UI that must draw between them: the first step is the front
// end (lex, parse, check), then each step generates one program instance. compile() is this run
// to its end, so the result is the same however it is stepped.
//
//   Compilation c(source, "matmul.wk", opt);
//   while (c.step()) redraw(c.programs_done(), c.programs_total());
//   CompileResult r = c.take();
class Compilation {
public:
    Compilation(std::string_view source, std::string_view file, const CompileOptions& opt = {});
    Compilation(Compilation&&) noexcept;
    Compilation& operator=(Compilation&&) noexcept;
    ~Compilation();
    bool step();                       // one unit; false once done() (then nothing runs)
    bool done() const;
    size_t programs_done() const;      // program instances generated
    size_t programs_total() const;     // 0 until the front end has run
    CompileResult take();              // once done()

private:
    struct State;
    std::unique_ptr<State> s_;         // the AST and the checker's tables point into each other: kept in place
};

}  // namespace wl::lang
