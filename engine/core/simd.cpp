// simd.cpp: see simd.h.
#include "engine/core/simd.h"

#include <cstring>
#include <initializer_list>

namespace wl {

namespace {

bool supported(Simd s) {
    if (s == Simd::Generic) return true;
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
    __builtin_cpu_init();
    if (s == Simd::Avx2) return __builtin_cpu_supports("avx2");
    if (s == Simd::Avx512) return __builtin_cpu_supports("avx512f");
#endif
    return false;
}

Simd detect() {
    if (supported(Simd::Avx512)) return Simd::Avx512;
    if (supported(Simd::Avx2)) return Simd::Avx2;
    return Simd::Generic;
}

Simd g_level = detect();

}  // namespace

Simd simd_level() { return g_level; }

bool set_simd_level(Simd s) {
    if (!supported(s)) return false;
    g_level = s;
    return true;
}

const char* simd_name(Simd s) { return s == Simd::Avx512 ? "avx512" : s == Simd::Avx2 ? "avx2" : "generic"; }

const char* use_simd(const char* name) {
    for (Simd s : {Simd::Generic, Simd::Avx2, Simd::Avx512})
        if (std::strcmp(name, simd_name(s)) == 0) return set_simd_level(s) ? "" : "this CPU (or this build) lacks that level";
    return "unknown SIMD level: one of generic, avx2, avx512";
}

}  // namespace wl
