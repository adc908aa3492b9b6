// model_train_view.cpp: the Model window's Train section: starting a run, the text it trains on,
// the checkpoint, and the section's drawing (the TrainSession's state: progress, losses, samples).
#include "ui/model_window.h"

#include "engine/gpu/compare.h"
#include "ui/canvas_model.h"
#include "ui/glossary.h"
#include "ui/placement_overlay.h"
#include "ui/style.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace wlui {

// A unit's words for the canvas (state().model.train.shown.canvas): "backward l1.atty"; a pipelined
// unit, "forward l0.qkv chunk 3"; " " between jobs (shown as "").
std::string ModelWindow::train_overlay_key(const wl::model::TrainWork* w) {
    if (!w) return " ";
    return std::string(wl::model::train_phase_name(w->phase)) + " " + w->op + (w->chunk >= 0 ? " chunk " + std::to_string(w->chunk) : "");
}

// The op a unit runs, lit in its phase's colour; pipelined, every launch working now,
// each in its chunk's colour with the chunk written over it (the unit runs until its own finishes).
PeOverlay ModelWindow::train_overlay_for(const wl::model::TrainWork* w) const {
    const wl::model::MeshGPT& mesh = train_.mesh()->mesh();
    if (w && w->chunk >= 0) {
        const std::vector<wl::model::LaunchSpan> working = mesh.in_flight();
        if (!working.empty()) {
            PeOverlay ov = timeline_overlay(mesh.plan(), working, working.front().end - 1);
            ov.legend.title = "training, pipelined: the ops working, by chunk";
            return ov;
        }
    }
    return training_overlay(mesh.plan(), w ? w->op : "", w ? wl::model::train_phase_name(w->phase) : "");
}

using wl::gpu::format_seconds;

namespace {
#ifdef __EMSCRIPTEN__
constexpr bool kWebBuild = true;   // a checkpoint downloads; natively it is written to a path
#else
constexpr bool kWebBuild = false;
#endif
}  // namespace

bool ModelWindow::start_training() {
    train_set_.config = config_;
    train_set_.mesh_w = mesh_w_, train_set_.mesh_h = mesh_h_;
    if (!train_.start(train_set_)) return false;   // the current run carries on
    anim_.stop();
    session_.stop_generation();
    train_shown_ = true;
    train_notice_.clear();
    train_overlay_key_.clear();
    refit_ = true;
    return true;
}

std::optional<ShownRun> ModelWindow::shown_run() const {
    ShownRun r;
    if (train_.has_run()) {
        const TrainSettings& s = train_.settings();
        r.config = std::filesystem::path(s.config).stem().string();
        r.cfg = train_.trainer()->cfg;
        r.mesh_w = s.mesh_w, r.mesh_h = s.mesh_h;
        r.streaming = train_.streaming();
        r.training = true;
        r.wafers = train_.swarm()->wafers();
        r.step = train_.step();
        r.step_cycles = train_.losses().empty() ? 0 : train_.last_step().cycles;
        return r;
    }
    if (const wl::model::MeshPlan* p = session_.compiled() ? session_.plan() : nullptr) {
        r.config = std::filesystem::path(config_).stem().string();
        r.cfg = p->cfg;
        r.mesh_w = p->mesh_w, r.mesh_h = p->mesh_h;
        r.streaming = p->streaming;
        return r;
    }
    return std::nullopt;
}

bool ModelWindow::train_text(const std::string& name, const std::string& text) {
    open = true;
    if (!train_.set_text(name, text)) {
        train_notice_ = train_.error();
        return false;
    }
    const CorpusInfo& c = *train_.text_info();
    train_notice_ = "loaded " + c.name + " (" + std::to_string(c.bytes) + " bytes, vocabulary " + std::to_string(c.vocab) +
                    "): Start trains on it";
    return true;
}

void ModelWindow::save_checkpoint() {
    std::string bytes;
    if (!train_.checkpoint(&bytes)) throw std::runtime_error(train_.error());
    if (kWebBuild) {
        const std::string name = train_set_.config.substr(train_set_.config.find_last_of('/') + 1) + "-mesh-step" +
                                 std::to_string(train_.step()) + ".ckpt";
        if (download) download(name, bytes);
        train_notice_ = "downloaded " + name + " (" + std::to_string(bytes.size()) + " bytes)";
    } else {
        if (!train_.save(train_path_)) throw std::runtime_error(train_.error());
        train_notice_ = std::string("saved ") + train_path_ + " (step " + std::to_string(train_.step()) + ")";
    }
}

void ModelWindow::draw_train() {
    const bool shown = ImGui::CollapsingHeader("Train", ImGuiTreeNodeFlags_DefaultOpen);
    mark("train_header");
    if (!shown) return;
    const TrainSession& t = train_;
    if (!t.has_run())
        ImGui::TextWrapped("Trains the config above on the emulated mesh above: every forward, backward and AdamW launch runs on "
                           "the PEs (models/kernels/, TRAIN = 1), a few per frame, and so do the validation loss and the samples "
                           "(the same plan's forward). The host only feeds the batches.");
    const float field = ImGui::GetFontSize() * 5;
    int steps = int(train_set_.steps);
    ImGui::SetNextItemWidth(field);
    if (ImGui::InputInt("steps", &steps, 0)) train_set_.steps = std::clamp(steps, 1, 10000000);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(field);
    ImGui::InputInt("eval every", &train_set_.eval_every, 0);
    train_set_.eval_every = std::max(1, train_set_.eval_every);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("the validation loss every N steps (eval_iters batches of the held-out text)");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(field);
    ImGui::InputInt("sample every", &train_set_.sample_every, 0);
    train_set_.sample_every = std::max(1, train_set_.sample_every);

    // How the weights are held, and over how many wafers (the next start's).
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    if (ImGui::BeginCombo("weights##train", train_set_.execution ? wl::gpt::execution_name(*train_set_.execution) : "config's")) {
        for (wl::gpt::Execution e : {wl::gpt::Execution::Resident, wl::gpt::Execution::Streaming})
            if (ImGui::Selectable(wl::gpt::execution_name(e), train_set_.execution == e)) train_set_.execution = e;
        ImGui::EndCombo();
    }
    mark("train_execution");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("resident: every layer on its own PEs, its weights, gradients and moments in their SRAM.\nstreaming: one "
                          "layer's ops serve every layer; each layer's weights stream in and its gradients out over the mesh's "
                          "edge, AdamW on them in the store (docs/weight-streaming.md).\nconfig's: the config's wafer.execution");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 4);
    static constexpr const char* kWafers[] = {"1", "2", "3", "4"};
    static_assert(std::size(kWafers) == size_t(wl::model::SwarmX::kMaxWafers));
    int wi = std::clamp(train_set_.wafers, 1, wl::model::SwarmX::kMaxWafers) - 1;
    if (ImGui::Combo("wafers", &wi, kWafers, int(std::size(kWafers)))) train_set_.wafers = wi + 1;
    mark("train_wafers");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("data parallel: each wafer (a whole emulated mesh) takes its shard of a step's batch; SwarmX sums their "
                          "gradients and broadcasts the sum back, and every wafer runs the same AdamW (engine/model/swarmx.h). "
                          "The batch (batch_size x grad_accum_steps) must split over them.");

    // The data: the config's corpus, or the user's text.
    if (const auto& txt = t.text_info()) {
        ImGui::Text("data: %s, %zu bytes, vocabulary %d", txt->name.c_str(), txt->bytes, txt->vocab);
        ImGui::SameLine();
        if (ImGui::SmallButton("use the config's corpus")) train_.clear_text();
    } else {
        ImGui::TextDisabled("data: the config's corpus (e.g. generated stories)");
    }
    mark("train_data");
    if (kWebBuild) {
        ImGui::SameLine();
        if (ImGui::SmallButton("Pick text file...") && pick_text_file) pick_text_file();
        mark("train_pick");
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("train on your own text: pick a .txt file, or drop one onto the page (at most %zu MiB)",
                                                      kMaxTrainTextBytes >> 20);
    } else {
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
        ImGui::InputTextWithHint("##textpath", "a text file to train on (or drop one)", text_path_, sizeof text_path_);
        ImGui::SameLine();
        if (ImGui::SmallButton("Load text") && text_path_[0]) load_text_file();
#ifndef __EMSCRIPTEN__
        ImGui::SameLine();
        ImGui::BeginDisabled(text_dialog_.running());
        if (ImGui::SmallButton("Open...")) {
            std::string why;
            if (!text_dialog_.open("Open a text file to train on", {"*.txt", "*"}, &why)) train_notice_ = why;
        }
        ImGui::EndDisabled();
        mark("train_pick");
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("the desktop's file dialog: train on your own text");
#endif
    }

    // Start, pause, resume, save.
    const bool busy = t.running();
    if (ImGui::Button(t.has_run() ? "Start again" : "Start training")) start_training();
    mark("train_start");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("a new run of %s on a %dx%d mesh; a run that is going on is replaced only if the new one starts",
                          config_.c_str(), mesh_w_, mesh_h_);
    ImGui::SameLine();
    if (t.starting()) {
        if (ImGui::Button("Cancel")) train_.cancel_start();
        mark("train_cancel");
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("stop building this start; the run before it, if any, carries on");
        ImGui::SameLine();
    }
    ImGui::BeginDisabled(!busy && t.status() != TrainSession::Status::Paused);
    if (busy ? ImGui::Button("Pause") : ImGui::Button("Resume")) busy ? train_.pause() : (void)train_.resume();
    ImGui::EndDisabled();
    mark("train_pause");
    ImGui::SameLine();
    ImGui::BeginDisabled(!t.has_run() || t.stepping());
    if (ImGui::Button(kWebBuild ? "Download checkpoint" : "Save checkpoint")) {
        try {
            save_checkpoint();
        } catch (const std::exception& e) {
            train_notice_ = e.what();   // stays shown, unlike a throw out of draw()
        }
    }
    ImGui::EndDisabled();
    mark("train_save");
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("the reference's checkpoint format (waferlab-cli generate --checkpoint reads it); at a step boundary: pause first");
    if (!kWebBuild) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
        ImGui::InputText("##ckpt_out", train_path_, sizeof train_path_);
    }
    if (t.starting()) {   // the start is built a unit a frame: how far, in words and counts
        progress_line(t.start_progress(), t.activity().c_str());
        mark("train_progress");
    }
    if (!t.error().empty()) wrapped_text(kErrorText, t.error().c_str());
    if (!train_notice_.empty() && train_notice_ != t.error()) ImGui::TextDisabled("%s", train_notice_.c_str());
    if (!t.has_run()) return;

    const int wafers = t.swarm()->wafers();
    ImGui::Text("%s: step %lld of %lld  (%s on %s%s, weights %s, %s)", TrainSession::status_name(t.status()), (long long)t.step(),
                (long long)t.target_step(), t.settings().config.c_str(),
                (std::to_string(t.settings().mesh_w) + "x" + std::to_string(t.settings().mesh_h)).c_str(),
                wafers > 1 ? (" x " + std::to_string(wafers) + " wafers").c_str() : "", t.streaming() ? "streamed" : "resident",
                t.corpus().name.c_str());
    mark("train_status");
    shown_bar_ = t.job_progress();   // none between jobs: no bar (style.h)
    shown_panel_ = t.starting() ? "waits while the new start is built" : shown_bar_ ? t.activity() : "between steps";
    progress_line(shown_bar_, shown_panel_.c_str());
    ImGui::Text("%.2f steps/s, %.0f tokens/s (wall, this tab); the emulator alone %.0f tokens/s", t.steps_per_s(), t.tokens_per_s(),
                t.mesh_tokens_per_s());
    mark("train_speed");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("tokens/s (wall): %s.\nemulator alone: %s.", glossary("tokens/s (wall)"), glossary("emulator alone"));
    draw_train_guide();
    draw_step_time();
    // The run's corpus, unless it is the text the data line above states (one fact, once): the
    // config's corpus, or a text loaded since this run started.
    const std::optional<CorpusInfo>& next = t.text_info();
    if (!next || next->name != t.corpus().name || next->bytes != t.corpus().bytes || next->vocab != t.corpus().vocab) {
        ImGui::Text("this run's corpus: %s, %zu bytes, vocabulary %d", t.corpus().name.c_str(), t.corpus().bytes, t.corpus().vocab);
        mark("train_corpus");
    }
    draw_wafer_panels();
    draw_loss_plot();
    if (t.sample().step >= 0) {
        ImGui::TextDisabled("sample at step %lld (on the mesh, temperature %.1f):",
                            (long long)t.sample().step, double(t.settings().temperature));
        ImGui::BeginChild("##train_sample", ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 4), true);
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("%s", t.sample().prompt.c_str());
        ImGui::PopStyleColor();
        ImGui::TextWrapped("%s", t.sample().text.c_str());
        ImGui::EndChild();
        mark("train_sample");
    }
}

// The guide beside the run, as the lessons have: what the lit row computes (the op the canvas
// lights this frame: nothing runs between the canvas's drawing and this), why it runs alone, what
// the loss should do, and the words on this screen with their glossary entries.
void ModelWindow::load_text_file() {
    std::ifstream in(text_path_, std::ios::binary);
    if (!in) {
        train_notice_ = std::string("could not open ") + text_path_;
        return;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    train_text(std::filesystem::path(text_path_).filename().string(), ss.str());
}

void ModelWindow::draw_train_guide() {
    const TrainSession& t = train_;
    const bool open = ImGui::CollapsingHeader("Guide: what the lit row is doing", ImGuiTreeNodeFlags_DefaultOpen);
    mark("train_guide_header");
    if (!open) return;
    const wl::model::TrainWork* w = t.starting() ? nullptr : t.mesh()->next_work();
    const std::string phase = w ? wl::model::train_phase_name(w->phase) : "", op = w ? w->op : "";
    PeOverlay fresh;
    const PeOverlay* ov = &train_overlay_;
    if (train_overlay_key(w) != train_overlay_key_) ov = &(fresh = train_overlay_for(w));
    const TrainGuide g = train_guide({phase, op, ov->lit, ov->lit_box, t.corpus().vocab, t.losses(), t.step(), w ? w->chunk : -1,
                                      int(ov->tags.size())});
    const ImVec2 top = ImGui::GetCursorScreenPos();
    ImGui::Indent();
    static const ImVec4 kPhase[] = {{0.35f, 0.67f, 1.0f, 1.0f}, {1.0f, 0.59f, 0.24f, 1.0f}, {0.43f, 0.86f, 0.47f, 1.0f}};
    const ImVec4 c = phase == "forward" ? kPhase[0] : phase == "backward" ? kPhase[1] : phase == "optimiser" ? kPhase[2]
                                                                                                          : ImGui::GetStyleColorVec4(ImGuiCol_Text);
    ImGui::PushStyleColor(ImGuiCol_Text, c);
    ImGui::TextWrapped("%s", g.now.c_str());
    ImGui::PopStyleColor();
    mark("train_guide_now");
    if (!g.row.empty()) ImGui::TextWrapped("%s", g.row.c_str());
    if (!g.why.empty()) ImGui::TextWrapped("%s", g.why.c_str());
    ImGui::Spacing();
    ImGui::TextWrapped("%s", g.loss.c_str());
    ImGui::Spacing();
    ImGui::TextDisabled("Words on this screen (hover one):");
    for (const char* term : kTrainTerms) guide_term(term);
    ImGui::Unindent();
    drawn_["train_guide"] = {top, ImVec2(top.x + ImGui::GetContentRegionAvail().x, ImGui::GetItemRectMax().y)};
    ImGui::Separator();
    shown_guide_ = g;
}

// A term in the guide's row of them: it flows to the next line when the row is full.
void ModelWindow::guide_term(const char* term) {
    const float w = ImGui::CalcTextSize(term).x;
    ImGui::SameLine();
    if (ImGui::GetCursorPosX() + w > ImGui::GetContentRegionMax().x) ImGui::NewLine();
    ImGui::TextColored(ImVec4(0.55f, 0.8f, 1.0f, 1.0f), "%s", term);
    mark((std::string("term:") + term).c_str());
    const char* help = glossary(term);
    if (help && ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
        ImGui::Text("%s: %s", term, help);
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
        guide_hovered_ = term;
    }
}

// The last step's emulated time, split: compute (the slowest wafer's launches), of which the weight
// streams (TrainStep::stream_cycles: weights in, gradients out over the edge links), and SwarmX's
// modelled reduce and broadcast.
void ModelWindow::draw_step_time() {
    const TrainSession& t = train_;
    if (t.losses().empty()) return;
    const wl::model::SwarmXStep& s = t.last_step();
    const double hz = wl::kClockHz;
    auto cyc = [hz](uint64_t c) { return std::to_string(c) + " cycles (" + format_seconds(double(c) / hz) + ")"; };
    ImGui::Text("last step: loss %.4f, grad norm %.3f, %s of wafer time", s.loss, s.grad_norm, cyc(s.cycles).c_str());
    mark("train_last");
    const uint64_t compute = s.compute_cycles - std::min(s.compute_cycles, s.stream_cycles);
    ImGui::Text("  compute %s", cyc(compute).c_str());
    if (t.streaming())
        ImGui::Text("  streaming %s: %s of weights in and gradients out", cyc(s.stream_cycles).c_str(), format_bytes(double(s.stream_bytes)).c_str());
    if (s.wafers > 1)
        ImGui::Text("  SwarmX %s: %s reduced and broadcast", cyc(s.swarmx_cycles).c_str(), format_bytes(double(s.swarmx_bytes)).c_str());
    mark("train_time");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("emulated cycles at the WSE clock. compute: the slowest wafer's launches less their streams; streaming: "
                          "the layers' weights in and gradients out over the edge links; SwarmX: the gradients' reduce and "
                          "broadcast between wafers, modelled at the links' bandwidth (no overlap modelled)");
}

// One panel per wafer, side by side: its shard's share of the loss, its cycles, and its mesh's busy
// cycles per PE in the last step (CoreStats::busy), as a heatmap on one scale for every wafer.
void ModelWindow::draw_wafer_panels() {
    const TrainSession& t = train_;
    const int N = t.swarm()->wafers();
    if (N < 2 && !t.streaming()) return;   // one resident wafer: the canvas shows it
    const wl::model::SwarmXStep& s = t.last_step();
    // Mid-step the heatmaps fill in as the wafers work, on the last step's scale (or their own, if larger).
    std::vector<std::vector<uint64_t>> busy;
    uint64_t most = 1;
    for (const auto& w : t.wafer_busy())
        for (uint64_t b : w) most = std::max(most, b);
    for (int k = 0; k < N; k++) {
        busy.push_back(t.wafer_busy_now(k));
        for (uint64_t b : busy.back()) most = std::max(most, b);
    }
    const wl::model::SwarmXWork now = t.stepping() ? t.swarm()->next_work() : wl::model::SwarmXWork{};
    const int mw = t.settings().mesh_w, mh = t.settings().mesh_h;
    const float cell = std::max(1.0f, std::floor(ImGui::GetFontSize() * 7 / float(std::max(mw, mh))));
    const float panel_w = std::max(cell * float(mw), ImGui::CalcTextSize("loss share 0.0000").x) + ImGui::GetStyle().WindowPadding.x * 2;
    const float panel_h = cell * float(mh) + ImGui::GetTextLineHeightWithSpacing() * (t.streaming() ? 4.2f : 3.2f) + 8;
    for (int k = 0; k < N; k++) {
        if (k) ImGui::SameLine();
        ImGui::BeginChild(("##wafer" + std::to_string(k)).c_str(), ImVec2(panel_w, panel_h), true, ImGuiWindowFlags_NoScrollbar);
        if (now.wafer == k) ImGui::TextColored(ImVec4(1.0f, 0.75f, 0.35f, 1.0f), "wafer %d: %s", k, wl::model::swarmx_stage_name(now.stage));
        else ImGui::Text("wafer %d", k);
        const bool have = size_t(k) < s.shards.size();
        if (have) {
            const wl::model::SwarmXShard& sh = s.shards[size_t(k)];
            ImGui::Text("loss share %.4f", sh.loss);
            ImGui::Text("%s cycles", short_count(double(sh.cycles)).c_str());
            if (t.streaming()) ImGui::Text("%s streaming", short_count(double(sh.stream_cycles)).c_str());
        } else {
            ImGui::TextDisabled("no step yet");
        }
        const ImVec2 at = ImGui::GetCursorScreenPos();
        ImDrawList* dl = ImGui::GetWindowDrawList();
        for (int y = 0; y < mh; y++)
            for (int x = 0; x < mw; x++) {
                const size_t i = size_t(y) * size_t(mw) + size_t(x);
                const float v = size_t(k) < busy.size() && i < busy[size_t(k)].size() ? float(double(busy[size_t(k)][i]) / double(most)) : 0.0f;
                const Rgba c = heat(v);
                const ImVec2 a(at.x + float(x) * cell, at.y + float(y) * cell);
                dl->AddRectFilled(a, ImVec2(a.x + cell, a.y + cell), IM_COL32(c.r, c.g, c.b, 255));
            }
        ImGui::Dummy(ImVec2(cell * float(mw), cell * float(mh)));
        ImGui::EndChild();
        mark(("train_wafer_" + std::to_string(k)).c_str());
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("wafer %d: its shard of the step's batch (%d sequences); the heatmap: busy cycles per PE in the last "
                              "step (mid-step: so far), one scale for every wafer (brightest %s)", k, t.trainer()->sequences_per_step() / N,
                              short_count(double(most)).c_str());
    }
}

// The loss per step (train: the batch's, blue) and the validation loss (orange dots), on one
// pair of axes with their values written at the ends.
void ModelWindow::draw_loss_plot() {
    const std::vector<float>& tl = train_.losses();
    const std::vector<EvalPoint>& vl = train_.val_losses();
    if (tl.empty() && vl.empty()) return;
    float lo = 1e30f, hi = -1e30f;
    for (float v : tl) lo = std::min(lo, v), hi = std::max(hi, v);
    for (const EvalPoint& p : vl) lo = std::min(lo, p.loss), hi = std::max(hi, p.loss);
    if (hi - lo < 1e-3f) hi = lo + 1e-3f;
    const int64_t last = std::max<int64_t>(train_.step(), 1);
    const float label_w = ImGui::CalcTextSize("00.00").x + 6;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const ImVec2 size(std::max(200.0f, ImGui::GetContentRegionAvail().x), ImGui::GetFontSize() * 9);
    ImGui::InvisibleButton("##loss_plot", size);
    mark("train_plot");
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p0(at.x + label_w, at.y + 4), p1(at.x + size.x - 4, at.y + size.y - ImGui::GetFontSize() - 4);
    dl->AddRectFilled(p0, p1, IM_COL32(24, 28, 36, 255));
    dl->AddRect(p0, p1, IM_COL32(90, 96, 110, 255));
    auto px = [&](double step) { return p0.x + float(step / double(last)) * (p1.x - p0.x); };
    auto py = [&](float loss) { return p1.y - (loss - lo) / (hi - lo) * (p1.y - p0.y); };
    char b[32];
    const ImU32 axis = IM_COL32(170, 176, 190, 255);
    std::snprintf(b, sizeof b, "%.2f", double(hi));
    dl->AddText(ImVec2(at.x, p0.y - 2), axis, b);
    std::snprintf(b, sizeof b, "%.2f", double(lo));
    dl->AddText(ImVec2(at.x, p1.y - ImGui::GetFontSize()), axis, b);
    dl->AddText(ImVec2(p0.x, p1.y + 2), axis, "step 0");
    std::snprintf(b, sizeof b, "%lld", (long long)last);
    dl->AddText(ImVec2(p1.x - ImGui::CalcTextSize(b).x, p1.y + 2), axis, b);
    const ImU32 train_c = IM_COL32(90, 170, 255, 255), val_c = IM_COL32(255, 150, 60, 255);
    for (size_t i = 1; i < tl.size(); i++)   // tl[i] is the loss of step i + 1
        dl->AddLine(ImVec2(px(double(i)), py(tl[i - 1])), ImVec2(px(double(i + 1)), py(tl[i])), train_c, 1.5f);
    if (tl.size() == 1) dl->AddCircleFilled(ImVec2(px(1), py(tl[0])), 2.5f, train_c);
    for (size_t i = 0; i < vl.size(); i++) {
        const ImVec2 c(px(double(vl[i].step)), py(vl[i].loss));
        if (i) dl->AddLine(ImVec2(px(double(vl[i - 1].step)), py(vl[i - 1].loss)), c, val_c, 1.0f);
        dl->AddCircleFilled(c, 3.0f, val_c);
    }
    const char* legend = "train (batch)   validation";
    const float lx = p1.x - ImGui::CalcTextSize(legend).x - 24;
    dl->AddText(ImVec2(lx, p0.y + 2), train_c, "train (batch)");
    dl->AddText(ImVec2(lx + ImGui::CalcTextSize("train (batch)   ").x, p0.y + 2), val_c, "validation");
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("loss (cross-entropy, nats) per step; last train %.4f%s", tl.empty() ? 0.0 : double(tl.back()),
                          vl.empty() ? "" : (", validation " + std::to_string(vl.back().loss) + " at step " + std::to_string(vl.back().step)).c_str());
    }
}

}  // namespace wlui
