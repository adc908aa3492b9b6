// json_args.cpp: see json_args.h.
#include "ui/json_args.h"

#include <stdexcept>

namespace wlui {

using nlohmann::json;

namespace {

// What came, for the message: a string quoted, anything else as its JSON, both cut short.
std::string shown(const json& v) {
    if (v.is_string()) return wl::quote_prefix(v.get<std::string>());
    const std::string d = v.dump();
    return d.size() <= 40 ? d : d.substr(0, 40) + "...";
}

[[noreturn]] void refuse(const std::string& key, const std::string& want, const json& v) {
    throw std::invalid_argument("'" + key + "' expects " + want + ", got " + shown(v));
}

}  // namespace

bool has_arg(const json& a, const char* key) { return a.is_object() && a.contains(key) && !a[key].is_null(); }

std::optional<wl::gpt::Execution> execution_arg(const json& a) {
    if (!has_arg(a, "execution")) return std::nullopt;
    const json& v = a["execution"];
    if (v.is_string() && v.get<std::string>().empty()) return std::nullopt;
    wl::gpt::Execution e;
    if (!v.is_string() || !wl::gpt::execution_from_name(v.get<std::string>(), &e)) refuse("execution", "resident or streaming", v);
    return e;
}

bool flag_arg(const json& a, const char* key, bool dflt) {
    if (!has_arg(a, key)) return dflt;
    if (!a[key].is_boolean()) refuse(key, "true or false", a[key]);
    return a[key].get<bool>();
}

std::string str_arg(const json& a, const char* key) {
    if (!has_arg(a, key) || !a[key].is_string()) refuse(key, "a string", has_arg(a, key) ? a[key] : json());
    return a[key].get<std::string>();
}

std::string str_arg(const json& a, const char* key, const std::string& dflt) { return has_arg(a, key) ? str_arg(a, key) : dflt; }

// A number's JSON text through the one parser; anything else is parsed as "", which fails with
// the same words.
long long int_value(const json& v, const std::string& key, const wl::NumberRange& r) {
    long long out = 0;
    const std::string want = wl::parse_integer(v.is_number() ? v.dump() : "", r, &out);
    if (!want.empty()) refuse(key, want, v);
    return out;
}

double real_value(const json& v, const std::string& key, const wl::NumberRange& r) {
    double out = 0;
    const std::string want = wl::parse_real(v.is_number() ? v.dump() : "", r, &out);
    if (!want.empty()) refuse(key, want, v);
    return out;
}

static json arg(const json& a, const char* key) { return a.is_object() && a.contains(key) ? a[key] : json(); }

long long int_arg(const json& a, const char* key, const wl::NumberRange& r) { return int_value(arg(a, key), key, r); }
long long int_arg(const json& a, const char* key, const wl::NumberRange& r, long long dflt) { return has_arg(a, key) ? int_value(a[key], key, r) : dflt; }
double real_arg(const json& a, const char* key, const wl::NumberRange& r) { return real_value(arg(a, key), key, r); }
double real_arg(const json& a, const char* key, const wl::NumberRange& r, double dflt) { return has_arg(a, key) ? real_value(a[key], key, r) : dflt; }

}  // namespace wlui
