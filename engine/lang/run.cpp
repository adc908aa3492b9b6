// run.cpp: the host driver described by a kernel's host block.
#include "engine/lang/run.h"

#include "engine/fabric/host.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace wl::lang {

float fill_value(GenKind g, const std::vector<double>& a, uint64_t k) {
    switch (g) {
    case GenKind::Iota: return float(a.size() > 0 ? a[0] : 0) + float(a.size() > 1 ? a[1] : 1) * float(k);
    case GenKind::Value: return float(a.empty() ? 0 : a[0]);
    case GenKind::Random: {
        // splitmix32-style hash of (seed, k): uniform in [-1, 1), same bits everywhere
        uint32_t h = uint32_t(a.empty() ? 0 : int64_t(a[0])) * 0x9E3779B9u + uint32_t(k) * 0x85EBCA6Bu + 0x6A09E667u;
        h ^= h >> 16, h *= 0x7FEB352Du, h ^= h >> 15, h *= 0x846CA68Bu, h ^= h >> 16;
        return float(h >> 8) * (2.0f / 16777216.0f) - 1.0f;
    }
    case GenKind::List: return k < a.size() ? float(a[size_t(k)]) : 0.0f;
    }
    return 0;
}

std::string fault_text(const wl::Fault& f) { return f.to_string(); }

static std::string fmt(float v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", double(v));
    return b;
}

RunReport run_kernel(const CompileResult& cr, const RunOptions& opt) {
    RunReport rep;
    if (!cr.ok() || cr.grid_w == 0) {
        rep.error = "the kernel did not compile (or has no layout)";
        return rep;
    }
    wl::MachineConfig mc = opt.machine;
    mc.w = cr.grid_w, mc.h = cr.grid_h;
    wl::Host host(mc);
    auto fail = [&](const wl::Fault& f) {
        rep.fault = f;
        rep.error = f.to_string();
        return rep;
    };
    for (const Placement& p : cr.placements) {
        if (wl::Fault f = host.machine().load(p.program, wl::Rect{p.x, p.y, p.w, p.h})) return fail(f);
        rep.pes_loaded += p.w * p.h;
    }
    for (const RouteSetting& r : cr.routes)
        if (wl::Fault f = host.route(r.x, r.y, r.colour, r.route)) return fail(f);
    for (const HostAction& a : cr.host) {
        switch (a.kind) {
        case HostKind::Fill: {
            uint64_t k = 0;
            for (int y = a.y; y < a.y + a.h; ++y)
                for (int x = a.x; x < a.x + a.w; ++x) {
                    const wl::Program* p = host.machine().program_at(x, y);
                    const wl::Symbol* s = p ? p->symbol(a.name) : nullptr;
                    if (!s) continue;   // sema checked
                    std::vector<uint32_t> words(s->length);
                    for (uint32_t e = 0; e < s->length; ++e, ++k) {
                        float v = fill_value(a.gen, a.args, k);
                        if (s->type == wl::ElemType::F32) std::memcpy(&words[e], &v, 4);
                        else words[e] = uint32_t(int32_t(v));
                    }
                    if (wl::Fault f = host.h2d_u32(x, y, a.name, words.data(), words.size())) return fail(f);
                }
            break;
        }
        case HostKind::Launch:
            if (wl::Fault f = host.launch(wl::Rect{a.x, a.y, a.w, a.h}, a.name)) return fail(f);
            break;
        case HostKind::Run: {
            wl::RunResult rr = host.run_until_quiescent(opt.cycle_budget);
            if (!rr.ok()) return fail(rr.fault);
            break;
        }
        case HostKind::Print:
            for (int y = a.y; y < a.y + a.h; ++y)
                for (int x = a.x; x < a.x + a.w; ++x) {
                    const wl::Program* p = host.machine().program_at(x, y);
                    const wl::Symbol* s = p ? p->symbol(a.name) : nullptr;
                    if (!s) continue;
                    std::vector<uint32_t> words(s->length);
                    if (wl::Fault f = host.d2h_u32(x, y, a.name, words.data(), words.size())) return fail(f);
                    std::vector<float> vals(words.size());
                    std::string line = a.name + " @ (" + std::to_string(x) + "," + std::to_string(y) + "):";
                    for (size_t e = 0; e < words.size(); ++e) {
                        float v;
                        if (s->type == wl::ElemType::F32) std::memcpy(&v, &words[e], 4);
                        else if (s->type == wl::ElemType::I32) v = float(int32_t(words[e]));
                        else v = float(words[e]);
                        vals[e] = v;
                        line += " " + (s->type == wl::ElemType::F32 ? fmt(v) : s->type == wl::ElemType::I32 ? std::to_string(int32_t(words[e])) : std::to_string(words[e]));
                    }
                    rep.values[a.name + "@" + std::to_string(x) + "," + std::to_string(y)] = std::move(vals);
                    rep.output.push_back(std::move(line));
                }
            break;
        }
    }
    rep.ok = true;
    rep.stats = host.stats();
    rep.cycles = rep.stats.cycles;
    const wl::Machine& m = host.machine();
    rep.busy_per_pe.assign(size_t(cr.grid_w * cr.grid_h), 0);
    rep.link_out_per_pe.assign(size_t(cr.grid_w * cr.grid_h) * 4, 0);
    for (int y = 0; y < cr.grid_h; ++y)
        for (int x = 0; x < cr.grid_w; ++x) {
            rep.busy_per_pe[size_t(y * cr.grid_w + x)] = m.core(x, y).stats.busy;
            const wl::RouterStats& rs = m.router(x, y).stats;
            for (int p = 0; p < 4; ++p) {
                rep.link_wavelets += rs.out[p];
                rep.link_out_per_pe[size_t(y * cr.grid_w + x) * 4 + size_t(p)] = rs.out[p];
            }
        }
    if (rep.cycles && rep.pes_loaded) rep.utilisation = double(rep.stats.busy) / (double(rep.cycles) * rep.pes_loaded);
    return rep;
}

}  // namespace wl::lang
