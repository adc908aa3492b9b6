#include "ui/help.h"

#include "engine/fabric/wafer.h"
#include "ui/canvas_model.h"

#include <imgui_internal.h>   // BringWindowToDisplayFront: the shade over every window but the card

#include <algorithm>
#include <iterator>

namespace wlui {

namespace {

struct Key {
    const char* keys;
    const char* does;
};

constexpr Key kKeys[] = {
    {"F5", "run (compiles first when the source changed)"},
    {"Space", "pause / continue"},
    {"F10 / Shift+F10", "step 1 / N cycles"},
    {"F9 / Shift+F9", "step back 1 / N cycles"},
    {"F6", "run to completion"},
    {"Shift+F5", "reset to cycle 0"},
    {"Ctrl+Enter", "compile and load"},
    {"Ctrl+Z / Ctrl+Y", "undo / redo in the editor"},
    {"Ctrl+F / F3", "find in the editor / the next match"},
    {"double-click", "select the word in the editor"},
    {"+ / - / 0", "zoom in / out / fit the mesh"},
    {"drag, wheel", "pan, zoom"},
    {"click", "select a PE"},
    {"F1", "this window"},
};

enum class Part { Canvas, Editor, Toolbar, Log, Wavelet };

struct Stop {
    Part part;
    const char* title;
    const char* text;
    bool running = false;   // the kernel plays while this stop is up
};

// Every claim here is about what the picture shows: the router is drawn in the PE's centre, a
// wavelet is a dot on a link, and the dataflow stop plays the kernel so one is moving.
constexpr Stop kTour[] = {
    {Part::Canvas, "The wafer",
     "Each square is a processing element (PE): its own SRAM, a compute engine and a router (the small "
     "grey square in its centre). Lines join neighbouring routers; a router moves one 32-bit wavelet per "
     "link per cycle. Click a PE to select it; drag to pan, wheel to zoom."},
    {Part::Editor, "The kernel",
     "A WaferKernel file: the layout says which program runs on which PEs and how each colour is routed; "
     "the programs are the PE code; the host block fills memory, launches, runs and prints. Errors show as "
     "you type; hover a word to see what it means. Ctrl+Enter compiles and loads it at cycle 0."},
    {Part::Toolbar, "Running it",
     "Run (F5) plays at the chosen speed in cycles per second; Step (F10) moves one cycle, Step N many; "
     "To end (F6) runs flat out. Back (F9) and the cycle slider go back: the machine is restored from a "
     "snapshot and replayed, bit for bit, and nothing you ran is forgotten."},
    {Part::Wavelet, "A wavelet on its way",
     "The kernel is running now. The dot in the light is a wavelet: 32 bits of data moving from one router "
     "to the next along a link, in its colour (the legend names it). The link glows behind it for a few "
     "cycles, and a PE's colour shows how busy it has just been.", true},
    {Part::Log, "Output and errors",
     "What the host block printed, and any runtime error with its PE and source line. Click a line to jump "
     "to it in the editor. F1 brings back the keys and this tour."},
};

void place_of(const Help::Places& at, Part p, ImVec2* a, ImVec2* b) {
    switch (p) {
    case Part::Canvas: *a = at.canvas_min, *b = at.canvas_max; return;
    case Part::Editor: *a = at.editor_min, *b = at.editor_max; return;
    case Part::Toolbar: *a = at.toolbar_min, *b = at.toolbar_max; return;
    case Part::Log: *a = at.log_min, *b = at.log_max; return;
    case Part::Wavelet: *a = at.wavelet_min, *b = at.wavelet_max; return;
    }
}

}  // namespace

bool Help::wants_running() const { return touring() && kTour[step_].running; }

void Help::draw(const Places& at) {
    if (open_) window();
    if (touring()) tour(at);
}

void Help::window() {
    ImGui::SetNextWindowSize(ImVec2(560, 0), ImGuiCond_Appearing);
    ImGui::SetNextWindowPos(ImGui::GetMainViewport()->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    if (ImGui::Begin("What am I looking at?", &open_, ImGuiWindowFlags_NoCollapse)) {
        ImGui::TextWrapped(
            "The big grid is a wafer: a mesh of processing elements (PEs). Each PE has %s of SRAM, a "
            "compute engine and a router. Routers pass 32-bit wavelets to their neighbours, one per link per "
            "cycle, on %d colours; a wavelet arriving at a PE can start a task.",
            format_bytes(wl::kSramBytesPerPe).c_str(), wl::kColours);
        ImGui::Spacing();
        ImGui::TextWrapped(
            "The kernel editor holds the program: a layout, the PE programs, and a host block. Ctrl+Enter "
            "compiles it and loads it at cycle 0; Run plays it; the log shows what the host printed and any "
            "error, with its PE and source line.");
        if (ImGui::Button("Take the tour")) start_tour();
        ImGui::Spacing();
        ImGui::Separator();
        ImGui::TextDisabled("Keys");
        if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_SizingFixedFit)) {
            for (const Key& k : kKeys) {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.4f, 1.0f), "%s", k.keys);
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(k.does);
            }
            ImGui::EndTable();
        }
    }
    ImGui::End();
}

// Dims everything but the part the step is about, and explains it beside it.
void Help::tour(const Places& at) {
    const int n = int(std::size(kTour));
    const Stop& s = kTour[step_];
    ImVec2 a, b;
    place_of(at, s.part, &a, &b);
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const ImVec2 v0 = vp->Pos, v1(vp->Pos.x + vp->Size.x, vp->Pos.y + vp->Size.y);
    spot_min_ = a, spot_max_ = b;
    // The shade is a window of its own just under the card (the foreground list would dim the card too).
    // It is brought to the front without taking focus: focus would end a click on the card's buttons.
    ImGui::SetNextWindowPos(v0);
    ImGui::SetNextWindowSize(vp->Size);
    ImGui::Begin("##tour_shade", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoInputs | ImGuiWindowFlags_NoBackground |
                                               ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoFocusOnAppearing);
    ImGui::BringWindowToDisplayFront(ImGui::GetCurrentWindow());
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 shade = IM_COL32(0, 0, 0, 140);
    if (b.x > a.x && b.y > a.y) {
        dl->AddRectFilled(v0, ImVec2(v1.x, a.y), shade);
        dl->AddRectFilled(ImVec2(v0.x, b.y), v1, shade);
        dl->AddRectFilled(ImVec2(v0.x, a.y), ImVec2(a.x, b.y), shade);
        dl->AddRectFilled(ImVec2(b.x, a.y), ImVec2(v1.x, b.y), shade);
        dl->AddRect(a, b, IM_COL32(255, 190, 60, 255), 4.0f, 0, 3.0f);
    } else {
        dl->AddRectFilled(v0, v1, shade);
    }
    ImGui::End();
    // The card sits below the part when there is room, else above it, else in the middle.
    const float card_w = 420.0f;
    ImVec2 pos(std::min(std::max(a.x, v0.x + 8), v1.x - card_w - 8), b.y + 10);
    ImVec2 pivot(0, 0);
    if (pos.y > v1.y - 180) pos.y = a.y - 10, pivot.y = 1;
    if (pos.y < v0.y + 180 && pivot.y == 1) pos = vp->GetCenter(), pivot = ImVec2(0.5f, 0.5f);
    // A moving spot (the wavelet) would drag the card along: that card waits at the canvas's foot.
    if (s.part == Part::Wavelet) pos = ImVec2((at.canvas_min.x + at.canvas_max.x) * 0.5f, at.canvas_max.y - 10), pivot = ImVec2(0.5f, 1);
    ImGui::SetNextWindowPos(pos, ImGuiCond_Always, pivot);
    ImGui::SetNextWindowSize(ImVec2(card_w, 0));
    ImGui::SetNextWindowFocus();
    if (ImGui::Begin("##tour", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.4f, 1.0f), "%s  (%d/%d)", s.title, step_ + 1, n);
        ImGui::Separator();
        ImGui::TextWrapped("%s", s.text);
        ImGui::Spacing();
        ImGui::BeginDisabled(step_ == 0);
        if (ImGui::Button("Back")) --step_;
        ImGui::EndDisabled();
        ImGui::SameLine();
        const bool next = ImGui::Button(step_ + 1 < n ? "Next" : "Done");
        next_min_ = ImGui::GetItemRectMin(), next_max_ = ImGui::GetItemRectMax();
        if (next) step_ = step_ + 1 < n ? step_ + 1 : -1;
        ImGui::SameLine();
        if (step_ >= 0 && step_ + 1 < n && ImGui::Button("End tour")) step_ = -1;
    }
    ImGui::End();
}

}  // namespace wlui
