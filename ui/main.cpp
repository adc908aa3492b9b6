// main.cpp: the platform layer — SDL2 window, OpenGL context, Dear ImGui backends.
// One file for native and web: the loop body is Platform::frame(), called by a
// plain loop natively and by emscripten_set_main_loop in the browser (no Asyncify).
//
//   waferlab [--mesh WxH] [--example NAME] [--lesson N] [--run N|all | --play S] [--frames N] [--screenshot out.png] [--no-persist] [--dev] [--embed [--editor]]
//     --lesson N          open lesson N in the Lessons panel, its starter in the editor
//     --run N|all         run the example N cycles, or to completion, from the start
//     --play S            or play it at S cycles per second
//     --frames N          quit after N frames (tests), printing where the run is
//     --screenshot FILE   read the last frame back, write a PNG, exit 3 if it is blank
//     --no-persist        neither read nor write the saved workspace (tests, screenshots)
//     --embed [--editor]  the minimal frame a page embeds: canvas and a compact run bar (and the editor)
#include "ui/app.h"
#include "ui/js_bridge.h"
#include "ui/screenshot.h"
#include "ui/storage.h"
#include "ui/style.h"

#include <SDL.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>
#include <imgui_impl_sdl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#include <GLES3/gl3.h>
static const char* kGlslVersion = "#version 300 es";
static const char* kFontDir = "/fonts";
static const char* kAssetDir = "";        // examples/ and lessons/ are preloaded at /examples and /lessons
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

bool parse_options(int argc, char** argv, Options& o) {
    for (int i = 1; i < argc; ++i) {
        auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
        const char* a = argv[i];
        if (!std::strcmp(a, "--frames")) {
            const char* v = next();
            if (!v || (o.frames = std::strtol(v, nullptr, 10)) <= 0) return false;
        } else if (!std::strcmp(a, "--screenshot")) {
            const char* v = next();
            if (!v) return false;
            o.screenshot = v;
        } else if (!std::strcmp(a, "--run")) {
            const char* v = next();
            char* end = nullptr;
            if (!v) return false;
            if (!std::strcmp(v, "all")) o.app.run_cycles = UINT64_MAX;
            else if ((o.app.run_cycles = std::strtoull(v, &end, 10)) == 0 || *end) return false;
        } else if (!std::strcmp(a, "--play")) {
            const char* v = next();
            if (!v || (o.app.play_speed = std::strtod(v, nullptr)) <= 0) return false;
        } else if (!std::strcmp(a, "--dev")) {
            o.app.developer = true;
        } else if (!std::strcmp(a, "--embed")) {
            o.app.embed = true;
        } else if (!std::strcmp(a, "--editor")) {
            o.app.embed_editor = true;
        } else if (!std::strcmp(a, "--no-persist")) {
            wlui::storage::disable();
        } else if (!std::strcmp(a, "--example")) {
            const char* v = next();
            if (!v) return false;
            o.app.example = v;
        } else if (!std::strcmp(a, "--lesson")) {
            const char* v = next();
            char* end = nullptr;
            if (!v || (o.app.lesson = int(std::strtol(v, &end, 10))) < 1 || *end) return false;
        } else if (!std::strcmp(a, "--mesh")) {
            const char* v = next();
            if (!v || std::sscanf(v, "%dx%d", &o.app.mesh_w, &o.app.mesh_h) != 2 || o.app.mesh_w < 1 ||
                o.app.mesh_h < 1 || o.app.mesh_w > 256 || o.app.mesh_h > 256)
                return false;
        } else {
            return false;
        }
    }
    return true;
}

struct Platform {
    SDL_Window* window = nullptr;
    SDL_GLContext gl = nullptr;
    wlui::App* app = nullptr;
    Options opt;
    float pixel_scale = 0.0f;   // framebuffer pixels per window unit, the font is built for it
    float font_scale = 0.0f;    // View > Font size, the font is built for it too
    SDL_Event deferred{};       // a key release held over to the next frame (type 0: none)
    int drawn_w = 0, drawn_h = 0;   // the drawable size of the last frame drawn
    bool done = false;
    int exit_code = 0;

    void frame();
    void finish();
};

void Platform::frame() {
#ifdef __EMSCRIPTEN__
    // The canvas fills the page: follow the browser window's size.
    int cw, ch, ww, wh;
    wlui::js_bridge_canvas_size(&cw, &ch);
    SDL_GetWindowSize(window, &ww, &wh);
    if (cw > 0 && ch > 0 && (cw != ww || ch != wh)) SDL_SetWindowSize(window, cw, ch);
#endif
    // Dear ImGui 1.86 sees keys as up/down state per frame, so a key pressed and released
    // within one frame (fast typing, scripted input) would vanish. A release of a key that
    // went down this frame waits for the next frame, with every event after it. So does a key
    // after a click: the click may focus what the key is for (the editor), in this frame.
    bool went_down[SDL_NUM_SCANCODES] = {};
    bool clicked = false;
    bool input = false;
    auto handle = [&](const SDL_Event& ev) {
        input = input || ev.type != SDL_WINDOWEVENT;   // window events wake only by a size change (below)
        ImGui_ImplSDL2_ProcessEvent(&ev);
        if (ev.type == SDL_KEYDOWN || ev.type == SDL_KEYUP) {
            // The modifiers as they were at this key, not SDL_GetModState() (the backend's): that is
            // now, and a Ctrl released after this key may already be queued behind it.
            ImGuiIO& io = ImGui::GetIO();
            const Uint16 m = ev.key.keysym.mod;
            io.KeyShift = m & KMOD_SHIFT, io.KeyCtrl = m & KMOD_CTRL, io.KeyAlt = m & KMOD_ALT, io.KeySuper = m & KMOD_GUI;
        }
        if (ev.type == SDL_QUIT) done = true;
        if (ev.type == SDL_KEYDOWN && ev.key.keysym.sym == SDLK_q && (ev.key.keysym.mod & KMOD_CTRL)) done = true;
#ifndef __EMSCRIPTEN__
        if (ev.type == SDL_KEYDOWN && ev.key.keysym.sym == SDLK_s && (ev.key.keysym.mod & KMOD_CTRL) && !ev.key.repeat)
            app->save_shortcut();
#endif
        if (ev.type == SDL_DROPFILE) {   // natively only: the page handles drops itself (web/waferlab-api.js)
            app->drop_file(ev.drop.file);
            SDL_free(ev.drop.file);
        }
        if (ev.type == SDL_KEYDOWN) went_down[ev.key.keysym.scancode] = true;
        if (ev.type == SDL_KEYDOWN && ev.key.keysym.sym >= SDLK_F1 && ev.key.keysym.sym <= SDLK_F12 && !ev.key.repeat)
            app->function_key(int(ev.key.keysym.sym - SDLK_F1) + 1, (ev.key.keysym.mod & KMOD_SHIFT) != 0);
    };
    if (deferred.type != 0) {
        handle(deferred);
        deferred.type = 0;
    }
    SDL_Event ev;
    while (SDL_PollEvent(&ev)) {
        const bool key = ev.type == SDL_KEYDOWN || ev.type == SDL_KEYUP || ev.type == SDL_TEXTINPUT;
        if ((ev.type == SDL_KEYUP && went_down[ev.key.keysym.scancode]) || (key && clicked)) {
            deferred = ev;
            break;
        }
        handle(ev);
        clicked = clicked || ev.type == SDL_MOUSEBUTTONDOWN || ev.type == SDL_MOUSEBUTTONUP;
    }
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

    const auto started = std::chrono::steady_clock::now();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplSDL2_NewFrame();
    ImGui::NewFrame();
    app->frame();
    if (app->quit_requested()) done = true;
    ImGui::Render();

    glViewport(0, 0, fw, fh);
    glClearColor(0.07f, 0.08f, 0.10f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    if (app->png_capture_frame()) app->deliver_png(wlui::read_framebuffer(fw, fh));   // before the swap
    glFlush();   // the GPU (a browser's GPU process) draws this frame while after_draw's work runs
    app->after_draw();

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
    app->frame_busy(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
    wlui::js_bridge_frame_done(app->frames());
}

void Platform::finish() {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplSDL2_Shutdown();
    ImGui::DestroyContext();
    SDL_GL_DeleteContext(gl);
    SDL_DestroyWindow(window);
    SDL_Quit();
}

}  // namespace

int main(int argc, char** argv) {
    auto* p = new Platform;
    p->opt.app.asset_dir = kAssetDir;
    if (!parse_options(argc, argv, p->opt)) {
        std::fprintf(stderr, "usage: waferlab [--mesh WxH] [--example NAME] [--lesson N] [--run N|all | --play S] [--frames N] [--screenshot out.png] [--no-persist] [--dev] [--embed [--editor]]\n");
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
    emscripten_set_main_loop_arg([](void* arg) { static_cast<Platform*>(arg)->frame(); }, p, 0, true);
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
