// mesh.h: the shape of the emulated wafer — a W×H grid of processing elements.
// Machine::mesh() gives a machine's; the default size is MachineConfig's (machine.h).
#pragma once
#include "engine/core/parse_number.h"
#include "engine/fabric/wafer.h"

#include <cstdint>
#include <string>

namespace wl {

struct Mesh {
    int w = 0, h = 0;   // PEs across (x, east) and down (y, south)

    bool contains(int x, int y) const { return x >= 0 && y >= 0 && x < w && y < h; }
    int index(int x, int y) const { return y * w + x; }     // row-major PE id
    int size() const { return w * h; }
};

constexpr int kMaxMeshSide = 256;   // PEs on a side: the model compiler's meshes and the app's
// A kernel's grid: up to a whole wafer on each side (the WSE-3's fabric is the largest, wafer.h),
// as large as memory allows (a Machine refuses what does not fit, with its size).
constexpr int kMaxGridSide = kWse3GridH;

// "32x32" -> {32, 32}: how the CLI, the JS hook and the app write a mesh. False for anything
// else, a side outside 1..kMaxMeshSide included (each side read whole, so 4294967328x32 is not 32x32).
inline bool parse_mesh(const std::string& s, Mesh* out) {
    const size_t x = s.find('x');
    if (x == std::string::npos) return false;
    long long w = 0, h = 0;
    const NumberRange side = NumberRange::closed(1, kMaxMeshSide);
    if (!parse_integer(std::string_view(s).substr(0, x), side, &w).empty() ||
        !parse_integer(std::string_view(s).substr(x + 1), side, &h).empty())
        return false;
    *out = {int(w), int(h)};
    return true;
}

// What parse_mesh wants, and the text it was given (cut: quote_prefix), for every refusal's words.
inline std::string mesh_error(const std::string& s) {
    return "expects WxH, each 1.." + std::to_string(kMaxMeshSide) + " (as in 32x32), got " + quote_prefix(s);
}

}  // namespace wl
