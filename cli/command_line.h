// command_line.h: parses argv against the verb table (verbs.h) with CLI11, so the
// usage text and the parser come from the same rows. Anything the table does not
// name is an error that says which word and suggests the nearest flag or verb.
#pragma once
#include "cli/verbs.h"

#include <string>
#include <vector>

namespace wlcli {

struct CommandLine {
    const Verb* verb = nullptr;   // the verb to run, or null: stop with `status`
    Args args;
    int status = 0;               // 0 after help, 2 after a usage error
    std::string out, err;         // help text / the error, for the caller to print
};

CommandLine parse_command_line(const std::vector<Verb>& verbs, int argc, const char* const* argv);

// The candidate closest to `word` by edit distance, or "" when none is plausibly meant.
std::string nearest(const std::string& word, const std::vector<std::string>& candidates);

// The table every reader shares (verb_table.cpp).
const std::vector<Verb>& verb_table();

}  // namespace wlcli
