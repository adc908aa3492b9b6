// json_args.h: how a scripting method reads its arguments (app_methods.cpp, the Model window's
// rows, the canvas settings). A JSON object; a missing or null key takes the default, where
// there is one. A number goes through the engine's one number parser (engine/core/
// parse_number.h) as its JSON text, as a CLI flag's does: 4294967328 is not 32, 2.5 is not an
// integer, and the error names the key, the range and what came:
//
//   'w' expects an integer in 1..256, got 4294967328
#pragma once
#include "engine/core/parse_number.h"
#include "engine/gpt/gpt_config.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace wlui {

bool has_arg(const nlohmann::json& a, const char* key);   // there and not null
bool flag_arg(const nlohmann::json& a, const char* key, bool dflt);
std::string str_arg(const nlohmann::json& a, const char* key);
std::string str_arg(const nlohmann::json& a, const char* key, const std::string& dflt);
long long int_arg(const nlohmann::json& a, const char* key, const wl::NumberRange& r);
long long int_arg(const nlohmann::json& a, const char* key, const wl::NumberRange& r, long long dflt);
double real_arg(const nlohmann::json& a, const char* key, const wl::NumberRange& r);
double real_arg(const nlohmann::json& a, const char* key, const wl::NumberRange& r, double dflt);
// "execution": "resident" or "streaming"; none when missing, null or "" (a caller's default: the config's).
std::optional<wl::gpt::Execution> execution_arg(const nlohmann::json& a);
// The same checks on a value already in hand (a settings object's field), named `key`.
long long int_value(const nlohmann::json& v, const std::string& key, const wl::NumberRange& r);
double real_value(const nlohmann::json& v, const std::string& key, const wl::NumberRange& r);

}  // namespace wlui
