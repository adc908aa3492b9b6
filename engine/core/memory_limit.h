// memory_limit.h: how many bytes one allocation plan may ask of this machine: 2 GiB in a
// 32-bit build (WebAssembly's address space), the physical memory natively (or the process's
// address-space limit, `ulimit -v`, when that is less). Readers size
// what a file or a key asks for against it before allocating, and name both in the error.
#pragma once
#include <cstdint>
#include <string>

namespace wl {

uint64_t host_memory_limit();
std::string byte_size_text(double bytes);   // "1.5 GiB", "12.0 TiB"

}  // namespace wl
