// sema.cpp: the kernel checker's entry point, its scopes and symbols, the global
// colours and constants, and the unused-symbol warnings. The other checks are
// in the files checker.h lists.
#include "engine/lang/checker.h"

#include <algorithm>

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

void check(File& f, Diagnostics& d, const CompileOptions& opt, Checked* out) { detail::Checker(f, d, opt, out).run(); }

}  // namespace wl::lang

namespace wl::lang::detail {

void Checker::run() {
    push();   // global scope
    globals();
    for (size_t k = 0; k < f_.programs.size(); ++k) declare_program(k);
    for (size_t k = 0; k < f_.programs.size(); ++k) program(k);
    if (f_.has_layout) layout();
    if (f_.has_host) host();
    unused();
    pop(false);
}

bool Checker::live(const ColourUse& u, Instance& in) {
    for (auto& [c, want] : u.conds) {
        Value v = eval_const(*c, &in, in.first_x, in.first_y, nullptr);
        if (v.ty == Ty::Bool && (v.i != 0) != want) return false;
    }
    return true;
}

void Checker::push() { scopes_.emplace_back(); }

void Checker::pop(bool warn_locals) {
    if (warn_locals) {
        std::vector<Sym*> unused;
        for (auto& [n, s] : scopes_.back())
            if (s->kind == SymKind::Local && !s->used && n[0] != '_') unused.push_back(s);
        std::sort(unused.begin(), unused.end(), [](Sym* a, Sym* b) { return a->line != b->line ? a->line < b->line : a->col < b->col; });
        for (Sym* s : unused) d_.warning(s->line, s->col, "unused variable " + q(s->name));
    }
    scopes_.pop_back();
}

Sym* Checker::lookup(const std::string& n) {
    for (size_t k = scopes_.size(); k-- > 0;) {
        auto it = scopes_[k].find(n);
        if (it != scopes_[k].end()) return it->second;
    }
    return nullptr;
}

Sym* Checker::declare(SymKind kind, const std::string& n, int line, int col, Ty ty) {
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

void Checker::globals() {
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

void Checker::type_mismatch(const Expr& e, Ty want, Ty got, const std::string& what) {
    if (want == Ty::Error || got == Ty::Error) return;
    d_.error(e.line, e.col, what + " needs " + ty_name(want) + ", found " + ty_name(got));
}

void Checker::unused() {
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

}  // namespace wl::lang::detail
