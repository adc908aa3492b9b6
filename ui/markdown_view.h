// markdown_view.h: draws parse_markdown()'s blocks with Dear ImGui, wrapped to the window's
// width: headings larger and bold, **strong** bold, *emphasis* slanted, `code` in the mono
// font on a tint, links underlined (a click opens them in the browser, natively copies them),
// lists with their bullets or numbers, code blocks on a panel (long lines wrapped), tables as a
// grid. Inline code that `is_target` accepts (a name the editor's kernel defines) is a link too:
// draw_markdown returns the one clicked. Dear ImGui 1.86 has one font per text call, so runs are
// laid out word by word here.
#pragma once
#include "ui/markdown.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wlui {

// Where a target was drawn (its first word on screen; one scrolled out of view is left out): for
// the app's state().
struct MdTarget {
    std::string name;
    float x = 0, y = 0, w = 0, h = 0;
};

std::optional<std::string> draw_markdown(const std::vector<MdBlock>& blocks,
                                         const std::function<bool(std::string_view)>& is_target = {},
                                         std::vector<MdTarget>* targets = nullptr);

}  // namespace wlui
