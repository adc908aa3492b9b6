// thousands.h: a count as people read it, its digits grouped by commas (61440 -> "61,440").
#pragma once
#include <cstdint>
#include <string>

namespace wl {

inline std::string thousands(uint64_t v) {
    std::string s = std::to_string(v);
    for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(size_t(i), ",");
    return s;
}

}  // namespace wl
