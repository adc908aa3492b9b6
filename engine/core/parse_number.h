// parse_number.h: the one parser for every number a user types: the CLI's flags, --set and the
// config files' keys (engine/gpt/gpt_config.h), a mesh's "WxH". The whole text is the number, in
// the exact type, inside a stated range: no wrap ("4294967328" is not 32), no NaN or infinity,
// no trailing words. Each parser returns "" or what was wanted, for the caller to name the key:
//
//   --budget expects an integer in 1..1000000000000, got '-1'
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace wl {

// A range of numbers, each end closed or open; an end at infinity is no bound.
struct NumberRange {
    double lo = -std::numeric_limits<double>::infinity();
    double hi = std::numeric_limits<double>::infinity();
    bool lo_open = false, hi_open = false;

    bool contains(double v) const { return (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi); }
    bool bounded() const { return lo > -std::numeric_limits<double>::infinity() || hi < std::numeric_limits<double>::infinity(); }
    std::string text() const;   // "1..256", ">= 0", "> 0", "[0, 1)", "(0, 1)"

    static constexpr NumberRange closed(double lo, double hi) { return {lo, hi, false, false}; }
    static constexpr NumberRange at_least(double lo) { return {lo, std::numeric_limits<double>::infinity(), false, false}; }
    static constexpr NumberRange above(double lo) { return {lo, std::numeric_limits<double>::infinity(), true, false}; }
    static constexpr NumberRange half_open(double lo, double hi) { return {lo, hi, false, true}; }   // [lo, hi)
    static constexpr NumberRange open(double lo, double hi) { return {lo, hi, true, true}; }
    static constexpr NumberRange any() { return {}; }
};



// All of `text` as a decimal integer (an optional '-') inside `r`. "" or "an integer in 1..256".
std::string parse_integer(std::string_view text, const NumberRange& r, long long* out);
// All of `text` as a decimal integer in 0..2^64-1 (seeds). "" or "an integer in 0..18446744073709551615".
std::string parse_u64(std::string_view text, uint64_t* out);
// All of `text` as a finite decimal number inside `r` (1e-3, .5, -2). "" or "a number in [0, 1)".
std::string parse_real(std::string_view text, const NumberRange& r, double* out);

// The same, worded for a message after the key or flag's name: "" or "expects an integer in
// 1..256, got '4294967328'" (the CLI's flags, a lesson's check.txt).
std::string integer_or_why(std::string_view text, const NumberRange& r, long long* out);
std::string real_or_why(std::string_view text, const NumberRange& r, double* out);

// `text` quoted for a message, cut to its first `keep` bytes with the size said:
// 'abc' or 'aaaaaaaa...' (52428800 bytes). A 50 MB value must not become 50 MB of stderr.
std::string quote_prefix(std::string_view text, size_t keep = 40);

}  // namespace wl
