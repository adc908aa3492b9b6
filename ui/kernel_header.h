// kernel_header.h: a kernel's opening comment as prose, for the editor's
// "About this kernel" panel, which wraps it to the window (the editor does not wrap).
// No ImGui here: tests/ui/kernel_header_test.cpp checks it on the examples.
#pragma once
#include <string>
#include <string_view>

namespace wlui {

// The `//` lines before the first line of code, without their markers: lines of one
// paragraph joined by spaces, paragraphs (an empty `//` line) by a blank line. "" if none.
std::string kernel_header(std::string_view text);

}  // namespace wlui
