// pe_report.cpp: one PE's state, derived for display (see pe_report.h).
#include "ui/pe_report.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace wlui {

using nlohmann::json;

static const wl::Program* program(const wl::Machine& m, int x, int y) { return m.program_at(x, y); }

// [SECTION] SRAM: cell formats, the symbol map, address labels

const char* cell_format_name(CellFormat f) {
    switch (f) {
    case CellFormat::F32: return "f32";
    case CellFormat::I32: return "i32";
    case CellFormat::U32: return "u32";
    case CellFormat::Hex: return "hex";
    }
    return "?";
}

std::string format_cell(uint32_t bits, CellFormat f) {
    char b[32];
    switch (f) {
    case CellFormat::F32: {
        float v;
        std::memcpy(&v, &bits, 4);
        std::snprintf(b, sizeof b, "%.7g", double(v));   // 7 digits: what an f32 holds, without noise
        break;
    }
    case CellFormat::I32: std::snprintf(b, sizeof b, "%" PRId32, int32_t(bits)); break;
    case CellFormat::U32: std::snprintf(b, sizeof b, "%" PRIu32, bits); break;
    case CellFormat::Hex: std::snprintf(b, sizeof b, "0x%08" PRIx32, bits); break;
    }
    return b;
}

CellFormat natural_format(wl::ElemType t) {
    switch (t) {
    case wl::ElemType::F32: return CellFormat::F32;
    case wl::ElemType::I32: return CellFormat::I32;
    case wl::ElemType::U32: return CellFormat::U32;
    }
    return CellFormat::Hex;
}

std::vector<SramRegion> sram_map(const wl::Program* p, uint32_t sram_bytes) {
    std::vector<const wl::Symbol*> syms;
    if (p)
        for (const wl::Symbol& s : p->symbols) syms.push_back(&s);
    std::stable_sort(syms.begin(), syms.end(), [](auto* a, auto* b) { return a->offset < b->offset; });
    std::vector<SramRegion> out;
    uint32_t at = 0;   // bytes covered so far
    for (const wl::Symbol* s : syms) {
        // An overlapping symbol (an alias) keeps only the bytes past what is already shown.
        const uint64_t end = std::min<uint64_t>(uint64_t(s->offset) + uint64_t(s->length) * 4, sram_bytes);
        if (end <= at) continue;
        if (s->offset > at) out.push_back({nullptr, at, (s->offset - at) / 4});
        const uint32_t from = std::max(at, s->offset);
        out.push_back({s, from, uint32_t(end - from) / 4});
        at = uint32_t(end);
    }
    if (at < sram_bytes) out.push_back({nullptr, at, (sram_bytes - at) / 4});
    return out;
}

std::string label_address(const wl::Program* p, uint32_t addr) {
    if (!p) return "";
    for (const wl::Symbol& s : p->symbols) {
        if (addr < s.offset || addr >= s.offset + uint64_t(s.length) * 4) continue;
        if (s.length == 1) return s.name;
        return s.name + "[" + std::to_string((addr - s.offset) / 4) + "]";
    }
    return "";
}

// [SECTION] tasks

const char* task_kind_name(wl::TaskKind k) {
    switch (k) {
    case wl::TaskKind::Data: return "data";
    case wl::TaskKind::Local: return "local";
    case wl::TaskKind::Control: return "control";
    }
    return "?";
}

std::vector<TaskRow> task_table(const wl::Machine& m, int x, int y) {
    std::vector<TaskRow> out;
    const wl::Program* p = program(m, x, y);
    if (!p) return out;
    for (const wl::TaskBinding& b : p->tasks) {
        TaskRow r;
        r.id = b.id, r.kind = b.kind, r.colour = b.colour;
        r.name = b.function < p->functions.size() ? p->functions[b.function].name : "?";
        if (b.kind != wl::TaskKind::Local && b.colour >= 0) r.queued = m.ce_queued(x, y, b.colour);
        r.state = wl::task_state(m, x, y, b);
        out.push_back(std::move(r));
    }
    std::sort(out.begin(), out.end(), [](const TaskRow& a, const TaskRow& b) { return a.id < b.id; });
    return out;
}

// [SECTION] colours: routes, router buffers, CE queues

std::vector<ColourRow> colour_table(const wl::Machine& m, int x, int y) {
    std::vector<ColourRow> out;
    const wl::Router& rt = m.router(x, y);
    for (int c = 0; c < wl::kColours; ++c) {
        ColourRow r;
        r.colour = c;
        r.npos = rt.npos[c], r.cur = rt.cur[c];
        for (int k = 0; k < r.npos && k < wl::kMaxSwitchPositions; ++k) r.pos[k] = rt.sw[c][k];
        bool any = false;
        for (int p = 0; p < wl::kPorts; ++p) any |= (r.buffered[p] = rt.count(p, c)) > 0;
        const wl::CeQueue& q = rt.ceq[c];
        for (int k = 0; k < q.count; ++k) r.ce.push_back(q.slot[(q.head + k) & (wl::kCeQueueMax - 1)]);
        r.forwarded = rt.stats.out_colour[c];
        if (r.npos || any || !r.ce.empty() || r.forwarded) out.push_back(std::move(r));
    }
    return out;
}

// [SECTION] the thread: current instruction and source line

std::string_view source_line(std::string_view source, int line) {
    if (line < 1) return {};
    size_t at = 0;
    for (int k = 1; k < line; ++k) {
        at = source.find('\n', at);
        if (at == std::string_view::npos) return {};
        ++at;
    }
    if (at >= source.size()) return {};
    std::string_view s = source.substr(at, source.find('\n', at) - at);
    if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
    return s;
}

std::string describe_dsd(const wl::Dsd& d, const wl::Program* p) {
    const std::string n = std::to_string(d.length);
    switch (d.kind) {
    case wl::DsdKind::None: return "-";
    case wl::DsdKind::FabIn: return "fabin colour " + std::to_string(d.colour) + " (" + n + ")";
    case wl::DsdKind::FabOut: return "fabout colour " + std::to_string(d.colour) + " (" + n + ")";
    case wl::DsdKind::Mem1d: {
        std::string at = label_address(p, d.base);
        if (at.empty()) at = "@" + std::to_string(d.base);
        return "mem " + at + " x" + n + (d.stride == 1 ? "" : " stride " + std::to_string(d.stride));
    }
    }
    return "?";
}

static std::string describe_vec(const wl::VecOp& v, const wl::Program* p) {
    std::string s = std::string(wl::op_info(v.op).mnemonic) + " " + describe_dsd(v.dst, p) + " <- " + describe_dsd(v.a, p);
    if (v.b.kind != wl::DsdKind::None) s += ", " + describe_dsd(v.b, p);
    return s + ": " + std::to_string(v.i) + " of " + std::to_string(v.n) + " done";
}

ThreadView thread_view(const wl::Machine& m, int x, int y, std::string_view source) {
    ThreadView t;
    const wl::Program* p = program(m, x, y);
    if (!p) {
        t.state = "no program";
        return t;
    }
    const wl::Core& ce = m.core(x, y);
    const std::string who = wl::thread_name(p, ce);
    switch (ce.state) {
    case wl::ThreadState::Idle: t.state = "idle"; break;
    case wl::ThreadState::Run: t.state = "running " + who; break;
    case wl::ThreadState::Stalled:
        t.state = "stalled in " + who + ": " + wl::stall_text(ce);
        break;
    case wl::ThreadState::Vec: t.state = "in " + who + ": " + describe_vec(ce.vop, p); break;
    }
    if (ce.launch_fn >= 0 && size_t(ce.launch_fn) < p->functions.size())
        t.state += "; host launch of " + p->functions[ce.launch_fn].name + " pending";
    // A faulted machine stops: the PE that faulted is no longer "running", whatever its thread last did.
    // (A deadlock or a spent budget names a PE that waits; its state above already says for what.)
    if (const wl::Fault& f = m.fault();
        f && f.x == x && f.y == y && f.kind != wl::FaultKind::Deadlock && f.kind != wl::FaultKind::Watchdog) {
        t.faulted = true;
        t.state = std::string("stopped by a fault (") + wl::fault_kind_name(f.kind) + ")" +
                  (ce.state == wl::ThreadState::Idle ? "" : " in " + who) + ": " + f.message;
    }
    for (int k = 0; k < wl::kMicrothreads; ++k)
        if (ce.ut_busy >> k & 1)
            t.microthreads.push_back("microthread " + std::to_string(k) + " [" + p->where(ce.ut[k].pc) + "]: " +
                                     describe_vec(ce.ut[k], p));
    if (ce.state == wl::ThreadState::Idle) return t;
    // Run: pc is the next instruction to issue; Stalled: the one that could not; Vec: the op in progress.
    t.has_pc = true;
    t.pc = ce.state == wl::ThreadState::Vec ? ce.vop.pc : ce.pc;
    t.disasm = p->disassemble(t.pc);
    t.where = p->where(t.pc);
    if (t.pc < p->locs.size()) {
        t.loc = p->locs[t.pc];
        t.line = std::string(source_line(source, t.loc.line));
    }
    return t;
}

// [SECTION] everything as JSON

static json symbol_values(const uint8_t* mem, uint32_t sram_bytes, const wl::Symbol& s) {
    json v = json::array();
    for (uint64_t a = s.offset; a < s.offset + uint64_t(s.length) * 4 && a + 4 <= sram_bytes; a += 4) {
        uint32_t bits;
        std::memcpy(&bits, mem + a, 4);
        float f;
        std::memcpy(&f, &bits, 4);
        switch (s.type) {
        case wl::ElemType::F32: v.push_back(f); break;   // NaN and inf become null
        case wl::ElemType::I32: v.push_back(int32_t(bits)); break;
        case wl::ElemType::U32: v.push_back(bits); break;
        }
    }
    return v;
}

json pe_json(const wl::lang::KernelRun& run, int x, int y, std::string_view source) {
    const wl::Machine& m = run.machine();
    if (!m.mesh().contains(x, y))
        throw std::invalid_argument("PE (" + std::to_string(x) + ", " + std::to_string(y) + ") is outside the " +
                                    std::to_string(m.mesh().w) + " x " + std::to_string(m.mesh().h) + " mesh");
    const wl::Program* p = program(m, x, y);
    const auto& names = run.kernel().colour_names;
    auto colour_name = [&](int c) { return c >= 0 && size_t(c) < names.size() ? json(names[c]) : json(nullptr); };
    json j = {{"pe", {{"x", x}, {"y", y}}}, {"cycle", m.now()}, {"program", p ? json(p->name) : json(nullptr)}};
    j["constants"] = json::array();   // a shared image's per-PE values (its ldp slots), in slot order
    for (int k = 0; p && k < p->nconsts; ++k) j["constants"].push_back(m.core(x, y).konst[k]);

    j["symbols"] = json::array();
    if (p)
        for (const wl::Symbol& s : p->symbols)
            j["symbols"].push_back({{"name", s.name}, {"offset", s.offset}, {"type", cell_format_name(natural_format(s.type))},
                                    {"length", s.length}, {"values", symbol_values(m.sram(x, y), m.config().sram_bytes, s)}});
    j["sram_used"] = p ? p->sram_used : 0;

    j["tasks"] = json::array();
    for (const TaskRow& t : task_table(m, x, y))
        j["tasks"].push_back({{"id", t.id}, {"name", t.name}, {"kind", task_kind_name(t.kind)},
                              {"colour", t.colour >= 0 ? json(t.colour) : json(nullptr)},
                              {"state", task_state_name(t.state)}, {"queued", t.queued}});

    j["colours"] = json::array();
    for (const ColourRow& c : colour_table(m, x, y)) {
        json route = json::array(), buffered = json::object();
        for (int k = 0; k < c.npos; ++k) route.push_back({{"rx", wl::port_set(c.pos[k].rx)}, {"tx", wl::port_set(c.pos[k].tx)}});
        for (int p = 0; p < wl::kPorts; ++p) buffered[wl::port_name(p)] = c.buffered[p];
        j["colours"].push_back({{"colour", c.colour}, {"name", colour_name(c.colour)}, {"route", route},
                                {"position", c.cur}, {"buffered", buffered}, {"ce_queue", c.ce}, {"forwarded", c.forwarded}});
    }

    const ThreadView t = thread_view(m, x, y, source);
    j["thread"] = {{"state", t.state}, {"faulted", t.faulted}, {"microthreads", t.microthreads}};
    j["instr"] = t.has_pc ? json{{"pc", t.pc}, {"text", t.disasm}, {"where", t.where}, {"line", t.loc.line},
                                 {"col", t.loc.col}, {"source", t.line}}
                          : json(nullptr);

    const wl::CoreStats& cs = m.core(x, y).stats;
    const wl::RouterStats rs = m.router_stats(x, y);
    json in = json::object(), out = json::object();
    for (int p = 0; p < wl::kPorts; ++p) in[wl::port_name(p)] = rs.in[p], out[wl::port_name(p)] = rs.out[p];
    j["counters"] = {{"busy", cs.busy}, {"stall", cs.stall}, {"instrs", cs.instrs}, {"tasks", cs.tasks},
                     {"elems", cs.elems}, {"sent", cs.sent}, {"received", cs.received},
                     {"router_stalls", rs.stalls}, {"in", in}, {"out", out}};
    return j;
}

}  // namespace wlui
