// dsd.h: data structure descriptors — how a vector op walks its operands.
// mem1d: SRAM from a base byte address, n elements, a stride in elements.
// fabin / fabout: n wavelets from / to a colour (the CE's input queue / ramp).
#pragma once
#include <cstdint>

namespace wl {

enum class DsdKind : uint8_t { None, Mem1d, FabIn, FabOut };

struct Dsd {
    DsdKind kind = DsdKind::None;
    uint8_t colour = 0;           // FabIn / FabOut
    int16_t stride = 1;           // Mem1d, elements (may be 0 or negative)
    uint32_t base = 0;            // Mem1d, byte address
    uint32_t length = 0;          // elements
};
static_assert(sizeof(Dsd) == 12, "DSD registers are part of the per-PE budget");

}  // namespace wl
