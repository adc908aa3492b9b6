// check_layout.cpp: the layout block — the grid, placements (one Instance
// per distinct set of parameter values) and routes.
#include "engine/lang/checker.h"
#include "engine/fabric/mesh.h"

#include <algorithm>
#include <map>

namespace wl::lang::detail {

bool Checker::region_eval(const Region& r, int* x0, int* x1, int* y0, int* y1) {
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

// A place's or route's `if COND`: a bool of constants, x and y, checked once; false when it is not one.
bool Checker::layout_cond_ok(const LayoutStmt& s) {
    if (!s.cond) return true;
    const_ctx_ = true;
    const Ty t = expr(*s.cond, Ty::Bool);
    const_ctx_ = false;
    if (t == Ty::Error) return false;
    if (t != Ty::Bool) { type_mismatch(*s.cond, Ty::Bool, t, "the 'if' condition"); return false; }
    return true;
}

// Whether `if COND` holds at PE (x, y) (true without one); *bad when it cannot be evaluated there.
bool Checker::layout_cond_at(const LayoutStmt& s, int x, int y, bool* bad) {
    if (!s.cond) return true;
    const size_t first = d_.list().size();
    const Value v = eval_const(*s.cond, nullptr, x, y, &d_);
    d_.note_since(first, {0, 0, "the condition evaluated at " + pe_str(x, y)});
    if (v.ty == Ty::Error) *bad = true;
    return v.ty != Ty::Error && v.i != 0;
}

void Checker::layout() {
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
            // A rejected grid still counts as present, so its one error is all that is said
            // about it: a size out of range is checked on as the nearest legal size (so a route
            // off its edge is still found); a size with no value leaves the rest unchecked.
            have_grid = true;
            const_ctx_ = true;
            Ty a = expr(*s.w, Ty::I32), b = expr(*s.h, Ty::I32);
            const_ctx_ = false;
            if (a == Ty::Error || b == Ty::Error) { grid_unknown_ = true; continue; }
            Value w = eval_const(*s.w, nullptr, 0, 0, &d_), h = eval_const(*s.h, nullptr, 0, 0, &d_);
            if (w.ty == Ty::Error || h.ty == Ty::Error) { grid_unknown_ = true; continue; }
            if (a != Ty::I32 || b != Ty::I32 || w.i < 1 || h.i < 1 || w.i > kMaxGridSide || h.i > kMaxGridSide) {
                d_.error(s.w->line, s.w->col, "a grid is 1 to " + std::to_string(kMaxGridSide) + " PEs on each side (a whole WSE-3's fabric)");
                if (a != Ty::I32 || b != Ty::I32) { grid_unknown_ = true; continue; }
                w.i = std::clamp<int64_t>(w.i, 1, kMaxGridSide), h.i = std::clamp<int64_t>(h.i, 1, kMaxGridSide);
            }
            out_.grid_w = int(w.i), out_.grid_h = int(h.i);
            out_.instance_of_pe.assign(size_t(w.i * h.i), -1);
            for (auto& c : out_.routes) c.assign(size_t(w.i * h.i), RouteCell{});
            continue;
        }
        if (!have_grid) {
            d_.error(s.line, s.col, "'grid W x H;' must come first in the layout");
            continue;
        }
        if (grid_unknown_) continue;
        int x0, x1, y0, y1;
        if (s.kind == LayoutKind::Place) place(s, instance_key);
        else if (s.kind == LayoutKind::Route) {
            Sym* c = lookup(s.name);
            if (!c) { d_.error(s.name_line, s.name_col, "undefined colour " + q(s.name)); continue; }
            if (c->kind != SymKind::Colour) { d_.error(s.name_line, s.name_col, q(s.name) + " is not a colour"); continue; }
            c->used = true;
            if (c->ty != Ty::Colour || !region_eval(s.region, &x0, &x1, &y0, &y1) || !layout_cond_ok(s)) continue;
            auto& cells = out_.routes[size_t(c->val.i)];
            bool reported = false, bad = false;
            int matched = 0;
            for (int y = y0; y < y1 && !bad; ++y)
                for (int x = x0; x < x1 && !bad; ++x) {
                    if (!layout_cond_at(s, x, y, &bad)) continue;
                    ++matched;
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
            if (s.cond && !bad && matched == 0) d_.warning(s.cond->line, s.cond->col, "the 'if' condition holds at no PE of the region: this route sets nothing");
        }
    }
    if (!have_grid) d_.error(f_.layout_line, f_.layout_col, "the layout needs 'grid W x H;'");
    pop(false);
    for (ProgramDecl& p : f_.programs)
        if (have_grid && !grid_unknown_ && p.sym && !p.sym->used) d_.warning(p.line, p.col, "program " + q(p.name) + " is never placed");
    for (Instance& in : out_.instances) instance_checks(in);
    if (have_grid && !grid_unknown_) route_checks();
}

void Checker::place(LayoutStmt& s, std::map<std::string, int>& keys) {
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
        if (!bound[k]) { d_.error(s.line, s.col, "placing " + q(p.name) + " needs a value for parameter " + q(p.params[k].name) + " (with (" + shown(p.params[k].name) + " = ...))"); ok = false; }
    int x0, x1, y0, y1;
    if (!region_eval(s.region, &x0, &x1, &y0, &y1) || !layout_cond_ok(s) || !ok) return;
    bool reported = false, bad = false;
    int matched = 0;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
            if (!layout_cond_at(s, x, y, &bad)) {
                if (bad) return;
                continue;
            }
            ++matched;
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
    if (s.cond && matched == 0) d_.warning(s.cond->line, s.cond->col, "the 'if' condition holds at no PE of the region: this place runs nothing");
}

}  // namespace wl::lang::detail
