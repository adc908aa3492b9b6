#include "ui/share_state.h"

#include "engine/lessons/lesson.h"
#include "ui/canvas_model.h"

#include <nlohmann/json.hpp>

namespace wlui {

using nlohmann::json;

static constexpr const char* kFormat = "waferlab-share";

json shared_state_to_json(const SharedState& s) {
    return {{"format", kFormat},
            {"version", SharedState::kVersion},
            {"file", s.file},
            {"text", s.text},
            {"example", s.example},
            {"lesson", s.lesson},
            {"mesh", {{"w", s.mesh_w}, {"h", s.mesh_h}}},
            {"cycle", s.cycle},
            {"colouring", s.colouring},
            {"pe", s.pe ? json{{"x", s.pe->first}, {"y", s.pe->second}} : json(nullptr)},
            {"run_mode", wl::run_mode_name(s.run_mode)},
            {"optimise", s.optimise}};
}

// A plain name: letters, digits, '_', '-', '.', no path and nothing a notice could be tricked by.
static bool plain_name(const std::string& s, size_t max) {
    if (s.empty() || s.size() > max || s[0] == '.') return false;
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.')) return false;
    return true;
}

std::optional<SharedState> shared_state_from_json(const json& j, std::string* problem) {
    auto fail = [&](std::string why) -> std::optional<SharedState> {
        if (problem) *problem = std::move(why);
        return std::nullopt;
    };
    if (!j.is_object() || !j.contains("format") || !j["format"].is_string() || j["format"].get<std::string>() != kFormat)
        return fail("it is not a WaferLab share link");
    if (!j.contains("version") || !j["version"].is_number_integer()) return fail("it has no format version");
    const json& v = j["version"];
    if (v.is_number_unsigned() ? v.get<uint64_t>() > uint64_t(SharedState::kVersion) : v.get<int64_t>() > SharedState::kVersion)
        return fail("it was made by a newer WaferLab (share format " + v.dump() + "; this one reads formats 1 to " +
                    std::to_string(SharedState::kVersion) + "): open it in the newer WaferLab");
    if (v.get<int64_t>() < 1) return fail("its share format " + v.dump() + " is not one WaferLab ever wrote");

    SharedState s;
    auto str = [&](const char* key, std::string& out) -> bool {
        if (!j.contains(key)) return true;
        if (!j[key].is_string()) return false;
        out = j[key].get<std::string>();
        return true;
    };
    if (!str("file", s.file) || !str("text", s.text) || !str("example", s.example) || !str("colouring", s.colouring))
        return fail("a field has the wrong type");
    if (s.text.size() > SharedState::kMaxText) return fail("its kernel is over 4 MiB");
    if (!plain_name(s.file, 200)) return fail("its file name is not a plain file name");
    if (!s.example.empty() && !plain_name(s.example, 40)) return fail("its example name is not a plain name");
    if (!mode_from_name(s.colouring)) return fail("it asks for a colouring mode this WaferLab does not have ('" + s.colouring.substr(0, 20) + "')");
    if (j.contains("lesson")) {
        if (!j["lesson"].is_number_integer() || j["lesson"].get<int64_t>() < 0 || j["lesson"].get<int64_t>() > wl::lessons::kMaxLessonNumber)
            return fail("its lesson is not a lesson number");
        s.lesson = j["lesson"].get<int>();
    }
    if (j.contains("mesh")) {
        const json& m = j["mesh"];
        auto side = [&](const char* k) { return m.is_object() && m.contains(k) && m[k].is_number_integer() && m[k].get<int64_t>() >= 1 && m[k].get<int64_t>() <= 256; };
        if (!side("w") || !side("h")) return fail("its mesh is not W x H with W and H in 1..256");
        s.mesh_w = m["w"].get<int>(), s.mesh_h = m["h"].get<int>();
    }
    if (j.contains("cycle")) {
        if (!j["cycle"].is_number_unsigned() || j["cycle"].get<uint64_t>() > SharedState::kMaxCycle)
            return fail("its cycle is not a number of cycles from 0 to " + std::to_string(SharedState::kMaxCycle));
        s.cycle = j["cycle"].get<uint64_t>();
    }
    if (j.contains("pe") && !j["pe"].is_null()) {
        const json& p = j["pe"];
        auto coord = [&](const char* k) { return p.is_object() && p.contains(k) && p[k].is_number_integer() && p[k].get<int64_t>() >= 0 && p[k].get<int64_t>() < 256; };
        if (!coord("x") || !coord("y")) return fail("its selected PE is not a place on a mesh");
        s.pe = std::pair{p["x"].get<int>(), p["y"].get<int>()};
    }
    if (j.contains("run_mode") && (!j["run_mode"].is_string() || !wl::run_mode_from_name(j["run_mode"].get<std::string>(), &s.run_mode)))
        return fail("its run mode is not \"cycle\" or \"fast\"");
    if (j.contains("optimise")) {
        if (!j["optimise"].is_boolean()) return fail("its optimise is not true or false");
        s.optimise = j["optimise"].get<bool>();
    }
    return s;
}

}  // namespace wlui
