// zeroed_alloc.h: calloc for large blocks (a mesh's SRAM) that leaves memory known to be zero
// untouched. Natively the block is its own anonymous mapping, its pages committed on first touch
// and not reserved up front (MAP_NORESERVE): a whole wafer's 37 GB of SRAM may be asked for on a
// machine with less, and costs what the kernel touches (docs/scale.md).
// Emscripten's dlmalloc has no mmap, so its calloc clears every byte, and in a browser the first
// touch of each page of fresh WebAssembly memory is slow: loading a 64x64 SUMMA (192 MiB of SRAM)
// took 3.7 s in Chromium, against 0.15 s the second time in the same page. The heap's break never
// moves down there (dlmalloc is built with MORECORE_CANNOT_TRIM) and memory.grow gives zeros, so
// memory at or above the break before the allocation has never been written: only the part of the
// block below it is cleared.
#pragma once
#include <cstddef>

namespace wl {

void* zeroed_alloc(size_t count, size_t size);   // as calloc: nullptr if it fails or count * size overflows
void zeroed_free(void* p, size_t count, size_t size);   // a block zeroed_alloc(count, size) gave (nullptr: nothing)

}  // namespace wl
