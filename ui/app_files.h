// app_files.h: the App's files — open and save kernels, export the canvas as PNG,
// the font size, and remembering all of it (with the layout) between sessions.
// The state lives here; the App methods that use it are in app_files.cpp.
#pragma once
#include "ui/notices.h"
#include "ui/workspace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wlui {

inline constexpr const char* kBeforeShareKey = "workspace.before-share.json";   // work a share link replaced

#ifdef __EMSCRIPTEN__
inline constexpr bool kWeb = true;    // built for the browser: files download, the page picks them
#else
inline constexpr bool kWeb = false;
#endif

struct FileState {
    // [SECTION] persistence
    Autosave autosave;
    std::string seen_sig;                // the workspace as of the last frame, cheaply (see App::workspace_sig)
    bool cleared = false;                // clear_state(): write nothing until the next change
    bool stored = false;                 // storage holds this session's workspace (restored or written)
    bool write_failed = false;
    std::string problem;                 // the last storage problem, for state() and the notice
    Notices notices;                     // shown in the app until dismissed (or put right: notices.h)
    bool before_share = false;           // work a share link replaced is kept (File > Restore edits from before the link)

    // [SECTION] the current file and settings
    std::string path;                    // native: where Save writes; "" until opened or saved as
    float font_scale = 1.0f;

    // [SECTION] dialogs
    enum class Ask { None, Open, SaveAs, ExportPng } ask = Ask::None;   // the native path popup
    char path_buf[1024] = {};
    std::string path_error;
    bool pending_open = false;           // waiting for "replace unsaved edits?"
    std::string open_name, open_text, open_path;

    // [SECTION] PNG export: the frame after next is drawn without floating windows and read back
    uint64_t png_frame = 0;              // 0: none requested
    std::string png_path;                // native target; on the web the download's name
};

}  // namespace wlui
