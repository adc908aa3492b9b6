// pe_inspector.h: the "PE inspector" window — everything one PE holds right
// now: the current instruction and its kernel line, the task table, per colour
// the route, router buffers and CE queue, SRAM by symbol (f32, i32 or hex;
// big arrays virtualised), and the counters. It reads the machine every frame
// through pe_report.h and keeps only view settings.
//
//   PeInspector w;                                              // once
//   if (auto loc = w.draw(&open, run, x, y, source)) reveal(*loc);   // every frame
#pragma once
#include "engine/lang/run.h"

#include <cstdint>
#include <optional>
#include <imgui.h>
#include <map>
#include <set>
#include <string>
#include <string_view>

namespace wlui {

class PeInspector {
public:
    // Draws PE (x, y) of `run` (x < 0: nothing selected; run null: nothing loaded).
    // `source` is the compiled kernel's text, or "" when the editor's text has moved on.
    // Returns the place to show when the user pressed "Show in editor". The caller places the window.
    std::optional<wl::SrcLoc> draw(bool* open, const wl::lang::KernelRun* run, int x, int y, std::string_view source);

    const std::string& hovered_term() const { return hovered_term_; }   // the term whose help showed this frame, or ""
    // The terms with hover help drawn this frame, and where (screen rectangles).
    const std::map<std::string, std::pair<ImVec2, ImVec2>>& term_rects() const { return term_rects_; }

private:
    void draw_sram(const wl::Machine& m, int x, int y);
    void term_help(const char* term);    // after an item: its glossary entry on hover

    int format_ = 0;                     // 0 = each symbol's own type, then f32, i32, hex
    std::set<uint32_t> toggled_;
    std::string hovered_term_;
    std::map<std::string, std::pair<ImVec2, ImVec2>> term_rects_;         // SRAM regions (by offset) opened or closed against their default
};

}  // namespace wlui
