// js_bridge.h: window.waferlab ⇄ App. Web only; natively these do nothing.
// JS calls the exported wl_js_call(method, json) (see web/waferlab-api.js);
// C++ tells JS when the first frame is on screen.
#pragma once

namespace wlui {

class App;

void js_bridge_attach(App* app);     // the app that wl_js_call talks to
void js_bridge_frame_done(unsigned long long frame);  // after each rendered frame
void js_bridge_canvas_size(int* w, int* h);           // the page's window size, CSS pixels
float js_bridge_pixel_ratio();

}  // namespace wlui
