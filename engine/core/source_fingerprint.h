// source_fingerprint.h: a hash of every engine source file (its path and its bytes), made at
// build time (engine/core/source_fingerprint.cmake). Anything the engine writes that is valid
// only for the code that wrote it, such as a compiled model executable in the plan cache,
// carries it: a rebuilt compiler with an edited tiling rule then misses instead of loading an
// executable the new code would not make. (The engine version, version.h, changes only at a
// release.)
#pragma once

namespace wl {
const char* source_fingerprint();   // 16 hex digits
}
