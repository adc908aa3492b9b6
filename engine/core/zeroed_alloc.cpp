// zeroed_alloc.cpp: see zeroed_alloc.h.
#include "engine/core/zeroed_alloc.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#ifdef __EMSCRIPTEN__
#include <unistd.h>   // sbrk(0): the heap's break
#else
#include <sys/mman.h>
#endif

namespace wl {

void* zeroed_alloc(size_t count, size_t size) {
    if (size && count > SIZE_MAX / size) return nullptr;   // refused here: a sanitiser's calloc aborts instead
#ifdef __EMSCRIPTEN__
    const size_t bytes = count * size;
    const uintptr_t brk = reinterpret_cast<uintptr_t>(sbrk(0));
    void* p = std::malloc(bytes);
    if (!p) return nullptr;
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    std::memset(p, 0, std::min(a + bytes, std::max(a, brk)) - a);   // [a, brk): memory that was handed out before
    return p;
#else
    const size_t bytes = std::max<size_t>(count * size, 1);
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
#endif
}

void zeroed_free(void* p, size_t count, size_t size) {
    if (!p) return;
#ifdef __EMSCRIPTEN__
    (void)count, (void)size;
    std::free(p);
#else
    munmap(p, std::max<size_t>(count * size, 1));
#endif
}

}  // namespace wl
