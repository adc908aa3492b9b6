// map_rule.cpp: see map_rule.h.
#include "engine/lang/map_rule.h"

#include "engine/lang/builtins.h"
#include "engine/lang/loop_facts.h"
#include "engine/lang/sema.h"

namespace wl::lang {

bool map_step(const Expr& e, const Sym* i, const std::function<int32_t(const Expr&)>& konst, uint32_t* c) {
    if (!reads(e, i)) return *c = 0, true;
    if (e.kind == ExprKind::Name) return *c = 1, true;   // i itself
    if (e.kind == ExprKind::Unary && e.op == Tok::Minus && map_step(*e.args[0], i, konst, c)) return *c = 0u - *c, true;
    if (e.kind != ExprKind::Binary || e.type == Ty::F32) return false;
    const Expr& l = *e.args[0];
    const Expr& r = *e.args[1];
    uint32_t a = 0, b = 0;
    if ((e.op == Tok::Plus || e.op == Tok::Minus) && map_step(l, i, konst, &a) && map_step(r, i, konst, &b))
        return *c = e.op == Tok::Plus ? a + b : a - b, true;
    if (e.op == Tok::Star && r.konst && map_step(l, i, konst, &a)) return *c = a * uint32_t(konst(r)), true;
    if (e.op == Tok::Star && l.konst && map_step(r, i, konst, &b)) return *c = b * uint32_t(konst(l)), true;
    return false;
}

std::string map_error(const Stmt& s, const Expr** where) {
    *where = nullptr;
    const std::string shape = "a 'map' body is one vector op on memory, e.g. fmacs(mem(y), mem(y), mem(a, i * N, N), x[i])";
    if (s.body.size() != 1 || s.body[0]->kind != StmtKind::ExprStmt) return shape;
    const Stmt& st = *s.body[0];
    const Expr& e = *st.e0;
    *where = &e;
    if (e.kind != ExprKind::Call || e.builtin != Builtin::Vector) return shape;
    if (st.async || !st.then_action.empty()) return "a map issues its op on the main thread, a pass at a time: no 'async' or 'then'";
    const VectorArgs va = vector_args(op_info(e.vop).fmt);
    if (!va.has_dst) return "'" + e.name + "' gives one value: a map issues element-wise ops (fmacs, fadds, fmovs, ...)";
    if (e.args.size() < size_t(va.dsds + (va.scalar ? 1 : 0))) return "";   // the checker has said what is missing
    const Sym* i = s.sym;
    const auto structure = [](const Expr&) { return int32_t(1); };   // the steps' values are the code generator's
    for (int k = 0; k < va.dsds; ++k) {
        const Expr& a = *e.args[size_t(k)];
        const Expr& m = resolved(a);
        *where = &a;
        if (m.kind != ExprKind::Call || m.builtin != Builtin::Mem)
            return "a map's operands are mem() descriptors: a fabric operand moves at the fabric's pace, not a pass at a time";
        uint32_t c = 0;
        if (m.args.size() > 1 && !map_step(*m.args[1], i, structure, &c))
            return "this operand's offset must step by a constant each pass (c * " + s.name + " + what does not read " + s.name + ")";
        for (size_t j = 2; j < m.args.size(); ++j)
            if (reads(*m.args[j], i)) return "a map's operands keep their length and stride: only the offset may read " + s.name;
    }
    if (va.scalar) {
        const Expr& x = *e.args[size_t(va.dsds)];
        *where = &x;
        if (!reads(x, i)) return "";
        uint32_t c = 0;
        if (x.kind != ExprKind::Index || !x.sym || x.sym->kind != SymKind::Var || x.type != Ty::F32 ||
            !map_step(*x.args[0], i, structure, &c))
            return "a map's scalar is a value that does not read " + s.name + ", or an element a[c * " + s.name +
                   " + ...] of an f32 array: the map loads it a pass at a time";
    }
    *where = nullptr;
    return "";
}

}  // namespace wl::lang
