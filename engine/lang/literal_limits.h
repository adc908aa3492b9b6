// literal_limits.h: what a number written as a kernel's literal may be. A literal in the file
// (lexer.cpp, parser.cpp) and a value given for a constant from outside it (CompileOptions::constants,
// compile.cpp; --const's text, cli/verb_run.cpp) get the same checks, so neither reaches the PE as a
// value nobody wrote.
#pragma once
#include "engine/lang/types.h"

#include <string>
#include <string_view>

namespace wl::lang {

// "" when f32 holds v; else the rest of the sentence after the number: "is out of range for f32
// (largest 3.40282e+38)" (it would round to infinity) or "is below f32's smallest (1.4e-45): it
// would be 0; write 0.0" (a non-zero that would round to 0). `underflowed`: the text's value was
// below even a double's smallest, so v is already 0.
std::string f32_literal_problem(double v, bool underflowed = false);

// "" when the integer type t (I32 or U32) holds v exactly; else "is not an integer: i32 holds whole
// numbers" or "does not fit in i32 (i32 holds -2147483648 to 2147483647)".
std::string int_value_problem(double v, Ty t);

// "" unless `text` is an integer written with a leading 0 (010, 08, 00): C reads 010 as octal 8, a
// reader as ten, so the language takes neither and says which to write. 0, 0x10 and the floats
// 09.5 and 010e2 are fine. An optional '-' first (a --const value). Else the rest of the sentence
// after the number: "has a leading 0, which is not octal here: write 10, or 0x8 for C's octal 010".
std::string leading_zero_problem(std::string_view text);

}  // namespace wl::lang
