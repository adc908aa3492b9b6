// compare_window.h: the "Wafer vs GPU" window — one GPT step on a modelled GPU
// next to the wafer's analytical estimate: side-by-side bars per op, a log-log
// roofline with both machines' op points (hover for details), totals, and a
// plain sentence under each chart. Reads everything from wl::gpu::compare().
//
//   CompareWindow w;            // once
//   w.draw(&show_compare);      // every frame, between ImGui::NewFrame and Render
#pragma once
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
    const wl::gpu::Comparison* result() const { return ok_ ? &cmp_ : nullptr; }
    std::string models_dir = "models";   // where <model>.cfg files live (embedded in the WASM build)

private:
    void recompute();
    void draw_totals();
    void draw_bars();
    void draw_roofline();

    std::string model_ = "gpt-nano", gpu_ = "a100", profile_ = "tuned-bf16";
    int batch_ = 0, gpus_ = 1;
    bool infer_ = false;
    bool log_bars_ = true;
    bool dirty_ = true, ok_ = false;
    std::string error_;
    wl::gpu::Comparison cmp_;
};

}  // namespace wlui
