// storage.h: where the app keeps what it remembers — a few small named texts.
//   native: files in $XDG_CONFIG_HOME/waferlab, else ~/.config/waferlab
//   web:    the browser's localStorage, keys "waferlab/<name>" (synchronous, so a
//           value is safe the moment write() returns, even if the tab closes next)
// Names are plain file names such as "workspace.json" and "imgui.ini".
#pragma once
#include <optional>
#include <string>

namespace wlui::storage {

// Turns storage off for this run (--no-persist): reads find nothing, writes do nothing.
void disable();
bool enabled();

// Where the values live, for messages and docs: a directory or "browser localStorage".
std::string where();

// nullopt when there is no such value (or storage is off); `error` is set only on a real failure.
std::optional<std::string> read(const std::string& name, std::string* error = nullptr);
bool write(const std::string& name, const std::string& value, std::string* error = nullptr);
bool remove(const std::string& name);

// Native only: the config directory for the given environment values (either may be null).
std::string config_dir(const char* xdg_config_home, const char* home);

}  // namespace wlui::storage
