// sourced.h: a published figure and where it comes from, as the docs and the app show it.
#pragma once
#include <string>

namespace wl {

struct Sourced {
    std::string what, value, source;
};

}  // namespace wl
