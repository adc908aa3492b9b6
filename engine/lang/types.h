// types.h: WaferKernel's value types, shared by the syntax tree, the builtin
// table and the checker.
#pragma once
#include <cstdint>

namespace wl::lang {

enum class Ty : uint8_t { Error, Void, F32, I32, U32, Bool, Colour, Task, Dsd, Array, Fn };
const char* ty_name(Ty t);

}  // namespace wl::lang
