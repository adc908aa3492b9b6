// glossary.h: what the words on screen mean — the PE inspector's and the Wafer vs GPU
// window's — one table, shown as hover help on each term.
// No ImGui here: tests/ui/glossary_test.cpp checks every term those windows show has an entry.
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

// Every term the Wafer vs GPU window labels.
inline constexpr const char* kCompareTerms[] = {"model", "GPU", "profile", "batch (0: config)", "GPUs", "inference", "log scale",
                                                "compute-bound", "memory-bound", "launch-bound", "roofline", "% of peak", "mesh", "emulated"};

}  // namespace wlui
