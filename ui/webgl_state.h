// webgl_state.h (WebAssembly only): the shadow of WebGL's state (webgl_state.cpp says why).
#pragma once

namespace wlui {

// A restored WebGL context starts from GL's defaults: the shadow forgets what it knew.
void webgl_state_forget();

}  // namespace wlui
