#include "ui/lesson_model.h"

#include <cstdio>

namespace wlui {

void LessonModel::load(const std::string& lessons_dir) {
    set_ = wl::lessons::load_lessons(lessons_dir);
    if (!set_.find(current_)) current_ = 0;
    set_done(done_list());
    set_work(std::map<int, std::string>(work_));
}

bool LessonModel::open(int number) {
    if (!set_.find(number)) return false;
    current_ = number;
    hints_shown_ = 0;
    confirming_ = solution_shown_ = false;
    verdict_.reset();
    running_.reset();
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

void LessonModel::keep_work(int number, const std::string& text) {
    const wl::lessons::Lesson* l = set_.find(number);
    if (!l) return;
    const auto it = work_.find(number);
    if (text == l->starter) {
        if (it == work_.end()) return;
        work_.erase(it);
    } else {
        if (it != work_.end() && it->second == text) return;
        work_[number] = text;
    }
    ++work_version_;
}

const std::string* LessonModel::work(int number) const {
    const auto it = work_.find(number);
    return it == work_.end() ? nullptr : &it->second;
}

void LessonModel::set_work(const std::map<int, std::string>& work) {
    work_.clear();
    for (const auto& [n, text] : work)
        if (set_.find(n)) work_[n] = text;
    ++work_version_;
}

int LessonModel::number_of_file(const std::string& name) {
    int n = 0;
    char tail[8] = {};
    if (std::sscanf(name.c_str(), "lesson%d%7s", &n, tail) != 2 || std::string(tail) != ".wk" || n <= 0) return 0;
    return file_name(n) == name ? n : 0;
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
    if (!current()) return nullptr;
    begin_check(source);
    while (checking()) advance_check();
    return verdict();
}

void LessonModel::begin_check(const std::string& source) {
    const wl::lessons::Lesson* l = current();
    running_.reset();
    if (!l) return;
    verdict_.reset();
    running_ = std::make_unique<wl::lessons::KernelCheck>(l->spec, source, file_name());
    running_lesson_ = l->number;
    if (running_->done()) finish_check();
}

void LessonModel::advance_check() {
    if (!running_) return;
    running_->advance();
    if (running_->done()) finish_check();
}

void LessonModel::finish_check() {
    verdict_ = running_->verdict();
    running_.reset();
    if (verdict_->passed) done_.insert(running_lesson_);
}

std::string LessonModel::check_progress() const {
    if (!running_) return "";
    char b[96];
    if (running_->steps_done() == 0) std::snprintf(b, sizeof b, "Training %d steps on the mesh", running_->steps());
    else
        std::snprintf(b, sizeof b, "Training step %d of %d, batch loss %.2f", running_->steps_done(),
                      running_->steps(), double(running_->batch_loss()));
    return b;
}

float LessonModel::check_fraction() const {
    return running_ && running_->steps() ? float(running_->steps_done()) / float(running_->steps()) : 0.0f;
}

const std::vector<float>& LessonModel::check_losses() const {
    static const std::vector<float> none;
    return running_ ? running_->batch_losses() : none;
}

const wl::Machine* LessonModel::check_machine() const { return running_ ? running_->machine() : nullptr; }

std::string LessonModel::file_name(int number) {
    char b[32];
    std::snprintf(b, sizeof b, "lesson%02d.wk", number);
    return b;
}

}  // namespace wlui
