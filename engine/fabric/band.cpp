// band.cpp: the rows each band owns, and faults and stuck reports as a BandLink's bytes.
#include "engine/fabric/band.h"

#include "engine/core/byte_io.h"

#include <algorithm>

namespace wl {

Band band_of(int rank, int ranks, int h) {
    const int base = h / ranks, extra = h % ranks;
    Band b;
    b.y0 = rank * base + std::min(rank, extra);
    b.y1 = b.y0 + base + (rank < extra ? 1 : 0);
    return b;
}

int band_holding(int y, int ranks, int h) {
    int r = 0;
    while (r + 1 < ranks && band_of(r + 1, ranks, h).y0 <= y) r++;
    return r;
}

static void put_stuck(ByteWriter& w, const std::vector<Stuck>& st) {
    w.u32(uint32_t(st.size()));
    for (const Stuck& s : st) {
        w.u8(uint8_t(s.kind));
        for (int v : {s.x, s.y, s.colour, s.task, s.port}) w.i32(v);
        w.u32(s.count);
        w.str(s.where);
        w.str(s.what);
    }
}

static std::vector<Stuck> get_stuck(ByteReader& r) {
    std::vector<Stuck> st(r.count("stuck places", 30));
    for (Stuck& s : st) {
        s.kind = StuckKind(r.u8("stuck kind"));
        for (int* v : {&s.x, &s.y, &s.colour, &s.task, &s.port}) *v = r.i32("stuck field");
        s.count = r.u32("stuck count");
        s.where = r.str("stuck where");
        s.what = r.str("stuck what");
    }
    return st;
}

std::string fault_bytes(const Fault& f) {
    ByteWriter w;
    w.u8(uint8_t(f.kind));
    for (int v : {f.x, f.y, f.colour, f.task, int(f.loc.file), int(f.loc.line), int(f.loc.col)}) w.i32(v);
    w.str(f.where);
    w.u64(f.cycle);
    w.str(f.message);
    put_stuck(w, f.stuck);
    return w.take();
}

Fault fault_from_bytes(const std::string& b) {
    ByteReader r(b);
    Fault f;
    f.kind = FaultKind(r.u8("fault kind"));
    for (int* v : {&f.x, &f.y, &f.colour, &f.task}) *v = r.i32("fault field");
    f.loc.file = r.i32("fault file"), f.loc.line = r.i32("fault line"), f.loc.col = r.i32("fault col");
    f.where = r.str("fault where");
    f.cycle = r.u64("fault cycle");
    f.message = r.str("fault message");
    f.stuck = get_stuck(r);
    return f;
}

std::string stuck_bytes(const std::vector<Stuck>& st) {
    ByteWriter w;
    put_stuck(w, st);
    return w.take();
}

std::vector<Stuck> stuck_from_bytes(const std::string& b) {
    ByteReader r(b);
    return get_stuck(r);
}

}  // namespace wl
