// mesh.h: the shape of the emulated wafer — a W×H grid of processing elements.
// Machine::mesh() gives a machine's; the default size is MachineConfig's (machine.h).
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

namespace wl {

struct Mesh {
    int w = 0, h = 0;   // PEs across (x, east) and down (y, south)

    bool contains(int x, int y) const { return x >= 0 && y >= 0 && x < w && y < h; }
    int index(int x, int y) const { return y * w + x; }     // row-major PE id
    int size() const { return w * h; }
};

constexpr int kMaxMeshSide = 256;   // PEs on a side: the kernel language's grids and the model compiler's meshes

// "32x32" -> {32, 32}: how the CLI, the JS hook and the app write a mesh. False for anything
// else, a side outside 1..kMaxMeshSide included.
inline bool parse_mesh(const std::string& s, Mesh* out) {
    int w = 0, h = 0;
    char tail = 0;
    if (std::sscanf(s.c_str(), "%dx%d%c", &w, &h, &tail) != 2) return false;
    if (w < 1 || h < 1 || w > kMaxMeshSide || h > kMaxMeshSide) return false;
    *out = {w, h};
    return true;
}

}  // namespace wl
