// const_eval.cpp: compile-time constant evaluation (eval_const, sema.h) — the
// same arithmetic the PE does (32-bit wrap, fp32 rounding), per instance and PE.
#include "engine/lang/checker.h"

#include <set>

namespace wl::lang {

using detail::q;

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

}  // namespace wl::lang
