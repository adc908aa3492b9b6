// lesson.h: a guided lesson, as the files of one folder lessons/NN-slug/:
//   lesson.md     the text (Markdown; its first '# ' heading is the title)
//   starter.wk    the kernel the student starts from (it must fail the check)
//   solution.wk   a kernel that passes the check
//   check.txt     what the check asks (check_spec.h)
// Adding a lesson is adding a folder: no code knows the list.
#pragma once
#include "engine/lessons/check_spec.h"

#include <string>
#include <vector>

namespace wl::lessons {

// Lesson numbers run 1..kMaxLessonNumber (a folder NN-name); 0 in saved state and links is none.
constexpr int kMaxLessonNumber = 9999;

struct Lesson {
    int number = 0;             // NN of the folder name
    std::string slug;           // "one-pe"
    std::string dir;            // the folder, as found
    std::string title;
    std::string text;           // lesson.md, whole
    std::string starter, solution;
    CheckSpec spec;
};

struct LessonSet {
    std::vector<Lesson> lessons;       // by number
    std::vector<std::string> errors;   // "lessons/03-x/check.txt:4: ..." — a folder with errors is left out
    std::vector<int> twins;            // numbers two folders claim: neither is that lesson
    const Lesson* find(int number) const;
};

// Reads every NN-slug folder under `root`. A missing root is one error.
LessonSet load_lessons(const std::string& root);

}  // namespace wl::lessons
