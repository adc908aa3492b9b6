// memory_use.h: how much memory the app may hold, and holds now. In a browser tab that is the
// module's WebAssembly memory, which grows on demand up to the build's MAXIMUM_MEMORY
// (ui/CMakeLists.txt: 4 GiB, less one 64 KiB page) and never shrinks; natively the machine's
// (wl::host_memory_limit()). What the Model window checks llm.c's weights against before it reads
// them (ModelSession::check_llmc), and what memory() returns to scripts (`make soak`'s leak check).
#pragma once
#include <cstdint>

namespace wlui {

struct MemoryUse {
    uint64_t ceiling = 0;         // the most the app may hold
    uint64_t in_use = 0;          // held now: malloc's blocks, and on the web the static data and the stack below them
    uint64_t malloc_in_use = 0;   // malloc's blocks alone
    uint64_t wasm_memory = 0;     // the WebAssembly memory's size now, its high-water mark (0 natively)
    uint64_t available() const { return ceiling > in_use ? ceiling - in_use : 0; }
};

MemoryUse memory_use();

}  // namespace wlui
