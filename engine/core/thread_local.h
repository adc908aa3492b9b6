// thread_local.h: WL_THREAD_LOCAL, C++'s thread_local natively. The web build runs one thread, and
// with bulk memory on (CMakeLists.txt) WebAssembly's thread-local storage would need the atomics
// feature, so there it is a plain global.
#pragma once

#ifdef __EMSCRIPTEN__
#define WL_THREAD_LOCAL
#else
#define WL_THREAD_LOCAL thread_local
#endif
