// simd.h: which SIMD copy of the hot kernels runs (the GPT's matmul, attention and vecmath; fast
// mode's tile kernel, engine/fabric/fmacs_tile.h). Chosen from the CPU at start-up; tests force
// each level to prove they give the same bits.
#pragma once

namespace wl {

enum class Simd { Generic = 0, Avx2 = 1, Avx512 = 2 };   // Generic: plain C++ vectors (SSE2 on x86, SIMD128 in WASM)

Simd simd_level();
bool set_simd_level(Simd s);     // false (and no change) when this CPU lacks it
const char* simd_name(Simd s);   // "generic" | "avx2" | "avx512"
// The level named (a simd_name) if this CPU has it: "" once set, else why not.
const char* use_simd(const char* name);

}  // namespace wl
