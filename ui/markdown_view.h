// markdown_view.h: draws parse_markdown()'s blocks with Dear ImGui, wrapped to the window's
// width: headings larger and bold, **strong** bold, *emphasis* slanted, `code` in the mono
// font on a tint, links underlined (a click opens them in the browser, natively copies them),
// lists with their bullets or numbers, code blocks on a panel. Dear ImGui 1.86 has one font
// per text call, so runs are laid out word by word here.
#pragma once
#include "ui/markdown.h"

#include <vector>

namespace wlui {

void draw_markdown(const std::vector<MdBlock>& blocks);

}  // namespace wlui
