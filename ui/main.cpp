// main.cpp: the platform layer — SDL2 window, OpenGL context, Dear ImGui backends.
// One file for native and web: the loop body is Platform::frame(), called by a
// plain loop natively and by emscripten_set_main_loop in the browser (no Asyncify), inside a
// JS try there (wl_js_frame).
//
//   waferlab [--mesh WxH] [--example NAME] [--lesson N] [--run N|all | --play S] [--frames N] [--screenshot out.png] [--no-persist] [--no-start] [--dev] [--embed [--editor]]
//     --lesson N          open lesson N in the Lessons panel, its starter in the editor
//     --run N|all         run the example N cycles, or to completion, from the start
//     --play S            or play it at S cycles per second
//     --frames N          quit after N frames (tests), printing where the run is
//     --screenshot FILE   read the last frame back, write a PNG, exit 3 if it is blank
//     --no-persist        neither read nor write the saved workspace (tests, screenshots)
//     --no-start          a first visit opens on the empty mesh, not the start screen
//     --embed [--editor]  the minimal frame a page embeds: canvas and a compact run bar (and the editor)
#include "engine/core/parse_number.h"
#include "engine/fabric/mesh.h"
#include "ui/app.h"
#include "ui/js_bridge.h"
#include "ui/screenshot.h"
#include "ui/storage.h"
#include "ui/style.h"

#include <SDL.h>
#include <imgui.h>
#include <imgui_internal.h>   // ErrorCheckEndFrameRecover: closing a frame an exception cut short
#include <imgui_impl_opengl3.h>
#include <imgui_impl_sdl.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#ifdef __EMSCRIPTEN__
#include "ui/webgl_state.h"

#include <emscripten.h>
#include <emscripten/html5.h>
#include <GLES3/gl3.h>
static const char* kGlslVersion = "#version 300 es";
static const char* kFontDir = "/fonts";
static const char* kAssetDir = "";        // examples/ and lessons/ are preloaded at /examples and /lessons
constexpr int kFailedFramesToStop = 5;    // frames in a row a trap stops before the page gives up (frame_failed)
#else
#include <SDL_opengl.h>
static const char* kGlslVersion = "#version 150";
static const char* kFontDir = WAFERLAB_FONT_DIR;
static const char* kAssetDir = WAFERLAB_ASSET_DIR;
#endif

namespace {

struct Options {
    wlui::AppOptions app;
    long frames = -1;           // run forever
    std::string screenshot;
};

// False with *why naming the flag and what it takes (or the word it does not know).
bool parse_options(int argc, char** argv, Options& o, std::string* why) {
    for (int i = 1; i < argc; ++i) {
        auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
        const char* a = argv[i];
        *why = std::string(a) + (i + 1 < argc ? ": bad value '" + std::string(argv[i + 1]).substr(0, 40) + "'" : ": needs a value");
        if (!std::strcmp(a, "--frames")) {
            const char* v = next();
            long long n = 0;
            if (!v || !wl::parse_integer(v, wl::NumberRange::closed(1, 1e12), &n).empty()) return false;
            o.frames = long(n);
        } else if (!std::strcmp(a, "--screenshot")) {
            const char* v = next();
            if (!v) return false;
            o.screenshot = v;
        } else if (!std::strcmp(a, "--run")) {
            const char* v = next();
            if (!v) return false;
            if (!std::strcmp(v, "all")) o.app.run_cycles = UINT64_MAX;
            else if (long long n = 0; wl::parse_integer(v, wl::NumberRange::closed(1, 1e15), &n).empty()) o.app.run_cycles = uint64_t(n);
            else return false;
        } else if (!std::strcmp(a, "--play")) {
            const char* v = next();
            if (!v || !wl::parse_real(v, wl::NumberRange::open(0, 1e9), &o.app.play_speed).empty()) return false;
        } else if (!std::strcmp(a, "--dev")) {
            o.app.developer = true;
        } else if (!std::strcmp(a, "--embed")) {
            o.app.embed = true;
        } else if (!std::strcmp(a, "--editor")) {
            o.app.embed_editor = true;
        } else if (!std::strcmp(a, "--no-start")) {
            o.app.start_screen = false;
        } else if (!std::strcmp(a, "--no-persist")) {
            wlui::storage::disable();
        } else if (!std::strcmp(a, "--example")) {
            const char* v = next();
            if (!v) return false;
            o.app.example = v;
        } else if (!std::strcmp(a, "--lesson")) {
            const char* v = next();
            long long n = 0;
            if (!v || !wl::parse_integer(v, wl::NumberRange::closed(1, 1000), &n).empty()) return false;
            o.app.lesson = int(n);
        } else if (!std::strcmp(a, "--mesh")) {
            const char* v = next();
            wl::Mesh m;
            if (!v || !wl::parse_mesh(v, &m)) return false;   // each side whole: 4294967297x8 is not 1x8
            o.app.mesh_w = m.w, o.app.mesh_h = m.h;
        } else {
            *why = std::string("unknown option ") + a;
            return false;
        }
    }
    return true;
}

// What a frame cut short left open in ImGui: its windows ended, its stacks popped.
void close_cut_frame() {
    ImGui::ErrorCheckEndFrameRecover(nullptr);
    while (GImGui->FontStack.Size > 0) ImGui::PopFont();
}

// An exception out of the app must not end the browser's main loop: the page would keep its last
// picture, take no more input, and lose the edits since the last autosave. What threw is closed as
// ImGui can (close_cut_frame), the app saves and says so (App::recover), and the next frame is
// drawn as usual.
template <class F>
void guarded(wlui::App* app, const char* during, bool in_frame, F&& f) {
    std::string what;
    try {
        f();
        return;
    } catch (const std::exception& e) {
        what = e.what();
    } catch (...) {
        what = "an unknown error";
    }
    if (in_frame) close_cut_frame();
    app->recover(during, what);
}

// SDL's button to Dear ImGui's index: 0 left, 1 right, 2 middle; -1 for another.
int button_index(Uint8 b) { return b == SDL_BUTTON_LEFT ? 0 : b == SDL_BUTTON_RIGHT ? 1 : b == SDL_BUTTON_MIDDLE ? 2 : -1; }

struct Platform {
    SDL_Window* window = nullptr;
    SDL_GLContext gl = nullptr;
    wlui::App* app = nullptr;
    Options opt;
    float pixel_scale = 0.0f;   // framebuffer pixels per window unit, the font is built for it
    float font_scale = 0.0f;    // View > Font size, the font is built for it too
    SDL_Event deferred{};       // the event an ImGui frame could not take, first for the next (type 0: none)
    bool gl_restored = false;   // web: the browser gave the WebGL context back, what lived in it is remade
    int failed_in_a_row = 0;    // web: frames a trap or a JS error stopped since the last that ended (frame_failed)
    ImVec2 mouse{-FLT_MAX, -FLT_MAX};   // where the events put the mouse, in the order they came
    bool mouse_down[3] = {}, mouse_pressed[3] = {};   // per button: held, and went down since the last ImGui frame
    int press_clicks[3] = {};                         // per button: SDL's click count at its last press (2: a double-click)
    bool shown_down[3] = {};                          // per button: down in what the last ImGui frame was given
    int drawn_w = 0, drawn_h = 0;   // the drawable size of the last frame drawn
    bool done = false;
    int exit_code = 0;

    void frame();
    void frame_failed(const char* what);   // web only (wl_js_frame)
    bool take_events();         // true when any event other than a window event came
    void handle(const SDL_Event& ev);
    void new_imgui_frame();
    void finish();
};

// Dear ImGui 1.86 sees keys and buttons as up/down state per frame, so a key pressed and released
// within one frame (fast typing, scripted input) or a second click in the frame of the first
// would vanish. So an ImGui frame takes events in order until one would be lost: a release of a
// key that went down this frame, a press of a key released this frame (Backspace, Backspace; Enter,
// then Ctrl+Enter: ImGui would see it held throughout), a key after a click (the click may focus
// what the key is for), a press after another press or release, a press of a button the last
// frame still showed held (a double-click's second press: ImGui must see the release between), a
// press after a move (a tab or a button that allows overlap takes a press only once the mouse has
// rested on it a frame), or a move after a press or release (the click's place is where it was).
// That event and all after it wait for the next ImGui frame.
bool Platform::take_events() {
    bool went_down[SDL_NUM_SCANCODES] = {}, went_up[SDL_NUM_SCANCODES] = {};
    bool clicked = false, moved = false, input = false;
    auto waits = [&](const SDL_Event& ev) {
        const bool key = ev.type == SDL_KEYDOWN || ev.type == SDL_KEYUP || ev.type == SDL_TEXTINPUT;
        const int b = ev.type == SDL_MOUSEBUTTONDOWN ? button_index(ev.button.button) : -1;
        return (ev.type == SDL_KEYUP && went_down[ev.key.keysym.scancode]) || (ev.type == SDL_KEYDOWN && went_up[ev.key.keysym.scancode]) ||
               (key && clicked) ||
               (clicked && (ev.type == SDL_MOUSEBUTTONDOWN || ev.type == SDL_MOUSEMOTION)) ||
               (moved && ev.type == SDL_MOUSEBUTTONDOWN) || (b >= 0 && shown_down[b] && !mouse_down[b]);
    };
    auto take = [&](const SDL_Event& ev) {
        input = input || ev.type != SDL_WINDOWEVENT;   // window events wake only by a size change (frame())
        handle(ev);
        if (ev.type == SDL_KEYDOWN) went_down[ev.key.keysym.scancode] = true;
        if (ev.type == SDL_KEYUP) went_up[ev.key.keysym.scancode] = true;
        clicked = clicked || ev.type == SDL_MOUSEBUTTONDOWN || ev.type == SDL_MOUSEBUTTONUP;
        moved = moved || ev.type == SDL_MOUSEMOTION;
    };
    if (deferred.type != 0) {
        if (waits(deferred)) return input;   // this frame shows the release it needs first
        const SDL_Event ev = deferred;
        deferred.type = 0;
        take(ev);
    }
    SDL_Event ev;
    while (SDL_PollEvent(&ev)) {
        if (waits(ev)) {
            deferred = ev;
            break;
        }
        take(ev);
    }
    return input;
}

void Platform::handle(const SDL_Event& ev) {
    ImGui_ImplSDL2_ProcessEvent(&ev);
    if (ev.type == SDL_KEYDOWN || ev.type == SDL_KEYUP) {
        // The modifiers as they were at this key, not SDL_GetModState() (the backend's): that is
        // now, and a Ctrl released after this key may already be queued behind it.
        ImGuiIO& io = ImGui::GetIO();
        const Uint16 m = ev.key.keysym.mod;
        io.KeyShift = m & KMOD_SHIFT, io.KeyCtrl = m & KMOD_CTRL, io.KeyAlt = m & KMOD_ALT, io.KeySuper = m & KMOD_GUI;
    }
    // The mouse as these events left it (the backend reads SDL's state, which is already past
    // the events still waiting).
    if (ev.type == SDL_MOUSEMOTION) mouse = ImVec2(float(ev.motion.x), float(ev.motion.y));
    if (ev.type == SDL_MOUSEBUTTONDOWN || ev.type == SDL_MOUSEBUTTONUP) {
        mouse = ImVec2(float(ev.button.x), float(ev.button.y));
        const int b = button_index(ev.button.button);
        if (b >= 0) mouse_down[b] = ev.type == SDL_MOUSEBUTTONDOWN, mouse_pressed[b] |= ev.type == SDL_MOUSEBUTTONDOWN;
        if (b >= 0 && ev.type == SDL_MOUSEBUTTONDOWN) press_clicks[b] = ev.button.clicks;
    }
    if (ev.type == SDL_QUIT) done = true;
    if (ev.type == SDL_KEYDOWN && ev.key.keysym.sym == SDLK_q && (ev.key.keysym.mod & KMOD_CTRL)) done = true;
#ifndef __EMSCRIPTEN__
    if (ev.type == SDL_KEYDOWN && ev.key.keysym.sym == SDLK_s && (ev.key.keysym.mod & KMOD_CTRL) && !ev.key.repeat)
        guarded(app, "saving the file", false, [&] { app->save_shortcut(); });
#endif
    if (ev.type == SDL_DROPFILE) {   // natively only: the page handles drops itself (web/waferlab-api.js)
        guarded(app, "opening a dropped file", false, [&] { app->drop_file(ev.drop.file); });
        SDL_free(ev.drop.file);
    }
    if (ev.type == SDL_KEYDOWN && ev.key.keysym.sym >= SDLK_F1 && ev.key.keysym.sym <= SDLK_F12 && !ev.key.repeat)
        guarded(app, "handling a function key", false,
                [&] { app->function_key(int(ev.key.keysym.sym - SDLK_F1) + 1, (ev.key.keysym.mod & KMOD_SHIFT) != 0); });
}

void Platform::new_imgui_frame() {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplSDL2_NewFrame();
    ImGuiIO& io = ImGui::GetIO();
    io.DeltaTime = std::max(io.DeltaTime, 1e-4f);   // frames without drawing may follow each other within a clock tick
    if (io.MousePos.x != -FLT_MAX && mouse.x != -FLT_MAX) io.MousePos = mouse;   // -FLT_MAX: not over the window
    // A double-click is SDL's, timed by its events: ImGui would time it by frames, and a second press
    // is shown two frames after the first (take_events), which on a slow frame is past its 0.3 s.
    for (int b = 0; b < 3; ++b)
        if (mouse_pressed[b]) io.MouseClickedTime[b] = press_clicks[b] >= 2 ? ImGui::GetTime() + io.DeltaTime : -1e30;
    for (int b = 0; b < 3; ++b) shown_down[b] = io.MouseDown[b] = mouse_pressed[b] || mouse_down[b], mouse_pressed[b] = false;
}

void Platform::frame() {
#ifdef __EMSCRIPTEN__
    // The canvas fills the page: follow the browser window's size.
    int cw, ch, ww, wh;
    wlui::js_bridge_canvas_size(&cw, &ch);
    SDL_GetWindowSize(window, &ww, &wh);
    if (cw > 0 && ch > 0 && (cw != ww || ch != wh)) SDL_SetWindowSize(window, cw, ch);
    if (gl_restored) {   // the old context's buffers, shaders and font texture went with it
        gl_restored = false;
        wlui::webgl_state_forget();
        ImGui_ImplOpenGL3_Shutdown();   // not just its device objects: it keeps their buffers' sizes
        ImGui_ImplOpenGL3_Init(kGlslVersion);
        drawn_w = drawn_h = -1;   // and a frame is drawn, idle embed or not
    }
#endif
    bool input = take_events();
    app->input_pending(deferred.type != 0 || SDL_HasEvents(SDL_FIRSTEVENT, SDL_LASTEVENT));
    // An idle embed draws nothing: the canvas keeps its last frame, and the browser's frame
    // callback costs only the event poll above (App::wants_frame). --frames N always draws N.
    int ww2, wh2, fw, fh;
    SDL_GetWindowSize(window, &ww2, &wh2);
    SDL_GL_GetDrawableSize(window, &fw, &fh);
    if (fw != drawn_w || fh != drawn_h) input = true;
    if (!app->wants_frame(input) && opt.frames < 0) {
#ifndef __EMSCRIPTEN__
        SDL_WaitEventTimeout(nullptr, 100);   // natively the loop is ours: sleep until an event
#endif
        return;
    }

    drawn_w = fw, drawn_h = fh;
    // Rebuild the font when the window moves to a screen with another pixel density, or the
    // font size changes: always rasterised at device pixels, so text stays sharp at any size.
    float scale = ww2 > 0 ? float(fw) / float(ww2) : 1.0f;
    if (scale != pixel_scale || app->font_scale() != font_scale) {
        pixel_scale = scale;
        font_scale = app->font_scale();
        wlui::apply_style(kFontDir, pixel_scale, 15.0f * font_scale);
        ImGui::GetStyle().ScaleAllSizes(font_scale);   // paddings and spacing grow with the text
        ImGui_ImplOpenGL3_DestroyFontsTexture();
        ImGui_ImplOpenGL3_CreateFontsTexture();
    }

    // While events wait, ImGui frames run without drawing, each taking the events the last could
    // not, so a slow frame (software GL, training) never costs a click or a key: they are all
    // taken in order before the frame that is drawn, within about two frames' time.
    const auto started = std::chrono::steady_clock::now();
    auto spent_ms = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count(); };
    // A release the last frame has not shown yet gets a frame too, so a click has acted by the frame drawn.
    auto waiting = [&] { return deferred.type != 0 || (shown_down[0] && !mouse_down[0]) || (shown_down[1] && !mouse_down[1]) || (shown_down[2] && !mouse_down[2]); };
    for (int extra = 0; waiting() && extra < 64 && spent_ms() < 40.0; ++extra) {
        new_imgui_frame();
        ImGui::NewFrame();
        guarded(app, "drawing a frame", true, [&] { app->frame(/*drawn=*/false); });
        ImGui::EndFrame();
        take_events();
    }
    app->input_pending(deferred.type != 0 || SDL_HasEvents(SDL_FIRSTEVENT, SDL_LASTEVENT));
    new_imgui_frame();
    ImGui::NewFrame();
    guarded(app, "drawing a frame", true, [&] { app->frame(); });
    if (app->quit_requested()) done = true;
    ImGui::Render();

    glViewport(0, 0, fw, fh);
    const ImVec4 ground = ImGui::ColorConvertU32ToFloat4(wlui::kCanvasBackground);   // the canvas draws none of its own
    glClearColor(ground.x, ground.y, ground.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    if (app->png_capture_frame()) app->deliver_png(wlui::read_framebuffer(fw, fh));   // before the swap
    glFlush();   // the GPU (a browser's GPU process) draws this frame while after_draw's work runs
    guarded(app, "running the emulator between frames", false, [&] { app->after_draw(); });

    if (opt.frames > 0 && long(app->frames()) >= opt.frames) {
        std::printf("waferlab: %s\n", app->summary().c_str());
        if (!opt.screenshot.empty()) {
            wlui::Image img = wlui::read_framebuffer(fw, fh);
            int colours = wlui::distinct_colours(img, 64);
            bool saved = wlui::write_png(opt.screenshot, img);
            std::printf("screenshot %s: %dx%d, %d%s distinct colours%s\n", opt.screenshot.c_str(), fw, fh, colours,
                        colours >= 64 ? "+" : "", saved ? "" : " (could not write the file)");
            if (colours < 8) {
                std::fprintf(stderr, "waferlab: the frame is blank (%d colours)\n", colours);
                exit_code = 3;
            } else if (!saved) {
                exit_code = 4;
            }
        }
        done = true;
    }
    SDL_GL_SwapWindow(window);
    app->frame_busy(spent_ms());
    wlui::js_bridge_frame_done(app->frames());
    failed_in_a_row = 0;
}

#ifdef __EMSCRIPTEN__
// A frame that stopped without a C++ exception (a trap, a JS error: see wl_js_frame) is closed as
// guarded() closes one, and recovered the same way. One that stops every time draws nothing, not
// even the notice: after a few in a row the loop ends, and the page says so over the canvas.
void Platform::frame_failed(const char* what) {
    if (GImGui->WithinFrameScope) {
        close_cut_frame();
        ImGui::EndFrame();
    }
    app->recover("drawing a frame", what);
    if (++failed_in_a_row < kFailedFramesToStop) return;
    emscripten_cancel_main_loop();
    wlui::js_bridge_fatal("WaferLab stopped: every frame fails (" + std::string(what) +
                          "). Your kernel is saved: reload the page to go on, and if it happens again, please report these words.");
}
#endif

void Platform::finish() {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplSDL2_Shutdown();
    ImGui::DestroyContext();
    SDL_GL_DeleteContext(gl);
    SDL_DestroyWindow(window);
    SDL_Quit();
}

}  // namespace

#ifdef __EMSCRIPTEN__
// A trap (an out-of-bounds access, `unreachable`) or a JS error in a frame is no C++ exception, so
// guarded() cannot take it, and thrown out of the main loop's callback it ends Emscripten's loop for
// good: the page keeps its last picture and takes no more input, the edits since the last autosave
// in it. So each frame runs inside a JS try, and one that threw is recovered like an exception.
static Platform* g_platform = nullptr;
extern "C" EMSCRIPTEN_KEEPALIVE void wl_frame() { g_platform->frame(); }
extern "C" EMSCRIPTEN_KEEPALIVE void wl_frame_failed(const char* what) { g_platform->frame_failed(what); }
EM_JS(void, wl_js_frame, (), {
    const sp = stackSave();
    try {
        _wl_frame();
    } catch (e) {
        stackRestore(sp);   // a trap skips the epilogues that free the frame's shadow stack
        if (ABORT) throw e;   // abort(): the runtime is gone (onAbort said so on the page)
        console.error('[waferlab] a frame stopped: ' + (e && e.stack || e));
        const what = 'the browser stopped it: ' + String(e);   // RuntimeError: memory access out of bounds, ...
        const n = lengthBytesUTF8(what) + 1, p = stackAlloc(n);
        stringToUTF8(what, p, n);
        _wl_frame_failed(p);
        stackRestore(sp);
    }
});
#endif

int main(int argc, char** argv) {
    auto* p = new Platform;
    p->opt.app.asset_dir = kAssetDir;
    if (std::string why; !parse_options(argc, argv, p->opt, &why)) {
        std::fprintf(stderr, "waferlab: error: %s\n", why.c_str());
        std::fprintf(stderr, "usage: waferlab [--mesh WxH] [--example NAME] [--lesson N] [--run N|all | --play S] [--frames N] [--screenshot out.png] [--no-persist] [--no-start] [--dev] [--embed [--editor]]\n");
        return 2;
    }
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_TIMER) != 0) {
        std::fprintf(stderr, "waferlab: SDL_Init failed: %s\n", SDL_GetError());
        return 1;
    }
#ifdef __EMSCRIPTEN__
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_ES);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 0);
    int w = 1280, h = 720;
    wlui::js_bridge_canvas_size(&w, &h);
#else
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, SDL_GL_CONTEXT_FORWARD_COMPATIBLE_FLAG);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 2);
    int w = 1280, h = 720;
#endif
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 0);
    SDL_GL_SetAttribute(SDL_GL_STENCIL_SIZE, 8);
    p->window = SDL_CreateWindow("WaferLab", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, w, h,
                                 SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (!p->window || !(p->gl = SDL_GL_CreateContext(p->window))) {
        std::fprintf(stderr, "waferlab: could not open an OpenGL window: %s\n", SDL_GetError());
        return 1;
    }
    SDL_GL_MakeCurrent(p->window, p->gl);
    SDL_GL_SetSwapInterval(1);

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;   // the app stores the layout itself (ui/storage.h), on the web too
    ImGui_ImplSDL2_InitForOpenGL(p->window, p->gl);
    ImGui_ImplOpenGL3_Init(kGlslVersion);

    p->app = new wlui::App(p->opt.app);
    wlui::js_bridge_attach(p->app);

#ifdef __EMSCRIPTEN__
    g_platform = p;
    // The browser may take the WebGL context away (a GPU reset, its GPU process restarted): the
    // canvas goes blank, for good unless the page asks for it back (true: preventDefault) and
    // remakes what lived in it once it comes (gl_restored). The app runs on meanwhile.
    emscripten_set_webglcontextlost_callback("#canvas", p, false, [](int, const void*, void*) -> EM_BOOL { return EM_TRUE; });
    emscripten_set_webglcontextrestored_callback("#canvas", p, false, [](int, const void*, void* arg) -> EM_BOOL {
        static_cast<Platform*>(arg)->gl_restored = true;
        return EM_TRUE;
    });
    emscripten_set_main_loop(wl_js_frame, 0, true);
#else
    while (!p->done) p->frame();
    p->app->flush_state();
    int code = p->exit_code;
    delete p->app;
    p->finish();
    delete p;
    return code;
#endif
}
