// check_types.cpp: the type rules of expressions — names, indexing,
// operators, builtin calls (their signatures are WL_BUILTINS rows, builtins.h)
// and calls of the program's own functions.
#include "engine/lang/checker.h"

namespace wl::lang::detail {

bool Checker::int_literal(const Expr& e) {
    if (e.kind == ExprKind::Int) return true;
    return e.kind == ExprKind::Unary && e.op == Tok::Minus && int_literal(*e.args[0]);
}

void Checker::retype(Expr& e, Ty t) {
    e.type = t;
    if (e.kind == ExprKind::Unary) retype(*e.args[0], t);
}

Ty Checker::coerce(Expr& e, Ty got, Ty want) {
    if (want != Ty::Error && got != Ty::Error && got != want && is_num(want) && int_literal(e)) {
        retype(e, want);
        return want;
    }
    return got;
}

Ty Checker::expr(Expr& e, Ty want) {
    Ty t = expr_inner(e, want);
    e.type = t;
    t = coerce(e, t, want);
    // 2147483648 is an i32 only negated: -2147483648, i32's smallest (const_eval.cpp folds it whole).
    if (e.kind == ExprKind::Int && t == Ty::I32 && e.ival > 0x7fffffff && !(e.ival == 0x80000000ll && &e == negated_)) {
        d_.error(e.line, e.col, "integer literal " + std::to_string(e.ival) + " does not fit in i32 (the largest is 2147483647)");
        e.type = t = Ty::Error;
    }
    return t;
}

Ty Checker::expr_inner(Expr& e, Ty want) {
    switch (e.kind) {
    case ExprKind::Int: e.konst = true; return e.refused ? Ty::Error : Ty::I32;
    case ExprKind::Float: e.konst = true; return Ty::F32;
    case ExprKind::Bool: e.konst = true; return Ty::Bool;
    case ExprKind::Name: return name(e);
    case ExprKind::Index: return index(e);
    case ExprKind::Cast: {
        Ty to = e.op == Tok::KwF32 ? Ty::F32 : e.op == Tok::KwI32 ? Ty::I32 : Ty::U32;
        // u32(4294967295): the literal is the u32 it is converted to, not an i32 too big to be one.
        // (A negated one stays i32: u32(-1)'s error names the conversion.)
        Ty a = expr(*e.args[0], to == Ty::U32 && e.args[0]->kind == ExprKind::Int ? Ty::U32 : Ty::Error);
        e.konst = e.args[0]->konst;
        if (a == Ty::Error) return to;
        if (!is_num(a) && a != Ty::Bool) d_.error(e.args[0]->line, e.args[0]->col, std::string("cannot convert ") + ty_name(a) + " to " + ty_name(to));
        return to;
    }
    case ExprKind::Unary: {
        negated_ = e.op == Tok::Minus ? e.args[0].get() : nullptr;
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

Ty Checker::name(Expr& e) {
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

Ty Checker::index(Expr& e) {
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

Ty Checker::binary(Expr& e, Ty want) {
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

Builtin Checker::dsd_kind(const Expr& e) {
    if (e.kind == ExprKind::Call && e.builtin != Builtin::None && e.builtin != Builtin::Vector && builtin_info(e.builtin).result == Ty::Dsd) return e.builtin;
    if (e.kind == ExprKind::Name && e.sym && e.sym->kind == SymKind::Dsd && e.sym->decl && e.sym->decl->init)
        return dsd_kind(*e.sym->decl->init);
    return Builtin::None;
}

bool Checker::nargs(Expr& e, size_t lo, size_t hi, const std::string& shape) {
    if (e.args.size() >= lo && e.args.size() <= hi) return true;
    d_.error(e.line, e.col, q(e.name) + " takes " + shape + ", given " + std::to_string(e.args.size()));
    for (auto& a : e.args) expr(*a);
    return false;
}

void Checker::colour_arg(Expr& e, Expr& a, bool send) {
    Ty t = expr(a);
    if (t == Ty::Error) return;
    if (t != Ty::Colour) {
        d_.error(a.line, a.col, "argument 1 of " + q(e.name) + " must be a colour, found " + ty_name(t));
        return;
    }
    if (prog_) colour_uses_.back().push_back(ColourUse{&a, send, e.line, e.col, const_conds_});
}

void Checker::want_arg(Expr& e, size_t k, Ty want) {
    Ty t = expr(*e.args[k], want);
    if (t != Ty::Error && t != want)
        d_.error(e.args[k]->line, e.args[k]->col, "argument " + std::to_string(k + 1) + " of " + q(e.name) + " must be " + ty_name(want) + ", found " + ty_name(t));
}

Ty Checker::task_arg(Expr& e) {
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

Ty Checker::call(Expr& e) {
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

Ty Checker::vector_call(Expr& e) {
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

Ty Checker::user_call(Expr& e) {
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

}  // namespace wl::lang::detail
