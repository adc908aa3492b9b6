// pe_inspector.cpp: the PE inspector window (see pe_inspector.h). Every value
// comes from pe_report.h; this file only lays it out.
#include "ui/pe_inspector.h"

#include "ui/glossary.h"
#include "ui/pe_report.h"
#include "ui/style.h"

#include <imgui.h>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

namespace wlui {

namespace {

const ImVec4 kDim(0.55f, 0.6f, 0.68f, 1.0f);
const ImVec4 kGood = kGoodText, kWarn = kWarnText, kBad = kErrorText;

ImVec4 task_colour(TaskState s) {
    switch (s) {
    case TaskState::Running: return kGood;
    case TaskState::Active: return kWarn;
    case TaskState::Blocked: return kBad;
    case TaskState::Idle: break;
    }
    return kDim;
}

constexpr const char* kFormats[] = {"auto", "f32", "i32", "hex"};
constexpr CellFormat kFormatOf[] = {CellFormat::F32, CellFormat::F32, CellFormat::I32, CellFormat::Hex};
constexpr uint32_t kOpenUpTo = 64;    // arrays up to this many elements start open
constexpr uint32_t kGapWordsPerRow = 8;

struct Mono {   // numbers and code in the monospaced font
    Mono() { ImGui::PushFont(fonts().mono); }
    ~Mono() { ImGui::PopFont(); }
};

// A table's header row where each header explains itself on hover (the glossary).
void headers_with_help(std::string* hovered, std::map<std::string, std::pair<ImVec2, ImVec2>>* drawn) {
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    for (int i = 0; i < ImGui::TableGetColumnCount(); ++i) {
        if (!ImGui::TableSetColumnIndex(i)) continue;
        const char* name = ImGui::TableGetColumnName(i);
        ImGui::TableHeader(name);
        if (glossary(name)) (*drawn)[name] = {ImGui::GetItemRectMin(), ImGui::GetItemRectMax()};
        if (const char* help = glossary(name); help && ImGui::IsItemHovered()) {
            ImGui::SetTooltip("%s: %s", name, help);
            *hovered = name;
        }
    }
}

void text_mono(const std::string& s) {
    Mono m;
    ImGui::TextUnformatted(s.c_str());
}

}  // namespace

void PeInspector::term_help(const char* term) {
    term_rects_[term] = {ImGui::GetItemRectMin(), ImGui::GetItemRectMax()};
    if (const char* help = glossary(term); help && ImGui::IsItemHovered()) {
        ImGui::SetTooltip("%s: %s", term, help);
        hovered_term_ = term;
    }
}

std::optional<wl::SrcLoc> PeInspector::draw(bool* open, const wl::lang::KernelRun* run, int x, int y, std::string_view source) {
    std::optional<wl::SrcLoc> reveal;
    hovered_term_.clear();
    term_rects_.clear();
    if (!ImGui::Begin("PE inspector", open)) {
        ImGui::End();
        return reveal;
    }
    if (!run) {
        ImGui::TextDisabled("Load an example or compile a kernel, then click a PE.");
        ImGui::End();
        return reveal;
    }
    const wl::Machine& m = run->machine();
    if (!m.mesh().contains(x, y)) {
        ImGui::TextDisabled("Click a PE on the canvas to inspect it.");
        ImGui::End();
        return reveal;
    }
    const wl::Program* prog = m.program_at(x, y);
    const CellFormat queue_format = kFormatOf[format_];   // payload types are the kernel's, not the program's: auto reads f32

    // [SECTION] header and the thread
    ImGui::Text("PE (%d, %d)   cycle %llu", x, y, (unsigned long long)m.now());
    const ThreadView t = thread_view(m, x, y, source);
    const bool stalled = m.core(x, y).state == wl::ThreadState::Stalled;
    ImGui::PushTextWrapPos(0.0f);
    std::string prog_line = prog ? "program " + prog->name : "no program here";   // names carry their parameters, unless shared:
    for (int k = 0; prog && k < prog->nconsts; ++k)                                   // then the PE's own values follow
        prog_line += (k ? ", " : ", constants ") + std::to_string(m.core(x, y).konst[k]);
    ImGui::TextColored(kDim, "%s", prog_line.c_str());
    term_help("program");
    ImGui::TextColored(t.faulted ? kBad : !t.has_pc ? kDim : stalled ? kWarn : kGood, "%s", t.state.c_str());
    ImGui::PopTextWrapPos();
    if (t.has_pc) {
        text_mono(t.disasm);
        ImGui::TextColored(kDim, "%s", t.where.c_str());
        ImGui::SameLine();
        ImGui::BeginDisabled(t.loc.line <= 0);
        if (ImGui::SmallButton("Show in editor")) reveal = t.loc;
        ImGui::EndDisabled();
        if (!t.line.empty()) {
            // The line, and a caret under the column the instruction came from.
            text_mono(t.line);
            text_mono(std::string(size_t(std::max(0, t.loc.col - 1)), ' ') + "^");
        }
    }
    for (const std::string& u : t.microthreads) {
        ImGui::BulletText("%s", u.c_str());
        term_help("microthread");
    }
    ImGui::Spacing();

    // [SECTION] tasks
    const auto tasks = task_table(m, x, y);
    char title[64];
    std::snprintf(title, sizeof title, "Tasks (%zu)###tasks", tasks.size());
    if (ImGui::CollapsingHeader(title, ImGuiTreeNodeFlags_DefaultOpen)) {
        if (tasks.empty()) ImGui::TextDisabled("no tasks bound");
        else if (ImGui::BeginTable("tasks", 6, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_BordersInnerV)) {
            for (const char* h : {"id", "task", "kind", "colour", "state", "queued"}) ImGui::TableSetupColumn(h);
            headers_with_help(&hovered_term_, &term_rects_);
            for (const TaskRow& r : tasks) {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::Text("%d", r.id);
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(r.name.c_str());
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(task_kind_name(r.kind));
                ImGui::TableNextColumn();
                if (r.colour >= 0) ImGui::Text("%d", r.colour);
                ImGui::TableNextColumn();
                ImGui::TextColored(task_colour(r.state), "%s", task_state_name(r.state));
                ImGui::TableNextColumn();
                if (r.kind != wl::TaskKind::Local) ImGui::Text("%d", r.queued);
            }
            ImGui::EndTable();
        }
    }

    // [SECTION] colours: routes, router buffers, CE queues
    const auto colours = colour_table(m, x, y);
    const auto& names = run->kernel().colour_names;
    std::snprintf(title, sizeof title, "Colours (%zu in use)###colours", colours.size());
    if (ImGui::CollapsingHeader(title, ImGuiTreeNodeFlags_DefaultOpen)) {
        if (colours.empty()) ImGui::TextDisabled("no routes, no wavelets");
        else if (ImGui::BeginTable("colours", 5, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_BordersInnerV)) {
            ImGui::TableSetupColumn("colour");
            ImGui::TableSetupColumn("route rx > tx");
            ImGui::TableSetupColumn("router buffers");
            ImGui::TableSetupColumn("CE queue", ImGuiTableColumnFlags_WidthStretch);
            ImGui::TableSetupColumn("fwd");
            headers_with_help(&hovered_term_, &term_rects_);
            for (const ColourRow& c : colours) {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                const bool named = size_t(c.colour) < names.size() && !names[c.colour].empty();
                ImGui::Text("%d %s", c.colour, named ? names[c.colour].c_str() : "");
                ImGui::TableNextColumn();
                if (!c.npos) ImGui::TextDisabled("no route");
                for (int k = 0; k < c.npos; ++k) {   // the current switch position is bright
                    std::string s = wl::port_set(c.pos[k].rx) + " > " + wl::port_set(c.pos[k].tx);
                    if (k == c.cur || c.npos == 1) ImGui::TextUnformatted(s.c_str());
                    else ImGui::TextDisabled("%s", s.c_str());
                }
                ImGui::TableNextColumn();
                std::string buf;
                for (int p = 0; p < wl::kPorts; ++p)
                    if (c.buffered[p]) buf += std::string(buf.empty() ? "" : " ") + wl::port_name(p) + ":" + std::to_string(c.buffered[p]);
                if (buf.empty()) ImGui::TextDisabled("empty");
                else ImGui::TextColored(kWarn, "%s", buf.c_str());
                ImGui::TableNextColumn();
                if (c.ce.empty()) ImGui::TextDisabled("empty");
                else {
                    std::string q = std::to_string(c.ce.size()) + "/" + std::to_string(m.config().ce_queue_depth) + ":";
                    for (uint32_t w : c.ce) q += " " + format_cell(w, queue_format);
                    ImGui::PushTextWrapPos(0.0f);
                    text_mono(q);
                    ImGui::PopTextWrapPos();
                    if (ImGui::IsItemHovered()) ImGui::SetTooltip("wavelets waiting for the CE, head first");
                }
                ImGui::TableNextColumn();
                ImGui::Text("%llu", (unsigned long long)c.forwarded);
            }
            ImGui::EndTable();
        }
    }

    // [SECTION] counters
    if (ImGui::CollapsingHeader("Counters", ImGuiTreeNodeFlags_DefaultOpen)) {
        const wl::CoreStats& cs = m.core(x, y).stats;
        const wl::RouterStats rs = m.router_stats(x, y);
        const double cycles = double(std::max<uint64_t>(m.now(), 1));
        // Each counter is its own item, so each explains itself on hover.
        auto counter = [&](const char* name, const std::string& value, bool same_line) {
            if (same_line) ImGui::SameLine(0, ImGui::GetFontSize());
            ImGui::Text("%s %s", name, value.c_str());
            term_help(name);
        };
        char pct[32];
        std::snprintf(pct, sizeof pct, " (%.0f%%)", 100.0 * double(cs.busy) / cycles);
        counter("busy", std::to_string(cs.busy) + pct, false);
        counter("stall", std::to_string(cs.stall), true);
        counter("instrs", std::to_string(cs.instrs), true);
        counter("tasks", std::to_string(cs.tasks), true);
        counter("elements", std::to_string(cs.elems), false);
        counter("sent", std::to_string(cs.sent), true);
        counter("received", std::to_string(cs.received), true);
        counter("router stalls", std::to_string(rs.stalls), true);
        if (ImGui::BeginTable("links", 6, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_BordersInnerV)) {
            ImGui::TableSetupColumn("wavelets");
            for (int p = 0; p < wl::kPorts; ++p) ImGui::TableSetupColumn(wl::port_name(p));
            headers_with_help(&hovered_term_, &term_rects_);
            for (int dir = 0; dir < 2; ++dir) {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(dir ? "out" : "in");
                term_help(dir ? "out" : "in");
                for (int p = 0; p < wl::kPorts; ++p) {
                    ImGui::TableNextColumn();
                    ImGui::Text("%llu", (unsigned long long)(dir ? rs.out[p] : rs.in[p]));
                }
            }
            ImGui::EndTable();
        }
    }

    // [SECTION] SRAM
    if (ImGui::CollapsingHeader("SRAM", ImGuiTreeNodeFlags_DefaultOpen)) draw_sram(m, x, y);
    ImGui::End();
    return reveal;
}

// One table row per scalar, per array header, per open array element and per
// 8 words of an open unlabelled region; ImGuiListClipper draws only the visible ones.
void PeInspector::draw_sram(const wl::Machine& m, int x, int y) {
    const wl::Program* prog = m.program_at(x, y);
    const uint32_t sram_bytes = m.config().sram_bytes;
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("auto  ").x + ImGui::GetFrameHeight() * 2);
    ImGui::Combo("##format", &format_, kFormats, IM_ARRAYSIZE(kFormats));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("auto: each symbol as its declared type; unlabelled words in hex");
    ImGui::SameLine();
    ImGui::TextDisabled("%u of %u bytes used by symbols", prog ? prog->sram_used : 0u, sram_bytes);

    const uint8_t* mem = m.sram(x, y);
    auto word = [&](uint32_t addr) {
        uint32_t w;
        std::memcpy(&w, mem + addr, 4);
        return w;
    };
    const std::vector<SramRegion> regions = sram_map(prog, sram_bytes);
    auto is_open = [&](const SramRegion& r) {
        const bool by_default = r.symbol && r.words <= kOpenUpTo;
        return by_default != (toggled_.count(r.offset) > 0);
    };
    auto rows_of = [&](const SramRegion& r) -> size_t {
        if (r.symbol && r.symbol->length == 1) return 1;
        if (!is_open(r)) return 1;
        return 1 + (r.symbol ? r.words : (r.words + kGapWordsPerRow - 1) / kGapWordsPerRow);
    };
    size_t total = 0;
    for (const SramRegion& r : regions) total += rows_of(r);

    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_SizingFixedFit;
    const float h = std::max(ImGui::GetContentRegionAvail().y, ImGui::GetTextLineHeightWithSpacing() * 12);
    if (!ImGui::BeginTable("sram", 3, flags, ImVec2(0, h))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("symbol");
    ImGui::TableSetupColumn("address");
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
    headers_with_help(&hovered_term_, &term_rects_);

    std::optional<uint32_t> toggle;
    ImGuiListClipper clipper;
    clipper.Begin(int(total));
    while (clipper.Step()) {
        // Walk to the region holding the first visible row; rows then only move forward.
        size_t reg = 0, first = 0;   // regions[reg] starts at row `first`
        for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
            while (size_t(row) >= first + rows_of(regions[reg])) first += rows_of(regions[reg++]);
            const SramRegion& r = regions[reg];
            const size_t k = size_t(row) - first;   // 0 = the region's own row
            const CellFormat fmt = format_ == 0 ? (r.symbol ? natural_format(r.symbol->type) : CellFormat::Hex) : kFormatOf[format_];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            char addr[16];
            if (k == 0) {
                std::snprintf(addr, sizeof addr, "0x%04x", r.offset);
                if (r.symbol && r.symbol->length == 1) {
                    ImGui::TextUnformatted(r.symbol->name.c_str());
                    ImGui::TableNextColumn();
                    text_mono(addr);
                    ImGui::TableNextColumn();
                    text_mono(format_cell(word(r.offset), fmt));
                    continue;
                }
                const bool was_open = is_open(r);
                ImGui::PushID(int(r.offset));
                ImGui::SetNextItemOpen(was_open, ImGuiCond_Always);
                if (!r.symbol) ImGui::PushStyleColor(ImGuiCol_Text, kDim);
                const bool now_open = ImGui::TreeNodeEx(r.symbol ? r.symbol->name.c_str() : "(unlabelled)",
                                                        ImGuiTreeNodeFlags_NoTreePushOnOpen | ImGuiTreeNodeFlags_SpanFullWidth);
                if (!r.symbol) ImGui::PopStyleColor();
                ImGui::PopID();
                if (now_open != was_open) toggle = r.offset;   // applied after the table: rows_of() must not change mid-walk
                ImGui::TableNextColumn();
                text_mono(addr);
                ImGui::TableNextColumn();
                if (r.symbol) {
                    ImGui::TextDisabled("%s[%u]", cell_format_name(natural_format(r.symbol->type)), r.words);
                } else {
                    bool zero = true;
                    for (uint32_t a = r.offset; a < r.offset + r.words * 4 && zero; a += 4) zero = word(a) == 0;
                    ImGui::TextDisabled("%u words%s", r.words, zero ? ", all zero" : "");
                }
            } else if (r.symbol) {
                const uint32_t a = r.offset + uint32_t(k - 1) * 4;
                ImGui::TextDisabled("  [%u]", (a - r.symbol->offset) / 4);
                ImGui::TableNextColumn();
                std::snprintf(addr, sizeof addr, "0x%04x", a);
                text_mono(addr);
                ImGui::TableNextColumn();
                text_mono(format_cell(word(a), fmt));
            } else {
                const uint32_t a = r.offset + uint32_t(k - 1) * kGapWordsPerRow * 4;
                const uint32_t end = std::min(r.offset + r.words * 4, a + kGapWordsPerRow * 4);
                ImGui::TableNextColumn();
                std::snprintf(addr, sizeof addr, "0x%04x", a);
                text_mono(addr);
                ImGui::TableNextColumn();
                std::string s;
                for (uint32_t b = a; b < end; b += 4) s += (s.empty() ? "" : " ") + format_cell(word(b), fmt);
                text_mono(s);
            }
        }
    }
    ImGui::EndTable();
    if (toggle && !toggled_.erase(*toggle)) toggled_.insert(*toggle);
}

}  // namespace wlui
