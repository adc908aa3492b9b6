// compare_window.cpp: drawing only; every number comes from wl::gpu::compare_kernel()
// (the kernel view) and wl::gpu::compare() (the GPT view).
//
// Index of this file:
// [SECTION] settings and recompute
// [SECTION] the window and its tabs
// [SECTION] the kernel view
// [SECTION] totals
// [SECTION] bars per op
// [SECTION] roofline
#include "ui/compare_window.h"

#include "engine/gpt/gpt_config.h"
#include "ui/glossary.h"
#include "engine/fabric/mesh.h"

#include <imgui.h>

#include <algorithm>
#include <initializer_list>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

namespace wlui {

using nlohmann::json;

namespace {
const ImU32 kGpuCol = IM_COL32(90, 160, 255, 255);
const ImU32 kWaferCol = IM_COL32(255, 165, 60, 255);
const ImU32 kEmulatedCol = IM_COL32(120, 210, 120, 255);
constexpr int kMeshes[][2] = {{8, 8}, {16, 16}, {32, 32}, {48, 48}, {64, 64}};
const ImU32 kGrid = IM_COL32(255, 255, 255, 40);
const ImU32 kText = IM_COL32(220, 220, 220, 255);
const char* kModels[] = {"gpt-nano", "gpt-micro", "gpt2-small"};
const std::vector<std::string> kGpus = wl::gpu::gpu_ids();
const std::vector<std::string> kProfiles = wl::gpu::profile_ids();


template <class List>
bool combo(const char* label, std::string& value, const List& items) {
    bool changed = false;
    if (ImGui::BeginCombo(label, value.c_str())) {
        for (const auto& it : items)
            if (ImGui::Selectable(std::string(it).c_str(), value == it)) value = it, changed = true;
        ImGui::EndCombo();
    }
    return changed;
}
}  // namespace

// [SECTION] settings and recompute

CompareWindow::CompareWindow() = default;

void CompareWindow::set(const std::string& model, const std::string& gpu, const std::string& profile, int batch,
                        int gpus) {
    model_ = model;
    gpu_ = gpu;
    profile_ = profile;
    batch_ = batch;
    gpus_ = std::max(1, gpus);
    follow_ = false;   // a script asked for this config, not the run on screen
    dirty_ = true;
}

void CompareWindow::set_inference(bool infer, const std::string& mesh) {
    wl::Mesh m;
    if (wl::parse_mesh(mesh, &m)) mesh_w_ = m.w, mesh_h_ = m.h;
    infer_ = infer;
    dirty_ = true;
}

void CompareWindow::set_case(wl::gpu::WaferExecution execution, double sparsity) {
    execution_ = execution;
    sparsity_ = float(std::clamp(sparsity, 0.0, 0.95));
    dirty_ = true;
}

void CompareWindow::recompute() {
    dirty_ = false;
    try {
        const bool run = following();
        wl::gpt::GPTConfig cfg = run ? run_->cfg : wl::gpt::load_config(models_dir + "/" + model_ + ".yaml");
        wl::gpu::CompareOptions o;
        o.gpu = gpu_;
        o.profile = profile_;
        o.batch = batch_;
        o.gpus = gpus_;
        o.with_backward = !infer_;
        o.execution = execution_;
        o.sparsity = sparsity_;
        if (infer_) {   // a forward pass is also compiled onto the mesh and measured there
            o.mesh.w = mesh_w_;
            o.mesh.h = mesh_h_;
            o.kernels_dir = models_dir + "/kernels";
        }
        if (run) {   // the run's own shape, mesh, batch and weights
            o.batch = cfg.batch_size;
            o.grad_accum = cfg.grad_accum_steps;
            o.mesh.w = run_->mesh_w;
            o.mesh.h = run_->mesh_h;
            o.with_backward = run_->training || !infer_;
            o.execution = run_->streaming ? wl::gpt::Execution::Streaming : wl::gpt::Execution::Resident;
            if (o.with_backward) o.kernels_dir.clear();
        }
        cmp_ = wl::gpu::compare(cfg, o);
        ok_ = true;
        error_.clear();
    } catch (const std::exception& e) {
        ok_ = false;
        error_ = e.what();
    }
}

void CompareWindow::term_help(const char* term) {
    term_rects_[term] = {ImGui::GetItemRectMin(), ImGui::GetItemRectMax()};
    if (const char* help = glossary(term); help && ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
        ImGui::Text("%s: %s", term, help);
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
        hovered_term_ = term;
    }
}

// [SECTION] the window and its tabs

void CompareWindow::draw(bool* open, const LoadedKernel& k, const std::optional<ShownRun>& run) {
    run_ = run;
    hovered_term_.clear();
    term_rects_.clear();
    axis_ticks_ = 0;
    // A newly loaded kernel brings its view forward; with none loaded the window opens on the GPT step.
    if (!k.name.empty() && k.name != kernel_name_) want_view_ = View::Kernel;
    else if (first_draw_ && k.name.empty() && !want_view_) want_view_ = View::Gpt;
    kernel_name_ = k.name;
    first_draw_ = false;
    const ImGuiViewport* vp = ImGui::GetMainViewport();   // on screen whatever its size; it scrolls
    ImGui::SetNextWindowSize(ImVec2(std::min(820.0f, vp->WorkSize.x - 40), std::min(720.0f, vp->WorkSize.y - 40)), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowPos(vp->GetCenter(), ImGuiCond_FirstUseEver, ImVec2(0.5f, 0.5f));
    if (!ImGui::Begin("Wafer vs GPU", open)) {
        ImGui::End();
        return;
    }
    if (ImGui::BeginTabBar("views")) {
        auto tab = [&](const char* label, View v) {
            const bool pick = want_view_ && *want_view_ == v;
            const bool on = ImGui::BeginTabItem(label, nullptr, pick ? ImGuiTabItemFlags_SetSelected : 0);
            term_help(label);
            if (on) view_ = v;
            return on;
        };
        if (tab("this kernel", View::Kernel)) {
            draw_kernel(k);
            ImGui::EndTabItem();
        }
        if (tab("GPT step", View::Gpt)) {
            draw_gpt(run);
            ImGui::EndTabItem();
        }
        want_view_.reset();
        ImGui::EndTabBar();
    }
    ImGui::End();
}

void CompareWindow::draw_gpt(const std::optional<ShownRun>& run) {
    // The run on screen: what it is, and a box to compare a config of one's own instead.
    std::string key;
    if (run) {
        const wl::gpt::GPTConfig& c = run->cfg;
        key = run->config + "|" + std::to_string(c.vocab_size) + "|" + std::to_string(run->mesh_w) + "x" + std::to_string(run->mesh_h) + "|" +
              std::to_string(c.batch_size) + "|" + std::to_string(c.grad_accum_steps) + "|" + std::to_string(run->streaming) + "|" +
              std::to_string(run->training);
        if (ImGui::Checkbox("the run on screen", &follow_)) dirty_ = true;
        term_help("the run on screen");
        if (follow_) {
            ImGui::SameLine();
            ImGui::TextWrapped("%s %s on a %d x %d mesh%s, vocabulary %d%s, batch %d%s, weights %s%s", run->config.c_str(),
                               run->training ? "training" : "compiled", run->mesh_w, run->mesh_h,
                               run->wafers > 1 ? (" x " + std::to_string(run->wafers) + " wafers").c_str() : "", c.vocab_size,
                               run->training ? " (its corpus)" : "", c.batch_size,
                               c.grad_accum_steps > 1 ? (" x " + std::to_string(c.grad_accum_steps) + " accumulated").c_str() : "",
                               wl::gpt::execution_name(run->streaming ? wl::gpt::Execution::Streaming : wl::gpt::Execution::Resident),
                               run->training ? (", step " + std::to_string(run->step)).c_str() : "");
        }
    }
    if (key != run_key_) run_key_ = key, dirty_ = true;
    const bool follow = following();
    measured_s_ = follow && run->training && run->step_cycles ? double(run->step_cycles) / wl::gpu::WaferSpec{}.clock_hz : 0.0;
    ImGui::PushItemWidth(140);
    if (!follow) {
        dirty_ |= combo("model", model_, kModels);
        term_help("model");
        ImGui::SameLine();
    }
    dirty_ |= combo("GPU", gpu_, kGpus);
    term_help("GPU");
    ImGui::SameLine();
    dirty_ |= combo("profile", profile_, kProfiles);
    term_help("profile");
    if (!follow) {
        dirty_ |= ImGui::InputInt("batch (0: config)", &batch_);
        term_help("batch (0: config)");
        ImGui::SameLine();
    }
    dirty_ |= ImGui::InputInt("GPUs", &gpus_);
    term_help("GPUs");
    if (!follow || !run->training) {
        ImGui::SameLine();
        dirty_ |= ImGui::Checkbox("inference", &infer_);
        term_help("inference");
    }
    if (infer_ && !follow) {
        ImGui::SameLine();
        char m[32];
        std::snprintf(m, sizeof m, "%dx%d", mesh_w_, mesh_h_);
        if (ImGui::BeginCombo("mesh", m)) {
            for (const auto& s : kMeshes) {
                char t[32];
                std::snprintf(t, sizeof t, "%dx%d", s[0], s[1]);
                if (ImGui::Selectable(t, s[0] == mesh_w_ && s[1] == mesh_h_)) mesh_w_ = s[0], mesh_h_ = s[1], dirty_ = true;
            }
            ImGui::EndCombo();
        }
        term_help("mesh");
    }
    if (!follow) {   // a run's weights are as it holds them
        const wl::gpu::WaferExecution cases[] = {std::nullopt, wl::gpt::Execution::Resident, wl::gpt::Execution::Streaming};
        if (ImGui::BeginCombo("wafer weights", wl::gpu::execution_name(execution_))) {
            for (const wl::gpu::WaferExecution& e : cases)
                if (ImGui::Selectable(wl::gpu::execution_name(e), e == execution_)) execution_ = e, dirty_ = true;
            ImGui::EndCombo();
        }
        term_help("wafer weights");
        ImGui::SameLine();
    }
    dirty_ |= ImGui::SliderFloat("sparsity", &sparsity_, 0.0f, 0.95f, "%.2f");
    term_help("sparsity");
    ImGui::PopItemWidth();
    sparsity_ = std::clamp(sparsity_, 0.0f, 0.95f);
    batch_ = std::max(0, batch_);
    gpus_ = std::clamp(gpus_, 1, 4096);
    if (dirty_) recompute();
    if (!ok_) {
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", error_.c_str());
        return;
    }
    draw_totals();
    sentence_ = wl::gpu::projection_sentence(cmp_, measured_s_);
    ImGui::TextWrapped("%s", sentence_.c_str());
    ImGui::TextWrapped("%s", cmp_.case_sentence.c_str());
    if (sparsity_ <= 0) ImGui::TextWrapped("%s.", wl::gpu::kGpuSparsityNote);
    if (cmp_.gpu_2to4_s > 0)
        ImGui::TextWrapped("GPU with the linear layers pruned 2:4 instead: %s against %s dense (their GEMMs' math halved).",
                           wl::gpu::format_seconds(cmp_.gpu_2to4_s).c_str(), wl::gpu::format_seconds(cmp_.gpu.compute_s).c_str());
    ImGui::Separator();
    draw_bars();
    ImGui::Separator();
    draw_roofline();
}

// [SECTION] the kernel view

json CompareWindow::kernel_state() const {
    json j = {{"name", kernel_name_.empty() ? json(nullptr) : json(kernel_name_)}, {"status", kernel_status_}, {"cycle", kernel_cycle_}};
    if (kernel_status_ == "compared" && kcmp_) j["comparison"] = wl::gpu::to_json(*kcmp_);
    if (!kernel_error_.empty()) j["error"] = kernel_error_;
    return j;
}

json CompareWindow::gpt_state() const {
    if (!ok_) return {{"follows_run", following()}, {"error", error_}};
    const wl::gpu::WaferSpec& m = cmp_.wafer.wafer;
    return {{"follows_run", following()},
            {"config", following() ? run_->config : model_},
            {"mesh", std::to_string(m.w) + "x" + std::to_string(m.h)},
            {"vocab", cmp_.cfg.vocab_size},
            {"vocab_assumed", cmp_.vocab_assumed},
            {"batch", cmp_.wafer.B},
            {"training", cmp_.wafer.with_backward},
            {"execution", wl::gpt::execution_name(cmp_.wafer.weight_streaming ? wl::gpt::Execution::Streaming : wl::gpt::Execution::Resident)},
            {"measured_s", measured_s_ > 0 ? json(measured_s_) : json(nullptr)},
            {"wafer_s", cmp_.wafer.step_s},
            {"sentence", sentence_}};
}

void CompareWindow::draw_kernel(const LoadedKernel& k) {
    kernel_cycle_ = k.cycle;
    kernel_error_.clear();
    if (k.name.empty()) {
        kernel_status_ = "none";
        ImGui::TextWrapped("No kernel is loaded. Open one from Examples and run it: its measured run is compared here "
                           "with the same operation on a GPU. The GPT step tab compares a model's training step.");
        return;
    }
    ImGui::Text("Kernel %s", k.name.c_str());
    if (!k.fault.empty()) {
        kernel_status_ = "fault";
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "The run stopped with a fault, so there is nothing to compare:");
        ImGui::TextWrapped("%s", k.fault.c_str());
        return;
    }
    if (!k.finished) {
        kernel_status_ = "not run";
        ImGui::TextColored(ImVec4(1, 0.85f, 0.4f, 1), "Run the kernel to compare.");
        ImGui::TextWrapped("The comparison needs the whole run's counts: press F5 (Run) or F6 (to the end), then look "
                           "here. The run is at cycle %llu.", (unsigned long long)k.cycle);
        return;
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(140);
    combo("GPU", gpu_, kGpus);
    term_help("GPU");
    const wl::gpu::KernelWork& w = k.work;
    const std::string key = k.name + "|" + gpu_ + "|" + std::to_string(w.cycles) + "|" + std::to_string(w.flops) + "|" +
                            std::to_string(w.bytes()) + "|" + std::to_string(w.estimated);
    if (key != kernel_key_) {
        kernel_key_ = key;
        try {
            kcmp_ = wl::gpu::compare_kernel(w, gpu_);
        } catch (const std::exception& e) {
            kcmp_.reset();
            kernel_error_ = e.what();
        }
    }
    if (!kcmp_) {
        kernel_status_ = "error";
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", kernel_error_.c_str());
        return;
    }
    kernel_status_ = "compared";
    const wl::gpu::KernelComparison& c = *kcmp_;
    const wl::gpu::GpuOpTime& g = c.on_gpu;
    ImGui::TextDisabled("What the run counted, and what the GPU is given (hover a name for what it means):");
    if (ImGui::BeginTable("counted", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
        auto row = [&](const char* term, const std::string& value, const std::string& note) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(term);
            term_help(term);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(value.c_str());
            ImGui::TableNextColumn();
            ImGui::TextDisabled("%s", note.c_str());
        };
        char b[160];
        std::snprintf(b, sizeof b, "%.2f GHz", c.clock_hz / 1e9);
        row("cycles", std::to_string(w.cycles), w.estimated ? "fast mode's estimate" : "measured in cycle mode, exact");
        row("WSE clock", b, "the wafer's clock, set in the engine (Hot Chips 34)");
        row("wafer time", wl::gpu::format_seconds(c.wafer_s), "cycles / WSE clock");
        row("FLOPs", std::to_string(w.flops), "FP operations by vector ops: 2 per fmacs element, 1 per other arithmetic element, 0 for fmovs");
        std::snprintf(b, sizeof b, "fill put %llu B on the PEs, print read %llu B back", (unsigned long long)w.in_bytes,
                      (unsigned long long)w.out_bytes);
        row("bytes in and out", std::to_string(w.bytes()) + " B", b);
        row("SRAM traffic", std::to_string(w.sram_bytes) + " B", "read and written by the vector ops; the wafer's side only");
        row("link wavelets", std::to_string(w.link_wavelets), "32-bit wavelets that crossed a link between PEs");
        std::snprintf(b, sizeof b, "max(compute %s, memory %s) + launch overhead %s", wl::gpu::format_seconds(g.compute_s).c_str(),
                      wl::gpu::format_seconds(g.memory_s).c_str(), wl::gpu::format_seconds(g.launch_s).c_str());
        row("GPU time", wl::gpu::format_seconds(g.time_s), b);
        ImGui::EndTable();
    }
    ImGui::Text("GPU / wafer = %.3g (%s). The GPU is", c.ratio, c.ratio > 1 ? "the wafer is faster" : "the GPU is faster");
    ImGui::SameLine();
    const std::string bound = std::string(wl::gpu::bound_name(g.bound)) + "-bound";
    ImGui::TextUnformatted(bound.c_str());
    term_help(bound.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("on the");
    ImGui::SameLine();
    ImGui::TextUnformatted("roofline");
    term_help("roofline");
    ImGui::SameLine();
    ImGui::TextDisabled("with launch overhead");
    term_help("launch overhead");
    ImGui::Separator();
    draw_kernel_bars(c);
    ImGui::TextWrapped("%s", c.sentence.c_str());
}

// Two bars on one linear time axis: the wafer's measured time, and the GPU's modelled time split
// into its roofline body and its launch overhead.
void CompareWindow::draw_kernel_bars(const wl::gpu::KernelComparison& c) {
    const wl::gpu::GpuOpTime& g = c.on_gpu;
    const double body = std::max(g.compute_s, g.memory_s);
    // Ticks at 1, 2 or 5 x 10^k, four to ten of them across the longer bar.
    const double mx = std::max({c.wafer_s, g.time_s, 1e-12});
    double step = std::pow(10.0, std::floor(std::log10(mx)));
    for (double m : {0.2, 0.5, 1.0})   // the first of 10^k/5, /2, /1 that gives at most ten ticks
        if (mx / (step * m) <= 10) { step *= m; break; }
    const double axis_max = std::ceil(mx / step - 1e-9) * step;
    ImGui::TextUnformatted("Time for one run of the kernel");
    ImGui::SameLine();
    ImGui::TextDisabled("(linear axis, seconds)");
    term_help("time axis");
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float label_w = 150, bar_h = ImGui::GetTextLineHeight() + 4;
    const float width = std::max(100.0f, ImGui::GetContentRegionAvail().x - label_w - 90);
    auto X = [&](double v) { return float(v / axis_max) * width; };
    auto bar = [&](const char* label, const char* term, std::initializer_list<std::pair<double, ImU32>> parts, double total) {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        ImGui::TextUnformatted(label);
        term_help(term);
        float x = p.x + label_w;
        for (const auto& [v, col] : parts) {
            const float w = std::max(X(v), 1.0f);   // a sliver stays visible
            dl->AddRectFilled(ImVec2(x, p.y + 1), ImVec2(x + w, p.y + bar_h - 1), col);
            x += w;
        }
        const std::string t = wl::gpu::format_seconds(total);
        dl->AddText(ImVec2(x + 6, p.y + 2), kText, t.c_str());
        ImGui::SetCursorScreenPos(ImVec2(p.x, p.y + bar_h + 2));
    };
    bar(c.work.estimated ? "wafer (fast mode)" : "wafer (measured)", "wafer time", {{c.wafer_s, kWaferCol}}, c.wafer_s);
    bar("GPU (modelled)", "GPU time", {{body, kGpuCol}, {g.launch_s, IM_COL32(60, 90, 140, 255)}}, g.time_s);
    // The axis: a line, a tick and a value at each step.
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float x0 = p.x + label_w;
    dl->AddLine(ImVec2(x0, p.y + 1), ImVec2(x0 + width, p.y + 1), kText);
    int ticks = 0;
    for (double t = 0; t <= axis_max * (1 + 1e-9); t += step, ++ticks) {
        const float x = x0 + X(t);
        dl->AddLine(ImVec2(x, p.y + 1), ImVec2(x, p.y + 5), kText);
        const std::string label = t > 0 ? wl::gpu::format_seconds(t) : "0";
        dl->AddText(ImVec2(x - ImGui::CalcTextSize(label.c_str()).x * 0.5f, p.y + 6), kText, label.c_str());
    }
    ImGui::Dummy(ImVec2(label_w + width, ImGui::GetTextLineHeight() + 8));
    axis_ticks_ = ticks;
    ImGui::TextColored(ImColor(kGpuCol), "GPU bar:");
    ImGui::SameLine();
    ImGui::TextDisabled("light = max(compute, memory) from the roofline, dark = launch overhead");
}

// [SECTION] totals

void CompareWindow::draw_totals() {
    const auto& g = cmp_.gpu;
    const auto& w = cmp_.wafer;
    ImGui::TextColored(ImColor(kGpuCol), "GPU  %s, %s: %s per step (%.1f%% of peak)", g.gpu.name.c_str(),
                       g.profile.id.c_str(), wl::gpu::format_seconds(g.compute_s).c_str(), 100 * g.mfu);
    term_help("% of peak");
    ImGui::TextColored(ImColor(kWaferCol), "Wafer  %s: %s per step (%s)", w.wafer.name.c_str(), wl::gpu::format_seconds(w.step_s).c_str(),
                       w.kind.c_str());
    ImGui::Text("GPU / wafer = %.3g  (%s)", cmp_.ratio, cmp_.ratio > 1 ? "the wafer is faster" : "the GPU is faster");
    ImGui::TextWrapped("GPU memory: %s", g.mem.verdict.c_str());
    ImGui::TextWrapped("Wafer SRAM: %s", w.verdict.c_str());
    if (g.opt.gpus > 1)
        ImGui::Text("All-reduce over %d GPUs (%s): %s; %.3g tokens/s", g.opt.gpus, g.allreduce.link.c_str(),
                    wl::gpu::format_seconds(g.allreduce.seconds).c_str(), g.tokens_per_s);
    for (const auto& p : cmp_.projections)
        ImGui::Text("Projection %s: %s per step", p.wafer.id.c_str(), wl::gpu::format_seconds(p.step_s).c_str());
    if (measured_s_ > 0) {   // the run on screen's last step, as the emulator measured it
        ImGui::TextColored(ImColor(kEmulatedCol), "Emulated  %dx%d mesh: %s per step, measured (%llu cycles at %.2f GHz, the run's last step)",
                           cmp_.wafer.wafer.w, cmp_.wafer.wafer.h, wl::gpu::format_seconds(measured_s_).c_str(),
                           (unsigned long long)run_->step_cycles, wl::gpu::WaferSpec{}.clock_hz / 1e9);
        term_help("measured");
    }
    if (infer_ && !(following() && run_->training)) {
        const auto& e = cmp_.emulated;
        if (e.ran)
            ImGui::TextColored(ImColor(kEmulatedCol), "Emulated  %dx%d mesh, %d PEs used: %s per forward (B=%d, T=%d; %llu cycles, fast mode)",
                               e.mesh_w, e.mesh_h, e.pes_used, wl::gpu::format_seconds(e.seconds).c_str(), e.B, e.T,
                               (unsigned long long)e.cycles);
        else
            ImGui::TextColored(ImColor(kEmulatedCol), "Emulated  not measured: %s", e.why_not.c_str());
        term_help("emulated");
    }
    if (cmp_.vocab_assumed) ImGui::TextDisabled("vocabulary not set in the config: %d assumed", cmp_.cfg.vocab_size);
}

// [SECTION] bars per op

void CompareWindow::draw_bars() {
    // Sum each op kind over layers, in first-seen order.
    struct Row {
        std::string op;
        double gpu = 0, wafer = 0, emulated = 0, flops = 0, bytes = 0;
        int n = 0;
        double by[3] = {0, 0, 0};
    };
    std::vector<Row> rows;
    std::map<std::string, size_t> at;
    // The emulated column: each op's measured cycles, at the clock the measurement was timed at.
    const auto& em = cmp_.emulated;
    const bool emulated = infer_ && em.ran && em.cycles > 0;
    const double s_per_cycle = emulated ? em.seconds / double(em.cycles) : 0.0;
    for (size_t i = 0; i < cmp_.gpu.ops.size(); ++i) {
        const auto& t = cmp_.gpu.ops[i];
        auto it = at.find(t.op);
        if (it == at.end()) it = at.emplace(t.op, rows.size()).first, rows.push_back({t.op});
        Row& r = rows[it->second];
        r.gpu += t.time_s;
        r.wafer += cmp_.wafer.ops[i].time_s;
        if (emulated)
            if (auto c = em.op_cycles.find(t.tensor); c != em.op_cycles.end()) r.emulated += double(c->second) * s_per_cycle;
        r.flops += t.ref_flops;
        r.bytes += t.ex.bytes;
        r.by[int(t.bound)] += t.time_s;
        r.n++;
    }
    double mx = 0;
    for (auto& r : rows) mx = std::max({mx, r.gpu, r.wafer, r.emulated});
    // Times span many decades (a launch-bound GPU op next to a slow emulated mesh): a log
    // axis over six decades keeps every bar visible; linear shows true proportions.
    ImGui::Checkbox("log scale", &log_bars_);
    term_help("log scale");
    ImGui::SameLine();
    const double lo = mx * 1e-6;
    auto frac = [&](double v) -> float {
        if (mx <= 0) return 0.0f;
        if (!log_bars_) return float(v / mx);
        return v <= lo ? 0.0f : float(std::log10(v / lo) / std::log10(mx / lo));
    };
    ImGui::Text("Time per op kind (summed over layers): ");
    ImGui::SameLine();
    ImGui::TextColored(ImColor(kGpuCol), "GPU");
    ImGui::SameLine();
    ImGui::TextColored(ImColor(kWaferCol), "wafer");
    if (emulated) {
        ImGui::SameLine();
        ImGui::TextColored(ImColor(kEmulatedCol), "emulated");
        term_help("emulated");
    }
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float label_w = 230, bar_h = 7, row_h = (emulated ? 3 : 2) * (bar_h + 1) + 2;
    const float width = std::max(100.0f, ImGui::GetContentRegionAvail().x - label_w - 80);
    for (const Row& r : rows) {
        ImVec2 p = ImGui::GetCursorScreenPos();
        ImGui::InvisibleButton(r.op.c_str(), ImVec2(label_w + width + 80, row_h));
        const bool hot = ImGui::IsItemHovered();
        dl->AddText(ImVec2(p.x, p.y + 2), hot ? IM_COL32_WHITE : kText, r.op.c_str());
        const float x0 = p.x + label_w;
        dl->AddRectFilled(ImVec2(x0, p.y + 1), ImVec2(x0 + frac(r.gpu) * width + 1, p.y + 1 + bar_h), kGpuCol);
        dl->AddRectFilled(ImVec2(x0, p.y + 2 + bar_h), ImVec2(x0 + frac(r.wafer) * width + 1, p.y + 2 + 2 * bar_h),
                          kWaferCol);
        if (emulated)
            dl->AddRectFilled(ImVec2(x0, p.y + 3 + 2 * bar_h), ImVec2(x0 + frac(r.emulated) * width + 1, p.y + 3 + 3 * bar_h),
                              kEmulatedCol);
        if (hot) {
            const double tot = r.by[0] + r.by[1] + r.by[2];
            ImGui::SetTooltip("%s x%d\nFLOPs %.3g, GPU bytes %.3g\nGPU %s (compute %.0f%%, memory %.0f%%, launch %.0f%%)\n"
                              "wafer %s (estimate)%s%s",
                              r.op.c_str(), r.n, r.flops, r.bytes, wl::gpu::format_seconds(r.gpu).c_str(), 100 * r.by[0] / tot,
                              100 * r.by[1] / tot, 100 * r.by[2] / tot, wl::gpu::format_seconds(r.wafer).c_str(),
                              emulated ? "\nemulated " : "",
                              emulated ? (wl::gpu::format_seconds(r.emulated) + " (measured on the mesh, fast mode)").c_str() : "");
        }
    }
    // The time axis under the bars: decades on the log scale, quarters on the linear one.
    {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float x0 = p.x + label_w;
        dl->AddLine(ImVec2(x0, p.y + 1), ImVec2(x0 + width, p.y + 1), kText);
        std::vector<double> ticks;
        if (log_bars_) for (double t = std::pow(10.0, std::ceil(std::log10(lo))); t <= mx * 1.0001; t *= 10) ticks.push_back(t);
        else for (int i = 0; i <= 4; ++i) ticks.push_back(mx * i / 4);
        for (double t : ticks) {
            const float x = x0 + frac(t) * width;
            dl->AddLine(ImVec2(x, p.y + 1), ImVec2(x, p.y + 5), kText);
            const std::string label = t > 0 ? wl::gpu::format_seconds(t) : "0";
            dl->AddText(ImVec2(x - ImGui::CalcTextSize(label.c_str()).x * 0.5f, p.y + 6), kText, label.c_str());
        }
        ImGui::Dummy(ImVec2(label_w + width, ImGui::GetTextLineHeight() + 8));
        axis_ticks_ = int(ticks.size());
    }
    ImGui::TextDisabled("Each op is");
    for (const char* b : {"compute-bound", "memory-bound", "launch-bound"}) {
        ImGui::SameLine();
        ImGui::TextUnformatted(b);
        term_help(b);
    }
    ImGui::SameLine();
    ImGui::TextDisabled("(hover a word; hover a bar for its numbers)");
    ImGui::TextWrapped("%s", cmp_.gpu_sentence.c_str());
}

// [SECTION] roofline

void CompareWindow::draw_roofline() {
    ImGui::TextUnformatted("Roofline");
    term_help("roofline");
    ImGui::SameLine();
    ImGui::TextDisabled("(log-log): achieved FLOP/s (up) against FLOPs per byte (across), one point per op");
    const ImVec2 size(std::max(200.0f, ImGui::GetContentRegionAvail().x), 300);
    const ImVec2 o = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("roofline", size);
    const bool hovered = ImGui::IsItemHovered();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(o, ImVec2(o.x + size.x, o.y + size.y), IM_COL32(20, 22, 28, 255));

    const auto& g = cmp_.gpu;
    const auto& w = cmp_.wafer;
    const double gpu_peak = g.gpu.peak(g.profile.gemm_precision), gpu_bw = g.gpu.hbm_bytes_per_s;
    const double w_peak = w.wafer.peak_flops(), w_bw = double(w.wafer.pes()) * wl::kSramBytesPerCycle * w.wafer.clock_hz;
    // Axis ranges from the points and roofs, in decades.
    double xmin = 1e-2, xmax = 1e4, ymin = 1e30, ymax = std::max(gpu_peak, w_peak);
    for (auto& t : g.ops) if (t.achieved_flops > 0) ymin = std::min(ymin, t.achieved_flops);
    for (auto& t : w.ops) if (t.achieved_flops > 0) ymin = std::min(ymin, t.achieved_flops);
    ymin = std::pow(10.0, std::floor(std::log10(std::max(ymin, 1.0))));
    ymax = std::pow(10.0, std::ceil(std::log10(ymax)) + 0.2);
    const float pad = 46;
    auto X = [&](double v) {
        return o.x + pad + float((std::log10(std::clamp(v, xmin, xmax)) - std::log10(xmin)) /
                                 (std::log10(xmax) - std::log10(xmin))) * (size.x - pad - 8);
    };
    auto Y = [&](double v) {
        return o.y + size.y - 18 - float((std::log10(std::clamp(v, ymin, ymax)) - std::log10(ymin)) /
                                         (std::log10(ymax) - std::log10(ymin))) * (size.y - 26);
    };
    for (double d = xmin; d <= xmax * 1.01; d *= 10) {
        dl->AddLine(ImVec2(X(d), o.y), ImVec2(X(d), o.y + size.y - 18), kGrid);
        char b[16];
        std::snprintf(b, sizeof b, "%g", d);
        dl->AddText(ImVec2(X(d) - 8, o.y + size.y - 16), kText, b);
    }
    for (double d = ymin; d <= ymax; d *= 100) {
        dl->AddLine(ImVec2(o.x + pad, Y(d)), ImVec2(o.x + size.x, Y(d)), kGrid);
        char b[16];
        std::snprintf(b, sizeof b, "%.0e", d);
        dl->AddText(ImVec2(o.x + 2, Y(d) - 7), kText, b);
    }
    auto roof = [&](double peak, double bw, ImU32 col) {
        const int n = 64;
        ImVec2 prev;
        for (int i = 0; i <= n; ++i) {
            const double x = xmin * std::pow(xmax / xmin, double(i) / n);
            ImVec2 p(X(x), Y(std::min(peak, bw * x)));
            if (i) dl->AddLine(prev, p, col, 2.0f);
            prev = p;
        }
    };
    roof(gpu_peak, gpu_bw, kGpuCol);
    roof(w_peak, w_bw, kWaferCol);

    // Points; the nearest one under the mouse gets a tooltip.
    const ImVec2 m = ImGui::GetIO().MousePos;
    float best = 64;   // squared pixels
    std::string tip;
    auto point = [&](double I, double F, ImU32 col, const std::string& text) {
        if (I <= 0 || F <= 0) return;
        ImVec2 p(X(I), Y(F));
        dl->AddCircleFilled(p, 3.0f, col);
        const float d = (p.x - m.x) * (p.x - m.x) + (p.y - m.y) * (p.y - m.y);
        if (hovered && d < best) best = d, tip = text;
    };
    char b[256];
    for (auto& t : g.ops) {
        std::snprintf(b, sizeof b, "GPU  %s %s\n%.3g FLOP/byte, %.3g FLOP/s\n%s, %s-bound", t.op.c_str(),
                      t.tensor.c_str(), t.intensity, t.achieved_flops, wl::gpu::format_seconds(t.time_s).c_str(), wl::gpu::bound_name(t.bound));
        point(t.intensity, t.achieved_flops, kGpuCol, b);
    }
    for (auto& t : w.ops) {
        std::snprintf(b, sizeof b, "wafer  %s %s\n%.3g FLOP/byte, %.3g FLOP/s\n%s, %s-bound", t.op.c_str(),
                      t.tensor.c_str(), t.intensity, t.achieved_flops, wl::gpu::format_seconds(t.time_s).c_str(), t.bound.c_str());
        point(t.intensity, t.achieved_flops, kWaferCol, b);
    }
    if (!tip.empty()) ImGui::SetTooltip("%s", tip.c_str());
    ImGui::TextWrapped("%s", cmp_.wafer_sentence.c_str());
}

}  // namespace wlui
