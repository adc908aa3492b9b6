// fnv.h: FNV-1a, 64-bit — the checksum the determinism tests compare between
// runs and between the native and the WASM build.
#pragma once
#include <cstddef>
#include <cstdint>

namespace wl {

struct Fnv1a {
    uint64_t h = 0xcbf29ce484222325ull;
    void add(const void* p, size_t n) {
        const uint8_t* b = static_cast<const uint8_t*>(p);
        for (size_t i = 0; i < n; ++i) {
            h ^= b[i];
            h *= 0x100000001b3ull;
        }
    }
    uint64_t value() const { return h; }
};

}  // namespace wl
