// sema.cpp: names, types, constants, layout, budgets, routes, host block.
//
// Index of this file:
//   [SECTION] constant evaluation
//   [SECTION] the checker: scopes and symbols
//   [SECTION] expressions
//   [SECTION] statements
//   [SECTION] programs
//   [SECTION] layout: grid, placements, routes
//   [SECTION] per-instance checks: SRAM, tasks, colours
//   [SECTION] route sanity
//   [SECTION] host block
//   [SECTION] unused symbols, entry
#include "engine/lang/sema.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

namespace wl::lang {

const char* ty_name(Ty t) {
    switch (t) {
    case Ty::Error: return "<error>";
    case Ty::Void: return "nothing";
    case Ty::F32: return "f32";
    case Ty::I32: return "i32";
    case Ty::U32: return "u32";
    case Ty::Bool: return "bool";
    case Ty::Colour: return "colour";
    case Ty::Task: return "task";
    case Ty::Dsd: return "dsd";
    case Ty::Array: return "array";
    case Ty::Fn: return "function";
    }
    return "?";
}

static std::string pe_str(int x, int y) { return "PE (" + std::to_string(x) + "," + std::to_string(y) + ")"; }
static std::string q(const std::string& s) { return "'" + s + "'"; }
static bool is_num(Ty t) { return t == Ty::F32 || t == Ty::I32 || t == Ty::U32; }
static bool is_int(Ty t) { return t == Ty::I32 || t == Ty::U32; }

// [SECTION] constant evaluation

static Value norm(Value v) {
    switch (v.ty) {
    case Ty::I32: v.i = int64_t(int32_t(uint32_t(uint64_t(v.i)))); break;
    case Ty::U32: case Ty::Colour: v.i = int64_t(uint32_t(uint64_t(v.i))); break;
    case Ty::Bool: v.i = v.i != 0; break;
    case Ty::F32: v.f = double(float(v.f)); break;
    default: break;
    }
    return v;
}

namespace {
struct Evaluator {
    Instance* inst;
    int x, y;
    Diagnostics* d;
    std::set<const Sym*>* busy;

    Value err() { return Value{}; }

    Value name(const Expr& e) {
        const Sym* s = e.sym;
        if (!s) return err();
        switch (s->kind) {
        case SymKind::Colour: case SymKind::GlobalConst: return s->val;
        case SymKind::Coord: return Value{Ty::I32, s->index == 0 ? x : y, 0};
        case SymKind::Param:
            if (inst && size_t(s->index) < inst->params.size()) return inst->params[s->index];
            return err();
        case SymKind::Const: {
            if (!inst) return err();
            auto it = inst->consts.find(s);
            if (it != inst->consts.end()) return it->second;
            if (busy->count(s)) {
                if (d) d->error(e.line, e.col, "constant " + q(s->name) + " depends on itself");
                return err();
            }
            busy->insert(s);
            Value v = s->decl && s->decl->init ? eval(*s->decl->init) : err();
            if (v.ty != Ty::Error && s->ty != Ty::Error && v.ty != s->ty) v = convert(v, s->ty);
            busy->erase(s);
            inst->consts[s] = v;
            return v;
        }
        default: return err();
        }
    }

    static Value convert(Value v, Ty to) {
        Value r{to, 0, 0};
        if (v.ty == Ty::F32) {
            if (to == Ty::F32) return v;
            double f = v.f;
            if (f != f) r.i = 0;
            else if (f >= 2147483648.0) r.i = 2147483647;
            else if (f < -2147483648.0) r.i = -2147483648ll;
            else r.i = int64_t(f);
            if (to == Ty::U32 && r.i < 0) r.i = int64_t(uint32_t(int32_t(r.i)));
        } else if (to == Ty::F32) {
            r.f = v.ty == Ty::U32 ? double(float(uint32_t(v.i))) : double(float(int32_t(v.i)));
        } else {
            r.i = v.i;
        }
        return norm(r);
    }

    Value eval(const Expr& e) {
        switch (e.kind) {
        case ExprKind::Int:
            if (e.type == Ty::F32) return Value{Ty::F32, 0, double(float(e.ival))};
            return norm(Value{e.type == Ty::Error ? Ty::I32 : e.type, e.ival, 0});
        case ExprKind::Float: return norm(Value{Ty::F32, 0, e.fval});
        case ExprKind::Bool: return Value{Ty::Bool, e.ival, 0};
        case ExprKind::Name: return name(e);
        case ExprKind::Cast: {
            Value v = eval(*e.args[0]);
            if (v.ty == Ty::Error) return v;
            return convert(v, e.type);
        }
        case ExprKind::Unary: {
            Value v = eval(*e.args[0]);
            if (v.ty == Ty::Error) return v;
            if (e.op == Tok::Bang) return Value{Ty::Bool, !v.i, 0};
            if (v.ty == Ty::F32) return Value{Ty::F32, 0, -v.f};
            return norm(Value{v.ty, -v.i, 0});
        }
        case ExprKind::Call:
            if (e.builtin == Builtin::Select && e.args.size() == 3) {
                Value c = eval(*e.args[0]);
                if (c.ty == Ty::Error) return c;
                return eval(*e.args[c.i ? 1 : 2]);
            }
            return err();
        case ExprKind::Binary: {
            Value a = eval(*e.args[0]);
            if (a.ty == Ty::Error) return a;
            if (e.op == Tok::AmpAmp && !a.i) return Value{Ty::Bool, 0, 0};
            if (e.op == Tok::PipePipe && a.i) return Value{Ty::Bool, 1, 0};
            Value b = eval(*e.args[1]);
            if (b.ty == Ty::Error) return b;
            return binary(e, a, b);
        }
        default: return err();
        }
    }

    Value binary(const Expr& e, Value a, Value b) {
        const bool f = a.ty == Ty::F32;
        const bool u = a.ty == Ty::U32;
        auto cmp = [&](bool r) { return Value{Ty::Bool, r, 0}; };
        uint32_t ua = uint32_t(uint64_t(a.i)), ub = uint32_t(uint64_t(b.i));
        int32_t ia = int32_t(ua), ib = int32_t(ub);
        switch (e.op) {
        case Tok::AmpAmp: case Tok::PipePipe: return Value{Ty::Bool, b.i != 0, 0};
        case Tok::EqEq: return cmp(f ? a.f == b.f : a.i == b.i);
        case Tok::BangEq: return cmp(f ? a.f != b.f : a.i != b.i);
        case Tok::Lt: return cmp(f ? a.f < b.f : u ? ua < ub : ia < ib);
        case Tok::Le: return cmp(f ? a.f <= b.f : u ? ua <= ub : ia <= ib);
        case Tok::Gt: return cmp(f ? a.f > b.f : u ? ua > ub : ia > ib);
        case Tok::Ge: return cmp(f ? a.f >= b.f : u ? ua >= ub : ia >= ib);
        default: break;
        }
        if (f) {
            float x = float(a.f), y = float(b.f), r = 0;
            switch (e.op) {
            case Tok::Plus: r = x + y; break;
            case Tok::Minus: r = x - y; break;
            case Tok::Star: r = x * y; break;
            case Tok::Slash: r = x / y; break;
            default: break;
            }
            return Value{Ty::F32, 0, double(r)};
        }
        uint32_t r = 0;
        switch (e.op) {
        case Tok::Plus: r = ua + ub; break;
        case Tok::Minus: r = ua - ub; break;
        case Tok::Star: r = ua * ub; break;
        case Tok::Slash: case Tok::Percent:
            if (ub == 0) {
                if (d) d->error(e.line, e.col, "division by zero in a constant expression");
                return err();
            }
            if (u) r = e.op == Tok::Slash ? ua / ub : ua % ub;
            else if (ia == INT32_MIN && ib == -1) r = e.op == Tok::Slash ? ua : 0;
            else r = uint32_t(e.op == Tok::Slash ? ia / ib : ia % ib);
            break;
        case Tok::Amp: r = ua & ub; break;
        case Tok::Pipe: r = ua | ub; break;
        case Tok::Caret: r = ua ^ ub; break;
        case Tok::Shl: r = ua << (ub & 31); break;
        case Tok::Shr: r = u ? ua >> (ub & 31) : uint32_t(ia >> (ub & 31)); break;
        default: break;
        }
        return norm(Value{a.ty, int64_t(r), 0});
    }
};
}  // namespace

Value eval_const(const Expr& e, Instance* inst, int x, int y, Diagnostics* d) {
    std::set<const Sym*> busy;
    Evaluator ev{inst, x, y, d, &busy};
    return ev.eval(e);
}

// [SECTION] the checker: scopes and symbols

namespace {

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

    void run() {
        push();   // global scope
        globals();
        for (size_t k = 0; k < f_.programs.size(); ++k) declare_program(k);
        for (size_t k = 0; k < f_.programs.size(); ++k) program(k);
        if (f_.has_layout) layout();
        if (f_.has_host) host();
        unused();
        pop(false);
    }

private:
    File& f_;
    Diagnostics& d_;
    const CompileOptions& opt_;
    Checked& out_;
    std::vector<std::unordered_map<std::string, Sym*>> scopes_;
    std::vector<std::vector<ColourUse>> colour_uses_;   // per program
    std::vector<int> local_tasks_;                       // per program
    FnCtx fn_;
    ProgramDecl* prog_ = nullptr;
    bool const_ctx_ = false;           // evaluating a constant: every name must be constant
    Sym* coord_[2] = {nullptr, nullptr};
    std::vector<Sym*> colours_;
    std::vector<std::pair<Expr*, bool>> const_conds_;   // compile-time ifs around the statement being checked

    // A use inside a compile-time 'if' that is false for this instance is dead code there.
    static bool live(const ColourUse& u, Instance& in) {
        for (auto& [c, want] : u.conds) {
            Value v = eval_const(*c, &in, in.first_x, in.first_y, nullptr);
            if (v.ty == Ty::Bool && (v.i != 0) != want) return false;
        }
        return true;
    }

    void push() { scopes_.emplace_back(); }
    void pop(bool warn_locals) {
        if (warn_locals) {
            std::vector<Sym*> unused;
            for (auto& [n, s] : scopes_.back())
                if (s->kind == SymKind::Local && !s->used && n[0] != '_') unused.push_back(s);
            std::sort(unused.begin(), unused.end(), [](Sym* a, Sym* b) { return a->line != b->line ? a->line < b->line : a->col < b->col; });
            for (Sym* s : unused) d_.warning(s->line, s->col, "unused variable " + q(s->name));
        }
        scopes_.pop_back();
    }
    Sym* lookup(const std::string& n) {
        for (size_t k = scopes_.size(); k-- > 0;) {
            auto it = scopes_[k].find(n);
            if (it != scopes_[k].end()) return it->second;
        }
        return nullptr;
    }
    Sym* declare(SymKind kind, const std::string& n, int line, int col, Ty ty) {
        auto& sc = scopes_.back();
        auto it = sc.find(n);
        if (it != sc.end()) {
            Diagnostic* dg = d_.error(line, col, q(n) + " is already declared in this scope");
            dg->notes.push_back({it->second->line, it->second->col, "the first declaration is here"});
            return nullptr;
        }
        if (builtin_of(n) != Builtin::None) {
            d_.error(line, col, q(n) + " is the name of a builtin; choose another name");
            return nullptr;
        }
        out_.syms.push_back(Sym{});
        Sym* s = &out_.syms.back();
        s->kind = kind, s->name = n, s->line = line, s->col = col, s->ty = ty;
        sc[n] = s;
        return s;
    }

    void globals() {
        for (TopDecl& g : f_.globals) {
            const_ctx_ = true;
            Ty t = expr(*g.value, g.is_colour ? Ty::I32 : g.ty);
            const_ctx_ = false;
            Sym* s = declare(g.is_colour ? SymKind::Colour : SymKind::GlobalConst, g.name, g.line, g.col, g.is_colour ? Ty::Colour : t);
            if (!s) continue;
            g.sym = s;
            s->top = &g;
            if (t == Ty::Error) { s->ty = Ty::Error; continue; }
            Value v = eval_const(*g.value, nullptr, 0, 0, &d_);
            if (g.is_colour) {
                if (!is_int(t) || v.ty == Ty::Error || v.i < 0 || v.i >= kColours) {
                    if (v.ty != Ty::Error) d_.error(g.value->line, g.value->col, "a colour is a number from 0 to 23");
                    s->ty = Ty::Error;
                    continue;
                }
                s->val = Value{Ty::Colour, v.i, 0};
                for (Sym* o : colours_)
                    if (o->ty == Ty::Colour && o->val.i == v.i)
                        d_.warning(g.line, g.col, "colours " + q(o->name) + " and " + q(g.name) + " are both colour " + std::to_string(v.i));
                colours_.push_back(s);
            } else {
                if (g.ty != Ty::Error && t != g.ty) type_mismatch(*g.value, g.ty, t, "the constant");
                s->val = v;
                s->ty = v.ty;
            }
        }
    }

    void type_mismatch(const Expr& e, Ty want, Ty got, const std::string& what) {
        if (want == Ty::Error || got == Ty::Error) return;
        d_.error(e.line, e.col, what + " needs " + ty_name(want) + ", found " + ty_name(got));
    }

    // [SECTION] expressions

    static bool int_literal(const Expr& e) {
        if (e.kind == ExprKind::Int) return true;
        return e.kind == ExprKind::Unary && e.op == Tok::Minus && int_literal(*e.args[0]);
    }
    static void retype(Expr& e, Ty t) {
        e.type = t;
        if (e.kind == ExprKind::Unary) retype(*e.args[0], t);
    }
    // An integer literal takes the type its context wants (i32, u32 or f32).
    Ty coerce(Expr& e, Ty got, Ty want) {
        if (want != Ty::Error && got != want && is_num(want) && int_literal(e)) {
            retype(e, want);
            return want;
        }
        return got;
    }
    // Checks e; `want` only steers integer literals. Returns the type (Ty::Error after a reported problem).
    Ty expr(Expr& e, Ty want = Ty::Error) {
        Ty t = expr_inner(e, want);
        e.type = t;
        t = coerce(e, t, want);
        if (e.kind == ExprKind::Int && t == Ty::I32 && e.ival > 0x7fffffff)
        {
            d_.error(e.line, e.col, "integer literal " + std::to_string(e.ival) + " does not fit in i32 (the largest is 2147483647)");
            e.type = t = Ty::Error;
        }
        return t;
    }

    Ty expr_inner(Expr& e, Ty want) {
        switch (e.kind) {
        case ExprKind::Int: e.konst = true; return Ty::I32;
        case ExprKind::Float: e.konst = true; return Ty::F32;
        case ExprKind::Bool: e.konst = true; return Ty::Bool;
        case ExprKind::Name: return name(e);
        case ExprKind::Index: return index(e);
        case ExprKind::Cast: {
            Ty a = expr(*e.args[0]);
            e.konst = e.args[0]->konst;
            Ty to = e.op == Tok::KwF32 ? Ty::F32 : e.op == Tok::KwI32 ? Ty::I32 : Ty::U32;
            if (a == Ty::Error) return to;
            if (!is_num(a) && a != Ty::Bool) d_.error(e.args[0]->line, e.args[0]->col, std::string("cannot convert ") + ty_name(a) + " to " + ty_name(to));
            return to;
        }
        case ExprKind::Unary: {
            Ty a = expr(*e.args[0], want);
            e.konst = e.args[0]->konst;
            if (a == Ty::Error) return a;
            if (e.op == Tok::Bang) {
                if (a != Ty::Bool) { d_.error(e.line, e.col, std::string("'!' needs bool, found ") + ty_name(a)); return Ty::Error; }
                return Ty::Bool;
            }
            if (!is_num(a)) { d_.error(e.line, e.col, std::string("'-' needs a number, found ") + ty_name(a)); return Ty::Error; }
            return a;
        }
        case ExprKind::Binary: return binary(e, want);
        case ExprKind::Call: return call(e);
        }
        return Ty::Error;
    }

    Ty name(Expr& e) {
        Sym* s = lookup(e.name);
        if (!s) {
            d_.error(e.line, e.col, "undefined name " + q(e.name));
            return Ty::Error;
        }
        e.sym = s;
        s->used = true;
        switch (s->kind) {
        case SymKind::Colour: case SymKind::GlobalConst: case SymKind::Param: case SymKind::Const: case SymKind::Coord:
            e.konst = true;
            return s->ty;
        case SymKind::Program:
            d_.error(e.line, e.col, "program " + q(e.name) + " is not a value");
            return Ty::Error;
        case SymKind::Fn:
            d_.error(e.line, e.col, "function " + q(e.name) + " is not a value; call it with ()");
            return Ty::Error;
        default: break;
        }
        if (const_ctx_) {
            d_.error(e.line, e.col, q(e.name) + " is not a compile-time constant");
            return Ty::Error;
        }
        if (s->kind == SymKind::Var && s->ty == Ty::Array) return Ty::Array;
        return s->ty;
    }

    Ty index(Expr& e) {
        Sym* s = lookup(e.name);
        Ty it = expr(*e.args[0], Ty::I32);
        if (!s) {
            d_.error(e.line, e.col, "undefined name " + q(e.name));
            return Ty::Error;
        }
        s->used = true;
        e.sym = s;
        if (s->kind != SymKind::Var || s->ty != Ty::Array) {
            d_.error(e.line, e.col, q(e.name) + " is not an array");
            return Ty::Error;
        }
        if (const_ctx_) {
            d_.error(e.line, e.col, q(e.name) + " is not a compile-time constant");
            return Ty::Error;
        }
        if (it != Ty::Error && !is_int(it)) d_.error(e.args[0]->line, e.args[0]->col, std::string("an array index must be i32 or u32, found ") + ty_name(it));
        return s->elem;
    }

    Ty binary(Expr& e, Ty want) {
        Tok op = e.op;
        bool logic = op == Tok::AmpAmp || op == Tok::PipePipe;
        bool cmp = op == Tok::EqEq || op == Tok::BangEq || op == Tok::Lt || op == Tok::Le || op == Tok::Gt || op == Tok::Ge;
        Ty sub = logic || cmp ? Ty::Error : want;
        Ty a = expr(*e.args[0], sub), b = expr(*e.args[1], sub);
        e.konst = e.args[0]->konst && e.args[1]->konst;
        if (a == Ty::Error || b == Ty::Error) return logic || cmp ? Ty::Bool : Ty::Error;
        // integer literals follow the other side
        if (a != b && int_literal(*e.args[0]) && !int_literal(*e.args[1])) a = coerce(*e.args[0], a, b);
        if (a != b && int_literal(*e.args[1])) b = coerce(*e.args[1], b, a);
        const std::string os = tok_name(op);
        if (logic) {
            if (a != Ty::Bool || b != Ty::Bool) {
                d_.error(e.line, e.col, os + " needs bool operands, found " + ty_name(a) + " and " + ty_name(b));
                return Ty::Error;
            }
            return Ty::Bool;
        }
        if (a != b) {
            d_.error(e.line, e.col, "operands of " + os + " have different types: " + ty_name(a) + " and " + ty_name(b));
            return cmp ? Ty::Bool : Ty::Error;
        }
        if (cmp) {
            if (!is_num(a) && !((a == Ty::Bool || a == Ty::Colour) && (op == Tok::EqEq || op == Tok::BangEq))) {
                d_.error(e.line, e.col, os + " cannot compare " + ty_name(a) + " values");
                return Ty::Bool;
            }
            if (a == Ty::U32 && op != Tok::EqEq && op != Tok::BangEq && !e.konst) {
                d_.error(e.line, e.col, os + " is not defined for u32 at run time (the PE compares signed); convert with i32()");
            }
            return Ty::Bool;
        }
        bool bitwise = op == Tok::Amp || op == Tok::Pipe || op == Tok::Caret || op == Tok::Shl || op == Tok::Shr;
        if (bitwise || op == Tok::Percent) {
            if (!is_int(a)) {
                d_.error(e.line, e.col, os + " needs i32 or u32 operands, found " + ty_name(a));
                return Ty::Error;
            }
            if (op == Tok::Shr && a == Ty::U32 && !e.konst) {
                d_.error(e.line, e.col, "'>>' on u32 is not supported at run time (the PE shifts arithmetically); use i32");
            }
            if (op == Tok::Percent && a == Ty::U32 && !e.konst) {
                d_.error(e.line, e.col, "'%' on u32 is not supported at run time; use i32");
            }
            return a;
        }
        if (!is_num(a)) {
            d_.error(e.line, e.col, os + " needs numbers, found " + ty_name(a));
            return Ty::Error;
        }
        if (op == Tok::Slash && a == Ty::U32 && !e.konst) {
            d_.error(e.line, e.col, "'/' on u32 is not supported at run time; use i32");
        }
        return a;
    }

    // The kind of DSD an expression denotes: Mem / FabIn / FabOut, or None.
    Builtin dsd_kind(const Expr& e) {
        if (e.kind == ExprKind::Call && e.builtin != Builtin::None && e.builtin != Builtin::Vector && builtin_info(e.builtin).result == Ty::Dsd) return e.builtin;
        if (e.kind == ExprKind::Name && e.sym && e.sym->kind == SymKind::Dsd && e.sym->decl && e.sym->decl->init)
            return dsd_kind(*e.sym->decl->init);
        return Builtin::None;
    }

    bool nargs(Expr& e, size_t lo, size_t hi, const std::string& shape) {
        if (e.args.size() >= lo && e.args.size() <= hi) return true;
        d_.error(e.line, e.col, q(e.name) + " takes " + shape + ", given " + std::to_string(e.args.size()));
        for (auto& a : e.args) expr(*a);
        return false;
    }
    void colour_arg(Expr& e, Expr& a, bool send) {
        Ty t = expr(a);
        if (t == Ty::Error) return;
        if (t != Ty::Colour) {
            d_.error(a.line, a.col, "argument 1 of " + q(e.name) + " must be a colour, found " + ty_name(t));
            return;
        }
        if (prog_) colour_uses_.back().push_back(ColourUse{&a, send, e.line, e.col, const_conds_});
    }
    void want_arg(Expr& e, size_t k, Ty want) {
        Ty t = expr(*e.args[k], want);
        if (t != Ty::Error && t != want)
            d_.error(e.args[k]->line, e.args[k]->col, "argument " + std::to_string(k + 1) + " of " + q(e.name) + " must be " + ty_name(want) + ", found " + ty_name(t));
    }
    Ty task_arg(Expr& e) {
        if (!nargs(e, 1, 1, "one task")) return Ty::Void;
        Expr& a = *e.args[0];
        Sym* s = a.kind == ExprKind::Name ? lookup(a.name) : nullptr;
        if (!s || s->kind != SymKind::Task) {
            if (a.kind == ExprKind::Name && !s) d_.error(a.line, a.col, "undefined task " + q(a.name));
            else d_.error(a.line, a.col, "argument 1 of " + q(e.name) + " must be a task name");
            return Ty::Void;
        }
        a.sym = s;
        a.type = Ty::Task;
        s->used = true;
        return Ty::Void;
    }

    Ty call(Expr& e) {
        Op vop = Op::NOP;
        Builtin b = builtin_of(e.name, &vop);
        e.builtin = b;
        e.vop = vop;
        const bool table = b != Builtin::None && b != Builtin::Vector;
        if (const_ctx_ && !(table && (builtin_info(b).result == Ty::Dsd || builtin_info(b).sig == Sig::Select))) {
            d_.error(e.line, e.col, "a call is not a compile-time constant");
            return Ty::Error;
        }
        if (b == Builtin::None) return user_call(e);
        if (b == Builtin::Vector) return vector_call(e);
        const BuiltinInfo& info = builtin_info(b);
        const Ty r = info.result;
        switch (info.sig) {
        case Sig::ColourValue:
            if (!nargs(e, 2, 2, "a colour and a value")) return r;
            colour_arg(e, *e.args[0], builtin_sends(b));
            if (Ty t = expr(*e.args[1]); t != Ty::Error && !is_num(t))
                d_.error(e.args[1]->line, e.args[1]->col, e.name + " needs an f32, i32 or u32 value, found " + std::string(ty_name(t)));
            return r;
        case Sig::Colour:
            if (!nargs(e, 1, 1, "a colour")) return r;
            colour_arg(e, *e.args[0], builtin_sends(b));
            return r;
        case Sig::Task: return task_arg(e);
        case Sig::Array: {
            if (!nargs(e, 1, 4, "an array, or an array, start and length (and a stride)")) return r;
            Expr& a = *e.args[0];
            Sym* s = a.kind == ExprKind::Name ? lookup(a.name) : nullptr;
            if (!s || s->kind != SymKind::Var || s->ty != Ty::Array) {
                if (a.kind == ExprKind::Name && !s) d_.error(a.line, a.col, "undefined name " + q(a.name));
                else d_.error(a.line, a.col, "argument 1 of " + q(e.name) + " must be an array");
            } else {
                a.sym = s, a.type = Ty::Array, s->used = true;
            }
            if (e.args.size() == 2) {
                d_.error(e.line, e.col, q(e.name) + " takes an array, or an array, start and length (and a stride), given 2");
                return r;
            }
            for (size_t k = 1; k < e.args.size(); ++k) want_arg(e, k, Ty::I32);
            if (e.args.size() == 4 && !e.args[3]->konst && e.args[3]->type != Ty::Error)
                d_.error(e.args[3]->line, e.args[3]->col, "the stride of " + q(e.name) + " must be a compile-time constant");
            return r;
        }
        case Sig::ColourLen:
            if (!nargs(e, 2, 2, "a colour and a length")) return r;
            colour_arg(e, *e.args[0], builtin_sends(b));
            want_arg(e, 1, Ty::I32);
            return r;
        case Sig::F32:
            if (!nargs(e, 1, 1, "one f32")) return r;
            want_arg(e, 0, Ty::F32);
            return r;
        case Sig::F32F32:
            if (!nargs(e, 2, 2, "two f32")) return r;
            want_arg(e, 0, Ty::F32);
            want_arg(e, 1, Ty::F32);
            return r;
        case Sig::Int: {
            if (!nargs(e, 1, 1, "one u32")) return r;
            Ty t = expr(*e.args[0], Ty::U32);
            if (t != Ty::Error && !is_int(t)) d_.error(e.args[0]->line, e.args[0]->col, "argument 1 of " + q(e.name) + " must be u32, found " + std::string(ty_name(t)));
            return r;
        }
        case Sig::Select: {
            if (!nargs(e, 3, 3, "a condition and two values")) return Ty::Error;
            Ty c = expr(*e.args[0]);
            Ty a = expr(*e.args[1]), bt = expr(*e.args[2]);
            if (a != bt && int_literal(*e.args[1]) && !int_literal(*e.args[2])) a = coerce(*e.args[1], a, bt);
            if (a != bt && int_literal(*e.args[2])) bt = coerce(*e.args[2], bt, a);
            if (c == Ty::Error || a == Ty::Error || bt == Ty::Error) return Ty::Error;
            if (c != Ty::Bool) { d_.error(e.args[0]->line, e.args[0]->col, "argument 1 of " + q(e.name) + " must be bool, found " + ty_name(c)); return Ty::Error; }
            if (a != bt) { d_.error(e.line, e.col, "the two values of " + q(e.name) + " have different types: " + ty_name(a) + " and " + ty_name(bt)); return Ty::Error; }
            e.konst = e.args[0]->konst && e.args[1]->konst && e.args[2]->konst;
            if (!e.konst) { d_.error(e.line, e.col, q(e.name) + " chooses at compile time; its arguments must be constants (use 'if' at run time)"); return Ty::Error; }
            return a;
        }
        }
        return Ty::Error;
    }

    Ty vector_call(Expr& e) {
        const VectorArgs va = vector_args(op_info(e.vop).fmt);
        const int ndsd = va.dsds;
        const bool scalar = va.scalar, has_dst = va.has_dst;
        size_t n = size_t(ndsd + (scalar ? 1 : 0));
        std::string shape = std::to_string(n) + " arguments (" + (has_dst ? "destination, " : "") +
                            (ndsd - (has_dst ? 1 : 0) == 2 ? "two sources" : "a source") + (scalar ? ", an f32" : "") + ")";
        if (!nargs(e, n, n, shape)) return has_dst ? Ty::Void : Ty::F32;
        for (int k = 0; k < ndsd; ++k) {
            Expr& a = *e.args[k];
            Ty t = expr(a);
            if (t == Ty::Error) continue;
            if (t != Ty::Dsd) {
                d_.error(a.line, a.col, "argument " + std::to_string(k + 1) + " of " + q(e.name) + " must be a DSD (mem, fabin or fabout), found " + ty_name(t));
                continue;
            }
            Builtin dk = dsd_kind(a);
            if (has_dst && k == 0 && dk == Builtin::FabIn) d_.error(a.line, a.col, "the destination of " + q(e.name) + " cannot be a fabin DSD");
            if ((k > 0 || !has_dst) && dk == Builtin::FabOut) d_.error(a.line, a.col, "a source of " + q(e.name) + " cannot be a fabout DSD");
        }
        if (scalar) want_arg(e, size_t(ndsd), Ty::F32);
        return has_dst ? Ty::Void : Ty::F32;
    }

    Ty user_call(Expr& e) {
        Sym* s = lookup(e.name);
        if (!s) {
            d_.error(e.line, e.col, "undefined function " + q(e.name));
            for (auto& a : e.args) expr(*a);
            return Ty::Error;
        }
        s->used = true;
        e.sym = s;
        if (s->kind == SymKind::Task) {
            d_.error(e.line, e.col, q(e.name) + " is a task; start it with activate(" + e.name + ")");
            return Ty::Error;
        }
        if (s->kind != SymKind::Fn) {
            d_.error(e.line, e.col, q(e.name) + " is not a function");
            return Ty::Error;
        }
        Decl& fd = *s->decl;
        if (e.args.size() != fd.params.size()) {
            d_.error(e.line, e.col, q(e.name) + " takes " + std::to_string(fd.params.size()) + " argument" + (fd.params.size() == 1 ? "" : "s") +
                                        ", given " + std::to_string(e.args.size()));
            for (auto& a : e.args) expr(*a);
            return fd.ret;
        }
        for (size_t k = 0; k < e.args.size(); ++k) want_arg(e, k, fd.params[k].ty);
        return fd.ret;
    }

    // [SECTION] statements

    static bool ends_in_return(const std::vector<StmtPtr>& b) {
        if (b.empty()) return false;
        const Stmt& s = *b.back();
        if (s.kind == StmtKind::Return) return true;
        if (s.kind == StmtKind::Block) return ends_in_return(s.body);
        if (s.kind == StmtKind::If && s.has_else) return ends_in_return(s.body) && ends_in_return(s.else_body);
        return false;
    }

    void block(std::vector<StmtPtr>& b) {
        push();
        bool dead = false;
        for (auto& s : b) {
            if (dead) {
                d_.warning(s->line, s->col, "unreachable statement");
                dead = false;   // once per block
                stmt(*s);
                break;
            }
            stmt(*s);
            if (s->kind == StmtKind::Return || s->kind == StmtKind::Break || s->kind == StmtKind::Continue) dead = true;
        }
        pop(true);
    }

    void cond(Expr& c, const char* what) {
        Ty t = expr(c);
        if (t != Ty::Error && t != Ty::Bool) d_.error(c.line, c.col, std::string("the condition of '") + what + "' must be bool, found " + ty_name(t));
    }

    void stmt(Stmt& s) {
        switch (s.kind) {
        case StmtKind::Let: {
            Ty t = expr(*s.e0, s.has_type ? s.declared : Ty::Error);
            if (t == Ty::Void) { d_.error(s.e0->line, s.e0->col, "this call returns nothing; it cannot initialise " + q(s.name)); t = Ty::Error; }
            else if (t == Ty::Dsd || t == Ty::Array || t == Ty::Colour || t == Ty::Task) {
                d_.error(s.e0->line, s.e0->col, std::string("a local variable cannot hold ") + (t == Ty::Array ? "an array" : t == Ty::Dsd ? "a dsd" : t == Ty::Colour ? "a colour" : "a task") + " (declare a 'dsd' or 'const' in the program)");
                t = Ty::Error;
            }
            if (s.has_type && t != Ty::Error && t != s.declared) type_mismatch(*s.e0, s.declared, t, "variable " + q(s.name));
            Sym* v = declare(SymKind::Local, s.name, s.name_line, s.name_col, s.has_type ? s.declared : t);
            s.sym = v;
            return;
        }
        case StmtKind::Assign: assign(s); return;
        case StmtKind::If: {
            cond(*s.e0, "if");
            bool k = s.e0->konst && s.e0->type == Ty::Bool;   // a compile-time if: codegen keeps one branch
            if (k) const_conds_.push_back({s.e0.get(), true});
            block(s.body);
            if (k) const_conds_.back().second = false;
            if (s.has_else) block(s.else_body);
            if (k) const_conds_.pop_back();
            return;
        }
        case StmtKind::While:
            cond(*s.e0, "while");
            fn_.loops++;
            block(s.body);
            fn_.loops--;
            return;
        case StmtKind::For: {
            Ty a = expr(*s.e0, Ty::I32), b = expr(*s.e1, Ty::I32);
            if (a != Ty::Error && a != Ty::I32) d_.error(s.e0->line, s.e0->col, std::string("a 'for' range needs i32 bounds, found ") + ty_name(a));
            if (b != Ty::Error && b != Ty::I32) d_.error(s.e1->line, s.e1->col, std::string("a 'for' range needs i32 bounds, found ") + ty_name(b));
            push();
            s.sym = declare(SymKind::Local, s.name, s.name_line, s.name_col, Ty::I32);
            if (s.sym) s.sym->used = true;   // a counter that is never read is fine
            fn_.loops++;
            block(s.body);
            fn_.loops--;
            pop(false);
            return;
        }
        case StmtKind::Return: {
            Decl* fd = fn_.decl;
            if (!fd) return;
            if (fn_.is_task) {
                if (s.e0) { d_.error(s.e0->line, s.e0->col, "task " + q(fd->name) + " cannot return a value"); expr(*s.e0); }
                return;
            }
            if (fd->ret == Ty::Void) {
                if (s.e0) { d_.error(s.e0->line, s.e0->col, "function " + q(fd->name) + " returns nothing; remove the value or declare '-> T'"); expr(*s.e0); }
                return;
            }
            if (!s.e0) { d_.error(s.line, s.col, "function " + q(fd->name) + " must return a " + ty_name(fd->ret)); return; }
            Ty t = expr(*s.e0, fd->ret);
            if (t != Ty::Error && t != fd->ret) type_mismatch(*s.e0, fd->ret, t, "the return value of " + q(fd->name));
            return;
        }
        case StmtKind::Break: case StmtKind::Continue:
            if (fn_.loops == 0) d_.error(s.line, s.col, std::string("'") + (s.kind == StmtKind::Break ? "break" : "continue") + "' outside a loop");
            return;
        case StmtKind::Block: block(s.body); return;
        case StmtKind::ExprStmt: expr_stmt(s); return;
        }
    }

    void assign(Stmt& s) {
        Expr& t = *s.target;
        Ty tt = Ty::Error;
        if (t.kind == ExprKind::Name) {
            Sym* v = lookup(t.name);
            if (!v) {
                d_.error(t.line, t.col, "undefined name " + q(t.name));
            } else {
                t.sym = v;
                if (v->kind == SymKind::Local || (v->kind == SymKind::Var && v->ty != Ty::Array)) {
                    tt = v->ty;
                    v->assigned = true;
                    if (v->kind == SymKind::Var) v->used = true;
                    if (s.op != Tok::Assign) v->used = true;
                } else if (v->kind == SymKind::Var) {
                    d_.error(t.line, t.col, "cannot assign to the whole array " + q(t.name) + "; assign its elements or use a vector op");
                } else if (v->kind == SymKind::Param && v->decl == nullptr && fn_.decl && !prog_param(v)) {
                    tt = v->ty;   // function parameters are ordinary registers
                    v->used = true;
                } else {
                    d_.error(t.line, t.col, "cannot assign to " + std::string(v->kind == SymKind::Const || v->kind == SymKind::GlobalConst || v->kind == SymKind::Param ? "constant " : "") + q(t.name));
                }
            }
        } else if (t.kind == ExprKind::Index) {
            tt = index(t);
        }
        t.type = tt;
        Ty vt = expr(*s.e0, tt);
        if (tt == Ty::Error || vt == Ty::Error) return;
        if (vt != tt) {
            type_mismatch(*s.e0, tt, vt, "assignment to " + q(t.name));
            return;
        }
        if (s.op != Tok::Assign && !is_num(tt)) d_.error(s.line, s.col, std::string(tok_name(s.op)) + " needs a number, found " + ty_name(tt));
    }
    bool prog_param(const Sym* v) const {
        if (!prog_) return false;
        for (const Param& p : prog_->params)
            if (p.sym == v) return true;
        return false;
    }

    void expr_stmt(Stmt& s) {
        Expr& e = *s.e0;
        Ty t = expr(e);
        bool vec = e.kind == ExprKind::Call && e.builtin == Builtin::Vector;
        if (s.async || !s.then_action.empty()) {
            if (!vec) {
                d_.error(e.line, e.col, std::string(s.async ? "'async'" : "'then'") + " applies to vector builtins (fmovs, fadds, ...) only");
            } else if (op_info(e.vop).fmt == Fmt::VecR) {
                d_.error(e.line, e.col, q(e.name) + " cannot be async or have a completion action: its result is a value");
            }
        }
        if (!s.then_action.empty()) {
            Sym* ts = lookup(s.then_task);
            if (!ts) d_.error(s.then_line, s.then_col, "undefined task " + q(s.then_task));
            else if (ts->kind != SymKind::Task) d_.error(s.then_line, s.then_col, q(s.then_task) + " is not a task");
            else if (ts->index < 0) d_.error(s.then_line, s.then_col, q(s.then_task) + " is a data task; completion actions name local tasks");
            else { s.then_sym = ts; ts->used = true; }
        }
        if (e.kind != ExprKind::Call && t != Ty::Error) d_.warning(e.line, e.col, "this expression's value is not used");
        else if (e.kind == ExprKind::Call && t != Ty::Void && t != Ty::Error && e.builtin != Builtin::None)
            d_.warning(e.line, e.col, "the result of " + q(e.name) + " is not used");
    }

    // [SECTION] programs

    void declare_program(size_t k) {
        ProgramDecl& p = f_.programs[k];
        Sym* s = declare(SymKind::Program, p.name, p.line, p.col, Ty::Void);
        if (s) s->prog = &p;
        p.sym = s;
    }

    void program(size_t k) {
        ProgramDecl& p = f_.programs[k];
        prog_ = &p;
        colour_uses_.emplace_back();
        push();
        for (Param& pa : p.params) {
            pa.sym = declare(SymKind::Param, pa.name, pa.line, pa.col, pa.ty);
            if (pa.sym) pa.sym->index = int(&pa - p.params.data());
        }
        int local_tasks = 0;
        // Declare every name first: functions and tasks may be used before they are defined.
        for (Decl& d : p.decls) {
            SymKind kind = d.kind == DeclKind::Const ? SymKind::Const : d.kind == DeclKind::Var ? SymKind::Var : d.kind == DeclKind::Fn ? SymKind::Fn
                         : d.kind == DeclKind::Task ? SymKind::Task : SymKind::Dsd;
            Ty ty = d.kind == DeclKind::Var ? d.type.ty : d.kind == DeclKind::Const ? d.type.ty : d.kind == DeclKind::Dsd ? Ty::Dsd : d.kind == DeclKind::Task ? Ty::Task : Ty::Fn;
            Sym* s = declare(kind, d.name, d.line, d.col, ty);
            d.sym = s;
            if (!s) continue;
            s->decl = &d;
            s->elem = d.type.elem;
            if (d.kind == DeclKind::Task) {
                s->index = d.colour.empty() ? local_tasks++ : -1;
                if (d.colour.empty() && s->index >= kMaxTasks - kFirstLocalTask)
                    d_.error(d.line, d.col, "too many local tasks in program " + q(p.name) + " (at most " + std::to_string(kMaxTasks - kFirstLocalTask) + ")");
            }
        }
        for (Decl& d : p.decls) program_decl(p, d);
        pop(false);
        prog_ = nullptr;
    }

    void program_decl(ProgramDecl& p, Decl& d) {
        switch (d.kind) {
        case DeclKind::Const: {
            const_ctx_ = true;
            Ty t = expr(*d.init, d.type.ty);
            const_ctx_ = false;
            if (d.type.ty != Ty::Error && t != Ty::Error && t != d.type.ty) type_mismatch(*d.init, d.type.ty, t, "constant " + q(d.name));
            if (d.sym && d.type.ty == Ty::Error) d.sym->ty = t;
            if (t == Ty::Void) { d_.error(d.init->line, d.init->col, "a constant needs a value"); if (d.sym) d.sym->ty = Ty::Error; }
            if (t == Ty::Dsd) { d_.error(d.init->line, d.init->col, "declare DSDs with 'dsd', not 'const'"); if (d.sym) d.sym->ty = Ty::Error; }
            return;
        }
        case DeclKind::Var: {
            const_ctx_ = true;
            if (d.len_expr) {
                Ty lt = expr(*d.len_expr, Ty::I32);
                if (lt != Ty::Error && !is_int(lt)) d_.error(d.len_expr->line, d.len_expr->col, std::string("an array length must be an integer, found ") + ty_name(lt));
            }
            Ty et = d.type.ty == Ty::Array ? d.type.elem : d.type.ty;
            if (d.init) {
                if (d.type.ty == Ty::Array) {
                    d_.error(d.init->line, d.init->col, "initialise an array with a list: [a, b, ...]");
                    expr(*d.init);
                } else {
                    Ty t = expr(*d.init, et);
                    if (t != Ty::Error && t != et) type_mismatch(*d.init, et, t, "variable " + q(d.name));
                }
            }
            if (d.has_init_list && d.type.ty != Ty::Array) d_.error(d.line, d.col, q(d.name) + " is a scalar; initialise it with a value, not a list");
            for (auto& v : d.init_list) {
                Ty t = expr(*v, et);
                if (t != Ty::Error && t != et) type_mismatch(*v, et, t, "an element of " + q(d.name));
            }
            const_ctx_ = false;
            if (d.type.ty == Ty::Bool) d_.error(d.line, d.col, "SRAM variables hold f32, i32 or u32, not bool");
            return;
        }
        case DeclKind::Dsd: {
            const_ctx_ = false;
            Expr& e = *d.init;
            const Builtin b = e.kind == ExprKind::Call ? builtin_of(e.name) : Builtin::None;
            if (b == Builtin::None || b == Builtin::Vector || builtin_info(b).result != Ty::Dsd) {
                d_.error(e.line, e.col, "a dsd is declared with mem(...), fabin(...) or fabout(...)");
                return;
            }
            expr(e);
            for (size_t k = 1; k < e.args.size(); ++k)
                if (!e.args[k]->konst && e.args[k]->type != Ty::Error)
                    d_.error(e.args[k]->line, e.args[k]->col, "a program-level dsd needs compile-time arguments; use mem(...) inline for run-time ones");
            return;
        }
        case DeclKind::Fn: case DeclKind::Task: {
            fn_ = FnCtx{&d, d.kind == DeclKind::Task, 0};
            push();
            for (Param& pa : d.params) {
                pa.sym = declare(SymKind::Local, pa.name, pa.line, pa.col, pa.ty);
                if (pa.sym) pa.sym->used = true;   // parameters may go unused
            }
            if (d.kind == DeclKind::Task) task_header(p, d);
            if (d.kind == DeclKind::Fn && d.exported) {
                if (!d.params.empty()) d_.error(d.line, d.col, "exported function " + q(d.name) + " cannot take parameters (the host launches it with none)");
                if (d.ret != Ty::Void) d_.error(d.line, d.col, "exported function " + q(d.name) + " cannot return a value");
            }
            for (Param& pa : d.params)
                if (pa.ty == Ty::Bool && d.kind == DeclKind::Task) d_.error(pa.line, pa.col, "a wavelet payload is f32, i32 or u32, not bool");
            block(d.body);
            if (d.kind == DeclKind::Fn && d.ret != Ty::Void && !ends_in_return(d.body))
                d_.error(d.end_line, d.end_col, "function " + q(d.name) + " must end with 'return' (it returns " + ty_name(d.ret) + ")");
            pop(false);
            fn_ = FnCtx{};
            return;
        }
        }
    }

    void task_header(ProgramDecl& p, Decl& d) {
        (void)p;
        if (d.colour.empty()) {
            if (!d.params.empty()) d_.error(d.params[0].line, d.params[0].col, "local task " + q(d.name) + " takes no payload; bind it to a colour with 'on' to receive one");
            return;
        }
        Sym* c = lookup(d.colour);
        if (!c) d_.error(d.colour_line, d.colour_col, "undefined colour " + q(d.colour));
        else if (c->ty != Ty::Colour) d_.error(d.colour_line, d.colour_col, q(d.colour) + " is not a colour");
        else c->used = true;
        if (d.params.size() != 1) d_.error(d.line, d.col, "data task " + q(d.name) + " takes exactly one payload parameter, e.g. (v: f32)");
    }

    // [SECTION] layout: grid, placements, routes

    bool region_eval(const Region& r, int* x0, int* x1, int* y0, int* y1) {
        auto one = [&](const Range& rg, int* lo, int* hi) {
            const_ctx_ = true;
            Ty a = expr(*rg.lo, Ty::I32);
            Ty b = rg.hi ? expr(*rg.hi, Ty::I32) : a;
            const_ctx_ = false;
            if (a == Ty::Error || b == Ty::Error) return false;
            if (a != Ty::I32 || b != Ty::I32) { d_.error(rg.line, rg.col, "PE coordinates are i32"); return false; }
            Value vl = eval_const(*rg.lo, nullptr, 0, 0, &d_);
            Value vh = rg.hi ? eval_const(*rg.hi, nullptr, 0, 0, &d_) : Value{Ty::I32, vl.i + 1, 0};
            if (vl.ty == Ty::Error || vh.ty == Ty::Error) return false;
            *lo = int(vl.i), *hi = int(vh.i);
            if (*hi <= *lo) { d_.error(rg.line, rg.col, "the range " + std::to_string(*lo) + ".." + std::to_string(*hi) + " is empty (ranges exclude their end)"); return false; }
            return true;
        };
        if (!one(r.x, x0, x1) || !one(r.y, y0, y1)) return false;
        if (*x0 < 0 || *y0 < 0 || *x1 > out_.grid_w || *y1 > out_.grid_h) {
            d_.error(r.line, r.col, "region x " + std::to_string(*x0) + ".." + std::to_string(*x1) + ", y " + std::to_string(*y0) + ".." + std::to_string(*y1) +
                                        " is outside the " + std::to_string(out_.grid_w) + " x " + std::to_string(out_.grid_h) + " grid");
            return false;
        }
        return true;
    }

    void layout() {
        push();
        coord_[0] = declare(SymKind::Coord, "x", 0, 0, Ty::I32);
        coord_[1] = declare(SymKind::Coord, "y", 0, 0, Ty::I32);
        if (coord_[0]) coord_[0]->index = 0, coord_[0]->used = true;
        if (coord_[1]) coord_[1]->index = 1, coord_[1]->used = true;
        out_.routes.assign(kColours, {});
        std::map<std::string, int> instance_key;
        bool have_grid = false;
        for (LayoutStmt& s : f_.layout) {
            if (s.kind == LayoutKind::Grid) {
                if (have_grid) { d_.error(s.line, s.col, "the grid is already set"); continue; }
                const_ctx_ = true;
                Ty a = expr(*s.w, Ty::I32), b = expr(*s.h, Ty::I32);
                const_ctx_ = false;
                if (a == Ty::Error || b == Ty::Error) continue;
                Value w = eval_const(*s.w, nullptr, 0, 0, &d_), h = eval_const(*s.h, nullptr, 0, 0, &d_);
                if (w.ty == Ty::Error || h.ty == Ty::Error) continue;
                if (a != Ty::I32 || b != Ty::I32 || w.i < 1 || h.i < 1 || w.i > 256 || h.i > 256) {
                    d_.error(s.w->line, s.w->col, "a grid is 1 to 256 PEs on each side");
                    continue;
                }
                have_grid = true;
                out_.grid_w = int(w.i), out_.grid_h = int(h.i);
                out_.instance_of_pe.assign(size_t(w.i * h.i), -1);
                for (auto& c : out_.routes) c.assign(size_t(w.i * h.i), RouteCell{});
                continue;
            }
            if (!have_grid) {
                d_.error(s.line, s.col, "'grid W x H;' must come first in the layout");
                continue;
            }
            int x0, x1, y0, y1;
            if (s.kind == LayoutKind::Place) place(s, instance_key);
            else if (s.kind == LayoutKind::Route) {
                Sym* c = lookup(s.name);
                if (!c) { d_.error(s.name_line, s.name_col, "undefined colour " + q(s.name)); continue; }
                if (c->kind != SymKind::Colour) { d_.error(s.name_line, s.name_col, q(s.name) + " is not a colour"); continue; }
                c->used = true;
                if (c->ty != Ty::Colour || !region_eval(s.region, &x0, &x1, &y0, &y1)) continue;
                auto& cells = out_.routes[size_t(c->val.i)];
                bool reported = false;
                for (int y = y0; y < y1; ++y)
                    for (int x = x0; x < x1; ++x) {
                        RouteCell& rc = cells[size_t(y * out_.grid_w + x)];
                        if (rc.set) {
                            if (!reported) {
                                Diagnostic* dg = d_.error(s.line, s.col, "colour " + q(s.name) + " already has a route at " + pe_str(x, y));
                                dg->notes.push_back({rc.line, rc.col, "the first route is here"});
                            }
                            reported = true;
                            continue;
                        }
                        rc = RouteCell{true, s.rx, s.tx, s.line, s.col, s.tx_line, s.tx_col};
                    }
            }
        }
        if (!have_grid) d_.error(f_.layout_line, f_.layout_col, "the layout needs 'grid W x H;'");
        pop(false);
        for (ProgramDecl& p : f_.programs)
            if (have_grid && p.sym && !p.sym->used) d_.warning(p.line, p.col, "program " + q(p.name) + " is never placed");
        for (Instance& in : out_.instances) instance_checks(in);
        if (have_grid) route_checks();
    }

    void place(LayoutStmt& s, std::map<std::string, int>& keys) {
        Sym* ps = lookup(s.name);
        if (!ps) { d_.error(s.name_line, s.name_col, "undefined program " + q(s.name)); return; }
        if (ps->kind != SymKind::Program) { d_.error(s.name_line, s.name_col, q(s.name) + " is not a program"); return; }
        ps->used = true;
        ProgramDecl& p = *ps->prog;
        int pidx = int(&p - f_.programs.data());
        // bindings: every parameter exactly once
        std::vector<Binding*> bound(p.params.size(), nullptr);
        bool ok = true;
        for (Binding& b : s.bindings) {
            size_t k = 0;
            while (k < p.params.size() && p.params[k].name != b.name) ++k;
            const_ctx_ = true;
            Ty t = expr(*b.value, k < p.params.size() ? p.params[k].ty : Ty::Error);
            const_ctx_ = false;
            if (k == p.params.size()) { d_.error(b.line, b.col, "program " + q(p.name) + " has no parameter " + q(b.name)); ok = false; continue; }
            if (bound[k]) { d_.error(b.line, b.col, "parameter " + q(b.name) + " is set twice"); ok = false; continue; }
            bound[k] = &b;
            if (t == Ty::Error) { ok = false; continue; }
            if (t != p.params[k].ty) { type_mismatch(*b.value, p.params[k].ty, t, "parameter " + q(b.name)); ok = false; }
        }
        for (size_t k = 0; k < p.params.size(); ++k)
            if (!bound[k]) { d_.error(s.line, s.col, "placing " + q(p.name) + " needs a value for parameter " + q(p.params[k].name) + " (with (" + p.params[k].name + " = ...))"); ok = false; }
        int x0, x1, y0, y1;
        if (!region_eval(s.region, &x0, &x1, &y0, &y1) || !ok) return;
        bool reported = false;
        for (int y = y0; y < y1; ++y)
            for (int x = x0; x < x1; ++x) {
                int& slot = out_.instance_of_pe[size_t(y * out_.grid_w + x)];
                if (slot >= 0) {
                    if (!reported) d_.error(s.line, s.col, pe_str(x, y) + " already runs program " + q(out_.instances[size_t(slot)].name));
                    reported = true;
                    continue;
                }
                std::vector<Value> vals;
                std::string key = std::to_string(pidx), label = p.name;
                bool bad = false;
                for (size_t k = 0; k < p.params.size(); ++k) {
                    Value v = eval_const(*bound[k]->value, nullptr, x, y, &d_);
                    if (v.ty == Ty::Error) { bad = true; break; }
                    if (p.params[k].ty == Ty::Colour) v.ty = Ty::Colour;
                    vals.push_back(v);
                    std::string vs = v.ty == Ty::F32 ? std::to_string(v.f) : std::to_string(v.i);
                    key += "," + vs;
                    label += (k ? ", " : "(") + p.params[k].name + "=" + vs;
                }
                if (bad) return;
                if (!p.params.empty()) label += ")";
                auto it = keys.find(key);
                if (it == keys.end()) {
                    Instance in;
                    in.program = pidx;
                    in.params = vals;
                    in.name = label;
                    in.first_x = x, in.first_y = y;
                    out_.instances.push_back(std::move(in));
                    it = keys.emplace(key, int(out_.instances.size()) - 1).first;
                }
                slot = it->second;
                out_.instances[size_t(slot)].pes.push_back({x, y});
            }
    }

    // [SECTION] per-instance checks: SRAM, tasks, colours

    void instance_checks(Instance& in) {
        ProgramDecl& p = f_.programs[size_t(in.program)];
        const std::string at = " at " + pe_str(in.first_x, in.first_y);
        uint64_t used = 0;
        bool over = false;
        for (Decl& d : p.decls) {
            if (!d.sym) continue;
            if (d.kind == DeclKind::Const && d.sym->ty != Ty::Error) eval_const_sym(in, d);
            if (d.kind != DeclKind::Var || d.sym->ty == Ty::Error) continue;
            uint64_t len = 1;
            if (d.type.ty == Ty::Array) {
                if (!d.len_expr || d.len_expr->type == Ty::Error) continue;
                Value v = eval_const(*d.len_expr, &in, in.first_x, in.first_y, &d_);
                if (v.ty == Ty::Error) continue;
                int64_t n = v.ty == Ty::U32 ? int64_t(uint32_t(v.i)) : v.i;
                if (n < 1) { d_.error(d.len_expr->line, d.len_expr->col, "array " + q(d.name) + " needs a positive length, found " + std::to_string(n) + at); continue; }
                len = uint64_t(n);
                if (d.has_init_list && d.init_list.size() != len)
                    d_.error(d.line, d.col, "array " + q(d.name) + " has " + std::to_string(len) + " elements but " + std::to_string(d.init_list.size()) + " initial values");
            }
            in.length[d.sym] = uint32_t(std::min<uint64_t>(len, 0xffffffffu));
            used += len * 4;
            if (!over && used > opt_.sram_bytes) {
                over = true;
                uint64_t total = used;
                for (const Decl* r = &d + 1; r < p.decls.data() + p.decls.size(); ++r) {
                    if (r->kind != DeclKind::Var || !r->sym || r->sym->ty == Ty::Error) continue;
                    uint64_t l = 1;
                    if (r->type.ty == Ty::Array && r->len_expr && r->len_expr->type != Ty::Error) {
                        Value v = eval_const(*r->len_expr, &in, in.first_x, in.first_y, nullptr);
                        l = v.ty == Ty::Error || v.i < 1 ? 0 : uint64_t(v.ty == Ty::U32 ? int64_t(uint32_t(v.i)) : v.i);
                    }
                    total += l * 4;
                }
                Diagnostic* dg = d_.error(d.line, d.col, "program " + in.name + " needs " + std::to_string(total) + " bytes of SRAM" + at + "; a PE has " +
                                                             std::to_string(opt_.sram_bytes) + " (over by " + std::to_string(total - opt_.sram_bytes) + " bytes)");
                dg->notes.push_back({0, 0, q(d.name) + " is the variable that crosses the budget"});
            }
        }
        // data tasks: one per colour
        std::map<int64_t, Decl*> by_colour;
        for (Decl& d : p.decls) {
            if (d.kind != DeclKind::Task || d.colour.empty()) continue;
            Value cv = colour_value(in, p, d.colour);
            if (cv.ty != Ty::Colour) continue;
            in.consumed |= 1u << cv.i;
            auto [it, fresh] = by_colour.emplace(cv.i, &d);
            if (!fresh) {
                Diagnostic* dg = d_.error(d.colour_line, d.colour_col, "colour " + q(d.colour) + " (" + std::to_string(cv.i) + ") already triggers task " + q(it->second->name) + at);
                dg->notes.push_back({it->second->line, it->second->col, "that task is here"});
            }
        }
        for (ColourUse& u : colour_uses_[size_t(in.program)]) {
            Value v = eval_const(*u.colour, &in, in.first_x, in.first_y, nullptr);
            if (v.ty != Ty::Colour || !live(u, in)) continue;
            if (u.send) in.sent |= 1u << v.i;
            else in.consumed |= 1u << v.i;
            auto it = by_colour.find(v.i);
            if (!u.send && it != by_colour.end()) {
                std::string cn = u.colour->kind == ExprKind::Name ? u.colour->name : std::to_string(v.i);
                Diagnostic* dg = d_.warning(u.line, u.col, "colour " + q(cn) + " also triggers task " + q(it->second->name) + "; this read competes with it for wavelets");
                dg->notes.push_back({it->second->line, it->second->col, "the task is here"});
            }
        }
    }

    // Evaluates a program constant for this instance, reporting problems (division by zero, cycles).
    void eval_const_sym(Instance& in, Decl& d) { eval_const(*d.init, &in, in.first_x, in.first_y, &d_); }

    // A colour name inside program p: a global colour or a colour parameter.
    Value colour_value(Instance& in, ProgramDecl& p, const std::string& n) {
        for (size_t k = 0; k < p.params.size(); ++k)
            if (p.params[k].name == n) return p.params[k].ty == Ty::Colour ? Value{Ty::Colour, in.params[k].i, 0} : Value{};
        for (Sym* c : colours_)
            if (c->name == n) return c->val;
        return Value{};
    }

    // [SECTION] route sanity

    void route_checks() {
        static const int dx[4] = {0, 0, 1, -1}, dy[4] = {-1, 1, 0, 0};
        static const char* dname[4] = {"north", "south", "east", "west"};
        static const char* oname[4] = {"south", "north", "west", "east"};
        const int W = out_.grid_w, H = out_.grid_h;
        out_.colour_names.assign(kColours, "");
        for (Sym* c : colours_)
            if (c->ty == Ty::Colour && out_.colour_names[size_t(c->val.i)].empty()) out_.colour_names[size_t(c->val.i)] = c->name;
        std::set<std::pair<int, int>> said;   // (route line, kind): one report per statement
        auto once = [&](int line, int kind) { return said.insert({line, kind}).second; };
        for (int c = 0; c < kColours; ++c) {
            const std::string cn = q(out_.colour_names[size_t(c)].empty() ? std::to_string(c) : out_.colour_names[size_t(c)]);
            for (int y = 0; y < H; ++y)
                for (int x = 0; x < W; ++x) {
                    const RouteCell& rc = out_.routes[size_t(c)][size_t(y * W + x)];
                    int inst = out_.instance_of_pe[size_t(y * W + x)];
                    if (!rc.set) continue;
                    for (int p = 0; p < 4; ++p) {
                        if (!(rc.tx >> p & 1)) continue;
                        int nx = x + dx[p], ny = y + dy[p];
                        if (nx < 0 || ny < 0 || nx >= W || ny >= H) {
                            if (once(rc.line, p)) d_.error(rc.tx_line, rc.tx_col, "colour " + cn + " is sent " + dname[p] + " out of the grid at " + pe_str(x, y));
                            continue;
                        }
                        const RouteCell& nb = out_.routes[size_t(c)][size_t(ny * W + nx)];
                        if (!nb.set || !(nb.rx >> (p ^ 1) & 1)) {
                            if (once(rc.line, 4 + p))
                                d_.error(rc.tx_line, rc.tx_col, "colour " + cn + " is sent " + dname[p] + " from " + pe_str(x, y) + ", but " + pe_str(nx, ny) +
                                                                    " does not receive it from " + oname[p]);
                        }
                    }
                    if (rc.tx & 16) {
                        if (inst < 0) {
                            if (once(rc.line, 8)) d_.error(rc.tx_line, rc.tx_col, "colour " + cn + " is delivered to the ramp at " + pe_str(x, y) + ", where no program runs");
                        } else if (!(out_.instances[size_t(inst)].consumed >> c & 1)) {
                            if (once(rc.line, 9))
                                d_.error(rc.tx_line, rc.tx_col, "colour " + cn + " is delivered to the ramp at " + pe_str(x, y) + ", but program " +
                                                                    out_.instances[size_t(inst)].name + " has no task or recv for it");
                        }
                    }
                }
        }
        // Every colour a program sends must enter the router from the ramp there.
        for (Instance& in : out_.instances) {
            for (ColourUse& u : colour_uses_[size_t(in.program)]) {
                if (!u.send || !live(u, in)) continue;
                Value v = eval_const(*u.colour, &in, in.first_x, in.first_y, nullptr);
                if (v.ty != Ty::Colour) continue;
                for (auto [x, y] : in.pes) {
                    const RouteCell& rc = out_.routes[size_t(v.i)][size_t(y * W + x)];
                    if (!rc.set || !(rc.rx & 16)) {
                        if (once(-u.line, int(v.i))) {
                            std::string cn = out_.colour_names[size_t(v.i)].empty() ? std::to_string(v.i) : out_.colour_names[size_t(v.i)];
                            d_.error(u.line, u.col, "colour " + q(cn) + " is sent from " + pe_str(x, y) + ", but its route there does not receive from ramp");
                        }
                        break;
                    }
                }
            }
        }
    }

    // [SECTION] host block

    void host() {
        if (!f_.has_layout || out_.grid_w == 0) {
            if (!f_.host.empty()) d_.error(f_.host[0].line, f_.host[0].col, "a host block needs a layout with a grid");
            return;
        }
        push();
        bool pending_launch = false;
        int launch_line = 0, launch_col = 0;
        for (HostStmt& s : f_.host) {
            HostAction a;
            a.kind = s.kind, a.name = s.name, a.line = s.line, a.col = s.col, a.gen = s.gen;
            if (s.kind == HostKind::Run) {
                if (!pending_launch) d_.warning(s.line, s.col, "'run' with nothing launched before it");
                pending_launch = false;
                out_.host.push_back(a);
                continue;
            }
            int x0, x1, y0, y1;
            if (!region_eval(s.region, &x0, &x1, &y0, &y1)) continue;
            a.x = x0, a.y = y0, a.w = x1 - x0, a.h = y1 - y0;
            bool ok = true;
            uint32_t len = 0;
            for (int y = y0; y < y1 && ok; ++y)
                for (int x = x0; x < x1 && ok; ++x) {
                    int inst = out_.instance_of_pe[size_t(y * out_.grid_w + x)];
                    if (inst < 0) { d_.error(s.region.line, s.region.col, "no program runs at " + pe_str(x, y)); ok = false; break; }
                    Instance& in = out_.instances[size_t(inst)];
                    ProgramDecl& p = f_.programs[size_t(in.program)];
                    const Decl* found = nullptr;
                    for (const Decl& d : p.decls)
                        if (d.name == s.name) found = &d;
                    if (s.kind == HostKind::Launch) {
                        if (!found || found->kind != DeclKind::Fn || !found->exported) {
                            d_.error(s.name_line, s.name_col, "program " + q(p.name) + " at " + pe_str(x, y) + " has no exported function " + q(s.name));
                            ok = false;
                        }
                    } else {
                        if (!found || found->kind != DeclKind::Var || !found->exported) {
                            d_.error(s.name_line, s.name_col, "program " + q(p.name) + " at " + pe_str(x, y) + " has no exported variable " + q(s.name));
                            ok = false;
                        } else {
                            auto it = in.length.find(found->sym);
                            uint32_t l = it == in.length.end() ? 1 : it->second;
                            if (len && l != len) { d_.error(s.line, s.col, "variable " + q(s.name) + " has different lengths across the region"); ok = false; }
                            len = l;
                        }
                    }
                }
            if (!ok) continue;
            if (s.kind == HostKind::Launch) {
                pending_launch = true;
                launch_line = s.line, launch_col = s.col;
            }
            if (s.kind == HostKind::Fill) {
                const_ctx_ = true;
                for (auto& g : s.gen_args) {
                    Ty t = expr(*g, Ty::F32);
                    if (t == Ty::Error) { ok = false; continue; }
                    if (!is_num(t)) { d_.error(g->line, g->col, std::string("fill values are numbers, found ") + ty_name(t)); ok = false; continue; }
                    Value v = eval_const(*g, nullptr, 0, 0, &d_);
                    a.args.push_back(v.ty == Ty::F32 ? v.f : double(v.i));
                }
                const_ctx_ = false;
                size_t want_args = s.gen == GenKind::Iota ? 2 : s.gen == GenKind::Value ? 1 : s.gen == GenKind::Random ? 1 : 0;
                const char* gname = s.gen == GenKind::Iota ? "iota" : s.gen == GenKind::Value ? "value" : "random";
                if (s.gen == GenKind::Iota && s.gen_args.empty()) a.args = {0, 1};
                else if (s.gen != GenKind::List && s.gen_args.size() != want_args) {
                    d_.error(s.gen_line, s.gen_col, std::string(gname) + " takes " + std::to_string(want_args) + " argument" + (want_args == 1 ? "" : "s") + ", given " + std::to_string(s.gen_args.size()));
                    ok = false;
                }
                size_t need = size_t(a.w) * size_t(a.h) * len;
                if (ok && s.gen == GenKind::List && s.gen_args.size() != need)
                    d_.error(s.gen_line, s.gen_col, "fill gives " + std::to_string(s.gen_args.size()) + " values; the region needs " + std::to_string(need) + " (" +
                                                        std::to_string(a.w * a.h) + " PEs x " + std::to_string(len) + " elements)");
            }
            if (ok) out_.host.push_back(a);
        }
        if (pending_launch) d_.error(launch_line, launch_col, "'launch' without a 'run' after it");
        pop(false);
    }

    // [SECTION] unused symbols, entry

    void unused() {
        for (Sym* c : colours_)
            if (!c->used) d_.warning(c->line, c->col, "unused colour " + q(c->name));
        for (TopDecl& g : f_.globals)
            if (!g.is_colour && g.sym && !g.sym->used) d_.warning(g.line, g.col, "unused constant " + q(g.name));
        for (ProgramDecl& p : f_.programs)
            for (Decl& d : p.decls) {
                if (!d.sym || d.sym->used || d.exported) continue;
                switch (d.kind) {
                case DeclKind::Const: d_.warning(d.line, d.col, "unused constant " + q(d.name)); break;
                case DeclKind::Var: d_.warning(d.line, d.col, "unused variable " + q(d.name)); break;
                case DeclKind::Fn: d_.warning(d.line, d.col, "unused function " + q(d.name)); break;
                case DeclKind::Dsd: d_.warning(d.line, d.col, "unused dsd " + q(d.name)); break;
                case DeclKind::Task:
                    if (d.colour.empty()) d_.warning(d.line, d.col, "task " + q(d.name) + " is never activated or unblocked");
                    break;
                }
            }
    }
};

}  // namespace

void check(File& f, Diagnostics& d, const CompileOptions& opt, Checked* out) { Checker(f, d, opt, out).run(); }

}  // namespace wl::lang
