#include "ui/kernel_header.h"

namespace wlui {

std::string kernel_header(std::string_view text) {
    std::string out;
    bool para_break = false;
    size_t at = 0;
    while (at < text.size()) {
        const size_t nl = text.find('\n', at);
        std::string_view line = text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
        at = nl == std::string_view::npos ? text.size() : nl + 1;
        const size_t b = line.find_first_not_of(" \t\r");
        if (b == std::string_view::npos) {   // a blank line ends the header once it has begun
            if (!out.empty()) break;
            continue;
        }
        line.remove_prefix(b);
        if (line.substr(0, 2) != "//") break;
        line.remove_prefix(2);
        while (!line.empty() && (line.front() == ' ' || line.front() == '/')) line.remove_prefix(1);
        while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
        if (line.empty()) {
            para_break = !out.empty();
            continue;
        }
        if (!out.empty()) out += para_break ? "\n\n" : " ";
        para_break = false;
        out += line;
    }
    return out;
}

}  // namespace wlui
