// parse_number.cpp: see parse_number.h. std::from_chars for integers (exact, no locale, no
// wrap); strtod for reals, on a copy, after checking the text starts as a decimal number
// (strtod would skip spaces and take "nan", "inf" and hex).
#include "engine/core/parse_number.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace wl {

namespace {

// A bound as one types it: integers whole (a seed's 9007199254740991, not 9.00719925474099e+15).
std::string num(double v) {
    char b[40];
    if (v == std::floor(v) && std::fabs(v) <= 9007199254740992.0) std::snprintf(b, sizeof b, "%.0f", v);
    else std::snprintf(b, sizeof b, "%.15g", v);
    return b;
}

}  // namespace

std::string NumberRange::text() const {
    const bool has_lo = lo > -std::numeric_limits<double>::infinity(), has_hi = hi < std::numeric_limits<double>::infinity();
    if (has_lo && has_hi) {
        if (!lo_open && !hi_open) return num(lo) + ".." + num(hi);
        return std::string(lo_open ? "(" : "[") + num(lo) + ", " + num(hi) + (hi_open ? ")" : "]");
    }
    if (has_lo) return (lo_open ? "> " : ">= ") + num(lo);
    if (has_hi) return (hi_open ? "< " : "<= ") + num(hi);
    return "any";
}

// " in 1..256", " >= 0", "" (no bound): what follows "an integer" or "a number".
static std::string bounds_words(const NumberRange& r) {
    if (!r.bounded()) return "";
    const bool both = r.lo > -std::numeric_limits<double>::infinity() && r.hi < std::numeric_limits<double>::infinity();
    return (both ? " in " : " ") + r.text();
}

std::string parse_integer(std::string_view text, const NumberRange& r, long long* out) {
    const std::string want = "an integer" + bounds_words(r);
    long long v = 0;
    const char* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, v, 10);
    if (text.empty() || ec != std::errc() || p != end || !r.contains(double(v))) return want;
    *out = v;
    return "";
}

std::string parse_u64(std::string_view text, uint64_t* out) {
    uint64_t v = 0;
    const char* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, v, 10);
    if (text.empty() || ec != std::errc() || p != end) return "an integer in 0..18446744073709551615";
    *out = v;
    return "";
}

std::string parse_real(std::string_view text, const NumberRange& r, double* out) {
    const std::string want = r.bounded() ? "a number" + bounds_words(r) : "a finite number";
    size_t k = text.size() > 0 && text[0] == '-' ? 1 : 0;   // a sign only if negative, as parse_integer (from_chars) reads
    if (k >= text.size() || !(std::isdigit((unsigned char)text[k]) || text[k] == '.')) return want;
    if (text.size() > 1 && text[k] == '0' && k + 1 < text.size() && (text[k + 1] == 'x' || text[k + 1] == 'X')) return want;
    const std::string s(text);
    char* e = nullptr;
    errno = 0;
    const double v = std::strtod(s.c_str(), &e);
    // Past the largest double strtod gives infinity (refused); below the smallest normal it gives
    // the nearest subnormal or 0 with ERANGE, which is still the number's value (1e-320 is in 0..100).
    if (*e || !std::isfinite(v) || !r.contains(v)) return want;
    *out = v;
    return "";
}

std::string integer_or_why(std::string_view text, const NumberRange& r, long long* out) {
    const std::string want = parse_integer(text, r, out);
    return want.empty() ? "" : "expects " + want + ", got " + quote_prefix(text);
}

std::string real_or_why(std::string_view text, const NumberRange& r, double* out) {
    const std::string want = parse_real(text, r, out);
    return want.empty() ? "" : "expects " + want + ", got " + quote_prefix(text);
}

std::string quote_prefix(std::string_view text, size_t keep) {
    if (text.size() <= keep) return "'" + std::string(text) + "'";
    return "'" + std::string(text.substr(0, keep)) + "...' (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace wl
