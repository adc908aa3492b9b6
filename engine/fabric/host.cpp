// host.cpp: the host runtime — symbol lookup and bounds checks around Machine.
#include "engine/fabric/host.h"

#include <memory>

namespace wl {

Fault Host::load(const Program& p, Rect r) { return m_.load(std::make_shared<const Program>(p), r); }

Fault Host::route(Rect r, int colour, const Route& route) {
    for (int y = r.y; y < r.y + r.h; ++y)
        for (int x = r.x; x < r.x + r.w; ++x)
            if (Fault f = m_.set_route(x, y, colour, route)) return f;
    return {};
}

Fault Host::symbol_offset(int x, int y, const std::string& sym, size_t n, size_t first, uint32_t* offset) const {
    const Program* p = m_.program_at(x, y);
    if (!p) return host_error(x, y, "no program loaded on this PE");
    const Symbol* s = p->symbol(sym);
    if (!s) return host_error(x, y, "no symbol '" + sym + "' in program " + p->name);
    if (!s->exported) return host_error(x, y, "symbol '" + sym + "' is not exported");
    if (first + n > s->length)
        return host_error(x, y, "'" + sym + "' has " + std::to_string(s->length) + " elements; asked for " + std::to_string(first) + ".." +
                                    std::to_string(first + n));
    *offset = s->offset + uint32_t(first * 4);
    return {};
}

Fault Host::h2d(int x, int y, const std::string& sym, const float* src, size_t n, size_t first) {
    uint32_t off;
    if (Fault f = symbol_offset(x, y, sym, n, first, &off)) return f;
    return m_.write(x, y, off, src, n * 4);
}
Fault Host::d2h(int x, int y, const std::string& sym, float* dst, size_t n, size_t first) const {
    uint32_t off;
    if (Fault f = symbol_offset(x, y, sym, n, first, &off)) return f;
    return m_.read(x, y, off, dst, n * 4);
}
Fault Host::h2d_u32(int x, int y, const std::string& sym, const uint32_t* src, size_t n, size_t first) {
    uint32_t off;
    if (Fault f = symbol_offset(x, y, sym, n, first, &off)) return f;
    return m_.write(x, y, off, src, n * 4);
}
Fault Host::d2h_u32(int x, int y, const std::string& sym, uint32_t* dst, size_t n, size_t first) const {
    uint32_t off;
    if (Fault f = symbol_offset(x, y, sym, n, first, &off)) return f;
    return m_.read(x, y, off, dst, n * 4);
}

Fault Host::h2d_rect(Rect r, const std::string& sym, const std::vector<float>& data) {
    size_t pes = size_t(r.w) * size_t(r.h);
    if (pes == 0 || data.size() % pes) return host_error(r.x, r.y, "h2d_rect: data size is not a multiple of the PE count");
    size_t per = data.size() / pes, k = 0;
    for (int y = r.y; y < r.y + r.h; ++y)
        for (int x = r.x; x < r.x + r.w; ++x, ++k)
            if (Fault f = h2d(x, y, sym, data.data() + k * per, per)) return f;
    return {};
}

Fault Host::d2h_rect(Rect r, const std::string& sym, std::vector<float>* out, size_t per_pe) const {
    const Program* p = m_.program_at(r.x, r.y);
    if (!p) return host_error(r.x, r.y, "no program loaded on this PE");
    const Symbol* s = p->symbol(sym);
    if (!s) return host_error(r.x, r.y, "no symbol '" + sym + "'");
    size_t per = per_pe ? per_pe : s->length, k = 0;
    out->assign(per * size_t(r.w) * size_t(r.h), 0.0f);
    for (int y = r.y; y < r.y + r.h; ++y)
        for (int x = r.x; x < r.x + r.w; ++x, ++k)
            if (Fault f = d2h(x, y, sym, out->data() + k * per, per)) return f;
    return {};
}

Fault Host::launch(Rect r, const std::string& fn) {
    for (int y = r.y; y < r.y + r.h; ++y)
        for (int x = r.x; x < r.x + r.w; ++x) {
            const Program* p = m_.program_at(x, y);
            if (!p) return host_error(x, y, "launch: no program loaded on this PE");
            int f = p->function_index(fn);
            if (f < 0) return host_error(x, y, "launch: no function '" + fn + "'");
            if (Fault e = m_.launch(x, y, f)) return e;
        }
    return {};
}

}  // namespace wl
