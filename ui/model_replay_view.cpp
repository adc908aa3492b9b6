// model_replay_view.cpp: the Model window's views of the last forward over its cycles: its
// Timeline (timeline_view.h; the canvas lit at its cursor by timeline_overlay), a pipelined forward
// replayed in cycle mode (pipeline_replay.h), any one op animated again in cycle mode
// (op_animation.h), and their JS state.
#include "ui/model_window.h"

#include "engine/core/thousands.h"
#include "ui/placement_overlay.h"
#include "ui/style.h"

#include <imgui.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

namespace wlui {

using json = nlohmann::json;

json ModelWindow::timeline_json() const {
    if (timeline_.empty()) return nullptr;
    json working = json::array();
    if (timeline_.cursor())
        for (size_t i : wl::model::in_flight_at(timeline_.spans(), *timeline_.cursor())) {
            const wl::model::LaunchSpan& s = timeline_.spans()[i];
            working.push_back({{"op", s.op}, {"sequence", s.sequence}, {"chunk", s.chunk}, {"t0", s.t0}, {"n", s.n}});
        }
    return {{"schedule", wl::model::schedule_name(session_.last_forward()->run.schedule)},
            {"launches", timeline_.spans().size()},
            {"rows", wl::model::timeline_rows(timeline_.spans()).size()},
            {"cycles", timeline_.end()},
            {"cursor", timeline_.cursor() ? json(*timeline_.cursor()) : json(nullptr)},
            {"playing", timeline_.playing()},
            {"seconds", timeline_.play_seconds()},
            {"working", working}};   // the launches at the cursor: what the canvas lights
}

void ModelWindow::start_replay() {
    const ForwardReport* f = session_.last_forward();
    if (!f) throw std::invalid_argument("run a forward first: the replay runs it again");
    if (f->run.schedule != wl::model::Schedule::Pipelined)
        throw std::invalid_argument("the last forward was not pipelined: pick pipelined beside Forward and run it again");
    if (f->run.B > 1) throw std::invalid_argument("the replay runs one sequence: run a forward with batch 1 first");
    session_.stop_generation();
    anim_.stop();
    const double speed = replay_.speed();
    replay_error_.clear();
    if (!replay_.start(*session_.plan(), *session_.model(), f->tokens, session_.reference_logits(f->tokens), &replay_error_))
        throw std::runtime_error(replay_error_);
    replay_.set_speed(speed);
}

json ModelWindow::replay_json() const {
    if (!replay_.active()) return nullptr;
    json working = json::array();
    for (const wl::model::LaunchSpan& s : replay_.in_flight()) working.push_back({{"op", s.op}, {"sequence", s.sequence}, {"chunk", s.chunk}});
    const ForwardReport* f = session_.last_forward();
    return {{"cycles", replay_.cycles()},
            {"fast_cycles", f ? json(f->run.cycles) : json(nullptr)},
            {"speed", replay_.speed()},
            {"done", replay_.done()},
            {"error", replay_.error().empty() ? json(nullptr) : json(replay_.error())},
            {"matches_reference", replay_.matches() ? json(*replay_.matches()) : json(nullptr)},
            {"working", working}};
}

// The pipelined forward again in cycle mode: every op of the pipeline at work on the canvas,
// wavelets and all, and at the end its logits against the reference's.
void ModelWindow::draw_replay() {
    if (!replay_.active()) {
        if (ImGui::Button("Replay in cycle mode")) {
            try {
                start_replay();
            } catch (const std::exception& e) {
                replay_error_ = e.what();
            }
        }
        mark("replay_button");
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("the same pipelined forward on a fresh mesh in cycle mode, a few hundred cycles a frame: every op at work on the canvas, its wavelets moving");
        if (!replay_error_.empty()) wrapped_text(kErrorText, replay_error_.c_str());
        return;
    }
    const uint64_t fast = session_.last_forward()->run.cycles;
    ImGui::Text("cycle mode: cycle %s (fast mode estimated %s for the whole forward), %zu launches working", wl::thousands(replay_.cycles()).c_str(),
                wl::thousands(fast).c_str(), replay_.in_flight().size());
    mark("replay");
    if (!replay_.error().empty()) wrapped_text(kErrorText, replay_.error().c_str());
    else if (replay_.matches())
        ImGui::TextColored(*replay_.matches() ? kGoodText : kWarnText, "finished: its logits are %s the reference's", *replay_.matches() ? "bit for bit" : "NOT");
    float speed = float(replay_.speed());
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
    if (ImGui::SliderFloat("cycles/s##replay", &speed, 256.0f, 1e6f, "%.0f", ImGuiSliderFlags_Logarithmic)) replay_.set_speed(speed);
    ImGui::SameLine();
    ImGui::BeginDisabled(replay_.done());
    if (ImGui::Button("To end##replay")) replay_.to_end();
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Stop replay")) replay_.stop();
}

void ModelWindow::draw_timeline() {
    if (timeline_.empty()) return;
    const wl::model::ForwardRecord& f = session_.last_forward()->run;
    const bool piped = f.schedule == wl::model::Schedule::Pipelined;
    int chunks = 1;
    for (const wl::model::LaunchSpan& s : timeline_.spans()) chunks = std::max(chunks, s.chunk + 1);
    const std::string seqs = f.B > 1 ? std::to_string(f.B) + " sequences x " : "";
    const std::string head = piped ? "Timeline: pipelined, " + std::to_string(f.ops.size()) + " stages, " + seqs + std::to_string(chunks) +
                                         " chunks, " + std::to_string(timeline_.spans().size()) + " launches###timeline"
                                   : "Timeline: sequential, " + std::to_string(timeline_.spans().size()) + " launches, one at a time###timeline";
    ImGui::SetNextItemOpen(true, ImGuiCond_Appearing);
    const bool open_now = ImGui::TreeNode(head.c_str());
    mark("timeline_header");
    if (!open_now) return;
    ImGui::TextWrapped(piped ? (f.B > 1 ? "A row per op, a bar per launch in its sequence's colour (its chunk's number on it): the "
                                          "sequences stream through the ops one after another, op k on sequence s while the ops after it "
                                          "finish s-1. Click or drag: the canvas lights the ops working at that cycle."
                                        : "A row per op, a bar per launch in its chunk's colour: op k works on chunk c while op k+1 works "
                                          "on c-1 (the picture of a pipeline: GPipe, arXiv:1811.06965). Click or drag: the canvas lights "
                                          "the ops working at that cycle.")
                             : "One op at a time, each over the whole window: pick pipelined beside Forward and run it again to "
                               "see every op busy at once.");
    timeline_.draw(ImGui::GetTextLineHeight() * 24, timeline_rect_);
    drawn_["timeline"] = {ImVec2(timeline_rect_[0], timeline_rect_[1]),
                          ImVec2(timeline_rect_[0] + timeline_rect_[2], timeline_rect_[1] + timeline_rect_[3])};
    if (piped) draw_replay();
    ImGui::TreePop();
}


// Streaming leaves the last layer's weights and inputs on the layer's PEs, so of the layer's runs
// only the last layer's can run again from what the mesh holds.
std::string ModelWindow::replay_refusal(const std::string& run) const {
    const wl::model::MeshPlan* p = session_.plan();
    if (!session_.last_forward() || !p) return "run a forward first: the animation replays an op of it";
    if (!p->streaming) return p->find(run) ? "" : "no op named '" + run + "' in the plan";
    const int last = p->cfg.n_layer - 1;
    const size_t dot = run.find('.');
    if (p->find(run) && p->find(run)->layer < 0) return "";
    if (run.size() < 2 || run[0] != 'l' || dot == std::string::npos) return "no op named '" + run + "' in the plan";
    const std::string layer = run.substr(1, dot - 1), rest = run.substr(dot + 1);
    if (rest != "weights" && !p->find("l0." + rest)) return "no op named '" + run + "' in the plan";
    if (layer != std::to_string(last))
        return "streaming: the mesh now holds layer " + std::to_string(last) + "'s weights and inputs, so only its runs (l" +
               std::to_string(last) + ".*) and the ops outside the layer can run again";
    return "";
}

void ModelWindow::animate(const std::string& run) {
    if (const std::string why = replay_refusal(run); !why.empty()) throw std::invalid_argument(why);
    session_.stop_generation();
    replay_.stop();
    const double speed = anim_.speed();
    anim_error_.clear();
    const wl::model::MeshPlan& p = *session_.plan();
    const wl::model::MeshGPT& mesh = *session_.mesh();
    bool ok;
    if (p.streaming && run.size() > 8 && run.compare(run.size() - 8, 8, ".weights") == 0) {
        const int l = p.cfg.n_layer - 1;
        ok = anim_.start(*session_.machine(), run, [&](wl::Host& h) { return mesh.feed_layer(l, h); }, mesh.streamed_weights(),
                         &anim_error_);
    } else {
        const wl::model::PlannedOp* op = p.find(run);
        if (!p.streaming) {
            ok = anim_.start(*session_.machine(), *op, &anim_error_);
        } else {   // the plan's op (l0.* for the layer's) as the run it was: the last layer's, or one outside the layer
            if (!op) op = p.find("l0." + run.substr(run.find('.') + 1));
            const int l = op->layer < 0 ? 0 : p.cfg.n_layer - 1;
            ok = anim_.start(*session_.machine(), wl::model::layer_instance(*op, l, p.cfg.n_layer), &anim_error_);
        }
    }
    if (!ok) throw std::runtime_error(anim_error_);
    anim_.set_speed(speed);
}

void ModelWindow::draw_animation() {
    if (!anim_error_.empty()) wrapped_text(kErrorText, anim_error_.c_str());
    if (!anim_.active()) {
        ImGui::TextDisabled("animate: any op again in cycle mode, its wavelets on the canvas (a button per row below)");
        return;
    }
    const ForwardReport* report = session_.last_forward();
    const wl::model::ForwardRecord* f = report ? &report->run : nullptr;
    const auto& ops = session_.plan()->ops;
    uint64_t fast = 0;
    for (size_t i = 0; f && i < f->ops.size() && i < ops.size(); ++i)
        if (ops[i].name == anim_.op()) fast = f->ops[i].cycles;
    ImGui::Text("%s in cycle mode: cycle %llu (fast mode estimated %llu)", anim_.op().c_str(), (unsigned long long)anim_.cycles(),
                (unsigned long long)fast);
    mark("animation");
    if (!anim_.error().empty()) wrapped_text(kErrorText, anim_.error().c_str());
    else if (anim_.matches_fast())
        ImGui::TextColored(*anim_.matches_fast() ? kGoodText : kWarnText, "finished: its output is %s the fast run's",
                           *anim_.matches_fast() ? "bit for bit" : "NOT");
    double speed = anim_.speed(), lo = 1, hi = 1e6;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
    if (ImGui::SliderScalar("##anim_speed", ImGuiDataType_Double, &speed, &lo, &hi, "%.0f cycles/s",
                            ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
        anim_.set_speed(speed);
    ImGui::SameLine();
    ImGui::BeginDisabled(anim_.done());
    if (ImGui::Button("To end")) anim_.to_end();
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Stop animation")) anim_.stop();
}

}  // namespace wlui
