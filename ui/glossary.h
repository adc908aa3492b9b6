// glossary.h: what the words on the PE inspector mean — one table, shown as
// hover help on each term (table headers, counters, port names).
// No ImGui here: tests/ui/glossary_test.cpp checks every term the inspector shows has an entry.
#pragma once
#include <string_view>

namespace wlui {

// The explanation of an inspector term ("RAMP", "fwd", "CE queue", ...), or nullptr.
const char* glossary(std::string_view term);

// Every term the inspector labels, in the order it shows them.
inline constexpr const char* kInspectorTerms[] = {
    "program", "id", "task", "kind", "colour", "state", "queued", "route rx > tx", "router buffers", "CE queue", "fwd",
    "busy", "stall", "instrs", "tasks", "elements", "sent", "received", "router stalls", "wavelets", "in", "out",
    "N", "S", "E", "W", "RAMP", "symbol", "address", "value", "microthread"};

}  // namespace wlui
