// lesson_model.h: the Lessons panel's state, without ImGui: which lesson is open, which are
// done, how many hints are shown, whether Show solution is waiting for its confirmation, and
// the last verdict. The lessons and the checker are the engine's (engine/lessons); the
// window (lessons_window.cpp) draws this, the JS hook and the tests drive it.
#pragma once
#include "engine/lessons/lesson.h"
#include "engine/lessons/lesson_check.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace wlui {

class LessonModel {
public:
    void load(const std::string& lessons_dir);     // reads every lesson folder; errors() says what failed
    const std::vector<wl::lessons::Lesson>& lessons() const { return set_.lessons; }
    const std::vector<std::string>& errors() const { return set_.errors; }

    // The open lesson (nullptr for none). open() resets hints, the confirmation and the verdict.
    bool open(int number);                          // false: no such lesson (nothing changes)
    const wl::lessons::Lesson* current() const { return set_.find(current_); }
    int current_number() const { return current_; }
    int next_number() const;                        // the lesson after the open one, 0 at the end

    // Progress: lessons whose check has passed once. Kept with the saved workspace.
    bool done(int number) const { return done_.count(number) != 0; }
    std::vector<int> done_list() const { return {done_.begin(), done_.end()}; }
    void set_done(const std::vector<int>& numbers);   // from the saved state; unknown numbers are dropped

    // The student's kernel for each lesson, kept when they leave it (the app saves it with the
    // workspace) and brought back when they return: no lesson's edits are ever thrown away by
    // moving between lessons. keep_work(n, text) with the starter's text forgets it.
    void keep_work(int number, const std::string& text);
    const std::string* work(int number) const;      // nullptr: none kept (the starter)
    const std::map<int, std::string>& all_work() const { return work_; }
    void set_work(const std::map<int, std::string>& work);   // from the saved state; unknown numbers are dropped
    uint64_t work_version() const { return work_version_; }   // moves on whenever the kept work changes
    static int number_of_file(const std::string& name);       // "lesson13.wk" -> 13; 0 for another name

    // Hints, one at a time, in check.txt's order.
    int hints_shown() const { return hints_shown_; }
    bool reveal_hint();                             // false when every hint is already shown

    // Show solution asks first: ask_solution(), then confirm_solution() hands the text over.
    void ask_solution() { confirming_ = current() != nullptr; }
    bool confirming_solution() const { return confirming_; }
    void cancel_solution() { confirming_ = false; }
    std::optional<std::string> confirm_solution();  // the solution's text, once confirmed
    bool solution_shown() const { return solution_shown_; }

    // Checks `source` against the open lesson; a pass marks it done.
    const wl::lessons::Verdict* check(const std::string& source);
    // The same in pieces, for the panel: a training check (lesson 13) runs one step per
    // advance_check(), so each frame can draw its progress. Without training the verdict is
    // there when begin_check() returns. open() drops a check in progress.
    void begin_check(const std::string& source);
    bool checking() const { return running_ != nullptr; }
    void advance_check();                           // one training step; the verdict when it was the last
    std::string check_progress() const;             // "Training step 7 of 20, batch loss 3.52"
    float check_fraction() const;                   // 0..1
    const std::vector<float>& check_losses() const;   // a training check's batch losses so far
    const wl::Machine* check_machine() const;         // the mesh a training check runs on, while it runs
    const wl::lessons::Verdict* verdict() const { return verdict_ ? &*verdict_ : nullptr; }

    // The file names the editor gets for the starter and the solution: "lesson01.wk".
    std::string file_name() const { return file_name(current_); }
    static std::string file_name(int number);
    const wl::lessons::Lesson* find(int number) const { return set_.find(number); }

private:
    wl::lessons::LessonSet set_;
    int current_ = 0;
    std::set<int> done_;
    std::map<int, std::string> work_;
    uint64_t work_version_ = 0;
    int hints_shown_ = 0;
    bool confirming_ = false, solution_shown_ = false;
    std::optional<wl::lessons::Verdict> verdict_;
    std::unique_ptr<wl::lessons::KernelCheck> running_;   // a check in progress
    int running_lesson_ = 0;
    void finish_check();
};

}  // namespace wlui
