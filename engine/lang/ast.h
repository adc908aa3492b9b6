// ast.h: WaferKernel's syntax tree. One file = top-level items: colours,
// global constants, one layout, programs, and an optional host block.
// Nodes keep their position; sema fills the annotations marked (sema).
#pragma once
#include "engine/fabric/isa.h"
#include "engine/lang/builtins.h"
#include "engine/lang/token.h"
#include "engine/lang/types.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wl::lang {

// [SECTION] types (Ty itself is in types.h)
struct TypeRef {                       // as written: f32 | [f32; N] | colour
    Ty ty = Ty::Error;
    Ty elem = Ty::Error;               // arrays
    struct Expr* len = nullptr;        // arrays: owned by Decl::len_expr
};

struct Sym;

// [SECTION] expressions
enum class ExprKind : uint8_t { Int, Float, Bool, Name, Unary, Binary, Call, Cast, Index };

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
    ExprKind kind = ExprKind::Int;
    int line = 0, col = 0;
    int depth = 1;                     // tree height, bounded by the parser
    int64_t ival = 0;
    double fval = 0;
    std::string name;                  // Name, Call, Index
    Tok op = Tok::Eof;                 // Unary / Binary operator; Cast: the type keyword
    std::vector<ExprPtr> args;         // Unary/Cast: [x]; Binary: [l, r]; Call: args; Index: [i]
    // (sema)
    Ty type = Ty::Error;
    Sym* sym = nullptr;                // Name / Index / user Call
    Builtin builtin = Builtin::None;   // Call
    Op vop = Op::NOP;                  // Call of a vector builtin
    bool konst = false;                // a compile-time constant (per PE instance)
    bool refused = false;              // Int: a literal the parser refused (too big), already reported: typed Error, so nothing follows from it
};

// [SECTION] statements
enum class StmtKind : uint8_t { Let, Assign, If, While, For, Return, Break, Continue, ExprStmt, Block };

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Stmt {
    StmtKind kind = StmtKind::ExprStmt;
    int line = 0, col = 0;
    std::string name;                  // Let / For: the variable
    int name_line = 0, name_col = 0;
    Ty declared = Ty::Error;           // Let with ': type'
    bool has_type = false;
    Tok op = Tok::Assign;              // Assign: = += -= *=
    ExprPtr target;                    // Assign: Name or Index
    ExprPtr e0, e1;                    // Let/Assign/Return/ExprStmt/If/While: e0; For: e0..e1
    bool map = false;                  // For: a `map` (one vector op a pass, issued as the hardware issues CSL's @map)
    std::vector<StmtPtr> body;         // Block, If-then, While, For
    std::vector<StmtPtr> else_body;    // If
    bool has_else = false;
    // ExprStmt only: async vector op with a completion action
    bool async = false;
    std::string then_action;           // "activate" | "unblock" | ""
    std::string then_task;
    int then_line = 0, then_col = 0;
    // (sema)
    Sym* sym = nullptr;                // Let / For
    Sym* then_sym = nullptr;
};

// [SECTION] declarations inside a program
enum class DeclKind : uint8_t { Const, Var, Fn, Task, Dsd };

struct Param {
    std::string name;
    Ty ty = Ty::Error;
    int line = 0, col = 0;
    Sym* sym = nullptr;                // (sema)
};

struct Decl {
    DeclKind kind = DeclKind::Const;
    int line = 0, col = 0;             // the name
    std::string name;
    bool exported = false;
    TypeRef type;                      // Const / Var
    ExprPtr len_expr;                  // Var arrays
    ExprPtr init;                      // Const / Var scalar init / Dsd constructor
    std::vector<ExprPtr> init_list;    // Var array init [a, b, ...]
    bool has_init_list = false;
    std::vector<Param> params;         // Fn; Task: the payload (data task, 1 param)
    Ty ret = Ty::Void;                 // Fn
    std::vector<StmtPtr> body;         // Fn / Task
    int end_line = 0, end_col = 0;     // the closing '}'
    std::string colour;                // data task: the colour's name, "" = local task
    int colour_line = 0, colour_col = 0;
    bool blocked = false;              // task starts blocked
    Sym* sym = nullptr;                // (sema)
};

// [SECTION] layout, host and the file
struct Range {                         // lo..hi (hi exclusive) or a single value
    ExprPtr lo, hi;
    int line = 0, col = 0;
};
struct Region {
    Range x, y;
    int line = 0, col = 0;
};

struct Binding {                       // place ... with (name = expr)
    std::string name;
    int line = 0, col = 0;
    ExprPtr value;
};

enum class LayoutKind : uint8_t { Grid, Place, Route };

struct LayoutStmt {
    LayoutKind kind = LayoutKind::Grid;
    int line = 0, col = 0;
    ExprPtr w, h;                      // Grid
    std::string name;                  // Place: program; Route: colour
    int name_line = 0, name_col = 0;
    Region region;                     // Place / Route
    ExprPtr cond;                      // Place / Route: `if COND`, only the region's PEs where it holds (null: all)
    std::vector<Binding> bindings;     // Place
    uint8_t rx = 0, tx = 0;            // Route: port masks (router.h bit order N,S,E,W,RAMP)
    int rx_line = 0, rx_col = 0, tx_line = 0, tx_col = 0;
};

enum class HostKind : uint8_t { Fill, Launch, Run, Print };
enum class GenKind : uint8_t { Iota, Value, Random, List };

struct HostStmt {
    HostKind kind = HostKind::Run;
    int line = 0, col = 0;
    std::string name;                  // Fill/Print: symbol; Launch: function
    int name_line = 0, name_col = 0;
    Region region;
    GenKind gen = GenKind::Iota;       // Fill
    std::vector<ExprPtr> gen_args;     // iota(start, step) / value(v) / random(seed) / [list]
    int gen_line = 0, gen_col = 0;
};

struct ProgramDecl {
    std::string name;
    int line = 0, col = 0;
    std::vector<Param> params;
    std::vector<Decl> decls;
    Sym* sym = nullptr;                // (sema)
};

struct TopDecl {                       // colour NAME = N;  const NAME: T = e;
    bool is_colour = false;
    std::string name;
    int line = 0, col = 0;
    Ty ty = Ty::Error;
    ExprPtr value;
    Sym* sym = nullptr;                // (sema)
};

struct File {
    std::vector<TopDecl> globals;
    std::vector<LayoutStmt> layout;
    bool has_layout = false;
    int layout_line = 0, layout_col = 0;
    std::vector<ProgramDecl> programs;
    std::vector<HostStmt> host;
    bool has_host = false;
    bool cut_short = false;   // the parse stopped at its nesting limit: what follows was never read
};

}  // namespace wl::lang
