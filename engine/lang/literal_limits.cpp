// literal_limits.cpp: the range checks a number written in a kernel gets (literal_limits.h).
#include "engine/lang/literal_limits.h"

#include "engine/lang/checker.h"

#include <cfloat>
#include <cmath>

namespace wl::lang {

std::string f32_literal_problem(double v, bool underflowed) {
    if (std::fabs(v) >= double(FLT_MAX) + std::ldexp(1.0, 103))   // rounds to infinity in f32
        return "is out of range for f32 (largest 3.40282e+38)";
    if (underflowed || (v != 0 && float(v) == 0.0f))   // below a subnormal's half: the PE would hold 0
        return "is below f32's smallest (1.4e-45): it would be 0; write 0.0";
    return "";
}

std::string int_value_problem(double v, Ty t) {
    if (v != std::trunc(v)) return std::string("is not an integer: ") + ty_name(t) + " holds whole numbers";
    if (!detail::int_fits(t, v)) return std::string("does not fit in ") + ty_name(t) + " " + detail::int_range(t);
    return "";
}

}  // namespace wl::lang
