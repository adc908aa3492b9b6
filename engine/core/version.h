// version.h: the engine's version string, the same in every build.
#pragma once

namespace wl {
const char* version();
}
