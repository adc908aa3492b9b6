// launch_timeline.cpp: a forward's launches over the emulated cycles (launch_timeline.h).
#include "engine/model/launch_timeline.h"

#include "engine/model/mesh_gpt.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace wl::model {

std::vector<LaunchSpan> sequential_timeline(const std::vector<OpRun>& runs, int t0, int n) {
    std::vector<LaunchSpan> out;
    uint64_t at = 0;
    int sequence = -1;
    for (const OpRun& r : runs) {
        if (r.name == runs.front().name) sequence++;
        out.push_back({r.name, sequence, 0, t0, n, at, at + r.cycles});
        at += r.cycles;
    }
    return out;
}

std::vector<size_t> in_flight_at(const std::vector<LaunchSpan>& t, uint64_t cycle) {
    std::vector<size_t> out;
    for (size_t i = 0; i < t.size(); i++)
        if (t[i].start <= cycle && cycle < t[i].end) out.push_back(i);
    return out;
}

uint64_t timeline_end(const std::vector<LaunchSpan>& t) {
    uint64_t end = 0;
    for (const LaunchSpan& s : t) end = std::max(end, s.end);
    return end;
}

std::vector<std::string> timeline_rows(const std::vector<LaunchSpan>& t) {
    std::vector<std::string> rows;
    for (const LaunchSpan& s : t)
        if (std::find(rows.begin(), rows.end(), s.op) == rows.end()) rows.push_back(s.op);
    return rows;
}

nlohmann::json to_json(const LaunchSpan& s) {
    nlohmann::json j = {{"op", s.op}, {"sequence", s.sequence}, {"chunk", s.chunk}, {"t0", s.t0}, {"n", s.n}, {"start", s.start}, {"end", s.end}};
    if (s.backward) j["backward"] = true;
    return j;
}

}  // namespace wl::model
