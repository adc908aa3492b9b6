// map_rule.h: what a `map` may issue. `map i in a..b { op(...); }` is one vector op issued b - a
// times by the map instruction (isa.h), as the hardware issues CSL's @map: the operands are set up
// once, for the first pass, and each pass steps them by a constant, so the body is one synchronous
// vector op on memory whose mem() offsets are c * i + (what does not read i), and whose scalar is a
// value that does not read i or an element a[c * i + ...] of an f32 array. The checker holds a map
// to this rule; the code generator reads the steps.
#pragma once
#include "engine/lang/ast.h"

#include <cstdint>
#include <functional>
#include <string>

namespace wl::lang {

// What breaks the rule in map statement s (its body checked and typed), and where; "" if nothing.
std::string map_error(const Stmt& s, const Expr** where);

// e = c * i + (what does not read i), c from the compile-time constants konst gives: *c (wrapping).
// False if e reads i otherwise.
bool map_step(const Expr& e, const Sym* i, const std::function<int32_t(const Expr&)>& konst, uint32_t* c);

}  // namespace wl::lang
