// markdown_view.cpp: MdBlocks drawn with Dear ImGui (markdown_view.h).
#include "ui/markdown_view.h"

#include "ui/js_bridge.h"
#include "ui/style.h"

#include <imgui.h>
#include <algorithm>
#include <cfloat>
#include <cmath>

namespace wlui {

namespace {

const ImVec4 kHeading(0.62f, 0.80f, 1.0f, 1.0f);
const ImVec4 kStrong(1.0f, 1.0f, 1.0f, 1.0f);
const ImVec4 kCodeText(0.96f, 0.80f, 0.56f, 1.0f);
const ImVec4 kLinkText(0.45f, 0.72f, 1.0f, 1.0f);
constexpr ImU32 kCodeTint = IM_COL32(255, 255, 255, 22);
constexpr ImU32 kQuoteBar = IM_COL32(120, 140, 170, 160);
constexpr float kSlant = 0.2f;   // faux italic: x shift per unit of height above the baseline

// One device pixel or so of extra weight: bold is the same glyphs drawn twice, that far apart.
float bold_offset(float size) {
    const float px = std::max(1.0f, ImGui::GetIO().DisplayFramebufferScale.x);
    return std::max(1.0f, std::round(size * 0.06f * px)) / px;
}

// A run of text laid out word by word from (x0, y) to `right`, wrapping at spaces.
struct Flow {
    ImDrawList* dl;
    float x0, right, x, y, line_h;
    bool line_start = true;

    void newline() {
        x = x0, y += line_h;
        line_start = true;
    }

    bool clicked = false;   // a word of a target (`target` below) was clicked
    ImVec2 first_min{-1, -1}, first_max{-1, -1};   // where the target's first word was drawn

    // Draws text[b, e) in one style, wrapping between words. A target is inline code the editor
    // can show: underlined, and a click on it sets `clicked`.
    void words(const char* b, const char* e, ImFont* font, float size, ImU32 col, uint8_t style, const char* href,
               bool target = false) {
        const float ascent = font->Ascent * size / font->FontSize;
        const ImGuiIO& io = ImGui::GetIO();
        while (b < e) {
            if (*b == '\n') {
                newline();
                ++b;
                continue;
            }
            // A word and the spaces after it.
            const char* w = b;
            while (w < e && *w != ' ' && *w != '\n') ++w;
            const char* s = w;
            while (s < e && *s == ' ') ++s;
            const float ww = font->CalcTextSizeA(size, FLT_MAX, 0, b, w).x;
            const float sw = font->CalcTextSizeA(size, FLT_MAX, 0, w, s).x;
            if (!line_start && x + ww > right) {
                newline();
            }
            if (line_start && b == w) {   // no spaces at the start of a line
                b = s;
                continue;
            }
            const ImVec2 p(x, y + (line_h - size) * 0.5f);
            if (style & MdRun::Code) dl->AddRectFilled(ImVec2(p.x - 2, p.y - 1), ImVec2(p.x + ww + 2, p.y + size + 1), kCodeTint, 3.0f);
            const int v0 = dl->VtxBuffer.Size;
            dl->AddText(font, size, p, col, b, w);
            if (style & MdRun::Strong) dl->AddText(font, size, ImVec2(p.x + bold_offset(size), p.y), col, b, w);
            if (style & MdRun::Em)
                for (int i = v0; i < dl->VtxBuffer.Size; ++i) dl->VtxBuffer[i].pos.x += (p.y + ascent - dl->VtxBuffer[i].pos.y) * kSlant;
            if (target) {
                if (first_min.x < 0 && ImGui::IsRectVisible(ImVec2(p.x, y), ImVec2(p.x + ww, y + line_h)))   // on screen now
                    first_min = ImVec2(p.x, y), first_max = ImVec2(p.x + ww, y + line_h);
                dl->AddLine(ImVec2(p.x, p.y + size + 1), ImVec2(p.x + ww, p.y + size + 1), col);
                const ImVec2 m = io.MousePos;
                if (ImGui::IsWindowHovered() && m.x >= p.x && m.x < p.x + ww && m.y >= y && m.y < y + line_h) {
                    ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
                    ImGui::SetTooltip("click: show it in the editor");
                    if (ImGui::IsMouseClicked(0)) clicked = true;
                }
            }
            if (style & MdRun::Link) {
                dl->AddLine(ImVec2(p.x, p.y + ascent + 2), ImVec2(p.x + ww, p.y + ascent + 2), col);
                const ImVec2 m = io.MousePos;
                if (href && ImGui::IsWindowHovered() && m.x >= p.x && m.x < p.x + ww + sw && m.y >= y && m.y < y + line_h) {
                    ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
                    const bool web = js_bridge_can_open_url();
                    ImGui::SetTooltip("%s\n(click to %s)", href, web ? "open it in a new tab" : "copy the link");
                    if (ImGui::IsMouseClicked(0)) {
                        if (web) js_bridge_open_url(href);
                        else ImGui::SetClipboardText(href);
                    }
                }
            }
            x += ww + sw;
            line_start = false;
            b = s;
        }
    }
};

ImU32 colour(const ImVec4& c) { return ImGui::ColorConvertFloat4ToU32(c); }

// A heading, paragraph or list item's runs, wrapped from `indent`; advances the cursor past them.
// Returns the code run that was clicked, if `is_target` made any a target.
std::optional<std::string> draw_runs(const MdBlock& b, float indent, ImFont* font, float size, const ImVec4& text, bool bold,
                                     const std::function<bool(std::string_view)>& is_target, std::vector<MdTarget>* targets) {
    std::optional<std::string> hit;
    const ImVec2 start = ImGui::GetCursorScreenPos();
    const float width = ImGui::GetContentRegionAvail().x;
    Flow f{ImGui::GetWindowDrawList(), start.x + indent, start.x + width, start.x + indent, start.y,
           std::max(size, ImGui::GetFontSize()) * 1.3f};
    const Fonts& fs = fonts();
    for (const MdRun& r : b.runs) {
        const bool code = r.style & MdRun::Code;
        ImFont* rf = code && fs.mono ? fs.mono : font;
        const float rs = code ? size * 0.95f : size;
        const ImVec4& c = r.style & MdRun::Link ? kLinkText : code ? kCodeText : (r.style & MdRun::Strong) && !bold ? kStrong : text;
        const uint8_t style = uint8_t(r.style | (bold ? MdRun::Strong : 0));
        const bool target = code && is_target && is_target(r.text);
        f.clicked = false;
        f.first_min = f.first_max = ImVec2(-1, -1);
        f.words(r.text.data(), r.text.data() + r.text.size(), rf, rs, colour(c), style, r.href.empty() ? nullptr : r.href.c_str(), target);
        if (f.clicked) hit = r.text;
        if (target && targets && f.first_min.x >= 0)
            targets->push_back({r.text, f.first_min.x, f.first_min.y, f.first_max.x - f.first_min.x, f.first_max.y - f.first_min.y});
    }
    ImGui::Dummy(ImVec2(width, f.y + f.line_h - start.y));
    return hit;
}

// A table: columns as wide as their widest cell, the header row bold over a rule, alternate rows tinted.
void draw_table(const MdBlock& b, float indent, ImFont* font, float size) {
    if (b.rows.empty()) return;
    size_t cols = 0;
    for (const auto& row : b.rows) cols = std::max(cols, row.size());
    const float pad = size * 0.6f, line_h = size * 1.4f;
    std::vector<float> w(cols, 0.0f);
    for (const auto& row : b.rows)
        for (size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], font->CalcTextSizeA(size, FLT_MAX, 0, row[i].c_str()).x);
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    float total = 0;
    for (float x : w) total += x + 2 * pad;
    for (size_t r = 0; r < b.rows.size(); ++r) {
        const float y = at.y + float(r) * line_h;
        if (r % 2 == 1) dl->AddRectFilled(ImVec2(at.x + indent, y), ImVec2(at.x + indent + total, y + line_h), kCodeTint);
        float x = at.x + indent;
        for (size_t i = 0; i < b.rows[r].size(); ++i) {
            const ImVec2 p(x + pad, y + (line_h - size) * 0.5f);
            dl->AddText(font, size, p, r == 0 ? colour(kStrong) : text, b.rows[r][i].c_str());
            if (r == 0) dl->AddText(font, size, ImVec2(p.x + bold_offset(size), p.y), colour(kStrong), b.rows[r][i].c_str());
            x += w[i] + 2 * pad;
        }
        if (r == 0) dl->AddLine(ImVec2(at.x + indent, y + line_h), ImVec2(at.x + indent + total, y + line_h), colour(kHeading));
    }
    ImGui::Dummy(ImVec2(indent + total, float(b.rows.size()) * line_h + size * 0.4f));
}

}  // namespace

std::optional<std::string> draw_markdown(const std::vector<MdBlock>& blocks, const std::function<bool(std::string_view)>& is_target,
                                         std::vector<MdTarget>* targets) {
    std::optional<std::string> clicked;
    const Fonts& fs = fonts();
    ImFont* body = ImGui::GetFont();
    const float size = ImGui::GetFontSize();
    const float step = size * 1.5f;   // one level of list indent
    const ImVec4 text = ImGui::GetStyleColorVec4(ImGuiCol_Text);
    for (size_t i = 0; i < blocks.size(); ++i) {
        const MdBlock& b = blocks[i];
        const bool next_in_list = i + 1 < blocks.size() && blocks[i + 1].depth > 0 && b.depth > 0;
        const ImVec2 at = ImGui::GetCursorScreenPos();
        switch (b.kind) {
        case MdBlock::Kind::Heading: {
            if (i > 0) ImGui::Dummy(ImVec2(0, size * 0.3f));
            ImFont* hf = b.level == 1 && fs.heading ? fs.heading : body;
            const float hs = b.level == 1 && fs.heading ? size * 1.3f : b.level == 2 ? size * 1.1f : size;
            draw_runs(b, 0, hf, hs, kHeading, true, {}, nullptr);
            break;
        }
        case MdBlock::Kind::Paragraph:
        case MdBlock::Kind::ListItem: {
            const float indent = step * float(b.depth);
            if (!b.marker.empty()) {
                const ImVec2 m(at.x + indent - step * 0.75f, at.y + (size * 1.3f - size) * 0.5f);
                ImGui::GetWindowDrawList()->AddText(body, size, m, colour(kHeading), b.marker.c_str());
            }
            if (auto hit = draw_runs(b, indent, body, size, text, false, is_target, targets)) clicked = hit;
            if (!next_in_list) ImGui::Dummy(ImVec2(0, size * 0.25f));
            break;
        }
        case MdBlock::Kind::Code: {
            ImFont* mono = fs.mono ? fs.mono : body;
            const float pad = size * 0.5f, indent = step * float(b.depth);
            const float char_w = mono->CalcTextSizeA(size, FLT_MAX, 0, "M").x;
            const int columns = int((ImGui::GetContentRegionAvail().x - indent - 2 * pad) / std::max(1.0f, char_w));
            const std::string code = wrap_code(b.runs.empty() ? std::string() : b.runs[0].text, columns);   // nothing cut at the right
            const ImVec2 ts = mono->CalcTextSizeA(size, FLT_MAX, 0, code.c_str());
            const ImVec2 a(at.x + indent, at.y), z(at.x + ImGui::GetContentRegionAvail().x, at.y + ts.y + 2 * pad);
            ImDrawList* dl = ImGui::GetWindowDrawList();
            dl->AddRectFilled(a, z, kCodeTint, 4.0f);
            dl->PushClipRect(a, z, true);
            dl->AddText(mono, size, ImVec2(a.x + pad, a.y + pad), colour(kCodeText), code.c_str());
            dl->PopClipRect();
            ImGui::Dummy(ImVec2(z.x - at.x, z.y - at.y + size * 0.25f));
            break;
        }
        case MdBlock::Kind::Rule: ImGui::Separator(); break;
        case MdBlock::Kind::Table: draw_table(b, step * float(b.depth), body, size); break;
        }
        if (b.quote) {
            const float y1 = ImGui::GetItemRectMax().y;
            ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(at.x + step * float(b.depth - 1) + 2, at.y),
                                                      ImVec2(at.x + step * float(b.depth - 1) + 5, y1), kQuoteBar);
        }
    }
    return clicked;
}

}  // namespace wlui
