// check_host.cpp: the host block — fill, launch, run and print, each
// resolved against the programs placed in its region.
#include "engine/lang/checker.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <sstream>

namespace wl::lang::detail {

// A fill's values against the type of the symbol's elements, t. An integer type must hold
// each value as the host stores it (truncated): past it, the store would be a value nobody
// wrote. An f32 iota must stay finite. A linear iota's ends are its extremes.
static void fill_ranges(Diagnostics& d, const HostStmt& s, const HostAction& a, Ty t, size_t need) {
    const std::string holds = "does not fit in " + q(s.name) + " " + int_range(t);
    const bool iota = s.gen == GenKind::Iota && a.args.size() == 2 && need > 0;
    if (t == Ty::F32) {
        if (!iota) return;
        const double last = a.args[0] + double(need - 1) * a.args[1];
        if (!(std::fabs(last) <= double(FLT_MAX))) {
            std::ostringstream m;
            m << "iota(" << a.args[0] << ", " << a.args[1] << ") reaches " << last << " at element " << need - 1 << " of the region's " << need
              << ": past f32's largest (3.40282e+38)";
            d.error(s.gen_line, s.gen_col, m.str());
        }
        return;
    }
    if (!is_int(t)) return;
    if (iota) {
        const std::string name = "iota(" + num_text(a.args[0]) + ", " + num_text(a.args[1]) + ")";
        const double last = a.args[0] + double(need - 1) * a.args[1];
        if (!int_fits(t, a.args[0])) d.error(s.gen_line, s.gen_col, name + " starts at " + num_text(a.args[0]) + ", which " + holds);
        else if (!int_fits(t, last))
            d.error(s.gen_line, s.gen_col, name + " reaches " + num_text(last) + " at element " + std::to_string(need - 1) + " of the region's " +
                                               std::to_string(need) + ", which " + holds);
    }
    if (s.gen == GenKind::Value && a.args.size() == 1 && !int_fits(t, a.args[0]))
        d.error(s.gen_args[0]->line, s.gen_args[0]->col, "value(" + num_text(a.args[0]) + ") " + holds);
    if (s.gen == GenKind::List && a.args.size() == s.gen_args.size())
        for (size_t k = 0; k < a.args.size(); ++k)
            if (!int_fits(t, a.args[k])) d.error(s.gen_args[k]->line, s.gen_args[k]->col, num_text(a.args[k]) + " " + holds);
}

void Checker::host() {
    if (grid_unknown_) return;   // the grid's error is reported; nothing here can be checked without it
    if (!f_.has_layout || out_.grid_w == 0) {
        if (!f_.host.empty()) d_.error(f_.host[0].line, f_.host[0].col, "a host block needs a layout with a grid");
        return;
    }
    push();
    bool pending_launch = false;
    int launch_line = 0, launch_col = 0;
    for (HostStmt& s : f_.host) {
        HostAction a;
        a.kind = s.kind, a.name = s.name, a.line = s.line, a.col = s.col, a.gen = s.gen;
        if (s.kind == HostKind::Run) {
            if (!pending_launch) d_.warning(s.line, s.col, "'run' with nothing launched before it");
            pending_launch = false;
            out_.host.push_back(a);
            continue;
        }
        int x0, x1, y0, y1;
        if (!region_eval(s.region, &x0, &x1, &y0, &y1)) continue;
        a.x = x0, a.y = y0, a.w = x1 - x0, a.h = y1 - y0;
        bool ok = true;
        uint32_t len = 0;
        std::vector<Ty> types;   // of the symbol's elements, one per program that differs
        for (int y = y0; y < y1 && ok; ++y)
            for (int x = x0; x < x1 && ok; ++x) {
                int inst = out_.instance_of_pe[size_t(y * out_.grid_w + x)];
                if (inst < 0) { d_.error(s.region.line, s.region.col, "no program runs at " + pe_str(x, y)); ok = false; break; }
                Instance& in = out_.instances[size_t(inst)];
                ProgramDecl& p = f_.programs[size_t(in.program)];
                const Decl* found = nullptr;
                for (const Decl& d : p.decls)
                    if (d.name == s.name) found = &d;
                if (s.kind == HostKind::Launch) {
                    if (!found || found->kind != DeclKind::Fn || !found->exported) {
                        d_.error(s.name_line, s.name_col, "program " + q(p.name) + " at " + pe_str(x, y) + " has no exported function " + q(s.name));
                        ok = false;
                    }
                } else {
                    if (!found || found->kind != DeclKind::Var || !found->exported) {
                        d_.error(s.name_line, s.name_col, "program " + q(p.name) + " at " + pe_str(x, y) + " has no exported variable " + q(s.name));
                        ok = false;
                    } else {
                        auto it = in.length.find(found->sym);
                        uint32_t l = it == in.length.end() ? 1 : it->second;
                        if (len && l != len) { d_.error(s.line, s.col, "variable " + q(s.name) + " has different lengths across the region"); ok = false; }
                        len = l;
                        const Ty t = !found->sym ? Ty::Error : found->sym->ty == Ty::Array ? found->sym->elem : found->sym->ty;
                        if (std::find(types.begin(), types.end(), t) == types.end()) types.push_back(t);
                    }
                }
            }
        if (!ok) continue;
        if (s.kind == HostKind::Launch) {
            pending_launch = true;
            launch_line = s.line, launch_col = s.col;
        }
        if (s.kind == HostKind::Fill) {
            // Literals take the elements' type, so an integer array's values stay exact (not rounded to
            // f32); random's seed is the u32 its hash mixes (a negative one stays i32, for the seed's error).
            const bool random = s.gen == GenKind::Random;
            const Ty want = random ? Ty::U32 : types.size() == 1 && is_num(types[0]) ? types[0] : Ty::F32;
            const_ctx_ = true;
            for (auto& g : s.gen_args) {
                Ty t = expr(*g, !random || g->kind == ExprKind::Int ? want : Ty::Error);
                if (t == Ty::Error) { ok = false; continue; }
                if (!is_num(t)) { d_.error(g->line, g->col, std::string("fill values are numbers, found ") + ty_name(t)); ok = false; continue; }
                Value v = eval_const(*g, nullptr, 0, 0, &d_);
                if (v.ty == Ty::Error) { ok = false; continue; }   // reported
                const double x = v.ty == Ty::F32 ? v.f : double(v.i);
                // A seed that is not a u32 would be truncated or wrapped into one: a seed nobody wrote.
                if (random && (v.ty == Ty::F32 || !int_fits(Ty::U32, x))) {
                    d_.error(g->line, g->col, "random's seed is an integer from 0 to 4294967295, found " + num_text(x));
                    ok = false;
                    continue;
                }
                a.args.push_back(x);
            }
            const_ctx_ = false;
            size_t want_args = s.gen == GenKind::Iota ? 2 : s.gen == GenKind::Value ? 1 : s.gen == GenKind::Random ? 1 : 0;
            const char* gname = s.gen == GenKind::Iota ? "iota" : s.gen == GenKind::Value ? "value" : "random";
            if (s.gen == GenKind::Iota && s.gen_args.empty()) a.args = {0, 1};
            else if (s.gen != GenKind::List && s.gen_args.size() != want_args) {
                d_.error(s.gen_line, s.gen_col, std::string(gname) + " takes " + std::to_string(want_args) + " argument" + (want_args == 1 ? "" : "s") + ", given " + std::to_string(s.gen_args.size()));
                ok = false;
            }
            // Its values lie in [-1, 1): an integer array would hold their truncations, zeros.
            for (Ty t : types)
                if (ok && random && t != Ty::F32 && t != Ty::Error) {
                    d_.error(s.gen_line, s.gen_col, "random fills f32 arrays: " + q(s.name) + " is " + ty_name(t) +
                                                        " (its values in [-1, 1) would truncate to 0); fill it with iota, value or a list");
                    ok = false;
                }
            size_t need = size_t(a.w) * size_t(a.h) * len;
            if (ok)
                for (Ty t : types) fill_ranges(d_, s, a, t, need);
            if (ok && s.gen == GenKind::List && s.gen_args.size() != need)
                d_.error(s.gen_line, s.gen_col, "fill gives " + std::to_string(s.gen_args.size()) + " values; the region needs " + std::to_string(need) + " (" +
                                                    std::to_string(a.w * a.h) + " PEs x " + std::to_string(len) + " elements)");
        }
        if (ok) out_.host.push_back(a);
    }
    if (pending_launch) d_.error(launch_line, launch_col, "'launch' without a 'run' after it");
    pop(false);
}

}  // namespace wl::lang::detail
