// vector_ops.h: what each vector op does to one element, written once.
// The CE's memory loops and its fabric loops (cycle mode and fast mode) all
// call vec_elem<O>; the scalar FMAX uses the same maxNum. FSUMS, a reduction
// into a register, is the one vector op with its own loop shape.
//
//   vec_dispatch(op, [&](auto O) { ... vec_elem<O()>(x, y, s) ... });
#pragma once
#include "engine/core/wl_math.h"
#include "engine/fabric/isa.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace wl {

// A register's bits as a float, and back.
inline float f32(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
inline uint32_t u32(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }

// FMACS's element, also on GCC vectors of floats (fast mode's fmacs loop): a multiply, then an
// add, each rounded (-ffp-contract=off keeps them apart).
template <class T>
inline T fmacs_elem(T x, T y, T s) { return x + y * s; }

// Element ops: the Vec1, Vec2, Vec1S and Vec2S rows of WL_ISA. x = dB[i], y = dC[i], s = rD.
template <Op O>
inline float vec_elem(float x, float y, float s) {
    (void)y, (void)s;
    if constexpr (O == Op::FMACS) return fmacs_elem(x, y, s);
    else if constexpr (O == Op::FADDS) return x + y;
    else if constexpr (O == Op::FSUBS) return x - y;
    else if constexpr (O == Op::FMULS) return x * y;
    else if constexpr (O == Op::FMAXS) return (x > y || y != y) ? x : y;   // a NaN operand loses (IEEE maxNum)
    else if constexpr (O == Op::FMOVS) return x;
    else if constexpr (O == Op::FNEGS) return -x;
    else if constexpr (O == Op::FSCALES) return x * s;
    else if constexpr (O == Op::FSHIFTS) return x + s;
    else if constexpr (O == Op::FEXPS) return math::expf(x);
    else if constexpr (O == Op::FRSQRTS) return math::rsqrtf(x);
    else if constexpr (O == Op::FTANHS) return math::tanhf(x);
    else if constexpr (O == Op::FLOGS) return math::logf(x);
    else if constexpr (O == Op::FSQRTS) return float(std::sqrt(double(x)));   // correctly rounded, as fsqrt's
    else if constexpr (O == Op::FDIVS) return x / y;
    else static_assert(O == Op::FMACS, "an element-wise vector op in WL_ISA has no vec_elem formula");
}

// FP operations per element of each vector op, beside its formula: what CoreStats::flops counts
// and the GPU comparison models. fmacs is a multiply and an add; fmovs, a copy, does none; every
// other op one (a transcendental counts as one operation, as GPU FLOP counts do).
constexpr uint32_t vec_flops_per_elem(Op op) {
    return op == Op::FMACS ? 2 : op == Op::FMOVS ? 0 : op_is_vector_fmt(op_fmt(op)) ? 1 : 0;
}

constexpr bool fmt_elementwise(Fmt f) { return f == Fmt::Vec1 || f == Fmt::Vec2 || f == Fmt::Vec1S || f == Fmt::Vec2S; }
constexpr bool fmt_two_sources(Fmt f) { return f == Fmt::Vec2 || f == Fmt::Vec2S; }

// Calls f(std::integral_constant<Op, O>{}) for the element-wise op `op`; returns false for any other op.
template <class F>
inline bool vec_dispatch(Op op, F&& f) {
    switch (op) {
#define WL_X(name, mn, fmt, base, per, kind, rd, wr, doc)                                   \
    case Op::name:                                                            \
        if constexpr (fmt_elementwise(Fmt::fmt)) {                            \
            f(std::integral_constant<Op, Op::name>{});                        \
            return true;                                                      \
        } else {                                                              \
            return false;                                                     \
        }
        WL_ISA(WL_X)
#undef WL_X
    default: return false;
    }
}

}  // namespace wl
