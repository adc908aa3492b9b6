// const_eval.cpp: compile-time constant evaluation (eval_const, sema.h) — the
// same arithmetic the PE does (32-bit wrap, fp32 rounding), per instance and PE.
// With diagnostics, what would silently wrap is an error at the operator instead:
// i32/u32 overflow (a left shift's too), a conversion to a type that does not hold the value,
// a shift by a negative amount or by 32 or more, division by zero and an f32 result that is infinite
// from finite operands. Without (the code generator folding what the checker already
// passed), it wraps as the PE does.
#include "engine/lang/checker.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>

namespace wl::lang {

using detail::int_fits;
using detail::int_range;
using detail::num_text;
using detail::q;

namespace detail {

std::string int_range(Ty t) { return t == Ty::U32 ? "(u32 holds 0 to 4294967295)" : "(i32 holds -2147483648 to 2147483647)"; }

std::string num_text(double v) {
    if (v == std::trunc(v) && std::fabs(v) < 9007199254740992.0) return std::to_string(int64_t(v));
    const bool f32 = double(float(v)) == v;   // most constants are: "3e+38", not 3.0000000054977558e+38
    char b[40];
    for (int p = 6; p < 17; ++p) {
        std::snprintf(b, sizeof b, "%.*g", p, v);
        const double back = std::strtod(b, nullptr);
        if (f32 ? float(back) == float(v) : back == v) return b;
    }
    std::snprintf(b, sizeof b, "%.17g", v);
    return b;
}

}  // namespace detail

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
            if (v.ty != Ty::Error && s->ty != Ty::Error && v.ty != s->ty) v = convert(v, s->ty, nullptr);
            busy->erase(s);
            inst->consts[s] = v;
            return v;
        }
        default: return err();
        }
    }

    // A conversion, numeric (to an integer toward zero, as ftoi). A value the target does not
    // hold (or NaN) is an error at `at`: ftoi would saturate it and mov would wrap it, to a value
    // nobody wrote. Unreported (no diagnostics, or no `at`: what the checker refused already),
    // int to int wraps as mov does and f32 to int saturates as ftoi does.
    Value convert(Value v, Ty to, const Expr* at) {
        if (to == Ty::F32) return v.ty == Ty::F32 ? v : Value{Ty::F32, 0, double(float(v.i))};   // v.i: exact, normalised
        const double exact = v.ty == Ty::F32 ? std::trunc(v.f) : double(v.i);
        if (int_fits(to, exact)) return norm(Value{to, int64_t(exact), 0});
        if (d && at) {
            const std::string arg = v.ty == Ty::F32 ? num_text(v.f) : std::to_string(v.i);
            d->error(at->line, at->col, std::string("constant expression overflows ") + ty_name(to) + ": " + ty_name(to) + "(" + arg + ") is " +
                                            (exact != exact ? "NaN" : num_text(exact)) + " " + int_range(to));
            return err();
        }
        if (v.ty != Ty::F32) return norm(Value{to, v.i, 0});
        return norm(Value{to, exact != exact ? 0 : int64_t(std::clamp(exact, -2147483648.0, 2147483647.0)), 0});
    }

    Value eval(const Expr& e) {
        switch (e.kind) {
        case ExprKind::Int:
            if (e.refused) return err();   // reported by the parser
            if (e.type == Ty::F32) return Value{Ty::F32, 0, double(float(e.ival))};
            return norm(Value{e.type == Ty::Error ? Ty::I32 : e.type, e.ival, 0});
        case ExprKind::Float: return norm(Value{Ty::F32, 0, e.fval});
        case ExprKind::Bool: return Value{Ty::Bool, e.ival, 0};
        case ExprKind::Name: return name(e);
        case ExprKind::Cast: {
            Value v = eval(*e.args[0]);
            if (v.ty == Ty::Error) return v;
            return convert(v, e.type, &e);
        }
        case ExprKind::Unary: {
            Value v = eval(*e.args[0]);
            if (v.ty == Ty::Error) return v;
            if (e.op == Tok::Bang) return Value{Ty::Bool, !v.i, 0};
            if (v.ty == Ty::F32) return Value{Ty::F32, 0, -v.f};
            // A literal's own value: -2147483648 is i32's smallest, though 2147483648 alone is no i32.
            const Expr& x = *e.args[0];
            const int64_t m = x.kind == ExprKind::Int ? x.ival : v.ty == Ty::U32 ? int64_t(uint32_t(v.i)) : int64_t(int32_t(v.i));
            const int64_t n = -m;
            if (!fits(v.ty, n)) return overflow(e, v.ty, m < 0 ? "-(" + std::to_string(m) + ")" : "-" + std::to_string(m), n);
            return norm(Value{v.ty, n, 0});
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

    static bool fits(Ty t, int64_t v) {
        if (t == Ty::U32) return v >= 0 && v <= int64_t(UINT32_MAX);
        if (t == Ty::I32) return v >= INT32_MIN && v <= INT32_MAX;
        return true;
    }

    Value overflow(const Expr& e, Ty t, const std::string& what, int64_t exact) {
        if (!d) return norm(Value{t, exact, 0});   // the PE's wrap
        d->error(e.line, e.col, std::string("constant expression overflows ") + ty_name(t) + ": " + what + " is " + std::to_string(exact) + " " + int_range(t));
        return err();
    }

    static const char* op_text(Tok op) {
        switch (op) {
        case Tok::Plus: return " + ";
        case Tok::Minus: return " - ";
        case Tok::Star: return " * ";
        case Tok::Slash: return " / ";
        case Tok::Shl: return " << ";
        default: return " ? ";
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
            case Tok::Slash:
                if (y == 0 && d) {
                    d->error(e.line, e.col, "division by zero in a constant expression");
                    return err();
                }
                r = x / y;
                break;
            default: break;
            }
            if (d && std::isinf(r) && std::isfinite(x) && std::isfinite(y)) {
                std::ostringstream m;
                m << "constant expression overflows f32: " << x << op_text(e.op) << y << " is infinite (f32 holds up to 3.40282e+38)";
                d->error(e.line, e.col, m.str());
                return err();
            }
            return Value{Ty::F32, 0, double(r)};
        }
        const int64_t sa = u ? int64_t(ua) : int64_t(ia), sb = u ? int64_t(ub) : int64_t(ib);
        if (e.op == Tok::Plus || e.op == Tok::Minus || e.op == Tok::Star || (e.op == Tok::Slash && sb != 0)) {
            // (the one quotient that overflows: -2147483648 / -1)
            const int64_t exact = e.op == Tok::Plus ? sa + sb : e.op == Tok::Minus ? sa - sb : e.op == Tok::Star ? sa * sb : sa / sb;
            if (!fits(a.ty, exact)) return overflow(e, a.ty, std::to_string(sa) + op_text(e.op) + std::to_string(sb), exact);
        }
        if ((e.op == Tok::Shl || e.op == Tok::Shr) && d && (b.ty == Ty::U32 ? ub >= 32 : (ib < 0 || ib >= 32))) {
            d->error(e.line, e.col, "shift by " + std::to_string(b.ty == Ty::U32 ? int64_t(ub) : int64_t(ib)) +
                                        " in a constant expression: the amount must be 0 to 31");
            return err();
        }
        // A left shift is a multiplication by 2^n: what it pushes past the type (into i32's sign
        // bit too, as C's signed shift) overflows. -1 << 31 is -2147483648, which i32 holds.
        if (e.op == Tok::Shl && (b.ty == Ty::U32 ? ub < 32 : ib >= 0 && ib < 32)) {
            const int64_t exact = sa * (int64_t(1) << (ub & 31));
            if (!fits(a.ty, exact)) return overflow(e, a.ty, std::to_string(sa) + op_text(e.op) + std::to_string(ub & 31), exact);
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

}  // namespace wl::lang
