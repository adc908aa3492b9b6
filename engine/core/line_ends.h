// line_ends.h: a text's line breaks as LF, for the readers of configs and lesson specs. A lone CR
// (an old Mac file) ends a line too, as YAML 1.2 (5.4) and the kernel lexer say; CRLF is left to
// the readers that take it. One LF per break keeps every line number.
#pragma once
#include <string>
#include <string_view>

namespace wl {

inline std::string lone_cr_as_lf(std::string_view text) {
    std::string s(text);
    for (size_t k = 0; k < s.size(); ++k)
        if (s[k] == '\r' && (k + 1 == s.size() || s[k + 1] != '\n')) s[k] = '\n';
    return s;
}

}  // namespace wl
