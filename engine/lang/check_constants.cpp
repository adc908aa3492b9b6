// check_constants.cpp: every constant expression in a program's code (function and task
// bodies, array initialisers), folded once per placed instance with its problems reported
// (overflow, shifts out of 0..31, division by zero: const_eval.cpp). The code generator
// folds the same expressions silently, so without this `x = 1 << 40;` would compile to 256.
#include "engine/lang/checker.h"

namespace wl::lang::detail {

namespace {

struct ConstantWalk {
    Instance& in;
    Diagnostics& d;

    void expr(const Expr& e) {
        if (e.konst && e.type != Ty::Error) {   // the largest constant around: fold it whole
            eval_const(e, &in, in.first_x, in.first_y, &d);
            return;
        }
        for (const ExprPtr& a : e.args) expr(*a);
    }

    void block(const std::vector<StmtPtr>& b) {
        for (const StmtPtr& s : b) {
            for (const Expr* e : {s->e0.get(), s->e1.get(), s->target.get()})
                if (e) expr(*e);
            block(s->body);
            block(s->else_body);
        }
    }
};

}  // namespace

void Checker::constant_checks(Instance& in) {
    ConstantWalk w{in, d_};
    for (const Decl& d : f_.programs[size_t(in.program)].decls) {
        if (d.kind == DeclKind::Var) {
            if (d.init) w.expr(*d.init);
            for (const ExprPtr& e : d.init_list) w.expr(*e);
        }
        w.block(d.body);
    }
}

}  // namespace wl::lang::detail
