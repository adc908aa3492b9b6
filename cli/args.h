// args.h: the CLI's argument reader: positionals plus --flag [value] options.
#pragma once
#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace wlcli {

struct Args {
    std::vector<std::string> positional;          // after the verb
    std::map<std::string, std::string> options;   // --name value, or --name → ""

    // Options that never take a value; everything else takes the next word.
    static Args parse(int argc, char** argv, int first,
                      const std::vector<std::string>& switches = {"json", "help", "quiet"}) {
        Args a;
        for (int i = first; i < argc; ++i) {
            std::string s = argv[i];
            if (s.rfind("--", 0) == 0 && s.size() > 2) {
                std::string name = s.substr(2), value;
                if (auto eq = name.find('='); eq != std::string::npos) {
                    value = name.substr(eq + 1);
                    name = name.substr(0, eq);
                } else if (std::find(switches.begin(), switches.end(), name) == switches.end()) {
                    if (i + 1 >= argc) throw std::runtime_error("option --" + name + " needs a value");
                    value = argv[++i];
                }
                a.options[name] = value;
            } else {
                a.positional.push_back(s);
            }
        }
        return a;
    }

    bool has(const std::string& name) const { return options.count(name) != 0; }
    std::string get(const std::string& name, const std::string& def = "") const {
        auto it = options.find(name);
        return it == options.end() ? def : it->second;
    }
    long long get_int(const std::string& name, long long def) const {
        auto it = options.find(name);
        if (it == options.end()) return def;
        char* end = nullptr;
        long long v = std::strtoll(it->second.c_str(), &end, 10);
        if (it->second.empty() || *end) throw std::runtime_error("--" + name + " expects an integer, got '" + it->second + "'");
        return v;
    }
    double get_double(const std::string& name, double def) const {
        auto it = options.find(name);
        if (it == options.end()) return def;
        char* end = nullptr;
        double v = std::strtod(it->second.c_str(), &end);
        if (it->second.empty() || *end) throw std::runtime_error("--" + name + " expects a number, got '" + it->second + "'");
        return v;
    }
};

}  // namespace wlcli
