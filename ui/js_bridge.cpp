#include "ui/js_bridge.h"
#include "engine/core/json_text.h"

#include "ui/app.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#include <nlohmann/json.hpp>
#include <string>

namespace wlui {
static App* g_app = nullptr;   // the one app on the page; the bridge is the page's, not the engine's
void js_bridge_attach(App* app) { g_app = app; }
}  // namespace wlui

// Returns a JSON string owned by the bridge, valid until the next call.
extern "C" EMSCRIPTEN_KEEPALIVE const char* wl_js_call(const char* method, const char* args_json) {
    static std::string out;
    nlohmann::json args = nlohmann::json::parse(args_json ? args_json : "null", nullptr, false);
    if (!wlui::g_app) out = R"({"error":"app not started"})";
    else if (args.is_discarded()) out = R"({"error":"arguments are not valid JSON"})";
    else out = wl::json_text(wlui::g_app->call(method ? method : "", args));
    return out.c_str();
}

// The method table the page builds window.waferlab from; static, so callable before main().
extern "C" EMSCRIPTEN_KEEPALIVE const char* wl_js_methods() {
    static const std::string out = wlui::App::method_table().dump();
    return out.c_str();
}

EM_JS(void, wl_js_first_frame, (), {
    if (window.waferlab && window.waferlab._firstFrame) window.waferlab._firstFrame();
});

// The picker is a hidden <input type=file> in the page; opening it needs the user's recent
// click, which the browser still counts when this runs in the next animation frame.
EM_JS(void, wl_js_pick_file, (), {
    if (window.waferlab && window.waferlab._pickFile) window.waferlab._pickFile();
});

EM_JS(void, wl_js_pick_text_file, (), {
    if (window.waferlab && window.waferlab._pickFile) window.waferlab._pickFile('text');
});

EM_JS(void, wl_js_pick_weights_file, (), {
    if (window.waferlab && window.waferlab._pickFile) window.waferlab._pickFile('weights');
});

EM_JS(void, js_bridge_download, (const char* filename, const char* mime, const void* data, size_t n), {
    const bytes = HEAPU8.slice(data, data + n);   // a copy: the heap may move
    const url = URL.createObjectURL(new Blob([bytes], { type: UTF8ToString(mime) }));
    const a = document.createElement('a');
    a.href = url;
    a.download = UTF8ToString(filename);
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
});

// A link in a lesson's text: a new tab, with no handle back to this page.
EM_JS(void, wl_js_open_url, (const char* url), {
    window.open(UTF8ToString(url), '_blank', 'noopener');
});

// File > Share: the dialog is the page's (web/index.html), with real text fields to copy from.
EM_JS(void, wl_js_share, (), {
    if (window.waferlab && window.waferlab._openShareDialog) window.waferlab._openShareDialog();
});

// ready, cycle, finished, fault: to window listeners and, when embedded, to an allowed parent.
EM_JS(void, wl_js_event, (const char* name, const char* detail), {
    if (window.waferlab && window.waferlab._event) window.waferlab._event(UTF8ToString(name), JSON.parse(UTF8ToString(detail)));
});

EM_JS(void, wl_js_fatal, (const char* message), {
    if (window.waferlab && window.waferlab._fatal) window.waferlab._fatal(UTF8ToString(message));
});

EM_JS(int, wl_js_window_w, (), { return window.innerWidth; });
// An embed's "Open in WaferLab" strip (web/waferlab.css) sits below the canvas: the app gets the rest.
EM_JS(int, wl_js_window_h, (), {
    const strip = document.getElementById('open-full');
    const h = strip && getComputedStyle(strip).display !== 'none' ? strip.offsetHeight : 0;
    return window.innerHeight - h;
});

namespace wlui {
void js_bridge_frame_done(unsigned long long frame) {
    if (frame == 1) wl_js_first_frame();
}
void js_bridge_canvas_size(int* w, int* h) {
    *w = wl_js_window_w();
    *h = wl_js_window_h();
}
float js_bridge_pixel_ratio() { return float(emscripten_get_device_pixel_ratio()); }
void js_bridge_pick_file() { wl_js_pick_file(); }
void js_bridge_pick_text_file() { wl_js_pick_text_file(); }
void js_bridge_pick_weights_file() { wl_js_pick_weights_file(); }
bool js_bridge_can_open_url() { return true; }
void js_bridge_open_url(const char* url) { wl_js_open_url(url); }
void js_bridge_share() { wl_js_share(); }
void js_bridge_event(const char* name, const std::string& detail_json) { wl_js_event(name, detail_json.c_str()); }
void js_bridge_fatal(const std::string& message) { wl_js_fatal(message.c_str()); }
}  // namespace wlui

#else

namespace wlui {
void js_bridge_attach(App*) {}
void js_bridge_frame_done(unsigned long long) {}
void js_bridge_canvas_size(int* w, int* h) { *w = *h = 0; }
float js_bridge_pixel_ratio() { return 1.0f; }
void js_bridge_pick_file() {}
void js_bridge_pick_text_file() {}
void js_bridge_pick_weights_file() {}
bool js_bridge_can_open_url() { return false; }
void js_bridge_open_url(const char*) {}
void js_bridge_share() {}
void js_bridge_event(const char*, const std::string&) {}
void js_bridge_fatal(const std::string&) {}
}  // namespace wlui
void js_bridge_download(const char*, const char*, const void*, size_t) {}

#endif
