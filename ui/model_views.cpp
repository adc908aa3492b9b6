// model_views.cpp: the Model window's two comparison views, drawn from the ModelSession's
// results: Density (a matmul's and a training step's cycles and wavelets against the weights'
// density, beside dense and the ideal) and Resident vs streaming (one forward each way).
//
// Index of this file:
// [SECTION] starting them, and their JS state (model_density(), model_execution())
// [SECTION] density        the sweep's tables and plots
// [SECTION] execution      resident against streaming
#include "ui/model_window.h"

#include "engine/gpt/trainer.h"
#include "engine/gpu/compare.h"
#include "engine/model/mesh_measure.h"
#include "ui/canvas_model.h"
#include "ui/style.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace wlui {

using nlohmann::json;

// [SECTION] starting them, and their JS state

// The compiled model's config and mesh, in words: what a sweep or a comparison was started on.
static std::string model_words(const ModelSession& s) {
    const wl::model::MeshPlan& p = *s.plan();
    return s.config_name() + " (" + std::to_string(p.cfg.n_layer) + " layers) on " + std::to_string(p.mesh_w) + "x" +
           std::to_string(p.mesh_h);
}

void ModelWindow::start_sweep() {
    need_compiled();
    const wl::gpt::GPT& m = *session_.model();
    wl::model::DensitySweepSettings s;
    s.mesh_w = session_.plan()->mesh_w, s.mesh_h = session_.plan()->mesh_h;
    s.seed = m.cfg.seed;
    s.tokens = wl::model::bench_tokens(m.maxT, m.V);
    s.B = wl::gpt::sequences_per_step(m.cfg);
    s.T = m.maxT;
    wl::model::bench_batch(s.B, s.T, m.V, &s.inputs, &s.targets);
    s.lr = wl::gpt::learning_rate_at(m.cfg, 0);
    sweep_ = std::make_unique<wl::model::DensitySweep>(m, session_.kernels(), s);
    sweep_model_ = model_words(session_);
    sweep_cancelled_ = false;
}

void ModelWindow::start_compare() {
    need_compiled();
    const wl::gpt::GPT& m = *session_.model();
    compare_ = std::make_unique<wl::model::ExecutionCompare>(m, session_.plan()->mesh_w, session_.plan()->mesh_h, session_.kernels(),
                                                             wl::model::bench_tokens(m.maxT, m.V));
    compare_model_ = model_words(session_);
    compare_cancelled_ = false;
}

void ModelWindow::tick_jobs(double budget_ms) {
    if (!sweeping() && !comparing()) return;
    const auto t0 = std::chrono::steady_clock::now();
    auto left = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() < budget_ms; };
    do {
        if (sweeping()) sweep_->step();
        if (comparing()) compare_->step();
    } while ((sweeping() || comparing()) && left());
}

static json figures_json(const wl::model::RunFigures& f, const wl::model::RunFigures& dense, double density) {
    return {{"cycles", f.cycles}, {"wavelets", f.wavelets},
            {"vs_dense", dense.cycles ? double(f.cycles) / double(dense.cycles) : 0.0},
            {"ideal_cycles", density * double(dense.cycles)}};
}

json ModelWindow::sweep_json() const {
    if (!sweep_) return nullptr;
    const auto& pts = sweep_->points();
    json points = json::array();
    for (const wl::model::DensityPoint& p : pts) {
        const wl::model::DensityPoint& d = pts.front();
        json j = {{"plan", p.sparse ? "sparse" : "dense"}, {"density", p.density}, {"measured", p.measured}};
        if (p.measured) {
            j["op"] = figures_json(p.op, d.op, p.density);
            j["matmuls"] = figures_json(p.matmuls, d.matmuls, p.density);
            j["forward"] = figures_json(p.forward, d.forward, p.density);
            j["generation"] = figures_json(p.generation, d.generation, p.density);
            j["op_weight_bytes"] = p.op_weight_bytes;
            j["logits_differ"] = p.logits_differ;
        }
        j["train_step"] = p.trained && d.trained ? figures_json(p.train_step, d.train_step, p.density) : json(nullptr);
        j["train_matmuls"] = p.trained && d.trained ? figures_json(p.train_matmuls, d.train_matmuls, p.density) : json(nullptr);
        j["train_error"] = p.train_error.empty() ? json(nullptr) : json(p.train_error);
        points.push_back(j);
    }
    const auto& s = sweep_->settings();
    return {{"running", sweeping()}, {"cancelled", sweep_cancelled_}, {"done", sweep_->done()},
            {"progress", sweep_->progress()}, {"activity", sweep_->activity()},
            {"error", sweep_->error().empty() ? json(nullptr) : json(sweep_->error())}, {"model", sweep_model_},
            {"op", s.op}, {"T", s.tokens.size()}, {"B", s.B}, {"mode", wl::run_mode_name(s.mode)},
            {"mask", wl::model::mask_kind_name(s.mask)}, {"seed", s.seed}, {"points", points}};
}

json ModelWindow::compare_json() const {
    if (!compare_) return nullptr;
    auto run = [](const wl::model::ExecutionRun& r) -> json {
        return {{"execution", wl::gpt::execution_name(r.execution)}, {"ran", r.ran}, {"error", r.error.empty() ? json(nullptr) : json(r.error)},
                {"too_big", r.too_big}, {"pes", r.pes}, {"cycles", r.cycles}, {"compute_cycles", r.ran ? r.compute_cycles() : 0},
                {"stream_cycles", r.stream_cycles}, {"stream_bytes", r.stream_bytes}, {"host_bytes", r.host_bytes},
                {"wafer_s", double(r.cycles) / wl::kClockHz},
                {"seconds", double(r.cycles) / wl::kClockHz}};   // wafer_s's old name, for one release (docs/js-api.md)
    };
    const long long differ = compare_->logits_differ();
    return {{"running", comparing()}, {"cancelled", compare_cancelled_}, {"done", compare_->done()},
            {"progress", compare_->progress()}, {"activity", compare_->activity()}, {"model", compare_model_},
            {"T", compare_->T()}, {"resident", run(compare_->resident())}, {"streaming", run(compare_->streaming())},
            {"logits", compare_->resident().logits.size()},
            {"logits_differ", differ < 0 ? json(nullptr) : json(differ)}};
}

using wl::gpu::format_seconds;

// [SECTION] density

namespace {

const ImU32 kSparseCol = IM_COL32(235, 90, 80, 255), kDenseCol = IM_COL32(110, 170, 255, 255), kIdealCol = IM_COL32(120, 200, 120, 255);

void dashed(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 col, float dash, float gap) {
    const float dx = b.x - a.x, dy = b.y - a.y, len = std::sqrt(dx * dx + dy * dy);
    for (float t = 0; t < len; t += dash + gap) {
        const float e = std::min(len, t + dash);
        dl->AddLine(ImVec2(a.x + dx * t / len, a.y + dy * t / len), ImVec2(a.x + dx * e / len, a.y + dy * e / len), col, 1.5f);
    }
}

// One panel: the sparse plans' values (density, value) against density 0..1, the dense plan's as a
// dashed line across, and the ideal (density x dense) dotted from the origin.
void density_panel(const char* id, const std::string& title, const std::vector<std::pair<double, double>>& sparse, double dense,
                   ImVec2 size) {
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton(id, size);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float fs = ImGui::GetFontSize();
    const ImU32 axis = IM_COL32(170, 176, 190, 255);
    double hi = dense;
    for (const auto& p : sparse) hi = std::max(hi, p.second);
    hi = std::max(hi * 1.1, 1.0);
    const std::string top = short_count(hi);
    const float label_w = ImGui::CalcTextSize(top.c_str()).x + 6;
    const ImVec2 p0(at.x + label_w, at.y + fs + 4), p1(at.x + size.x - 6, at.y + size.y - fs - 4);
    dl->AddText(ImVec2(at.x, at.y), axis, title.c_str());
    dl->AddRectFilled(p0, p1, IM_COL32(24, 28, 36, 255));
    dl->AddRect(p0, p1, IM_COL32(90, 96, 110, 255));
    auto px = [&](double d) { return p0.x + float(d) * (p1.x - p0.x); };
    auto py = [&](double v) { return p1.y - float(v / hi) * (p1.y - p0.y); };
    dl->AddText(ImVec2(at.x, p0.y - 2), axis, top.c_str());
    dl->AddText(ImVec2(at.x + label_w - ImGui::CalcTextSize("0").x - 6, p1.y - fs), axis, "0");
    dl->AddText(ImVec2(p0.x, p1.y + 2), axis, "density 0");
    dl->AddText(ImVec2(p1.x - ImGui::CalcTextSize("1").x, p1.y + 2), axis, "1");
    dashed(dl, ImVec2(p0.x, py(dense)), ImVec2(p1.x, py(dense)), kDenseCol, 6, 4);
    dashed(dl, ImVec2(px(0), py(0)), ImVec2(px(1), py(dense)), kIdealCol, 2, 3);
    std::vector<std::pair<double, double>> pts = sparse;
    std::sort(pts.begin(), pts.end());
    for (size_t i = 0; i < pts.size(); i++) {
        const ImVec2 c(px(pts[i].first), py(pts[i].second));
        if (i) dl->AddLine(ImVec2(px(pts[i - 1].first), py(pts[i - 1].second)), c, kSparseCol, 1.5f);
        dl->AddCircleFilled(c, 3.5f, kSparseCol);
    }
    if (ImGui::IsItemHovered()) {
        std::string tip = title + "\ndense: " + std::to_string((unsigned long long)dense);
        for (const auto& p : pts) {
            char b[96];
            std::snprintf(b, sizeof b, "\ndensity %.2f: %llu (ideal %.0f)", p.first, (unsigned long long)p.second, p.first * dense);
            tip += b;
        }
        ImGui::SetTooltip("%s", tip.c_str());
    }
}

}  // namespace

void ModelWindow::draw_density() {
    if (sweep_open_) ImGui::SetNextItemOpen(true);
    const bool shown = ImGui::CollapsingHeader("Density");
    if (sweep_open_) ImGui::SetScrollHereY(0.0f);   // started from the hook: the section in view
    sweep_open_ = false;
    mark("density_header");
    if (!shown) return;
    const wl::gpt::GPT& m = *session_.model();
    ImGui::TextWrapped("Prunes every block's qkv, attproj, fch and fcproj weights (the smallest go first) to density 1, 0.5, "
                       "0.25 and 0.1 and runs each on this mesh beside the dense plan, resident: a forward of %d tokens and "
                       "one training step on a fixed batch of %d x %d tokens. Fast mode: the cycles are estimated. Ideal: "
                       "density x the dense plan's cycles. waferlab-cli bench sparsity measures the same (its step on the "
                       "corpus's first batch).",
                       m.maxT, wl::gpt::sequences_per_step(m.cfg), m.maxT);
    if (sweeping()) {
        if (ImGui::Button("Cancel sweep")) sweep_cancelled_ = true;
    } else if (ImGui::Button(sweep_ ? "Run the sweep again" : "Run density sweep")) {
        start_sweep();
    }
    mark("density_button");
    if (!sweep_) return;
    const wl::model::DensitySweep& sw = *sweep_;
    if (sweeping()) {
        ImGui::SameLine();
        progress_line(sw.progress(), sw.activity().c_str());
        mark("density_progress");
    } else if (sweep_cancelled_) {
        ImGui::SameLine();
        ImGui::TextDisabled("cancelled (%d of %d plans measured)", int(sw.points().size()) - !sw.done(), sw.total_points());
    }
    if (!sw.error().empty()) wrapped_text(kErrorText, ("the sweep stopped: " + sw.error()).c_str());
    const auto& pts = sw.points();
    if (pts.empty() || !pts.front().measured) return;
    ImGui::TextDisabled("%s, %s mode, %s mask (seed %llu)", sweep_model_.c_str(), wl::run_mode_name(sw.settings().mode),
                        wl::model::mask_kind_name(sw.settings().mask), (unsigned long long)sw.settings().seed);
    const wl::model::DensityPoint& d = pts.front();
    // One table per measure: plan, density, cycles, vs dense, ideal, wavelets.
    auto table = [&](const char* id, const std::string& title, wl::model::RunFigures wl::model::DensityPoint::*f, bool train) {
        ImGui::TextUnformatted(title.c_str());
        if (!ImGui::BeginTable(id, 6, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) return;
        for (const char* h : {"plan", "density", "cycles", "vs dense", "ideal", "wavelets"}) ImGui::TableSetupColumn(h);
        ImGui::TableHeadersRow();
        const wl::model::RunFigures& dense = d.*f;
        for (const wl::model::DensityPoint& p : pts) {
            if (train ? !p.trained && p.train_error.empty() : !p.measured) continue;
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(p.sparse ? "sparse" : "dense");
            ImGui::TableNextColumn();
            ImGui::Text("%.3f", p.density);
            ImGui::TableNextColumn();
            if (train && !p.trained) {
                ImGui::TextColored(kErrorText, "does not fit");
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.train_error.c_str());
                continue;
            }
            const wl::model::RunFigures& x = p.*f;
            ImGui::Text("%llu", (unsigned long long)x.cycles);
            ImGui::TableNextColumn();
            ImGui::Text("%.3f", dense.cycles ? double(x.cycles) / double(dense.cycles) : 0.0);
            ImGui::TableNextColumn();
            if (p.sparse) ImGui::Text("%.0f", wl::model::ideal_cycles(p, dense));
            ImGui::TableNextColumn();
            ImGui::Text("%llu", (unsigned long long)x.wavelets);
        }
        ImGui::EndTable();
    };
    table("##density_op", "one matmul, " + sw.settings().op + ", forward of " + std::to_string(sw.settings().tokens.size()) + " tokens:",
          &wl::model::DensityPoint::op, false);
    mark("density_op_table");
    if (d.trained) {
        table("##density_step", "a training step, " + std::to_string(sw.settings().B) + " x " + std::to_string(sw.settings().T) +
                                    " tokens (forward, backward, norm, AdamW; the mask fixed):",
              &wl::model::DensityPoint::train_step, true);
        mark("density_step_table");
    }
    for (const wl::model::DensityPoint& p : pts)
        if (!p.train_error.empty())
            wrapped_text(kWarnText, (std::string("the sparse training plan at density ") + std::to_string(p.density).substr(0, 4) +
                                     " does not fit: " + p.train_error).c_str());
    int differ = 0;
    for (const wl::model::DensityPoint& p : pts) differ = std::max(differ, p.logits_differ);
    ImGui::TextColored(differ ? kWarnText : kGoodText, "logits against the reference on the same pruned weights: %s",
                       differ ? (std::to_string(differ) + " differ in the worst plan").c_str() : "bit for bit, every plan");
    draw_density_plots();
}

void ModelWindow::draw_density_plots() {
    const auto& pts = sweep_->points();
    const wl::model::DensityPoint& d = pts.front();
    const float fs = ImGui::GetFontSize();
    // The legend once, in the lines' colours.
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kSparseCol), "sparse plans");
    ImGui::SameLine();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kDenseCol), "- - dense plan");
    ImGui::SameLine();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kIdealCol), ".... ideal (density x dense)");
    const float w = std::max(160.0f, (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) / 2);
    const ImVec2 size(w, fs * 9);
    auto series = [&](wl::model::RunFigures wl::model::DensityPoint::*f, bool train, bool wavelets) {
        std::vector<std::pair<double, double>> out;
        for (const wl::model::DensityPoint& p : pts)
            if (p.sparse && (train ? p.trained : p.measured)) out.push_back({p.density, double(wavelets ? (p.*f).wavelets : (p.*f).cycles)});
        return out;
    };
    const std::string op = sweep_->settings().op;
    density_panel("##dp_op_c", "cycles: one matmul, " + op, series(&wl::model::DensityPoint::op, false, false), double(d.op.cycles), size);
    mark("density_plot");
    if (d.trained) {
        ImGui::SameLine();
        density_panel("##dp_step_c", "cycles: a training step", series(&wl::model::DensityPoint::train_step, true, false),
                      double(d.train_step.cycles), size);
    }
    density_panel("##dp_op_w", "wavelets: one matmul, " + op, series(&wl::model::DensityPoint::op, false, true), double(d.op.wavelets),
                  size);
    if (d.trained) {
        ImGui::SameLine();
        density_panel("##dp_step_w", "wavelets: a training step", series(&wl::model::DensityPoint::train_step, true, true),
                      double(d.train_step.wavelets), size);
    }
}

// [SECTION] execution

void ModelWindow::draw_compare() {
    if (compare_open_) ImGui::SetNextItemOpen(true);
    const bool shown = ImGui::CollapsingHeader("Resident vs streaming");
    if (compare_open_) ImGui::SetScrollHereY(0.0f);
    compare_open_ = false;
    mark("compare_header");
    if (!shown) return;
    const wl::gpt::GPT& m = *session_.model();
    ImGui::TextWrapped("One forward of %d tokens of this model on this mesh both ways: resident (every layer on its own PEs, its "
                       "weights in their SRAM) and streaming (one layer's ops serve every layer, each layer's weights streamed in "
                       "over the mesh's edge; docs/weight-streaming.md). Fast mode: the cycles are estimated.",
                       m.maxT);
    if (comparing()) {
        if (ImGui::Button("Cancel comparison")) compare_cancelled_ = true;
    } else if (ImGui::Button(compare_ ? "Compare again" : "Compare resident and streaming")) {
        start_compare();
    }
    mark("compare_button");
    if (!compare_) return;
    const wl::model::ExecutionCompare& c = *compare_;
    if (comparing()) {
        ImGui::SameLine();
        progress_line(c.progress(), c.activity().c_str());
        mark("compare_progress");
    } else if (compare_cancelled_) {
        ImGui::SameLine();
        ImGui::TextDisabled("cancelled");
    }
    ImGui::TextDisabled("%s, T = %d", compare_model_.c_str(), c.T());
    const wl::model::ExecutionRun* runs[2] = {&c.resident(), &c.streaming()};
    for (const wl::model::ExecutionRun* r : runs)
        if (!r->error.empty()) {
            const std::string name = wl::gpt::execution_name(r->execution);
            wrapped_text(kErrorText, (r->too_big ? "does not fit " + name + " on this mesh: " + r->error : name + " failed: " + r->error).c_str());
        }
    if (!runs[0]->ran && !runs[1]->ran) return;
    if (ImGui::BeginTable("##compare", 3, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
        ImGui::TableSetupColumn("");
        ImGui::TableSetupColumn("resident");
        ImGui::TableSetupColumn("streaming");
        ImGui::TableHeadersRow();
        auto row = [&](const char* label, auto value) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(label);
            for (const wl::model::ExecutionRun* r : runs) {
                ImGui::TableNextColumn();
                if (r->ran) ImGui::TextUnformatted(value(*r).c_str());
                else ImGui::TextDisabled("%s", r->error.empty() ? "..." : r->too_big ? "does not fit" : "failed");
            }
        };
        using Run = wl::model::ExecutionRun;
        auto n = [](uint64_t v) { return std::to_string((unsigned long long)v); };
        row("PEs used", [&](const Run& r) { return std::to_string(r.pes); });
        row("cycles, the whole forward", [&](const Run& r) {
            return n(r.cycles) + " (" + format_seconds(double(r.cycles) / wl::kClockHz) + ")";
        });
        row("  compute", [&](const Run& r) { return n(r.compute_cycles()); });
        row("  streaming weights in", [&](const Run& r) {
            char b[32];
            std::snprintf(b, sizeof b, " (%.0f%%)", 100.0 * double(r.stream_cycles) / double(std::max<uint64_t>(r.cycles, 1)));
            return n(r.stream_cycles) + b;
        });
        row("weight bytes streamed", [&](const Run& r) { return n(r.stream_bytes); });
        row("activation bytes via the host", [&](const Run& r) { return n(r.host_bytes); });
        ImGui::EndTable();
    }
    mark("compare_table");
    // Each forward's cycles as a bar, compute then streaming, on one scale.
    const uint64_t most = std::max(runs[0]->cycles, runs[1]->cycles);
    const float fs = ImGui::GetFontSize(), label_w = ImGui::CalcTextSize("streaming ").x;
    for (const wl::model::ExecutionRun* r : runs) {
        if (!r->ran || !most) continue;
        const ImVec2 at = ImGui::GetCursorScreenPos();
        const float w = std::max(100.0f, ImGui::GetContentRegionAvail().x - label_w);
        ImGui::Dummy(ImVec2(label_w + w, fs * 1.2f));
        ImDrawList* dl = ImGui::GetWindowDrawList();
        dl->AddText(at, ImGui::GetColorU32(ImGuiCol_Text), wl::gpt::execution_name(r->execution));
        const float x0 = at.x + label_w, xc = x0 + w * float(double(r->compute_cycles()) / double(most)),
                    xs = x0 + w * float(double(r->cycles) / double(most));
        dl->AddRectFilled(ImVec2(x0, at.y + 1), ImVec2(xc, at.y + fs), kDenseCol);
        dl->AddRectFilled(ImVec2(xc, at.y + 1), ImVec2(xs, at.y + fs), IM_COL32(240, 170, 60, 255));
    }
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kDenseCol), "compute");
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(0.94f, 0.67f, 0.24f, 1), "streaming weights in");
    const long long differ = c.logits_differ();
    if (differ >= 0) {
        ImGui::TextColored(differ ? kWarnText : kGoodText, "logits: %s", differ ? (std::to_string(differ) + " of " +
                                                                                   std::to_string(c.resident().logits.size()) + " differ").c_str()
                                                                                : ("all " + std::to_string(c.resident().logits.size()) +
                                                                                   " bit for bit the same").c_str());
        mark("compare_logits");
    }
}

}  // namespace wlui
