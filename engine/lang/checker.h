// checker.h: the kernel checker's shared state, private to engine/lang (sema.h is
// the interface). One class, defined across files that each check one concern:
//
//   sema.cpp             the entry (run), scopes and symbols, global colours and
//                        constants, unused symbols
//   const_eval.cpp       compile-time constants (eval_const)
//   check_types.cpp      expressions: names, operators, builtin and function calls
//   check_programs.cpp   statements, functions, tasks and program declarations
//   check_layout.cpp     the layout: grid, placements, routes
//   check_instances.cpp  each placed instance: SRAM budget, data tasks, colour reads
//   check_bounds.cpp     each placed instance: array indices and mem() windows out of range that constants show,
//                        mem() strides a DSD cannot hold
//   check_constants.cpp  each placed instance: constant expressions in code that overflow
//   check_routes.cpp     route sanity across the grid
//   check_host.cpp       the host block
//
// Diagnostics come out in the order run() calls the checks.
#pragma once
#include "engine/lang/sema.h"

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace wl::lang::detail {

inline std::string pe_str(int x, int y) { return "PE (" + std::to_string(x) + "," + std::to_string(y) + ")"; }
inline std::string q(const std::string& s) { return quoted(s); }   // a name, cut when long (diagnostics.h)
inline bool is_num(Ty t) { return t == Ty::F32 || t == Ty::I32 || t == Ty::U32; }
inline bool is_int(Ty t) { return t == Ty::I32 || t == Ty::U32; }

// What an integer type holds. A number fits when its truncation toward zero (ftoi's) is
// inside; NaN fits nothing.
inline double int_lo(Ty t) { return t == Ty::U32 ? 0.0 : -2147483648.0; }
inline double int_hi(Ty t) { return t == Ty::U32 ? 4294967295.0 : 2147483647.0; }
inline bool int_fits(Ty t, double v) { return std::trunc(v) >= int_lo(t) && std::trunc(v) <= int_hi(t); }
std::string int_range(Ty t);           // "(i32 holds -2147483648 to 2147483647)"
std::string num_text(double v);        // an integer exactly, else the shortest text that reads back as v (as an f32 where v is one)

struct ColourUse {
    Expr* colour;                      // the colour argument
    bool send;                         // send / fabout; else recv / fabin
    int line, col;                     // the call
    std::vector<std::pair<Expr*, bool>> conds;   // enclosing compile-time ifs: (condition, branch taken)
};

struct FnCtx {
    Decl* decl = nullptr;
    bool is_task = false;
    int loops = 0;
};

class Checker {
public:
    Checker(File& f, Diagnostics& d, const CompileOptions& o, Checked* out) : f_(f), d_(d), opt_(o), out_(*out) {}

    void run();

private:
    File& f_;
    Diagnostics& d_;
    const CompileOptions& opt_;
    Checked& out_;
    std::vector<std::unordered_map<std::string, Sym*>> scopes_;
    std::vector<std::vector<ColourUse>> colour_uses_;   // per program
    FnCtx fn_;
    ProgramDecl* prog_ = nullptr;
    bool const_ctx_ = false;           // evaluating a constant: every name must be constant
    const Expr* negated_ = nullptr;    // the operand of the last unary minus met: a literal 2147483648 there is i32's smallest
    bool grid_unknown_ = false;        // the grid was rejected with no size to check the rest against
    Sym* coord_[2] = {nullptr, nullptr};
    std::vector<Sym*> colours_;
    std::vector<std::pair<Expr*, bool>> const_conds_;   // compile-time ifs around the statement being checked

    // [SECTION] scopes and symbols (sema.cpp)

    // A use inside a compile-time 'if' that is false for this instance is dead code there.
    static bool live(const ColourUse& u, Instance& in);
    void push();
    void pop(bool warn_locals);
    Sym* lookup(const std::string& n);
    Sym* declare(SymKind kind, const std::string& n, int line, int col, Ty ty);
    void globals();
    void type_mismatch(const Expr& e, Ty want, Ty got, const std::string& what);

    // [SECTION] expressions (check_types.cpp)

    static bool int_literal(const Expr& e);
    static void retype(Expr& e, Ty t);
    // An integer literal takes the type its context wants (i32, u32 or f32).
    Ty coerce(Expr& e, Ty got, Ty want);
    // Checks e; `want` only steers integer literals. Returns the type (Ty::Error after a reported problem).
    Ty expr(Expr& e, Ty want = Ty::Error);
    Ty expr_inner(Expr& e, Ty want);
    Ty name(Expr& e);
    Ty index(Expr& e);
    Ty binary(Expr& e, Ty want);

    // The kind of DSD an expression denotes: Mem / FabIn / FabOut, or None.
    Builtin dsd_kind(const Expr& e);
    bool nargs(Expr& e, size_t lo, size_t hi, const std::string& shape);
    void colour_arg(Expr& e, Expr& a, bool send);
    void want_arg(Expr& e, size_t k, Ty want);
    Ty task_arg(Expr& e);
    Ty call(Expr& e);
    Ty vector_call(Expr& e);
    Ty user_call(Expr& e);

    // [SECTION] statements (check_programs.cpp)

    static bool ends_in_return(const std::vector<StmtPtr>& b);
    void block(std::vector<StmtPtr>& b);
    void cond(Expr& c, const char* what);
    void stmt(Stmt& s);
    void assign(Stmt& s);
    bool prog_param(const Sym* v) const;
    void expr_stmt(Stmt& s);

    // [SECTION] programs (check_programs.cpp)

    void declare_program(size_t k);
    void program(size_t k);
    void program_decl(ProgramDecl& p, Decl& d);
    void task_header(ProgramDecl& p, Decl& d);

    // [SECTION] layout: grid, placements, routes (check_layout.cpp)

    bool region_eval(const Region& r, int* x0, int* x1, int* y0, int* y1);
    bool layout_cond_ok(const LayoutStmt& s);
    bool layout_cond_at(const LayoutStmt& s, int x, int y, bool* bad);
    void layout();
    void place(LayoutStmt& s, std::map<std::string, int>& keys);

    // [SECTION] per-instance checks: SRAM, tasks, colours (check_instances.cpp)

    void instance_checks(Instance& in);

    // Array indices and mem() windows out of range that the constants and 'for' bounds show, and
    // mem() strides a DSD cannot hold (check_bounds.cpp).
    void bounds_checks(Instance& in);
    std::set<std::pair<int, int>> bounds_seen_;   // places already reported (once, not once per instance)

    // Constant expressions in code, folded for this instance with their problems reported (check_constants.cpp).
    void constant_checks(Instance& in);

    // Evaluates a program constant for this instance, reporting problems (division by zero, cycles).
    void eval_const_sym(Instance& in, Decl& d);

    // A colour name inside program p: a global colour or a colour parameter.
    Value colour_value(Instance& in, ProgramDecl& p, const std::string& n);

    // [SECTION] route sanity (check_routes.cpp)

    void route_checks();

    // [SECTION] host block (check_host.cpp)

    void host();

    // [SECTION] unused symbols, entry (sema.cpp)

    void unused();
};

}  // namespace wl::lang::detail
