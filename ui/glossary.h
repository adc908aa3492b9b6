// glossary.h: what the words on screen mean — the PE inspector's, the Wafer vs GPU
// window's, the Train section's and the run mode's — one table, shown as hover help on each term.
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
                                                "compute-bound", "memory-bound", "launch-bound", "roofline", "% of peak", "mesh", "emulated",
                                                "wafer weights", "sparsity", "the run on screen", "measured"};

// The Train section's words (its guide shows each with its entry on hover).
inline constexpr const char* kTrainTerms[] = {"resident", "streaming", "wafers", "grad norm", "TRAIN = 1", "models/kernels/",
                                              "tokens/s (wall)", "emulator alone"};

// The run mode's words: the toolbar's Cycle / Fast switch and the "estimated" label on fast mode's cycle figures.
inline constexpr const char* kRunModeTerms[] = {"cycle mode", "fast mode", "estimated"};

}  // namespace wlui
