#include "ui/workspace.h"

#include "engine/lessons/lesson.h"

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace wlui {

using nlohmann::json;

static constexpr const char* kFormat = "waferlab-workspace";

// A lesson's number as saved: an integer in 0..kMaxLessonNumber (get<int> of 4294967297 would be 1).
static bool lesson_number(const nlohmann::json& n) {
    return n.is_number_integer() && (n.is_number_unsigned() ? n.get<uint64_t>() <= uint64_t(wl::lessons::kMaxLessonNumber) : n.get<int64_t>() >= 0 && n.get<int64_t>() <= wl::lessons::kMaxLessonNumber);
}

std::string workspace_to_json(const Workspace& ws) {
    json j = {{"format", kFormat},    {"version", Workspace::kVersion}, {"file", ws.file},
              {"text", ws.text},      {"example", ws.example},          {"modified", ws.modified},
              {"path", ws.path},      {"font_scale", ws.font_scale},    {"lessons_done", ws.lessons_done},
              {"lesson", ws.lesson},  {"run_mode", wl::run_mode_name(ws.run_mode)},
              {"optimise", ws.optimise}};
    json work = json::object();
    for (const auto& [n, text] : ws.lesson_work) work[std::to_string(n)] = text;
    j["lesson_work"] = work;
    return j.dump(1);
}

std::optional<Workspace> workspace_from_json(std::string_view text, std::string* problem) {
    auto fail = [&](std::string why) -> std::optional<Workspace> {
        if (problem) *problem = std::move(why);
        return std::nullopt;
    };
    const json j = json::parse(text.begin(), text.end(), nullptr, false);
    if (j.is_discarded() || !j.is_object()) return fail("it is not valid JSON");
    // json::value() throws when the key holds another type: check the type first.
    if (!j.contains("format") || !j["format"].is_string() || j["format"].get<std::string>() != kFormat)
        return fail("it is not a WaferLab workspace");
    if (!j.contains("version") || !j["version"].is_number_integer()) return fail("it has no format version");
    const int v = j["version"].get<int>();
    if (v > Workspace::kVersion)
        return fail("it was saved by a newer WaferLab (format " + std::to_string(v) + ", this one reads " +
                    std::to_string(Workspace::kVersion) + ")");
    if (v < 1) return fail("it was saved in an old format (" + std::to_string(v) + ") this WaferLab no longer reads");

    Workspace ws;
    auto str = [&](const char* key, std::string& out) {
        if (!j.contains(key)) return true;
        if (!j[key].is_string()) return false;
        out = j[key].get<std::string>();
        return true;
    };
    if (!str("file", ws.file) || !str("text", ws.text) || !str("example", ws.example) || !str("path", ws.path))
        return fail("a field has the wrong type");
    if (j.contains("modified")) {
        if (!j["modified"].is_boolean()) return fail("a field has the wrong type");
        ws.modified = j["modified"].get<bool>();
    }
    if (j.contains("font_scale") && j["font_scale"].is_number()) {
        const float s = j["font_scale"].get<float>();
        ws.font_scale = s == s ? std::clamp(s, Workspace::kMinFontScale, Workspace::kMaxFontScale) : 1.0f;
    }
    if (j.contains("run_mode") && j["run_mode"].is_string())   // a mode this build does not know: cycle, the default
        wl::run_mode_from_name(j["run_mode"].get<std::string>(), &ws.run_mode);
    if (j.contains("optimise") && j["optimise"].is_boolean()) ws.optimise = j["optimise"].get<bool>();
    if (j.contains("lessons_done") && j["lessons_done"].is_array())   // progress: keep what reads, drop the rest
        for (const json& n : j["lessons_done"])
            if (lesson_number(n)) ws.lessons_done.push_back(n.get<int>());
    if (j.contains("lesson") && lesson_number(j["lesson"])) ws.lesson = j["lesson"].get<int>();
    if (j.contains("lesson_work") && j["lesson_work"].is_object())   // keep what reads, drop the rest
        for (const auto& [key, text] : j["lesson_work"].items()) {
            const int n = std::atoi(key.c_str());
            if (n > 0 && std::to_string(n) == key && text.is_string()) ws.lesson_work[n] = text.get<std::string>();
        }
    if (ws.file.empty()) ws.file = "untitled.wk";
    return ws;
}

StartPlan plan_start(const std::optional<Workspace>& saved, const std::string& requested_example) {
    StartPlan p;
    if (!requested_example.empty()) {
        if (saved && saved->modified) {
            p.open = StartPlan::Open::Saved;
            p.notice = "Kept your unsaved edits to " + saved->file + " instead of opening the example '" +
                       requested_example + "'. Open it from the Examples menu; it asks before replacing your edits.";
        } else {
            p.open = StartPlan::Open::Example;
        }
    } else if (saved) {
        p.open = StartPlan::Open::Saved;
    }
    return p;
}

void Autosave::changed(double now) {
    if (!dirty_) first_ = now;
    dirty_ = true;
    last_ = now;
}

bool Autosave::due(double now) const {
    return dirty_ && (now - last_ >= quiet_ || now - first_ >= max_wait_);
}

}  // namespace wlui
