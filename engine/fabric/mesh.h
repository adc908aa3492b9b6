// mesh.h: the shape of the emulated wafer — a W×H grid of processing elements.
// Machine::mesh() gives a machine's; the default size is MachineConfig's (machine.h).
#pragma once
#include <cstdint>

namespace wl {

struct Mesh {
    int w = 0, h = 0;   // PEs across (x, east) and down (y, south)

    bool contains(int x, int y) const { return x >= 0 && y >= 0 && x < w && y < h; }
    int index(int x, int y) const { return y * w + x; }     // row-major PE id
    int size() const { return w * h; }
};

}  // namespace wl
