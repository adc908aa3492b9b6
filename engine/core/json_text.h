// json_text.h: JSON as text for whoever reads it (the CLI's --json lines, the app's JS API). A
// path or text a user gave may hold bytes that are not UTF-8 (a file name from another locale);
// they become U+FFFD instead of nlohmann's type_error 316, which lost the whole answer.
//
// Every time in seconds is a key ending in _s that says what it measures: wafer_s (emulated
// cycles at the clock), wall_s (host wall time), cpu_s (host CPU time); a rate ends in _per_s.
// Keys renamed to that rule keep their old name beside the new one for one release
// (kRenamedKeys; docs/js-api.md, "Renamed keys").
#pragma once
#include <nlohmann/json.hpp>

#include <string>

namespace wl {

struct RenamedKey {
    const char* old_name;
    const char* new_name;
};
inline constexpr RenamedKey kRenamedKeys[] = {
    {"wafer_seconds", "wafer_s"},
    {"mesh_seconds", "mesh_s"},
    {"reference_seconds", "reference_s"},
    {"wall_seconds", "wall_s"},
    {"cpu_seconds", "cpu_s"},
    {"prompt_seconds", "prompt_s"},
    {"train_seconds", "train_s"},
    {"cycle_seconds", "cycle_s"},
    {"fast_seconds", "fast_s"},
    {"wafer_seconds_per_token", "wafer_s_per_token"},
    {"seconds_per_token", "wall_s_per_token"},
    {"tokens_per_second", "tokens_per_s"},
    {"wafer_tokens_per_second", "wafer_tokens_per_s"},
    {"instructions_per_second", "instructions_per_s"},
};

// j, with each renamed key's old name beside it wherever the new one is, at any depth.
nlohmann::json with_old_keys(nlohmann::json j);

inline std::string json_text(const nlohmann::json& j) {
    return with_old_keys(j).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace wl
