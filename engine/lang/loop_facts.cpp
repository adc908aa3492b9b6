// loop_facts.cpp: see loop_facts.h.
#include "engine/lang/loop_facts.h"

#include <algorithm>

namespace wl::lang {

namespace {

// Whether a statement of body, at any depth, is one `is` picks.
template <class P>
bool any_stmt(const std::vector<StmtPtr>& body, P is) {
    for (const StmtPtr& st : body)
        if (is(*st) || any_stmt(st->body, is) || any_stmt(st->else_body, is)) return true;
    return false;
}

bool calls_in(const Expr& e) {
    if (e.kind == ExprKind::Call && e.builtin == Builtin::None) return true;
    for (const ExprPtr& a : e.args)
        if (calls_in(*a)) return true;
    return false;
}

bool reads(const Stmt& st, const Sym* v) {
    for (const Expr* e : {st.e0.get(), st.e1.get(), st.target.get()})
        if (e && reads(*e, v)) return true;
    for (const auto* b : {&st.body, &st.else_body})
        for (const StmtPtr& s : *b)
            if (reads(*s, v)) return true;
    return false;
}

}  // namespace

bool reads(const Expr& e, const Sym* v) {
    if (e.kind == ExprKind::Name && e.sym == v) return true;
    for (const ExprPtr& a : e.args)
        if (reads(*a, v)) return true;
    return false;
}

const Expr& resolved(const Expr& e) {
    if (e.kind == ExprKind::Name && e.sym && e.sym->decl && e.sym->decl->init) return resolved(*e.sym->decl->init);
    return e;
}

bool has_loop(const std::vector<StmtPtr>& body) {
    return any_stmt(body, [](const Stmt& st) { return st.kind == StmtKind::For || st.kind == StmtKind::While; });
}

void LoopFacts::assigned_in(const std::vector<StmtPtr>& body, std::vector<const Sym*>* out, bool* calls) {
    for (const StmtPtr& st : body) {
        if (st->sym) out->push_back(st->sym);
        if (st->target && st->target->sym) out->push_back(st->target->sym);
        for (const Expr* e : {st->e0.get(), st->e1.get(), st->target.get()})
            if (e && calls_in(*e)) *calls = true;
        assigned_in(st->body, out, calls);
        assigned_in(st->else_body, out, calls);
    }
}

bool LoopFacts::invariant(const Expr& e, const std::vector<const Sym*>& assigned) const {
    if (e.konst) return true;
    switch (e.kind) {
    case ExprKind::Name:
        return locals_.count(e.sym) && std::find(assigned.begin(), assigned.end(), e.sym) == assigned.end();
    case ExprKind::Unary: case ExprKind::Binary: case ExprKind::Cast:
        for (const ExprPtr& a : e.args)
            if (!invariant(*a, assigned)) return false;
        return true;
    default: return false;   // SRAM reads, calls
    }
}

void LoopFacts::begin(const std::vector<StmtPtr>& body, const std::vector<const Sym*>& assigned) {
    derived_.clear();
    if (any_stmt(body, [](const Stmt& st) { return st.kind == StmtKind::Continue; })) return;
    for (size_t k = 0; k < body.size(); ++k) {
        const Stmt& st = *body[k];
        if (st.kind != StmtKind::Assign || (st.op != Tok::PlusAssign && st.op != Tok::MinusAssign) || st.target->kind != ExprKind::Name ||
            st.target->type == Ty::F32 || !st.e0->konst || !locals_.count(st.target->sym))
            continue;
        const Sym* v = st.target->sym;
        if (std::count(assigned.begin(), assigned.end(), v) != 1) continue;
        bool later = false;
        for (size_t j = k + 1; j < body.size(); ++j) later = later || reads(*body[j], v);
        if (later) continue;
        const uint32_t c = uint32_t(konst(*st.e0).i);
        derived_.push_back({v, st.op == Tok::PlusAssign ? c : 0u - c});
    }
}

bool LoopFacts::affine(const Expr& e, const Sym* i, const std::vector<const Sym*>& assigned, uint32_t* c) const {
    if (e.konst) return *c = 0, true;
    if (e.type == Ty::F32) return false;
    if (e.kind == ExprKind::Name && e.sym == i) return *c = 1, true;
    if (e.kind == ExprKind::Name)
        for (const auto& [v, step] : derived_)
            if (v == e.sym) return *c = step, true;
    if (e.kind == ExprKind::Binary && e.args[0]->type != Ty::F32 && e.args[1]->type != Ty::F32) {
        const Expr& l = *e.args[0];
        const Expr& r = *e.args[1];
        uint32_t a = 0, b = 0;
        if ((e.op == Tok::Plus || e.op == Tok::Minus) && affine(l, i, assigned, &a) && affine(r, i, assigned, &b))
            return *c = e.op == Tok::Plus ? a + b : a - b, true;
        if (e.op == Tok::Star && r.konst && affine(l, i, assigned, &a)) return *c = a * uint32_t(konst(r).i), true;
        if (e.op == Tok::Star && l.konst && affine(r, i, assigned, &b)) return *c = b * uint32_t(konst(l).i), true;
    }
    if (invariant(e, assigned)) return *c = 0, true;
    return false;
}

Value LoopFacts::konst(const Expr& e) const { return eval_const(e, &in_, in_.first_x, in_.first_y, nullptr); }

}  // namespace wl::lang
