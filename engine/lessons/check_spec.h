// check_spec.h: what a lesson's check.txt asks of a kernel, parsed. The format is one
// directive a line (lessons/README.md documents it):
//
//   expect y @ (3,0): 2 4 6 8      a line the host block must print (values within tolerance)
//   when-wrong look at the route at (3,0)    advice shown when the expect line above fails
//   tolerance 1e-5                 |got - want| <= tol * max(1, |want|)   (default 1e-5)
//   cycles 120                     the cycle budget: at most this many cycles
//   pes 2                          exactly this many PEs run a program
//   hint Start from the loop.      shown one at a time, in file order
//
// A run that faults never passes. Bad directives are errors naming file:line.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wl::lessons {

struct ExpectLine {
    std::string symbol;            // "y"
    int x = 0, y = 0;              // the PE
    std::vector<double> values;
    std::string when_wrong;        // advice for this line, "" if none
    int line = 0;                  // in check.txt
};

struct CheckSpec {
    std::vector<ExpectLine> expects;
    double tolerance = 1e-5;
    uint64_t cycle_budget = 0;     // 0: no budget
    int pes = 0;                   // 0: any number
    std::vector<std::string> hints;
};

struct SpecError {
    int line = 0;
    std::string message;
};

// Parses check.txt; `errors` gets one entry per bad line (the rest still parses).
CheckSpec parse_check_spec(std::string_view text, std::vector<SpecError>* errors);

// The key RunReport::values uses for a printed PE: "y@3,0".
std::string value_key(const std::string& symbol, int x, int y);

}  // namespace wl::lessons
