// mesh.h: the shape of the emulated wafer — a W×H grid of processing elements.
// Placeholder until the fabric lands: the canvas and the JS hook read it.
#pragma once
#include <cstdint>

namespace wl {

struct Mesh {
    int w = 8, h = 8;   // PEs across (x, east) and down (y, south)

    bool contains(int x, int y) const { return x >= 0 && y >= 0 && x < w && y < h; }
    int index(int x, int y) const { return y * w + x; }     // row-major PE id
    int size() const { return w * h; }
};

}  // namespace wl
