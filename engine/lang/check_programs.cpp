// check_programs.cpp: statements, function and task bodies, and each
// program's declarations (constants, SRAM variables, DSDs, tasks).
#include "engine/lang/checker.h"
#include "engine/lang/map_rule.h"

namespace wl::lang::detail {

bool Checker::ends_in_return(const std::vector<StmtPtr>& b) {
    if (b.empty()) return false;
    const Stmt& s = *b.back();
    if (s.kind == StmtKind::Return) return true;
    if (s.kind == StmtKind::Block) return ends_in_return(s.body);
    if (s.kind == StmtKind::If && s.has_else) return ends_in_return(s.body) && ends_in_return(s.else_body);
    return false;
}

void Checker::block(std::vector<StmtPtr>& b) {
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

void Checker::cond(Expr& c, const char* what) {
    Ty t = expr(c);
    if (t != Ty::Error && t != Ty::Bool) d_.error(c.line, c.col, std::string("the condition of '") + what + "' must be bool, found " + ty_name(t));
}

void Checker::stmt(Stmt& s) {
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
        if (a != Ty::Error && a != Ty::I32) d_.error(s.e0->line, s.e0->col, std::string("a '") + (s.map ? "map" : "for") + "' range needs i32 bounds, found " + ty_name(a));
        if (b != Ty::Error && b != Ty::I32) d_.error(s.e1->line, s.e1->col, std::string("a '") + (s.map ? "map" : "for") + "' range needs i32 bounds, found " + ty_name(b));
        push();
        s.sym = declare(SymKind::Local, s.name, s.name_line, s.name_col, Ty::I32);
        if (s.sym) s.sym->used = true;   // a counter that is never read is fine
        fn_.loops++;
        block(s.body);
        fn_.loops--;
        pop(false);
        if (s.map) {
            const Expr* at = nullptr;
            const std::string why = map_error(s, &at);
            if (!why.empty()) d_.error(at ? at->line : s.line, at ? at->col : s.col, why);
        }
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

void Checker::assign(Stmt& s) {
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

bool Checker::prog_param(const Sym* v) const {
    if (!prog_) return false;
    for (const Param& p : prog_->params)
        if (p.sym == v) return true;
    return false;
}

void Checker::expr_stmt(Stmt& s) {
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

void Checker::declare_program(size_t k) {
    ProgramDecl& p = f_.programs[k];
    Sym* s = declare(SymKind::Program, p.name, p.line, p.col, Ty::Void);
    if (s) s->prog = &p;
    p.sym = s;
}

void Checker::program(size_t k) {
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

void Checker::program_decl(ProgramDecl& p, Decl& d) {
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

void Checker::task_header(ProgramDecl& p, Decl& d) {
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

}  // namespace wl::lang::detail
