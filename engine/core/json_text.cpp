// json_text.cpp: see json_text.h.
#include "engine/core/json_text.h"

namespace wl {

namespace {

void add_old_keys(nlohmann::json& j) {
    if (j.is_array()) {
        for (nlohmann::json& v : j)
            if (v.is_structured()) add_old_keys(v);
        return;
    }
    if (!j.is_object()) return;
    for (auto& [key, v] : j.items())
        if (v.is_structured()) add_old_keys(v);
    for (const RenamedKey& k : kRenamedKeys)
        if (auto it = j.find(k.new_name); it != j.end() && !j.contains(k.old_name)) {
            nlohmann::json v = *it;
            j[k.old_name] = std::move(v);
        }
}

}  // namespace

nlohmann::json with_old_keys(nlohmann::json j) {
    add_old_keys(j);
    return j;
}

}  // namespace wl
