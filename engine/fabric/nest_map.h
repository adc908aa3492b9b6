// nest_map.h: an affine nest's pass map (fmacs_loop.h), worked out from one state of the PE's
// registers and DSDs by FmacsLoopExec::run_affine_passes, and kept per PE and state in fast mode:
// a nest entered again from a state it was entered from before (SUMMA's, once a step on every PE;
// a GPT matmul's, once a round of each forward) has the same map, so it is not worked out again.
#pragma once
#include "engine/fabric/dsd.h"
#include "engine/fabric/fmacs_loop.h"
#include "engine/fabric/program.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace wl {

// The words a pass of a nest writes (FmacsNest's reg and dsd; what it does not write stays put):
// its registers, then its DSDs, three words each.
struct NestPoint {
    uint32_t w[sizeof FmacsNest::reg + 3 * sizeof FmacsNest::dsd];
};
static_assert(sizeof(Dsd) == 12, "a DSD is three words");

// What a pass's inner loop starts from: the fmacs operands, the fmacs bases' steps, the counter
// and its bound, the ld's address register; and the outer blt's operands before it.
struct NestEntry {
    Dsd a, d, b;
    uint32_t sa, sd, sb, vi, vn, vp, outer_a, outer_b;
};

// The state a map was worked out from, packed: the registers of FmacsNest::state_regs in index
// order, then the DSDs of state_dsds, three words each (FmacsLoopExec::pack_state). A GPT
// matmul's nests have 17 or 18 words; a nest with more than kMaxNestState keeps no map.
constexpr uint32_t kMaxNestState = 32;

// What a lookup reads comes first, and what a found map's passes read next, so a map a PE is
// about to look up can be fetched ahead of its nest (NestMaps::prefetch).
struct NestMap {
    // The loop and the state it was worked out from: what a lookup compares. The PE's constants
    // and place stay until a load, which forgets the map (FastMode::forget_nest_map).
    const FmacsLoop* loop = nullptr;
    uint32_t nstate = 0;
    uint32_t state[kMaxNestState];   // its first nstate words
    // The map: whether two passes from that state are alike (else no pass runs at once from it),
    // and then their inner loops' trip count, the two passes' entries and what a pass adds to the
    // words it writes.
    bool alike = false;
    int32_t prev = -1;   // the PE's map of the same loop looked up before this one was made (NestMaps::find), or -1
    uint64_t trips = 0;
    NestEntry e0, e1;
    NestPoint d;
};

// A PE's maps, one for each state it entered a nest from (up to NestMaps::kPerPe), and a hash of
// each one's state (FmacsLoopExec::state_key) kept apart, so a lookup passes over the hashes, not
// the maps. A forward enters its nests from the same few states each time, in the same order (a
// gpt-nano matmul PE from about 8, one a round of its outer loop), so the next state's map is
// found, not worked out.
struct PeNestMaps {
    std::vector<uint64_t> key;
    std::vector<NestMap> map;
    std::vector<std::pair<const FmacsLoop*, uint32_t>> latest;   // each loop's map looked up last
    uint32_t last = 0;     // the map found or made last: looked at first, then the ones after it
    uint32_t victim = 0;   // the next to be made over once the PE may keep no more
};

// Every PE's maps, made on first use, while all of them together are fewer than kKept (past that
// a PE with one makes its maps over in turn); a copy of a machine starts with none (its loops lie
// elsewhere).
struct NestMaps {
    static constexpr size_t kPerPe = 16, kKept = size_t(1) << 15;   // 16 a PE; at most 25 MB in all
    std::vector<PeNestMaps> pe;
    size_t kept = 0;
    NestMaps() = default;
    NestMaps(const NestMaps&) {}
    NestMaps& operator=(const NestMaps&) { return pe.clear(), kept = 0, *this; }

    // PE i's map of loop L whose state hashes to key and for which same(map) holds; else a map to
    // work out for that key (*fresh set; its prev L's map looked up before).
    template <class Same>
    NestMap& find(int i, size_t pes, const FmacsLoop* L, uint64_t key, Same same, bool* fresh) {
        if (pe.empty()) pe.resize(pes);
        PeNestMaps& p = pe[size_t(i)];
        auto latest = std::find_if(p.latest.begin(), p.latest.end(), [&](const auto& e) { return e.first == L; });
        if (latest == p.latest.end()) latest = p.latest.insert(p.latest.end(), {L, UINT32_MAX});
        const uint32_t n = uint32_t(p.map.size()), before = latest->second;
        for (uint32_t k = 0, j = p.last; k < n; ++k, j = j + 1 == n ? 0 : j + 1)
            if (p.key[j] == key && same(p.map[j])) return *fresh = false, p.last = latest->second = j, p.map[j];
        *fresh = true;
        if (n == 0 || (n < kPerPe && kept < kKept)) {
            p.map.emplace_back();
            p.key.push_back(key);
            ++kept;
            p.last = n;
        } else {
            p.last = p.victim;
            p.key[p.last] = key;
            p.victim = p.victim + 1 == n ? 0 : p.victim + 1;
        }
        p.map[p.last].prev = before < n && before != p.last ? int32_t(before) : -1;
        latest->second = p.last;
        return p.map[p.last];
    }
    // PE i's map k (a prev), or null.
    const NestMap* at(int i, int32_t k) const {
        if (k < 0 || size_t(i) >= pe.size() || size_t(k) >= pe[size_t(i)].map.size()) return nullptr;
        return &pe[size_t(i)].map[size_t(k)];
    }
    // Fetches the map PE i most likely looks up next (the one after the last found: a forward
    // enters its nests in the same order each time) into the cache, while the PE runs up to it.
    void prefetch(int i) const {
        if (size_t(i) >= pe.size()) return;
        const PeNestMaps& p = pe[size_t(i)];
        const size_t n = p.map.size();
        if (n == 0) return;
        const char* m = reinterpret_cast<const char*>(&p.map[p.last + 1 == n ? 0 : p.last + 1]);
        for (size_t at = 0; at < offsetof(NestMap, d) + 64; at += 64) __builtin_prefetch(m + at);
    }
    void forget(int i) {   // a program or its constants were placed on PE i: its maps read them
        if (pe.empty()) return;
        kept -= pe[size_t(i)].map.size();
        pe[size_t(i)] = PeNestMaps();
    }
};

}  // namespace wl
