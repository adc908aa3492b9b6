// diagnostics.cpp: rendering a diagnostic as text (for CLIs and tests only).
#include "engine/lang/diagnostics.h"

namespace wl::lang {

std::string format_diagnostic(const Diagnostic& d) {
    std::string s = d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.col) + ": " +
                    (d.severity == Severity::Error ? "error: " : "warning: ") + d.message;
    for (const DiagNote& n : d.notes) {
        s += "\n  note: ";
        if (n.line > 0) s += d.file + ":" + std::to_string(n.line) + ":" + std::to_string(n.col) + ": ";
        s += n.message;
    }
    return s;
}

}  // namespace wl::lang
