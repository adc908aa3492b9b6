#include "ui/run_gate.h"

namespace wlui {

RunGate::Verdict RunGate::judge(uint64_t version, const std::vector<wl::lang::Diagnostic>& diags) const {
    if (matches(version)) return Verdict::Ready;
    return why(diags).empty() ? Verdict::Compile : Verdict::Blocked;
}

std::string RunGate::why(const std::vector<wl::lang::Diagnostic>& diags) {
    int errors = 0;
    const wl::lang::Diagnostic* first = nullptr;
    for (const wl::lang::Diagnostic& d : diags) {
        if (d.severity != wl::lang::Severity::Error) continue;
        if (!first) first = &d;
        ++errors;
    }
    if (!first) return "";
    std::string s = "not compiled: " + std::to_string(errors) + (errors == 1 ? " error" : " errors");
    if (first->line > 0) s += " at " + std::to_string(first->line) + ":" + std::to_string(first->col);
    return s;
}

}  // namespace wlui
