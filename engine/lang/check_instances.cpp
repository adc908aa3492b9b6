// check_instances.cpp: the checks made once per placed instance — the
// SRAM budget, one data task per colour, reads that compete with a task, and (check_bounds.cpp)
// array indices out of range.
#include "engine/lang/checker.h"

#include <algorithm>
#include <map>

namespace wl::lang::detail {

void Checker::instance_checks(Instance& in) {
    ProgramDecl& p = f_.programs[size_t(in.program)];
    const std::string at = " at " + pe_str(in.first_x, in.first_y);
    // A constant that fails for some parameter values only (`8 / px` at px = 0) is reported at
    // its expression; a note names the instance and a PE that runs it.
    auto for_instance = [&](auto&& check) {
        const size_t first = d_.list().size();
        check();
        if (!p.params.empty()) d_.note_since(first, {0, 0, "with " + shown(in.name) + ", the program placed at " + pe_str(in.first_x, in.first_y)});
    };
    uint64_t used = 0;
    bool over = false;
    for (Decl& d : p.decls) {
        if (!d.sym) continue;
        if (d.kind == DeclKind::Const && d.sym->ty != Ty::Error) for_instance([&] { eval_const_sym(in, d); });
        if (d.kind != DeclKind::Var || d.sym->ty == Ty::Error) continue;
        uint64_t len = 1;
        if (d.type.ty == Ty::Array) {
            if (!d.len_expr || d.len_expr->type == Ty::Error) continue;
            Value v;
            for_instance([&] { v = eval_const(*d.len_expr, &in, in.first_x, in.first_y, &d_); });
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
            Diagnostic* dg = d_.error(d.line, d.col, "program " + shown(in.name) + " needs " + std::to_string(total) + " bytes of SRAM" + at + "; a PE has " +
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
    for_instance([&] { constant_checks(in); });
    bounds_checks(in);
}

void Checker::eval_const_sym(Instance& in, Decl& d) { eval_const(*d.init, &in, in.first_x, in.first_y, &d_); }

Value Checker::colour_value(Instance& in, ProgramDecl& p, const std::string& n) {
    for (size_t k = 0; k < p.params.size(); ++k)
        if (p.params[k].name == n) return p.params[k].ty == Ty::Colour ? Value{Ty::Colour, in.params[k].i, 0} : Value{};
    for (Sym* c : colours_)
        if (c->name == n) return c->val;
    return Value{};
}

}  // namespace wl::lang::detail
