// js_bridge.h: window.waferlab ⇄ App. Web only; natively these do nothing.
// JS calls the exported wl_js_call(method, json) (see web/waferlab-api.js);
// C++ tells JS when the first frame is on screen.
#pragma once
#include <cstddef>
#include <string>

namespace wlui {

class App;

void js_bridge_attach(App* app);     // the app that wl_js_call talks to
void js_bridge_frame_done(unsigned long long frame);  // after each rendered frame
void js_bridge_canvas_size(int* w, int* h);           // the page's window size, CSS pixels
float js_bridge_pixel_ratio();
void js_bridge_pick_file();                           // opens the page's file picker (web/waferlab-api.js)
void js_bridge_pick_text_file();                      // the same, for a text to train on (the Model window's Train)
void js_bridge_pick_weights_file();                   // the same, for llm.c's weights (the Model window's Open weights...)
bool js_bridge_can_open_url();                        // true on the web: links open in a new tab
void js_bridge_open_url(const char* url);             // a link's target, in a new tab (web only)
void js_bridge_share();                               // File > Share: the page's share dialog (web only)
void js_bridge_event(const char* name, const std::string& detail_json);   // to the page and an embedder (web only)
void js_bridge_fatal(const std::string& message);     // the page's own words over the canvas: the app has stopped (web only)

}  // namespace wlui

// Hands `n` bytes to the browser as a file download (a Blob and an <a download>).
// Global and extern "C", because EM_JS defines it; the CSV export uses the same helper.
extern "C" void js_bridge_download(const char* filename, const char* mime, const void* data, size_t n);
