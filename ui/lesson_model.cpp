#include "ui/lesson_model.h"

#include <cstdio>

namespace wlui {

void LessonModel::load(const std::string& lessons_dir) {
    set_ = wl::lessons::load_lessons(lessons_dir);
    if (!set_.find(current_)) current_ = 0;
    set_done(done_list());
}

bool LessonModel::open(int number) {
    if (!set_.find(number)) return false;
    current_ = number;
    hints_shown_ = 0;
    confirming_ = solution_shown_ = false;
    verdict_.reset();
    return true;
}

int LessonModel::next_number() const {
    for (const wl::lessons::Lesson& l : set_.lessons)
        if (l.number > current_) return l.number;
    return 0;
}

void LessonModel::set_done(const std::vector<int>& numbers) {
    done_.clear();
    for (int n : numbers)
        if (set_.find(n)) done_.insert(n);
}

bool LessonModel::reveal_hint() {
    const wl::lessons::Lesson* l = current();
    if (!l || hints_shown_ >= int(l->spec.hints.size())) return false;
    ++hints_shown_;
    return true;
}

std::optional<std::string> LessonModel::confirm_solution() {
    const wl::lessons::Lesson* l = current();
    if (!confirming_ || !l) return std::nullopt;
    confirming_ = false;
    solution_shown_ = true;
    return l->solution;
}

const wl::lessons::Verdict* LessonModel::check(const std::string& source) {
    const wl::lessons::Lesson* l = current();
    if (!l) return nullptr;
    verdict_ = wl::lessons::check_kernel(l->spec, source, file_name());
    if (verdict_->passed) done_.insert(l->number);
    return &*verdict_;
}

std::string LessonModel::file_name(int number) {
    char b[32];
    std::snprintf(b, sizeof b, "lesson%02d.wk", number);
    return b;
}

}  // namespace wlui
