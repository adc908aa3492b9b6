// run.cpp: the host driver described by a kernel's host block.
#include "engine/lang/run.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace wl::lang {

namespace {

// A fill's generator with its arguments read once, so a fill of many words is one tight loop.
struct FillGen {
    GenKind g;
    float start = 0, step = 1, value = 0;   // Iota, Value
    double exact_start = 0, exact_step = 1; // Iota, for integer symbols
    uint32_t seed = 0;                      // Random
    const std::vector<double>& list;        // List
    FillGen(GenKind kind, const std::vector<double>& a) : g(kind), list(a) {
        if (!a.empty()) start = float(a[0]), value = float(a[0]), seed = uint32_t(int64_t(a[0])), exact_start = a[0];
        if (a.size() > 1) step = float(a[1]), exact_step = a[1];
    }
    // An integer symbol's element, truncated. Not through float, which holds 24 bits: iota(2147483647, 1)
    // became 2^31 there, past i32, and int32_t() of it gave -2147483648. The checker refused what the
    // type does not hold (check_host.cpp); the clamp keeps the conversion defined all the same.
    uint32_t word(uint64_t k, wl::ElemType t) const {
        double v = g == GenKind::Iota ? exact_start + exact_step * double(k) : g == GenKind::Value ? exact_start
                 : g == GenKind::List ? (k < list.size() ? list[size_t(k)] : 0.0) : double((*this)(k));
        v = v == v ? std::trunc(v) : 0.0;
        if (t == wl::ElemType::U32) return uint32_t(std::clamp(v, 0.0, 4294967295.0));
        return uint32_t(int32_t(std::clamp(v, -2147483648.0, 2147483647.0)));
    }
    float operator()(uint64_t k) const {
        switch (g) {
        case GenKind::Iota: return start + step * float(k);
        case GenKind::Value: return value;
        case GenKind::Random: {
            // splitmix32-style hash of (seed, k): uniform in [-1, 1), same bits everywhere
            uint32_t h = seed * 0x9E3779B9u + uint32_t(k) * 0x85EBCA6Bu + 0x6A09E667u;
            h ^= h >> 16, h *= 0x7FEB352Du, h ^= h >> 15, h *= 0x846CA68Bu, h ^= h >> 16;
            return float(h >> 8) * (2.0f / 16777216.0f) - 1.0f;
        }
        case GenKind::List: return k < list.size() ? float(list[size_t(k)]) : 0.0f;
        }
        return 0;
    }
};

}  // namespace

float fill_value(GenKind g, const std::vector<double>& a, uint64_t k) { return FillGen(g, a)(k); }

// Appends printf's "%g" of v. std::to_chars with a precision is specified to write printf's text,
// at a tenth of glibc's cost (a 16x16 SUMMA prints 65,536 values: 107 M host instructions through
// snprintf), and its float overload at about 0.6 of its double one's. Emscripten 3.1.6's libc++
// has no floating-point to_chars: the web build keeps snprintf.
static void append_g(std::string& out, float v) {
    char b[32];
#if defined(__cpp_lib_to_chars)
    const std::to_chars_result r = std::to_chars(b, b + sizeof b, v, std::chars_format::general, 6);
    out.append(b, r.ptr);
#else
    std::snprintf(b, sizeof b, "%g", double(v));
    out += b;
#endif
}

static wl::MachineConfig machine_for(const CompileResult& cr, wl::MachineConfig mc) {
    mc.w = std::max(cr.grid_w, 1), mc.h = std::max(cr.grid_h, 1);
    return mc;
}

KernelRun::KernelRun(std::shared_ptr<const CompileResult> cr, const RunOptions& opt)
    : cr_(std::move(cr)), opt_(opt), host_(machine_for(*cr_, opt.machine)) {
    if (!cr_->ok()) {
        error_ = "the kernel did not compile (its errors say where)";
        return;
    }
    if (cr_->grid_w == 0) {
        error_ = "the kernel has no layout, so nothing is placed on the mesh to run (layout { grid W x H; place P at (x, y); })";
        return;
    }
    if (wl::Fault f = host_.machine().set_mode(opt.mode)) {
        fail(f);
        return;
    }
    if (opt.bands)
        if (wl::Fault f = host_.machine().split(opt.bands)) {
            fail(f);
            return;
        }
    for (const Placement& p : cr_->placements) {
        if (wl::Fault f = host_.machine().load(p.program, wl::Rect{p.x, p.y, p.w, p.h}, p.consts)) {
            fail(f);
            return;
        }
        pes_loaded_ += p.w * p.h;
    }
    for (const RouteSetting& r : cr_->routes)
        if (wl::Fault f = host_.route(r.x, r.y, r.colour, r.route)) {
            fail(f);
            return;
        }
}

void KernelRun::fail(const wl::Fault& f, const HostAction* at) {
    fault_ = f;
    // A host call's fault has no instruction: name the host statement that made it.
    if (at && fault_.where.empty()) {
        fault_.loc = wl::SrcLoc{-1, at->line, at->col};
        fault_.where = cr_->file + ":" + std::to_string(at->line) + ":" + std::to_string(at->col);
    }
    error_ = fault_.to_string();
}

uint64_t KernelRun::step(uint64_t max_cycles) {
    const uint64_t start = cycle();
    while (!done()) {
        const HostAction& a = cr_->host[next_];
        if (a.kind != HostKind::Run) {
            perform(a);
            if (ok()) ++next_;
            continue;
        }
        if (!in_run_) in_run_ = true, run_start_ = cycle();
        const uint64_t used = cycle() - start, spent = cycle() - run_start_;
        if (used >= max_cycles) break;
        if (spent >= opt_.cycle_budget) {
            fail(host_.machine().watchdog(opt_.cycle_budget));
            break;
        }
        wl::RunResult rr = host_.machine().advance(std::min(max_cycles - used, opt_.cycle_budget - spent));
        if (!rr.ok()) fail(rr.fault);
        else if (rr.status == wl::RunStatus::Quiescent) in_run_ = false, ++next_;
    }
    return cycle() - start;
}

void KernelRun::finish() {
    while (!done()) step(UINT64_MAX / 2);
}

void KernelRun::perform(const HostAction& a) {
    wl::Machine& m = host_.machine();
    switch (a.kind) {
    case HostKind::Fill: {
        const FillGen gen(a.gen, a.args);
        uint64_t k = 0;
        for (int y = a.y; y < a.y + a.h; ++y)
            for (int x = a.x; x < a.x + a.w; ++x) {
                const wl::Program* p = m.program_at(x, y);
                const wl::Symbol* s = p ? p->symbol(a.name) : nullptr;
                if (!s) continue;   // sema checked
                std::vector<uint32_t> words(s->length);
                if (s->type == wl::ElemType::F32) {
                    for (uint32_t e = 0; e < s->length; ++e, ++k) {
                        const float v = gen(k);
                        std::memcpy(&words[e], &v, 4);
                    }
                } else {
                    for (uint32_t e = 0; e < s->length; ++e, ++k) words[e] = gen.word(k, s->type);
                }
                if (wl::Fault f = host_.h2d_u32(x, y, a.name, words.data(), words.size())) return fail(f, &a);
                host_in_bytes_ += 4 * words.size();
            }
        break;
    }
    case HostKind::Launch:
        if (wl::Fault f = host_.launch(wl::Rect{a.x, a.y, a.w, a.h}, a.name)) return fail(f, &a);
        break;
    case HostKind::Run: break;   // step() runs it
    case HostKind::Print:
        for (int y = a.y; y < a.y + a.h; ++y)
            for (int x = a.x; x < a.x + a.w; ++x) {
                const wl::Program* p = m.program_at(x, y);
                const wl::Symbol* s = p ? p->symbol(a.name) : nullptr;
                if (!s) continue;
                if (output_truncated_ && values_kept_ + s->length > opt_.values_limit) continue;   // nothing left to keep
                std::vector<uint32_t> words(s->length);
                if (wl::Fault f = host_.d2h_u32(x, y, a.name, words.data(), words.size())) return fail(f, &a);
                host_out_bytes_ += 4 * words.size();
                const bool keep = values_kept_ + words.size() <= opt_.values_limit;
                std::vector<float> vals(keep ? words.size() : 0);
                std::string line = a.name + " @ (" + std::to_string(x) + "," + std::to_string(y) + "):";
                for (size_t e = 0; e < words.size(); ++e) {
                    float v;
                    if (s->type == wl::ElemType::F32) std::memcpy(&v, &words[e], 4);
                    else if (s->type == wl::ElemType::I32) v = float(int32_t(words[e]));
                    else v = float(words[e]);
                    if (keep) vals[e] = v;
                    if (output_truncated_ || line.size() > opt_.print_limit) continue;   // emit() cuts it
                    line += ' ';
                    if (s->type == wl::ElemType::F32) append_g(line, v);
                    else line += s->type == wl::ElemType::I32 ? std::to_string(int32_t(words[e])) : std::to_string(words[e]);
                }
                if (keep) values_kept_ += vals.size(), values_[a.name + "@" + std::to_string(x) + "," + std::to_string(y)] = std::move(vals);
                emit(std::move(line), a);
            }
        break;
    }
}

std::string print_truncated_notice(uint64_t limit) {
    return "... output truncated after " + std::to_string(limit) + " bytes (a host block prints at most that much)";
}

void KernelRun::emit(std::string line, const HostAction& a) {
    if (output_truncated_) return;
    const uint64_t room = opt_.print_limit - output_bytes_;
    if (line.size() > room) {
        line.resize(size_t(room));
        output_truncated_ = true;
    }
    output_bytes_ += line.size();
    if (!line.empty()) output_.push_back({std::move(line), a.line, a.col});
    if (output_truncated_) output_.push_back({print_truncated_notice(opt_.print_limit), a.line, a.col});
}

RunReport KernelRun::report() const {
    RunReport rep;
    rep.ok = done() && ok();
    rep.error = error_;
    rep.fault = fault_;
    for (const OutputLine& o : output_) rep.output.push_back(o.text);
    rep.values = values_;
    rep.pes_loaded = pes_loaded_;
    rep.host_in_bytes = host_in_bytes_;
    rep.host_out_bytes = host_out_bytes_;
    rep.output_truncated = output_truncated_;
    if (cr_->grid_w == 0) return rep;
    const wl::Machine& m = host_.machine();
    rep.stats = m.stats();
    rep.cycles = rep.stats.cycles;
    const int w = cr_->grid_w, h = cr_->grid_h;
    rep.busy_per_pe.assign(size_t(w * h), 0);
    rep.link_out_per_pe.assign(size_t(w * h) * 4, 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            rep.busy_per_pe[size_t(y * w + x)] = m.core(x, y).stats.busy;
            const wl::RouterStats& rs = m.router(x, y).stats;
            for (int p = 0; p < 4; ++p) {
                rep.link_wavelets += rs.out[p];
                rep.link_out_per_pe[size_t(y * w + x) * 4 + size_t(p)] = rs.out[p];
            }
        }
    if (rep.cycles && rep.pes_loaded) rep.utilisation = double(rep.stats.busy) / (double(rep.cycles) * rep.pes_loaded);
    return rep;
}

RunReport run_kernel(const CompileResult& cr, const RunOptions& opt) {
    KernelRun run(std::make_shared<const CompileResult>(cr), opt);
    run.finish();
    return run.report();
}

}  // namespace wl::lang
