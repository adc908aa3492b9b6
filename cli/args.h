// args.h: what a verb reads after parsing: its positionals and the flags that were given.
// The command line is parsed and checked before a verb runs (command_line.cpp), so an
// --int flag here always holds an integer and an unknown flag never reaches a verb.
#pragma once
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace wlcli {

struct Args {
    std::string verb;                             // its path in the table: "train", "bench sparsity"
    std::vector<std::string> positional;          // after the verb
    std::map<std::string, std::string> options;   // flag name (no "--") -> value; "" for a switch

    bool has(const std::string& name) const { return options.count(name) != 0; }
    std::string get(const std::string& name, const std::string& def = "") const {
        auto it = options.find(name);
        return it == options.end() ? def : it->second;
    }
    long long get_int(const std::string& name, long long def) const {
        auto it = options.find(name);
        return it == options.end() ? def : std::strtoll(it->second.c_str(), nullptr, 10);
    }
    double get_double(const std::string& name, double def) const {
        auto it = options.find(name);
        return it == options.end() ? def : std::strtod(it->second.c_str(), nullptr);
    }
};

}  // namespace wlcli
