// memory_limit.cpp: see memory_limit.h.
#include "engine/core/memory_limit.h"

#include <algorithm>
#include <cstdio>
#include <sys/resource.h>
#include <unistd.h>

namespace wl {

uint64_t host_memory_limit() {
    if (sizeof(void*) == 4) return uint64_t(2) << 30;
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    uint64_t limit = pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : uint64_t(16) << 30;
    struct rlimit as {};   // a process held to less (ulimit -v) is allowed that
    if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) limit = std::min<uint64_t>(limit, uint64_t(as.rlim_cur));
    return limit;
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
