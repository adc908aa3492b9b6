// sema.h: the checks between parsing and code generation — names, types,
// compile-time constants, the layout (placements, per-PE parameters, routes),
// the SRAM budget per PE, colour and task conflicts, route sanity, unused
// symbols and the host block. Results feed codegen; problems go to Diagnostics.
// The checker is one class split by concern across files; checker.h lists them.
#pragma once
#include "engine/lang/ast.h"
#include "engine/lang/compile.h"
#include "engine/lang/diagnostics.h"

#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

namespace wl::lang {

struct Value {
    Ty ty = Ty::Error;
    int64_t i = 0;                     // I32 / U32 / Bool / Colour (normalised to 32 bits)
    double f = 0;                      // F32 (rounded to float)
};

enum class SymKind : uint8_t { Colour, GlobalConst, Program, Param, Const, Var, Fn, Task, Dsd, Local, Coord };

struct Sym {
    SymKind kind = SymKind::Local;
    std::string name;
    int line = 0, col = 0;
    Ty ty = Ty::Error;                 // value type; Var arrays: Ty::Array
    Ty elem = Ty::Error;               // Var arrays
    Decl* decl = nullptr;              // Const / Var / Fn / Task / Dsd
    TopDecl* top = nullptr;            // Colour / GlobalConst
    ProgramDecl* prog = nullptr;       // Program
    int index = 0;                     // Param: position; Task: local ordinal (-1 = data task); Coord: 0 x, 1 y
    Value val;                         // Colour / GlobalConst
    bool used = false;
    bool assigned = false;
};

constexpr int kFirstLocalTask = kColours;   // local tasks get ids 24..31; a data task's id is its colour

struct Instance {                      // one program with one set of parameter values
    int program = 0;                   // index into File::programs
    std::vector<Value> params;
    std::string name;                  // "gemv(col=1)"
    std::vector<std::pair<int, int>> pes;
    int first_x = 0, first_y = 0;
    std::unordered_map<const Sym*, Value> consts;
    std::unordered_map<const Sym*, uint32_t> length;   // array lengths
    uint32_t consumed = 0, sent = 0;   // colour masks: read by a task/recv/fabin; sent by send/fabout
};

struct RouteCell {
    bool set = false;
    uint8_t rx = 0, tx = 0;
    int line = 0, col = 0;             // the route statement
    int tx_line = 0, tx_col = 0;
};

struct Checked {
    int grid_w = 0, grid_h = 0;
    std::vector<Instance> instances;
    std::vector<int> instance_of_pe;   // y*w + x -> instance, -1 = none
    std::vector<std::vector<RouteCell>> routes;   // [colour][pe]
    std::vector<std::string> colour_names;
    std::vector<HostAction> host;
    std::deque<Sym> syms;              // every symbol; AST nodes point here
};

void check(File& f, Diagnostics& d, const CompileOptions& opt, Checked* out);

// Evaluates a compile-time constant expression for one instance (PE x,y for coordinates).
// Errors (division by zero, a cycle) are reported once through `d` when not null.
Value eval_const(const Expr& e, Instance* inst, int x, int y, Diagnostics* d);

}  // namespace wl::lang
