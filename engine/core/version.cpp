#include "engine/core/version.h"

namespace wl {
const char* version() { return WAFERLAB_VERSION; }
}
