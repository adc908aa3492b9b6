// compare_window.h: the "Wafer vs GPU" window, two views in tabs.
//   This kernel: the loaded kernel's finished run (its cycles at the WSE clock) next to the
//     same operation on a modelled GPU, built from what the run counted (wl::gpu::compare_kernel).
//   GPT step: one GPT step on a modelled GPU next to the wafer's analytical estimate (and, for a
//     forward pass, its cost measured on the emulated mesh): side-by-side bars per op, a log-log
//     roofline with both machines' op points, totals, and a plain sentence under each chart
//     (wl::gpu::compare()).
// Every axis has values and units, and every term has its glossary entry on hover.
//
//   CompareWindow w;                   // once
//   w.draw(&show_compare, loaded);     // every frame, between ImGui::NewFrame and Render
#pragma once
#include <imgui.h>
#include <map>
#include <string>

#include <nlohmann/json_fwd.hpp>
#include <optional>

#include "engine/gpu/compare.h"
#include "engine/gpu/kernel_compare.h"

namespace wlui {

// The loaded kernel as the app sees it this frame.
struct LoadedKernel {
    std::string name;                    // its file name; "": nothing loaded
    uint64_t cycle = 0;                  // where its run is
    bool finished = false;               // the host block ran to its end
    std::string fault;                   // the run stopped with this error
    wl::gpu::KernelWork work;            // what the run counted (when finished without a fault)
};

// The GPT on screen (the Model window's training run, or else its compiled model). While there is
// one, the GPT step tab describes it (its config, vocabulary, mesh, batch and measured step) rather
// than the tab's own pickers, until the user unticks "the run on screen" or a script sets a config.
struct ShownRun {
    std::string config;                  // "gpt-nano"
    wl::gpt::GPTConfig cfg;              // its vocabulary filled in (a training run's: its corpus's)
    int mesh_w = 0, mesh_h = 0;
    bool streaming = false;              // the weights stream in (else resident)
    bool training = false;               // a training run (else a compiled model)
    int wafers = 1;
    int64_t step = 0;                    // steps trained so far
    uint64_t step_cycles = 0;            // the last step's wafer time in emulated cycles (0: none yet)
};

class CompareWindow {
public:
    enum class View { Kernel, Gpt };
    CompareWindow();
    void draw(bool* open, const LoadedKernel& kernel, const std::optional<ShownRun>& run = std::nullopt);
    void show_view(View v) { want_view_ = v; }   // selects that tab on the next draw
    View view() const { return view_; }          // the tab drawn last frame
    // The kernel view for state(): {name, status: "none" | "not run" | "fault" | "compared", ...the comparison}.
    nlohmann::json kernel_state() const;
    // The GPT step view for state(): {follows_run, config, mesh, vocab, batch, execution, measured_s, sentence}.
    nlohmann::json gpt_state() const;

    // Settings; changing them through set() (or the widgets) recomputes on the next draw.
    void set(const std::string& model, const std::string& gpu, const std::string& profile = "tuned-bf16",
             int batch = 0, int gpus = 1);
    // Inference (a forward pass, also measured on a mesh_w x mesh_h mesh) or a training step.
    void set_inference(bool infer, const std::string& mesh = "32x32");   // mesh "WxH"; a bad one keeps the last
    // The case: the wafer's weights resident or streamed (ByFit: streamed when they do not fit), and
    // unstructured sparsity 0 .. 0.95 of the blocks' linear layers.
    void set_case(wl::gpu::WaferExecution execution, double sparsity);
    const wl::gpu::Comparison* result() const { return ok_ ? &cmp_ : nullptr; }
    std::string models_dir = "models";   // where <model>.yaml files live (embedded in the WASM build)

    const std::string& hovered_term() const { return hovered_term_; }   // the term whose help showed this frame, or ""
    int axis_ticks() const { return axis_ticks_; }
    // The explained terms drawn this frame, and where (screen rectangles).
    const std::map<std::string, std::pair<ImVec2, ImVec2>>& term_rects() const { return term_rects_; }

private:
    void term_help(const char* term);    // after an item: its glossary entry on hover
    void draw_kernel(const LoadedKernel& k);
    void draw_kernel_bars(const wl::gpu::KernelComparison& c);
    void draw_gpt(const std::optional<ShownRun>& run);
    void recompute();
    bool following() const { return follow_ && run_; }
    void draw_totals();
    void draw_bars();
    void draw_roofline();

    std::string model_ = "gpt-nano", gpu_ = "a100", profile_ = "tuned-bf16";
    int batch_ = 0, gpus_ = 1;
    bool infer_ = false;
    wl::gpu::WaferExecution execution_;   // none: by fit
    float sparsity_ = 0;
    int mesh_w_ = 32, mesh_h_ = 32;      // inference: the emulated mesh, where the forward is also measured
    bool log_bars_ = true;
    bool dirty_ = true, ok_ = false;
    std::string error_;
    std::string hovered_term_;
    int axis_ticks_ = 0;                 // tick labels on the bars' time axis last frame
    std::map<std::string, std::pair<ImVec2, ImVec2>> term_rects_;
    wl::gpu::Comparison cmp_;
    std::optional<ShownRun> run_;        // the run on screen, this frame
    bool follow_ = true;                 // describe it (the "the run on screen" box)
    std::string run_key_;                // what of it the comparison was computed for
    std::string sentence_;               // the mesh's step against the full-wafer projections
    double measured_s_ = 0;              // the run's last step, measured (0: none)
    // The kernel view: the comparison of the run last drawn, and what it is of.
    std::optional<View> want_view_;
    View view_ = View::Gpt;
    std::string kernel_name_;            // the kernel last seen loaded: a new one brings its view forward
    bool first_draw_ = true;
    std::string kernel_status_ = "none";
    uint64_t kernel_cycle_ = 0;
    std::string kernel_key_;             // kernel, counts and GPU the comparison was made for
    std::optional<wl::gpu::KernelComparison> kcmp_;
    std::string kernel_error_;
};

}  // namespace wlui
