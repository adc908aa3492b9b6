// json_text.h: JSON as text for whoever reads it (the CLI's --json lines, the app's JS API). A
// path or text a user gave may hold bytes that are not UTF-8 (a file name from another locale);
// they become U+FFFD instead of nlohmann's type_error 316, which lost the whole answer.
#pragma once
#include <nlohmann/json.hpp>

#include <string>

namespace wl {

inline std::string json_text(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

}  // namespace wl
