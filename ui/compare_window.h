// compare_window.h: the "Wafer vs GPU" window — one GPT step on a modelled GPU
// next to the wafer's analytical estimate (and, for a forward pass, its cost
// measured on the emulated mesh): side-by-side bars per op, a log-log roofline
// with both machines' op points (hover for details), totals, and a plain
// sentence under each chart. Reads everything from wl::gpu::compare().
//
//   CompareWindow w;            // once
//   w.draw(&show_compare);      // every frame, between ImGui::NewFrame and Render
#pragma once
#include <imgui.h>
#include <map>
#include <string>

#include "engine/gpu/compare.h"

namespace wlui {

class CompareWindow {
public:
    CompareWindow();
    void draw(bool* open);

    // Settings; changing them through set() (or the widgets) recomputes on the next draw.
    void set(const std::string& model, const std::string& gpu, const std::string& profile = "tuned-bf16",
             int batch = 0, int gpus = 1);
    // Inference (a forward pass, also measured on a mesh_w x mesh_h mesh) or a training step.
    void set_inference(bool infer, const std::string& mesh = "32x32");   // mesh "WxH"; a bad one keeps the last
    const wl::gpu::Comparison* result() const { return ok_ ? &cmp_ : nullptr; }
    std::string models_dir = "models";   // where <model>.cfg files live (embedded in the WASM build)

    const std::string& hovered_term() const { return hovered_term_; }   // the term whose help showed this frame, or ""
    int axis_ticks() const { return axis_ticks_; }
    // The explained terms drawn this frame, and where (screen rectangles).
    const std::map<std::string, std::pair<ImVec2, ImVec2>>& term_rects() const { return term_rects_; }

private:
    void term_help(const char* term);    // after an item: its glossary entry on hover
    void recompute();
    void draw_totals();
    void draw_bars();
    void draw_roofline();

    std::string model_ = "gpt-nano", gpu_ = "a100", profile_ = "tuned-bf16";
    int batch_ = 0, gpus_ = 1;
    bool infer_ = false;
    int mesh_w_ = 32, mesh_h_ = 32;      // inference: the emulated mesh, where the forward is also measured
    bool log_bars_ = true;
    bool dirty_ = true, ok_ = false;
    std::string error_;
    std::string hovered_term_;
    int axis_ticks_ = 0;                 // tick labels on the bars' time axis last frame
    std::map<std::string, std::pair<ImVec2, ImVec2>> term_rects_;
    wl::gpu::Comparison cmp_;
};

}  // namespace wlui
