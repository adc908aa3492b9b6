// literal_limits.cpp: the range checks a number written in a kernel gets (literal_limits.h).
#include "engine/lang/literal_limits.h"

#include "engine/lang/checker.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

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

std::string leading_zero_problem(std::string_view text) {
    const std::string sign = !text.empty() && text[0] == '-' ? "-" : "";
    const std::string_view digits = text.substr(sign.size());
    if (digits.size() < 2 || digits[0] != '0' || digits.find_first_not_of("0123456789") != std::string_view::npos) return "";
    const std::string_view rest = digits.substr(std::min(digits.find_first_not_of('0'), digits.size() - 1));   // 000: 0
    std::string why = "has a leading 0, which is not octal here: write " + shown(sign + std::string(rest));
    // What C would have read, where it reads one (octal digits, 32 bits) and it is another number (010 up).
    if (rest.find_first_of("89") == std::string_view::npos && rest.size() <= 11) {
        const unsigned long long v = std::stoull(std::string(rest), nullptr, 8);
        char hex[24];
        std::snprintf(hex, sizeof hex, "0x%llX", v);
        if (v >= 8 && v <= 0xffffffffull) why += ", or " + sign + hex + " for C's octal " + shown(text);
    }
    return why;
}

}  // namespace wl::lang
