#include "ui/storage.h"

#include <cstdlib>

namespace wlui::storage {

static bool g_enabled = true;
void disable() { g_enabled = false; }
bool enabled() { return g_enabled; }

std::string config_dir(const char* xdg_config_home, const char* home) {
    // XDG Base Directory: a relative $XDG_CONFIG_HOME is invalid and is ignored.
    if (xdg_config_home && xdg_config_home[0] == '/') return std::string(xdg_config_home) + "/waferlab";
    if (home && home[0]) return std::string(home) + "/.config/waferlab";
    return ".waferlab";   // no home at all (a bare container): beside the working directory
}

}  // namespace wlui::storage

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#include <vector>

// localStorage can throw (storage disabled, quota, opaque origin): every call catches.
// Reads are two calls (length, then copy) so no malloc crosses the bridge.
EM_JS(int, wl_ls_length, (const char* key), {
    try {
        const v = window.localStorage.getItem("waferlab/" + UTF8ToString(key));
        return v === null ? -1 : lengthBytesUTF8(v);
    } catch (e) { return -2; }
});
EM_JS(void, wl_ls_copy, (const char* key, char* out, int n), {
    const v = window.localStorage.getItem("waferlab/" + UTF8ToString(key)) || "";
    stringToUTF8(v, out, n);
});
EM_JS(int, wl_ls_set, (const char* key, const char* value, int n), {
    try {
        window.localStorage.setItem("waferlab/" + UTF8ToString(key), UTF8ToString(value, n));
        return 1;
    } catch (e) { console.warn("[waferlab] localStorage: " + e); return 0; }
});
EM_JS(void, wl_ls_remove, (const char* key), {
    try { window.localStorage.removeItem("waferlab/" + UTF8ToString(key)); } catch (e) {}
});

namespace wlui::storage {

std::string where() { return "browser localStorage (keys waferlab/*)"; }

std::optional<std::string> read(const std::string& name, std::string* error) {
    if (!g_enabled) return std::nullopt;
    const int n = wl_ls_length(name.c_str());
    if (n == -2 && error) *error = "the browser's localStorage is not available";
    if (n < 0) return std::nullopt;
    std::vector<char> buf(size_t(n) + 1);
    wl_ls_copy(name.c_str(), buf.data(), n + 1);
    return std::string(buf.data(), size_t(n));
}

bool write(const std::string& name, const std::string& value, std::string* error) {
    if (!g_enabled) return true;
    if (wl_ls_set(name.c_str(), value.c_str(), int(value.size()))) return true;
    if (error) *error = "the browser refused to store it (storage full or disabled)";
    return false;
}

bool remove(const std::string& name) {
    if (g_enabled) wl_ls_remove(name.c_str());
    return true;
}

}  // namespace wlui::storage

#else
#include "engine/core/atomic_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace wlui::storage {

namespace fs = std::filesystem;

std::string where() { return config_dir(std::getenv("XDG_CONFIG_HOME"), std::getenv("HOME")); }

std::optional<std::string> read(const std::string& name, std::string* error) {
    if (!g_enabled) return std::nullopt;
    const fs::path p = fs::path(where()) / name;
    std::error_code ec;
    if (!fs::exists(p, ec)) return std::nullopt;
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    if (!in) {
        if (error) *error = "could not read " + p.string();
        return std::nullopt;
    }
    return ss.str();
}

bool write(const std::string& name, const std::string& value, std::string* error) {
    if (!g_enabled) return true;
    const fs::path dir = where();
    std::error_code ec;
    fs::create_directories(dir, ec);
    // A crash mid-write leaves the previous value, never half a file.
    return wl::write_file_atomically((dir / name).string(), value, error);
}

bool remove(const std::string& name) {
    if (!g_enabled) return true;
    std::error_code ec;
    fs::remove(fs::path(where()) / name, ec);
    return !ec;
}

}  // namespace wlui::storage
#endif
