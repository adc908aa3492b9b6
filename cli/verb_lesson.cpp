// verb_lesson.cpp: `waferlab-cli lesson list` and `waferlab-cli lesson check N [file.wk]`.
// check runs a kernel against lesson N's check (engine/lessons) and prints the verdict,
// one line per check; a teacher can grade a folder of submissions with it. Exit status:
// 0 passed, 1 did not pass, 2 the lesson or the file could not be read.
#include "cli/verbs.h"
#include "engine/core/json_text.h"
#include "engine/core/parse_number.h"
#include "engine/core/read_file.h"
#include "engine/lessons/lesson.h"
#include "engine/lessons/lesson_check.h"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace wlcli {

namespace {

// --dir, else lessons/; an empty one would be "no lessons folder" without naming the flag.
std::string lessons_dir(const Args& args) {
    if (args.has("dir") && args.get("dir").empty()) throw std::runtime_error("--dir is empty: it names the lessons folder (leave it out for lessons/)");
    return args.get("dir", "lessons");
}

// The lessons, or 2 after saying why not.
bool load(const Args& args, wl::lessons::LessonSet* set) {
    *set = wl::lessons::load_lessons(lessons_dir(args));
    for (const std::string& e : set->errors) std::fprintf(stderr, "waferlab-cli lesson: %s\n", e.c_str());
    return set->errors.empty();
}

}  // namespace

int verb_lesson_list(const Args& args) {
    wl::lessons::LessonSet set;
    if (!load(args, &set)) return 2;
    if (args.has("json")) {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& l : set.lessons)
            j.push_back({{"number", l.number}, {"slug", l.slug}, {"title", l.title}, {"dir", l.dir},
                         {"cycle_budget", l.spec.cycle_budget}, {"hints", l.spec.hints.size()}});
        std::printf("%s\n", wl::json_text(j).c_str());
        return 0;
    }
    for (const auto& l : set.lessons) std::printf("%2d  %-52s %s\n", l.number, l.title.c_str(), l.dir.c_str());
    return 0;
}

int verb_lesson_check(const Args& args) {
    // Another lesson's problem (a copied folder whose lesson 13 names ../../models/kernels) does not
    // keep this one from its check: it is said as a warning, and only this lesson's own is an error.
    const wl::lessons::LessonSet set = wl::lessons::load_lessons(lessons_dir(args));
    long long n = 0;   // the one parser: 4294967297 is not lesson 1
    const wl::lessons::Lesson* lesson =
        wl::parse_integer(args.positional[0], wl::NumberRange::closed(1, wl::lessons::kMaxLessonNumber), &n).empty() ? set.find(int(n)) : nullptr;
    for (const std::string& e : set.errors) std::fprintf(stderr, "waferlab-cli lesson: %s%s\n", lesson ? "warning: " : "", e.c_str());
    if (!lesson && !set.errors.empty()) return 2;
    if (!lesson) {
        std::fprintf(stderr, "waferlab-cli lesson check: no lesson '%s' (`waferlab-cli lesson list` shows them)\n",
                     args.positional[0].c_str());
        return 2;
    }
    std::string path = lesson->dir + "/solution.wk", src = lesson->solution;
    if (args.positional.size() > 1) {
        path = args.positional[1];
        std::string error;   // a folder is called a folder, /dev/zero stops at the limit
        if (!wl::read_file(path, wl::kMaxSourceBytes, "kernel", &src, &error)) {
            std::fprintf(stderr, "waferlab-cli lesson check: %s\n", error.c_str());
            return 2;
        }
    }
    const wl::lessons::Verdict v = wl::lessons::check_kernel(lesson->spec, src, path);
    if (args.has("json")) {
        nlohmann::json j = {{"lesson", lesson->number}, {"kernel", path}};
        j.update(wl::lessons::verdict_json(v));
        std::printf("%s\n", wl::json_text(j).c_str());
    } else {
        std::printf("Lesson %d: %s\n", lesson->number, lesson->title.c_str());
        for (const auto& i : v.items) std::printf("  %s %s\n", i.ok ? "ok  " : "FAIL", i.message.c_str());
        std::printf("%s\n", v.summary().c_str());
    }
    if (v.lesson_error) return 2;   // the lesson's, named at its check.txt line (printed above)
    return v.passed ? 0 : 1;
}

}  // namespace wlcli
