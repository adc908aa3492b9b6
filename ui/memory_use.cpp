// memory_use.cpp: see memory_use.h.
#include "ui/memory_use.h"

#include "engine/core/memory_limit.h"

#include <malloc.h>

#ifdef __EMSCRIPTEN__
#include <cstdint>
#include <emscripten/heap.h>
#include <unistd.h>
#endif

namespace wlui {

MemoryUse memory_use() {
    MemoryUse m;
#ifdef __EMSCRIPTEN__
    // malloc grows the heap with sbrk: below the break lie the static data, the stack and malloc's
    // blocks, used or free (fordblks, the top of the heap included).
    const struct mallinfo mi = mallinfo();
    const uint64_t brk = uint64_t(reinterpret_cast<uintptr_t>(sbrk(0)));
    const uint64_t free_bytes = uint64_t(unsigned(mi.fordblks));
    m.ceiling = emscripten_get_heap_max();
    m.malloc_in_use = uint64_t(unsigned(mi.uordblks));
    m.in_use = brk > free_bytes ? brk - free_bytes : m.malloc_in_use;
    m.wasm_memory = uint64_t(__builtin_wasm_memory_size(0)) * 65536;
#else
    const struct mallinfo2 mi = mallinfo2();
    m.ceiling = wl::host_memory_limit();
    m.malloc_in_use = m.in_use = uint64_t(mi.uordblks);
#endif
    return m;
}

}  // namespace wlui
