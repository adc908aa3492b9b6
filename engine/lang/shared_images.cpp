// shared_images.cpp: see shared_images.h.
#include "engine/lang/shared_images.h"

#include "engine/core/fnv.h"

#include <map>
#include <unordered_map>

namespace wl::lang {

namespace {

// Everything but the name and the immediates of `li`: the fields two shareable images agree on.
uint64_t shape_hash(const wl::Program& p) {
    Fnv1a h;
    auto add = [&](const auto& v) { h.add(&v, sizeof v); };
    for (const wl::Instr& in : p.code) {
        for (uint8_t v : {uint8_t(in.op), in.a, in.b, in.c, in.d, in.e}) add(v);
        add(in.pad);
        if (in.op != wl::Op::LI) add(in.imm);
    }
    add(p.sram_used);
    add(p.functions.size());
    add(p.symbols.size());
    add(p.tasks.size());
    add(p.init.size());
    return h.value();
}

bool same_shape(const wl::Program& a, const wl::Program& b) {
    if (a.code.size() != b.code.size() || a.sram_used != b.sram_used || a.files != b.files) return false;
    for (size_t k = 0; k < a.code.size(); ++k) {
        const wl::Instr &x = a.code[k], &y = b.code[k];
        if (x.op != y.op || x.a != y.a || x.b != y.b || x.c != y.c || x.d != y.d || x.e != y.e || x.pad != y.pad) return false;
        if (x.op != wl::Op::LI && x.imm != y.imm) return false;
        const wl::SrcLoc &l = a.locs[k], &m = b.locs[k];
        if (l.file != m.file || l.line != m.line || l.col != m.col) return false;
    }
    if (a.functions.size() != b.functions.size() || a.symbols.size() != b.symbols.size() || a.tasks.size() != b.tasks.size() ||
        a.init.size() != b.init.size())
        return false;
    for (size_t k = 0; k < a.functions.size(); ++k) {
        const wl::Function &f = a.functions[k], &g = b.functions[k];
        if (f.name != g.name || f.entry != g.entry || f.end != g.end || f.nregs != g.nregs || f.nparams != g.nparams || f.exported != g.exported)
            return false;
    }
    for (size_t k = 0; k < a.symbols.size(); ++k) {
        const wl::Symbol &s = a.symbols[k], &t = b.symbols[k];
        if (s.name != t.name || s.offset != t.offset || s.type != t.type || s.length != t.length || s.exported != t.exported) return false;
    }
    for (size_t k = 0; k < a.tasks.size(); ++k) {
        const wl::TaskBinding &s = a.tasks[k], &t = b.tasks[k];
        if (s.id != t.id || s.kind != t.kind || s.colour != t.colour || s.function != t.function || s.blocked != t.blocked) return false;
    }
    for (size_t k = 0; k < a.init.size(); ++k) {   // a one-word block may differ: a per-PE constant then
        const wl::InitData &x = a.init[k], &y = b.init[k];
        if (x.offset != y.offset || x.words.size() != y.words.size() || (x.words.size() != 1 && x.words != y.words)) return false;
    }
    return true;
}

}  // namespace

std::vector<ImageUse> share_images(const std::vector<std::shared_ptr<wl::Program>>& progs, const std::vector<int>& family,
                                   const std::vector<std::string>& family_name) {
    // Groups of instances with equal shapes, in order of their first member (deterministic).
    std::vector<std::vector<size_t>> groups;
    std::unordered_map<uint64_t, std::vector<size_t>> by_key;   // (family, shape) hash -> groups
    for (size_t i = 0; i < progs.size(); ++i) {
        Fnv1a h;
        h.add(&family[i], sizeof family[i]);
        const uint64_t s = shape_hash(*progs[i]);
        h.add(&s, sizeof s);
        std::vector<size_t>& cands = by_key[h.value()];
        size_t g = groups.size();
        for (size_t c : cands)
            if (family[groups[c][0]] == family[i] && same_shape(*progs[groups[c][0]], *progs[i])) g = c;
        if (g == groups.size()) {
            groups.emplace_back();
            cands.push_back(g);
        }
        groups[g].push_back(i);
    }
    std::vector<ImageUse> out(progs.size());
    for (const std::vector<size_t>& g : groups) {
        const wl::Program& first = *progs[g[0]];
        // The `li`s whose values differ across the group, each with its values; equal columns share a slot.
        std::map<std::vector<uint32_t>, uint32_t> slot_of;
        std::vector<std::pair<size_t, uint32_t>> patches, init_patches;   // pc or initial word -> slot
        const auto column = [&](auto value, size_t at, std::vector<std::pair<size_t, uint32_t>>* to) {
            std::vector<uint32_t> col(g.size());
            bool differs = false;
            for (size_t m = 0; m < g.size(); ++m) {
                col[m] = value(*progs[g[m]], at);
                differs = differs || col[m] != col[0];
            }
            if (!differs) return;
            auto it = slot_of.emplace(std::move(col), uint32_t(slot_of.size())).first;
            to->push_back({at, it->second});
        };
        for (size_t pc = 0; pc < first.code.size() && g.size() > 1; ++pc)
            if (first.code[pc].op == wl::Op::LI) column([](const wl::Program& p, size_t k) { return uint32_t(p.code[k].imm); }, pc, &patches);
        for (size_t k = 0; k < first.init.size() && g.size() > 1; ++k)   // `var me: i32 = px`
            if (first.init[k].words.size() == 1) column([](const wl::Program& p, size_t j) { return p.init[j].words[0]; }, k, &init_patches);
        if (g.size() == 1 || slot_of.size() > size_t(wl::kPeConsts)) {   // alone, or too many constants: images of their own
            for (size_t i : g) out[i].program = progs[i];
            continue;
        }
        auto shared = std::make_shared<wl::Program>(first);
        shared->name = family_name[g[0]];
        shared->nconsts = uint8_t(slot_of.size());
        for (const auto& [pc, slot] : patches) {
            shared->code[pc].op = wl::Op::LDP;
            shared->code[pc].imm = int32_t(slot);
        }
        for (const auto& [k, slot] : init_patches) shared->init[k].konst = int32_t(slot);
        for (size_t m = 0; m < g.size(); ++m) {
            ImageUse& u = out[g[m]];
            u.program = shared;
            u.consts.assign(slot_of.size(), 0);
            for (const auto& [col, slot] : slot_of) u.consts[slot] = col[m];
        }
    }
    return out;
}

}  // namespace wl::lang
