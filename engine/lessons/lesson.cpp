// lesson.cpp: finds and reads the lesson folders (layout in lesson.h).
#include "engine/lessons/lesson.h"

#include "engine/core/read_file.h"
#include "engine/lessons/forward_check.h"
#include "engine/lessons/train_check.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>

namespace wl::lessons {

namespace fs = std::filesystem;

namespace {

// Reads a lesson's file; "" or its error ("PATH: is a directory, not a lesson file", "PATH: cannot open (...)").
std::string read_text(const fs::path& p, std::string* out) {
    std::string error;
    return wl::read_file(p.string(), wl::kMaxSourceBytes, "lesson", out, &error) ? std::string() : error;
}

std::string title_of(const std::string& md) {
    std::istringstream in(md);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("# ", 0) == 0) {
            while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
            return line.substr(2);
        }
    return "";
}

// "03-routes" -> 3 and "routes"; false for any other name.
bool split_name(const std::string& name, int* number, std::string* slug) {
    if (name.size() < 4 || !std::isdigit((unsigned char)name[0]) || !std::isdigit((unsigned char)name[1]) || name[2] != '-')
        return false;
    *number = (name[0] - '0') * 10 + (name[1] - '0');
    *slug = name.substr(3);
    const bool printable = std::none_of(slug->begin(), slug->end(), [](char c) { return (unsigned char)c < 32 || c == 127; });
    return *number > 0 && printable;
}

}  // namespace

const Lesson* LessonSet::find(int number) const {
    if (std::find(twins.begin(), twins.end(), number) != twins.end()) return nullptr;   // which of two is meant cannot be known
    for (const Lesson& l : lessons)
        if (l.number == number) return &l;
    return nullptr;
}

LessonSet load_lessons(const std::string& root) {
    LessonSet set;
    std::error_code ec;
    if (!fs::is_directory(root, ec)) {
        set.errors.push_back(root + ": no lessons folder here");
        return set;
    }
    std::vector<fs::path> dirs;
    for (const fs::directory_entry& e : fs::directory_iterator(root, ec))
        if (e.is_directory()) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    for (const fs::path& d : dirs) {
        Lesson l;
        if (!split_name(d.filename().string(), &l.number, &l.slug)) {
            const std::string name = d.filename().string();   // "100-big" looks meant as a lesson: not left out unsaid
            if (!name.empty() && std::isdigit((unsigned char)name[0]) && name.find('-') != std::string::npos)
                set.errors.push_back(path_in_message(d.string()) + ": not a lesson's name: a lesson folder is two digits from 01, a dash and a name of printable characters (03-routes)");
            continue;
        }
        l.dir = d.string();
        const size_t errors_before = set.errors.size();
        std::string spec_text;
        const std::pair<const char*, std::string*> files[] = {
            {"lesson.md", &l.text}, {"starter.wk", &l.starter}, {"solution.wk", &l.solution}, {"check.txt", &spec_text}};
        for (const auto& [name, out] : files)
            if (const std::string why = read_text(d / name, out); !why.empty()) set.errors.push_back(why);
        if (set.errors.size() > errors_before) continue;
        l.title = title_of(l.text);
        if (l.title.empty()) set.errors.push_back((d / "lesson.md").string() + ": no '# Title' line");
        const std::string spec_path = (d / "check.txt").string();
        std::vector<SpecError> errs;
        l.spec = parse_check_spec(spec_text, &errs);
        for (const SpecError& e : errs)
            set.errors.push_back(spec_path + ":" + std::to_string(e.line) + ": " + e.message);
        l.spec.dir = l.dir;
        if (errs.empty() && l.spec.trains())
            if (const std::string why = train_files_error(l.spec); !why.empty())
                set.errors.push_back(spec_path + ":" + std::to_string(l.spec.train.line) + ": " + why);
        if (errs.empty() && l.spec.forwards())
            if (const std::string why = forward_files_error(l.spec); !why.empty())
                set.errors.push_back(spec_path + ":" + std::to_string(l.spec.forward.line) + ": " + why);
        if (errs.empty() && l.spec.hints.empty())   // lessons/README.md: a student who fails is shown one at a time
            set.errors.push_back(spec_path + ": no hint line: a lesson gives at least one");
        if (l.spec.expects.empty() && !l.spec.trains() && !l.spec.forwards() && errs.empty())
            set.errors.push_back(spec_path + ": no expect, train or forward line: the check would pass anything that runs");
        const auto twin = std::find_if(set.lessons.begin(), set.lessons.end(), [&](const Lesson& o) { return o.number == l.number; });
        if (twin != set.lessons.end()) {
            set.errors.push_back(l.dir + ": lesson " + std::to_string(l.number) + " again (also " + twin->dir + ")");
            set.twins.push_back(l.number);
        }
        if (set.errors.size() > errors_before) continue;
        set.lessons.push_back(std::move(l));
    }
    if (set.lessons.empty() && set.errors.empty())   // a folder, but not of lessons: not "no lessons" with exit 0
        set.errors.push_back(root + ": no lessons here (a lesson is a folder NN-name with lesson.md, starter.wk, solution.wk and check.txt)");
    return set;
}

}  // namespace wl::lessons
