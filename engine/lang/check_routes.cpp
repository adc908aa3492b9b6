// check_routes.cpp: route sanity across the grid — every hop is received,
// nothing leaves the grid, the ramp delivers to a program that reads the
// colour, and every colour a program sends enters its router from the ramp.
#include "engine/lang/checker.h"

#include <set>

namespace wl::lang::detail {

void Checker::route_checks() {
    static const int dx[4] = {0, 0, 1, -1}, dy[4] = {-1, 1, 0, 0};
    static const char* dname[4] = {"north", "south", "east", "west"};
    static const char* oname[4] = {"south", "north", "west", "east"};
    const int W = out_.grid_w, H = out_.grid_h;
    out_.colour_names.assign(kColours, "");
    for (Sym* c : colours_)
        if (c->ty == Ty::Colour && out_.colour_names[size_t(c->val.i)].empty()) out_.colour_names[size_t(c->val.i)] = c->name;
    std::set<std::pair<int, int>> said;   // (route line, kind): one report per statement
    auto once = [&](int line, int kind) { return said.insert({line, kind}).second; };
    for (int c = 0; c < kColours; ++c) {
        const std::string cn = q(out_.colour_names[size_t(c)].empty() ? std::to_string(c) : out_.colour_names[size_t(c)]);
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                const RouteCell& rc = out_.routes[size_t(c)][size_t(y * W + x)];
                int inst = out_.instance_of_pe[size_t(y * W + x)];
                if (!rc.set) continue;
                for (int p = 0; p < 4; ++p) {
                    if (!(rc.tx >> p & 1)) continue;
                    int nx = x + dx[p], ny = y + dy[p];
                    if (nx < 0 || ny < 0 || nx >= W || ny >= H) {
                        if (once(rc.line, p)) d_.error(rc.tx_line, rc.tx_col, "colour " + cn + " is sent " + dname[p] + " out of the grid at " + pe_str(x, y));
                        continue;
                    }
                    const RouteCell& nb = out_.routes[size_t(c)][size_t(ny * W + nx)];
                    if (!nb.set || !(nb.rx >> (p ^ 1) & 1)) {
                        if (once(rc.line, 4 + p))
                            d_.error(rc.tx_line, rc.tx_col, "colour " + cn + " is sent " + dname[p] + " from " + pe_str(x, y) + ", but " + pe_str(nx, ny) +
                                                                " does not receive it from " + oname[p]);
                    }
                }
                if (rc.tx & 16) {
                    if (inst < 0) {
                        if (once(rc.line, 8)) d_.error(rc.tx_line, rc.tx_col, "colour " + cn + " is delivered to the ramp at " + pe_str(x, y) + ", where no program runs");
                    } else if (!(out_.instances[size_t(inst)].consumed >> c & 1)) {
                        if (once(rc.line, 9))
                            d_.error(rc.tx_line, rc.tx_col, "colour " + cn + " is delivered to the ramp at " + pe_str(x, y) + ", but program " +
                                                                shown(out_.instances[size_t(inst)].name) + " has no task or recv for it");
                    }
                }
            }
    }
    // Every colour a program sends must enter the router from the ramp there.
    for (Instance& in : out_.instances) {
        for (ColourUse& u : colour_uses_[size_t(in.program)]) {
            if (!u.send || !live(u, in)) continue;
            Value v = eval_const(*u.colour, &in, in.first_x, in.first_y, nullptr);
            if (v.ty != Ty::Colour) continue;
            for (auto [x, y] : in.pes) {
                const RouteCell& rc = out_.routes[size_t(v.i)][size_t(y * W + x)];
                if (!rc.set || !(rc.rx & 16)) {
                    if (once(-u.line, int(v.i))) {
                        std::string cn = out_.colour_names[size_t(v.i)].empty() ? std::to_string(v.i) : out_.colour_names[size_t(v.i)];
                        d_.error(u.line, u.col, "colour " + q(cn) + " is sent from " + pe_str(x, y) + ", but its route there does not receive from ramp");
                    }
                    break;
                }
            }
        }
    }
}

}  // namespace wl::lang::detail
