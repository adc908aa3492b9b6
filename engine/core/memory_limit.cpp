// memory_limit.cpp: see memory_limit.h.
#include "engine/core/memory_limit.h"

#include <cstdio>
#include <unistd.h>

namespace wl {

uint64_t host_memory_limit() {
    if (sizeof(void*) == 4) return uint64_t(2) << 30;
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : uint64_t(16) << 30;
}

std::string byte_size_text(double bytes) {
    const char* unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int k = 0;
    while (bytes >= 1024 && k < 6) bytes /= 1024, ++k;
    char b[48];
    std::snprintf(b, sizeof b, k ? "%.1f %s" : "%.0f %s", bytes, unit[k]);
    return b;
}

}  // namespace wl
