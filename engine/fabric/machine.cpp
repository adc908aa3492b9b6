// machine.cpp: the host's calls, the phased cycle loop and cycle mode's router step.
// The routes and edge links are network.cpp's, the compute engine's step core.cpp's, the
// stuck report stuck_report.cpp's, fast mode's run fast_mode.cpp's.
//
// Index of this file:
//   [SECTION] construction and snapshots
//   [SECTION] layout: routes and programs
//   [SECTION] host-side memory, launch, inject
//   [SECTION] the cycle loop
//   [SECTION] router step
//   [SECTION] stats, checksum
#include "engine/fabric/machine.h"

#include "engine/fabric/fast_mode.h"
#include "engine/fabric/fmacs_loop.h"
#include "engine/fabric/pe_status.h"

#include "engine/core/fnv.h"
#include "engine/core/thousands.h"
#include "engine/core/zeroed_alloc.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <string>

namespace wl {

// [SECTION] construction and snapshots

MachineConfig machine_config(const MachineProfile& p, Lanes lanes, MachineConfig base) {
    base.sram_bytes = p.sram_bytes_per_pe;
    base.simd_fp32 = p.lanes(lanes);
    return base;
}

void Machine::new_arena(size_t pes) {
    const size_t bytes = pes * size_t(cfg_.sram_bytes);
    sram_ = std::unique_ptr<uint8_t, SramArenaDeleter>(static_cast<uint8_t*>(zeroed_alloc(pes, cfg_.sram_bytes)), SramArenaDeleter{bytes});
}

// "3.4 GiB": sizes in messages.
static std::string byte_size(uint64_t b) {
    char s[32];
    if (b >= (1ull << 30)) std::snprintf(s, sizeof s, "%.1f GiB", double(b) / double(1ull << 30));
    else std::snprintf(s, sizeof s, "%.1f MiB", double(b) / double(1ull << 20));
    return s;
}

Machine::Machine(const MachineConfig& cfg) : trace_(cfg.trace_capacity) {
    cfg_ = cfg;
    std::string bad;
    // At most a whole WSE-3 (wafer.h): 896,112 PEs of 3.4 KiB of state besides SRAM. Refuse, never throw.
    if (cfg_.w < 1 || cfg_.h < 1 || cfg_.w > 4096 || cfg_.h > 4096 || int64_t(cfg_.w) * cfg_.h > int64_t(kWse3GridW) * kWse3GridH)
        bad = "mesh size out of range (at most " + std::to_string(int64_t(kWse3GridW) * kWse3GridH) + " PEs, a whole WSE-3)";
    if (cfg_.sram_bytes < 4 || cfg_.sram_bytes % 4 || cfg_.sram_bytes > (1u << 24)) bad = "sram_bytes must be a multiple of 4 up to 16 MiB";
    if (cfg_.router_queue_depth < 1 || cfg_.router_queue_depth > kRouterQueueMax) bad = "router_queue_depth out of range";
    if (cfg_.ce_queue_depth < 1 || cfg_.ce_queue_depth > kCeQueueMax) bad = "ce_queue_depth out of range";
    if (cfg_.simd_fp32 < 1 || cfg_.task_pick_cycles < 0) bad = "simd_fp32 / task_pick_cycles out of range";
    // Memory is refused up front, with the size, rather than failing half-way (or, in a
    // browser, growing the heap until the tab dies).
    const uint64_t pes = uint64_t(cfg_.w) * uint64_t(cfg_.h), need = pes * (cfg_.sram_bytes + state_bytes_per_pe());
    const std::string mesh_text = "a " + std::to_string(cfg_.w) + "x" + std::to_string(cfg_.h) + " mesh needs " + byte_size(need) +
                                  " (" + std::to_string(cfg_.sram_bytes / 1024) + " KiB SRAM + " +
                                  std::to_string(state_bytes_per_pe()) + " bytes of state per PE)";
    if (bad.empty() && cfg_.memory_limit && need > cfg_.memory_limit)
        bad = mesh_text + "; this build allows " + byte_size(cfg_.memory_limit);
    if (bad.empty()) {
        new_arena(size_t(pes));
        if (!sram_) bad = mesh_text + ", and the allocation failed";
    }
    if (!bad.empty()) {
        cfg_ = MachineConfig{};
        cfg_.w = cfg_.h = 1;
        new_arena(1);
    }
    size_t n = size_t(cfg_.w) * size_t(cfg_.h);
    try {
        net_ = Network(Mesh{cfg_.w, cfg_.h});
        cores_.resize(n);
        for (auto* l : {&rnow_, &rnext_, &cnow_, &cnext_}) l->init(n);   // no allocation while running
    } catch (const std::bad_alloc&) {
        bad = mesh_text + ", and the allocation failed";
        cfg_ = MachineConfig{};
        cfg_.w = cfg_.h = 1;
        n = 1;
        net_ = Network(Mesh{1, 1});
        cores_.assign(1, Core{});
        for (auto* l : {&rnow_, &rnext_, &cnow_, &cnext_}) l->init(1);
        new_arena(1);
    }
    for (size_t i = 0; i < n; ++i) {
        std::memset(static_cast<void*>(&cores_[i]), 0, sizeof(Core));
        Core& c = cores_[i];
        c.prog = -1;
        c.launch_fn = -1;
        c.task = -1;
        c.state = ThreadState::Idle;
    }
    band_ = Band{0, cfg_.h};
    own0_ = 0, own1_ = int(n);
    if (!bad.empty()) {
        fault_.kind = FaultKind::HostError;
        fault_.message = "bad machine config: " + bad;
    }
}

// Snapshots copy each PE's SRAM up to its sram_used mark: a kernel that uses
// 320 bytes of its 48 KiB costs 320 bytes, not 48 KiB, per PE. The rest of a
// fresh arena is zeroed_alloc's untouched zero pages.
Machine::Machine(const Machine& o) {
    copy_state(o);
    if (!o.sram_) return;
    new_arena(net_.size());
    if (!sram_) {
        fault_.kind = FaultKind::HostError;
        fault_.message = "snapshot: cannot allocate SRAM";
        return;
    }
    const size_t S = cfg_.sram_bytes;
    for (size_t i = 0; i < cores_.size(); ++i) std::memcpy(sram_.get() + i * S, o.sram_.get() + i * S, cores_[i].sram_used);
}

// Into a machine of the same shape (a recycled snapshot), the arena is reused:
// copy what the source uses and zero what only this one used.
Machine& Machine::operator=(const Machine& o) {
    if (this == &o) return *this;
    if (!sram_ || !o.sram_ || cores_.size() != o.cores_.size() || cfg_.sram_bytes != o.cfg_.sram_bytes) {
        Machine tmp(o);
        return *this = std::move(tmp);
    }
    const size_t S = cfg_.sram_bytes;
    for (size_t i = 0; i < cores_.size(); ++i) {
        uint8_t* d = sram_.get() + i * S;
        const uint32_t have = cores_[i].sram_used, want = o.cores_[i].sram_used;
        std::memcpy(d, o.sram_.get() + i * S, want);
        if (have > want) std::memset(d + want, 0, have - want);
    }
    copy_state(o);
    return *this;
}

Machine::Machine(Machine&&) noexcept = default;
Machine& Machine::operator=(Machine&&) noexcept = default;
Machine::~Machine() = default;

const char* run_mode_name(RunMode m) { return m == RunMode::Fast ? "fast" : "cycle"; }
bool run_mode_from_name(const std::string& s, RunMode* out) {
    if (s == "cycle") return *out = RunMode::Cycle, true;
    if (s == "fast") return *out = RunMode::Fast, true;
    return false;
}

Fault Machine::set_mode(RunMode m) {
    if (m == mode_) return {};
    if (link_) return host_error(-1, -1, "set_mode: a machine split across bands keeps the mode it was split in (docs/scale.md)");
    if (fast_ && !fast_->empty()) return host_error(-1, -1, "set_mode: a fast run is part-way (wavelets in flight); finish or reset it first");
    mode_ = m;
    fast_ = m == RunMode::Fast ? std::make_unique<FastMode>(cores_.size()) : nullptr;
    return {};
}

void Machine::copy_state(const Machine& o) {
    cfg_ = o.cfg_, now_ = o.now_, fault_ = o.fault_;
    net_ = o.net_, cores_ = o.cores_, progs_ = o.progs_;
    rnow_ = o.rnow_, rnext_ = o.rnext_, cnow_ = o.cnow_, cnext_ = o.cnext_, timers_ = o.timers_;
    progress_ = o.progress_, router_steps_ = o.router_steps_, core_steps_ = o.core_steps_;
    rr_colour_ = o.rr_colour_, rr_port_ = o.rr_port_;
    trace_ = o.trace_;
    mode_ = o.mode_;
    fast_ = o.fast_ ? std::make_unique<FastMode>(*o.fast_) : nullptr;
    // A copy is one machine, not a band: between runs a split machine holds what the host reads of every band.
    link_ = nullptr;
    band_ = Band{0, cfg_.h};
    own0_ = 0, own1_ = int(net_.size());
    band_ran_ = false;
}

size_t Machine::snapshot_bytes() const {
    // The whole arena counts: copying only used SRAM saves time, but a copy still allocates the
    // arena, which in WebAssembly is real memory, not untouched pages.
    return sizeof(Machine) + net_.size() * (state_bytes_per_pe() + cfg_.sram_bytes) + trace_.capacity() * sizeof(TraceEvent);
}

// [SECTION] layout: routes and programs

Fault Machine::set_route(int x, int y, int colour, const Route& r) {
    std::string why = mesh().contains(x, y) ? net_.check_route(idx(x, y), colour, r) : "PE outside the mesh";
    if (!why.empty()) {
        Fault f;
        f.kind = FaultKind::InvalidRoute;
        f.x = x, f.y = y, f.colour = colour;
        f.message = std::move(why);
        return f;
    }
    if (fast_) fast_->forget_paths(colour);   // its recorded paths of this colour may cross this router
    net_.set_route(idx(x, y), colour, r);
    return {};
}

const Program* Machine::program_at(int x, int y) const {
    if (!mesh().contains(x, y)) return nullptr;
    int p = cores_[idx(x, y)].prog;
    return p < 0 ? nullptr : progs_[p].prog.get();
}

Fault Machine::load(std::shared_ptr<const Program> p, Rect r, const std::vector<uint32_t>& consts) {
    Fault f;
    if (fault_) return fault_;
    if (!p || r.w < 1 || r.h < 1 || !mesh().contains(r.x, r.y) || !mesh().contains(r.x + r.w - 1, r.y + r.h - 1)) {
        f.kind = FaultKind::HostError;
        f.message = "load: rectangle outside the mesh (or no program)";
        return f;
    }
    if (consts.size() != p->nconsts) {
        f.kind = FaultKind::HostError;
        f.x = r.x, f.y = r.y;
        f.message = "load: " + p->name + " reads " + std::to_string(int(p->nconsts)) + " per-PE constants; " +
                    std::to_string(consts.size()) + " given";
        return f;
    }
    // One entry per image: PEs that share a program share its entry (and the cache lines of its code),
    // validated and decoded once.
    for (size_t k = 0; k < progs_.size(); ++k)
        if (progs_[k].prog == p) {
            place(int(k), r, consts);
            return f;
        }
    int32_t pc = -1;
    std::string err = validate_program(*p, cfg_.sram_bytes, &pc);
    if (!err.empty()) {
        f.kind = FaultKind::BadProgram;
        f.x = r.x, f.y = r.y;
        if (pc >= 0 && size_t(pc) < p->locs.size()) {
            f.loc = p->locs[pc];
            f.where = p->where(uint32_t(pc));
        }
        f.message = p->name + ": " + err;
        return f;
    }
    LoadedProgram lp;
    lp.prog = p;
    std::fill(std::begin(lp.task_of_colour), std::end(lp.task_of_colour), int8_t(-1));
    std::fill(std::begin(lp.ctrl_task_of_colour), std::end(lp.ctrl_task_of_colour), int8_t(-1));
    for (const TaskBinding& t : p->tasks) {
        if (t.kind == TaskKind::Data) lp.task_of_colour[t.colour] = int8_t(t.id);
        if (t.kind == TaskKind::Control) lp.ctrl_task_of_colour[t.colour] = int8_t(t.id);
        if (t.kind != TaskKind::Local) lp.consumed_colours |= 1u << t.colour;
    }
    for (const Instr& in : p->code)
        if (in.op == Op::RECV || in.op == Op::DFABIN) lp.consumed_colours |= 1u << in.imm;
    lp.fmacs_loops = find_fmacs_loops(*p);
    lp.dot_loops = find_dot_loops(*p);
    lp.map_nests = find_map_nests(*p);
    progs_.push_back(std::move(lp));
    place(int(progs_.size()) - 1, r, consts);
    return f;
}

void Machine::place(int pi, Rect r, const std::vector<uint32_t>& consts) {
    const Program* p = progs_[size_t(pi)].prog.get();
    if (fast_) fast_->forget_paths(*this);   // a recorded path's CEs take its colour: a new program may not
    uint32_t blocked = 0;
    for (const TaskBinding& t : p->tasks)
        if (t.blocked) blocked |= 1u << t.id;
    for (int y = r.y; y < r.y + r.h; ++y)
        for (int x = r.x; x < r.x + r.w; ++x) {
            int i = idx(x, y);
            Core& c = cores_[i];
            c.prog = pi;
            std::fill(std::begin(c.konst), std::end(c.konst), 0u);
            std::copy(consts.begin(), consts.end(), c.konst);
            c.rx = uint16_t(x - r.x), c.ry = uint16_t(y - r.y), c.rw = uint16_t(r.w), c.rh = uint16_t(r.h);
            if (fast_) fast_->forget_nest_map(i);   // its map read the constants and place
            c.tasks_active = 0;
            c.tasks_blocked = blocked;
            uint8_t* mem = sram_at(i);
            for (const InitData& d : p->init) {
                std::memcpy(mem + d.offset, d.konst >= 0 ? &c.konst[d.konst] : d.words.data(), d.words.size() * 4);
                c.sram_used = std::max<uint32_t>(c.sram_used, d.offset + uint32_t(d.words.size() * 4));
            }
        }
}

// [SECTION] host-side memory, launch, inject

uint8_t* Machine::sram(int x, int y) {
    if (!mesh().contains(x, y) || !sram_) return nullptr;
    cores_[size_t(idx(x, y))].sram_used = cfg_.sram_bytes;   // the caller may write anywhere
    return sram_at(idx(x, y));
}
const uint8_t* Machine::sram(int x, int y) const {
    return mesh().contains(x, y) && sram_ ? sram_at(idx(x, y)) : nullptr;
}

Fault Machine::write(int x, int y, uint32_t offset, const void* src, size_t bytes) {
    if (!mesh().contains(x, y) || !sram_) return host_error(x, y, "write: PE outside the mesh");
    if (uint64_t(offset) + bytes > cfg_.sram_bytes) return host_error(x, y, "write: beyond SRAM");
    Core& c = cores_[size_t(idx(x, y))];
    std::memcpy(sram_at(idx(x, y)) + offset, src, bytes);
    c.sram_used = std::max<uint32_t>(c.sram_used, offset + uint32_t(bytes));
    return {};
}

Fault Machine::read(int x, int y, uint32_t offset, void* dst, size_t bytes) const {
    const uint8_t* m = sram(x, y);
    if (!m) return host_error(x, y, "read: PE outside the mesh");
    if (uint64_t(offset) + bytes > cfg_.sram_bytes) return host_error(x, y, "read: beyond SRAM");
    std::memcpy(dst, m + offset, bytes);
    return {};
}

Fault Machine::launch(int x, int y, int fn) {
    if (!mesh().contains(x, y)) return host_error(x, y, "launch: PE outside the mesh");
    int i = idx(x, y);
    Core& c = cores_[i];
    if (c.prog < 0) return host_error(x, y, "launch: no program loaded on this PE");
    const Program& p = *progs_[c.prog].prog;
    if (fn < 0 || size_t(fn) >= p.functions.size() || !p.functions[fn].exported)
        return host_error(x, y, "launch: function is not exported");
    if (c.launch_fn >= 0) return host_error(x, y, "launch: a launch is already pending");
    c.launch_fn = int16_t(fn);
    if (owns(i)) wake_core(i, now_);   // split: every band records it, its own band runs it
    return {};
}

Fault Machine::inject(int x, int y, int port, int colour, uint32_t data, bool ctrl) {
    if (!mesh().contains(x, y)) return host_error(x, y, "inject: PE outside the mesh");
    if (port < 0 || port >= kPorts || colour < 0 || colour >= kColours) return host_error(x, y, "inject: bad port or colour");
    int i = idx(x, y);
    Router& r = net_[size_t(i)];
    r.refresh(now_);
    if (!r.space(port, colour, cfg_.router_queue_depth)) return host_error(x, y, "inject: input queue full");
    if (!net_.accepts(i, port, colour)) {
        Fault f = host_error(x, y, "inject: no route on this colour accepts the port");
        f.kind = FaultKind::NoRoute;
        f.colour = colour;
        return f;
    }
    push_from_outside(i, port, colour, data, ctrl);
    return {};
}

void Machine::push_from_outside(int i, int port, int colour, uint32_t data, bool ctrl) {
    Router& r = net_[size_t(i)];
    r.push(port, colour, data, ctrl);
    r.pushed[port] &= ~(1u << colour);   // from outside the cycle: visible at once
    r.stats.in[port]++;
    if (owns(i)) wake_router(i, now_);
}

Fault Machine::feed(int x, int y, int port, int colour, std::vector<uint32_t> words, double cycles_per_wavelet) {
    if (!mesh().contains(x, y)) return host_error(x, y, "feed: PE outside the mesh");
    if (link_) return host_error(x, y, "feed: edge links are not split across bands (docs/scale.md)");
    if (port < 0 || port >= kRamp || colour < 0 || colour >= kColours) return host_error(x, y, "feed: bad port or colour");
    const int i = idx(x, y);
    if (!net_.off_mesh(i, port)) return host_error(x, y, "feed: the port does not face off the mesh (an edge link enters at the edge)");
    if (!(cycles_per_wavelet >= 1)) return host_error(x, y, "feed: at most one wavelet a cycle");
    if (!net_.accepts(i, port, colour)) {
        Fault f = host_error(x, y, "feed: no route on this colour accepts the port");
        f.kind = FaultKind::NoRoute;
        f.colour = colour;
        return f;
    }
    if (words.empty()) return {};
    net_.feeds().push_back({i, uint8_t(port), uint8_t(colour), std::move(words), 0, now_, cycles_per_wavelet});
    return {};
}

bool Machine::feeding() const { return !net_.feeds().empty(); }

void Machine::feed_phase() {
    std::vector<EdgeFeed>& feeds = net_.feeds();
    for (EdgeFeed& f : feeds) {
        if (f.done() || f.due(f.next) > now_) continue;
        Router& r = net_[size_t(f.pe)];
        r.refresh(now_);
        if (!r.space(f.port, f.colour, cfg_.router_queue_depth)) continue;   // waits for room
        push_from_outside(f.pe, f.port, f.colour, f.words[f.next++], false);
        progress_++;
    }
    feeds.erase(std::remove_if(feeds.begin(), feeds.end(), [](const EdgeFeed& f) { return f.done(); }), feeds.end());
}

const EdgeDrain* Machine::drain_at(int x, int y, int port, int colour) const {
    if (!mesh().contains(x, y)) return nullptr;
    return net_.find_drain(idx(x, y), port, colour);
}

Fault Machine::drain(int x, int y, int port, int colour, double cycles_per_wavelet) {
    if (!mesh().contains(x, y)) return host_error(x, y, "drain: PE outside the mesh");
    if (link_) return host_error(x, y, "drain: edge links are not split across bands (docs/scale.md)");
    if (port < 0 || port >= kRamp || colour < 0 || colour >= kColours) return host_error(x, y, "drain: bad port or colour");
    const int i = idx(x, y);
    if (!net_.off_mesh(i, port)) return host_error(x, y, "drain: the port does not face off the mesh (an edge link leaves at the edge)");
    if (!(cycles_per_wavelet >= 1) || !std::isfinite(cycles_per_wavelet)) return host_error(x, y, "drain: at most one wavelet a cycle");
    if (net_.find_drain(i, port, colour)) return host_error(x, y, "drain: a link is already open on this port and colour");
    EdgeDrain d;
    d.pe = i, d.port = uint8_t(port), d.colour = uint8_t(colour);
    d.cycles_per_wavelet = cycles_per_wavelet;
    d.free = double(now_);
    net_.open_drain(std::move(d));
    return {};
}

std::vector<uint32_t> Machine::take_drained(int x, int y, int port, int colour) {
    EdgeDrain* d = mesh().contains(x, y) ? net_.find_drain(idx(x, y), port, colour) : nullptr;
    std::vector<uint32_t> out;
    if (d) out.swap(d->words);
    return out;
}

Fault Machine::close_drain(int x, int y, int port, int colour) {
    if (!mesh().contains(x, y)) return host_error(x, y, "close_drain: PE outside the mesh");
    const int i = idx(x, y);
    if (!net_.find_drain(i, port, colour)) return host_error(x, y, "close_drain: no edge link is open on this port and colour");
    if (std::string why = net_.close_drain(i, port, colour); !why.empty()) {
        Fault f = host_error(x, y, "close_drain: " + why);
        f.colour = colour;
        return f;
    }
    if (fast_) fast_->forget_paths(*this);   // a recorded path may name the link by its place in drains()
    return {};
}

// [SECTION] the cycle loop

void Machine::wake_router(int i, uint64_t cycle) {
    Router& r = net_[size_t(i)];
    if (r.listed != cycle + 1) {
        r.listed = cycle + 1;
        (cycle == now_ ? rnow_ : rnext_).push(i);
    }
}

void Machine::wake_core(int i, uint64_t cycle) {
    Core& c = cores_[i];
    if (c.listed != cycle + 1) {
        c.listed = cycle + 1;
        (cycle == now_ ? cnow_ : cnext_).push(i);
    }
}

void Machine::add_timer(uint64_t at, int i) {
    timers_.push_back({at, i});
    std::push_heap(timers_.begin(), timers_.end(), std::greater<Timer>());
}

RunResult Machine::run(uint64_t cycles) { return run_loop(cycles, false); }

RunResult Machine::advance(uint64_t max_cycles) { return run_loop(max_cycles, true); }

RunResult Machine::run_until_quiescent(uint64_t budget) {
    RunResult r = advance(budget);
    if (r.status == RunStatus::CyclesDone) {
        r.status = RunStatus::Faulted;
        r.fault = watchdog(budget);
    }
    return r;
}

RunResult Machine::run_apart(size_t groups, const std::function<Fault(size_t)>& launch, uint64_t budget) {
    const auto faulted = [](Fault f) {
        RunResult r;
        r.status = RunStatus::Faulted;
        r.fault = std::move(f);
        return r;
    };
    if (!fast_ || link_ || trace_.on()) {   // together
        for (size_t k = 0; k < groups; ++k)
            if (Fault f = launch(k)) return faulted(f);
        return run_until_quiescent(budget);
    }
    const uint64_t start = now_;
    uint64_t end = start;
    RunResult r;
    for (size_t k = 0; k < groups; ++k) {
        now_ = start;   // no group sees another's cycles: the clock each PE starts from is the same
        if (Fault f = launch(k)) return faulted(f);
        r = run_until_quiescent(budget);
        if (!r.ok()) return r;
        if (!fast_->empty()) {   // name a PE they wait at, if one's queue holds them (else they wait at a router)
            int at = 0;
            while (at < int(cores_.size()) && !fast_->queued_at(at)) ++at;
            if (at == int(cores_.size())) at = 0;
            return faulted(host_error(at % mesh().w, at / mesh().w,
                                      "run_apart: group " + std::to_string(k) + " left wavelets in flight: it exchanges with another group"));
        }
        end = std::max(end, now_);
    }
    now_ = end;
    r.cycles = end - start;
    return r;
}

Fault Machine::watchdog(uint64_t budget) {
    auto st = link_ ? band_stuck(true) : stuck(true);
    Fault f;
    f.kind = FaultKind::Watchdog;
    f.cycle = now_;
    if (!st.empty()) {
        f.x = st[0].x, f.y = st[0].y, f.colour = st[0].colour, f.task = st[0].task;
        place_at_instruction(f, idx(f.x, f.y));
    }
    f.message = "still running (not quiescent) when its budget of " + thousands(budget) + " cycles ran out" + (st.empty() ? "" : ":");
    f.stuck = std::move(st);
    fault_ = f;
    return f;
}

void Machine::cycle_step() {
    while (!timers_.empty() && timers_.front().at <= now_) {
        int pe = timers_.front().pe;
        std::pop_heap(timers_.begin(), timers_.end(), std::greater<Timer>());
        timers_.pop_back();
        wake_core(pe, now_);
    }
    progress_ = 0;
    if (!net_.feeds().empty()) feed_phase();
    rr_colour_ = unsigned(now_ % kColours);
    rr_port_ = unsigned(now_ % kPorts);
    route_phase();                                                     // phase 1: route
    for (size_t k = 0; k < cnow_.size(); ++k) core_step(cnow_[k]);     // phase 2: compute
    rnow_.clear();
    cnow_.clear();
    std::swap(rnow_, rnext_);
    std::swap(cnow_, cnext_);
    ++now_;
}

RunResult Machine::run_loop(uint64_t cycles, bool stop_when_quiet) {
    if (fast_) return run_fast(cycles, stop_when_quiet);
    if (link_) return run_bands(cycles, stop_when_quiet);
    RunResult res;
    const uint64_t start = now_, end = now_ + cycles;
    auto finish = [&](RunStatus s) {
        res.status = fault_ ? RunStatus::Faulted : s;
        res.fault = fault_;
        res.cycles = now_ - start;
        return res;
    };
    if (fault_) return finish(RunStatus::Faulted);
    while (true) {
        if (rnow_.empty() && cnow_.empty()) {
            const uint64_t crossed = net_.next_drain(now_);
            if (timers_.empty() && net_.feeds().empty() && crossed == kNever) {
                // Nothing will ever happen again: done, or deadlocked.
                if (!check_deadlock()) return finish(RunStatus::Faulted);
                if (!stop_when_quiet) now_ = std::max(now_, end);
                return finish(RunStatus::Quiescent);
            }
            uint64_t t = std::min({timers_.empty() ? kNever : timers_.front().at, net_.next_feed(), crossed});
            if (t >= end) {
                now_ = end;
                return finish(RunStatus::CyclesDone);
            }
            if (t > now_) now_ = t;   // idle skip
        }
        if (now_ >= end) return finish(RunStatus::CyclesDone);
        cycle_step();
        if (fault_) return finish(RunStatus::Faulted);
        // no progress, no timer, and no edge link waiting for its next word's time (one that waits for room is stuck too)
        // nor an outbound one that was busy (a wavelet waiting for it goes when it frees)
        if (progress_ == 0 && timers_.empty() && (net_.feeds().empty() || net_.next_feed() < now_) && net_.next_drain(now_) == kNever &&
            !check_deadlock())
            return finish(RunStatus::Faulted);
    }
}

// Fast mode's run: fast_ runs the PEs; the machine hands it what cycle mode's lists and timers
// left waiting, and keeps the books a run ends with (the clock, the deadlock check, the bands' sync).
RunResult Machine::run_fast(uint64_t cycles, bool stop_when_quiet) {
    RunResult res;
    const uint64_t start = now_, end = cycles > kNever - start ? kNever : start + cycles;
    auto finish = [&](RunStatus s) {
        fast_->add_counts(*this);
        if (link_) sync_bands();
        res.status = fault_ ? RunStatus::Faulted : s;
        res.fault = fault_;
        res.cycles = now_ - start;
        return res;
    };
    if (fault_) return finish(RunStatus::Faulted);
    for (ActiveList* l : {&cnow_, &cnext_}) {   // woken by the host (a launch): nothing happens before now
        for (size_t k = 0; k < l->size(); ++k) {
            Core& ce = cores_[size_t((*l)[k])];
            ce.ready_at = std::max(ce.ready_at, now_);
            fast_->schedule((*l)[k], ce.ready_at);
        }
        l->clear();
    }
    for (const Timer& t : timers_) fast_->schedule(t.pe, std::max(now_, std::min(t.at, cores_[size_t(t.pe)].ready_at)));
    timers_.clear();
    std::vector<int> listed;
    for (ActiveList* l : {&rnow_, &rnext_}) {
        for (size_t k = 0; k < l->size(); ++k) {
            listed.push_back((*l)[k]);
            net_[size_t((*l)[k])].listed = 0;
        }
        l->clear();
    }
    fast_->absorb(*this, listed);
    const FastMode::Ended ended = fast_->run(*this, end, lookahead_);
    // Looking ahead, the PEs may be quiet with clocks past the slice: it ends at its end all the same.
    if (ended == FastMode::Ended::Slice || (ended == FastMode::Ended::Quiet && fast_->quiet_at() > end)) {
        now_ = end;
        return finish(RunStatus::CyclesDone);
    }
    if (ended == FastMode::Ended::Fault) {
        now_ = std::max(now_, std::min(fault_.cycle, end));
        return finish(RunStatus::Faulted);
    }
    // Quiescent: the clock is the estimate, whatever the slice.
    now_ = std::max(now_, fast_->quiet_at());
    fast_->add_counts(*this);   // split: a deadlock's report takes every band's rows, counters included
    if (!check_deadlock(fast_->changed())) return finish(RunStatus::Faulted);
    fast_->rest();
    if (!stop_when_quiet) now_ = std::max(now_, end);
    return finish(RunStatus::Quiescent);
}

bool Machine::quiescent() const {
    return rnow_.empty() && cnow_.empty() && timers_.empty() && net_.feeds().empty() && net_.next_drain(now_) == kNever && (!fast_ || fast_->empty()) &&
           stuck(false).empty();
}

// [SECTION] router step

// After a router step: stay listed while anything waits; a freed ramp slot wakes the CE.
__attribute__((always_inline)) inline void Machine::relist(Router& r, int i, uint64_t now, bool ramp_popped) {
    if (r.work && r.listed != now + 2) {
        r.listed = now + 2;
        rnext_.push(i);
    }
    if (ramp_popped) wake_core(i, now + 1);
}

// Phase 1. The fast path is the common case in a stream: one colour waiting, whose current
// position takes one rx port and sends to one mesh port (Router::fast). Everything else,
// and any fault, goes through route_general. The order of list pushes, stats and trace
// events is the same either way. Compiled twice: with and without trace recording.
void Machine::route_phase() {
    router_steps_ += rnow_.size();
    if (trace_.on()) route_phase_t<true>();
    else route_phase_t<false>();
    if (link_) {   // a push into a ghost row listed another band's router: its own machine steps it
        size_t k = 0;
        for (size_t j = 0; j < rnext_.n; ++j)
            if (owns(rnext_.v[j])) rnext_.v[k++] = rnext_.v[j];
        rnext_.n = k;
    }
}

template <bool kTrace>
void Machine::route_phase_t() {
    // Few loop-carried values (pointers, the clock), so the hot loop keeps them in registers.
    const uint64_t now = now_;
    Router* const R = net_.data();
    int* nextp = rnext_.v.data() + rnext_.n;
    for (const int *it = rnow_.v.data(), *const end = it + rnow_.size(); it != end; ++it) {
        const unsigned i = unsigned(*it);   // PE indices are >= 0: no sign extension in the address arithmetic
        Router& r = R[i];
        r.refresh(now);
        const uint32_t work = r.work;
        const int c = __builtin_ctz(work | (1u << (kColours - 1)));   // work == 0 goes the general way below
        const uint32_t f = r.fast[c];
        if (__builtin_expect(!work || (work & (work - 1)) || !(f & Router::kFast), 0)) {   // several colours, or not a simple route
            nextp = route_general_from(int(i), nextp);
            continue;
        }
        const uint32_t bit = 1u << c;
        const unsigned p = f >> 22 & 7;
        PortQueue& Q = *reinterpret_cast<PortQueue*>(reinterpret_cast<char*>(&r.q[0][0]) + (f & 0x7ff));
        if (Q.count <= unsigned((r.pushed[p] & bit) != 0)) {   // waits on a port this position does not take, or arrived this cycle
            if (r.listed != now + 2) {
                r.listed = now + 2;
                *nextp++ = int(i);
            }
            continue;
        }
        const unsigned d = f >> 25 & 3, op = d ^ 1;   // opposite(): N<->S, E<->W
        const unsigned j = i + unsigned(net_.step(d));
        Router& n = R[j];
        n.refresh(now);
        PortQueue& N = *reinterpret_cast<PortQueue*>(reinterpret_cast<char*>(&n.q[0][0]) + (f >> 11 & 0x7ff));
        if (unsigned(N.count) + unsigned((n.popped[op] & bit) != 0) >= unsigned(cfg_.router_queue_depth)) {
            r.stats.stalls++;
            if (r.listed != now + 2) {
                r.listed = now + 2;
                *nextp++ = int(i);
            }
            continue;
        }
        // pop (as Router::pop) and push (as Router::push)
        const uint32_t w = Q.slot[0];
        const unsigned qctrl = Q.ctrl, nc = N.count;
        Q.slot[0] = Q.slot[1];
        N.slot[nc] = w;
        N.count = uint8_t(nc + 1);
        r.popped[p] |= bit;
        n.nonempty[op] |= bit;
        n.work |= bit;
        n.pushed[op] |= bit;
        if (--Q.count == 0) {
            r.nonempty[p] &= ~bit;
            r.work = r.nonempty[0] | r.nonempty[1] | r.nonempty[2] | r.nonempty[3] | r.nonempty[4];
        }
        if (n.listed != now + 2) {
            n.listed = now + 2;
            *nextp++ = int(j);
        }
        r.stats.out[d]++;
        r.stats.out_colour[c]++;
        ++progress_;
        if (r.work && r.listed != now + 2) {
            r.listed = now + 2;
            *nextp++ = int(i);
        }
        // Rare in a stream (and touching no router list): a control wavelet, the CE's ramp slot freed, tracing.
        if (__builtin_expect(qctrl != 0, 0)) {
            Q.ctrl = uint8_t(qctrl >> 1);
            if (qctrl & 1) {
                N.ctrl = uint8_t(N.ctrl | (1u << nc));
                net_.advance_switch(int(i), c);
            }
        }
        if (kTrace) trace_.add({now, uint16_t(i % cfg_.w), uint16_t(i / cfg_.w), TraceKind::Hop, uint8_t(c), uint8_t(p), uint8_t(1u << d), -1, w});
        if (__builtin_expect(p == kRamp, 0)) wake_core(int(i), now + 1);
    }
    rnext_.n = size_t(nextp - rnext_.v.data());
}

// The fast loop's way into route_general: it keeps the next list's end in a local.
__attribute__((noinline)) int* Machine::route_general_from(int i, int* nextp) {
    rnext_.n = size_t(nextp - rnext_.v.data());
    route_general(i);
    return rnext_.v.data() + rnext_.n;
}

// Any number of colours, merging rx ports, multicast tx, delivery to the CE.
__attribute__((noinline)) void Machine::route_general(int i) {
    Router& r = net_[size_t(i)];
    const uint64_t now = now_;
    r.refresh(now);
    const int rqd = cfg_.router_queue_depth;
    const uint32_t work = r.work;
    uint32_t used = 0;         // output links taken this cycle
    bool ramp_popped = false;
    // Round-robin over colours: start at now % 24 so no colour starves another.
    const unsigned s = rr_colour_;
    uint32_t rot = (work & (work - 1)) ? ((work >> s) | (work << (kColours - s))) & 0xFFFFFFu : work;
    const unsigned base = (work & (work - 1)) ? s : 0;
    while (rot) {
        int c = __builtin_ctz(rot) + int(base);
        rot &= rot - 1;
        if (c >= kColours) c -= kColours;
        const SwitchPos sp = r.cur_sw[c];
        uint32_t cand = 0;
        for (uint32_t m = sp.rx; m; m &= m - 1) {
            int p = __builtin_ctz(m);
            if (r.visible(p, c)) cand |= 1u << p;
        }
        if (!cand) continue;
        int p = __builtin_ctz(cand);
        if (cand & (cand - 1)) {   // several ports merge into this colour: rotate priority
            unsigned ps = rr_port_;
            uint32_t pr = ((cand >> ps) | (cand << (kPorts - ps))) & 0x1Fu;
            p = (__builtin_ctz(pr) + int(ps)) % kPorts;
        }
        const uint32_t tx = sp.tx;
        bool ok = !(tx & used);
        for (uint32_t m = tx; m && ok; m &= m - 1) {
            int d = __builtin_ctz(m);
            if (d == kRamp) ok = r.ce_space(c, cfg_.ce_queue_depth);
            else if (const EdgeDrain* e = net_.leaves_by(i, d, c)) ok = e->leave_at(now) == now;   // the link is free
            else {
                Router& n = net_[size_t(net_.neighbour(i, d))];
                n.refresh(now);
                ok = n.space(opposite(Port(d)), c, rqd);
            }
        }
        if (!ok) {
            r.stats.stalls++;
            continue;
        }
        bool ctrl;
        const uint32_t w = r.pop(p, c, &ctrl);
        ramp_popped |= p == kRamp;
        for (uint32_t m = tx; m; m &= m - 1) {
            int d = __builtin_ctz(m);
            r.stats.out[d]++;
            if (d == kRamp) {
                if (!reads(i, c)) {
                    unread(i, c);
                    continue;
                }
                r.ce_push(c, w, ctrl);
                wake_core(i, now + 1);
                if (trace_.on()) trace_.add({now, uint16_t(i % cfg_.w), uint16_t(i / cfg_.w), TraceKind::Deliver, uint8_t(c), 0, 0, -1, w});
            } else if (EdgeDrain* e = net_.leaves_by(i, d, c)) {   // out of the mesh, to the host
                e->leave(now, w, ctrl);
            } else {
                const int j = net_.neighbour(i, unsigned(d)), op = opposite(Port(d));
                Router& n = net_[size_t(j)];
                if (!net_.accepts(j, op, c)) {
                    refuse(j, op, c);
                    continue;
                }
                n.push(op, c, w, ctrl);
                if (n.listed != now + 2) {   // on next cycle's list
                    n.listed = now + 2;
                    rnext_.push(j);
                }
            }
        }
        r.stats.out_colour[c]++;
        used |= tx;
        ++progress_;
        if (ctrl && r.npos[c] > 1) net_.advance_switch(i, c);   // a control wavelet advances this colour's switch
        if (trace_.on()) trace_.add({now, uint16_t(i % cfg_.w), uint16_t(i / cfg_.w), TraceKind::Hop, uint8_t(c), uint8_t(p), uint8_t(tx), -1, w});
    }
    relist(r, i, now, ramp_popped);
}


// [SECTION] stats, checksum (the stuck report: stuck_report.cpp)

int Machine::ce_queued(int x, int y, int colour) const {
    if (!mesh().contains(x, y) || colour < 0 || colour >= kColours) return 0;
    const int i = idx(x, y);
    return net_[size_t(i)].ce_count(colour) + (fast_ ? int(fast_->queued(i, colour)) : 0);
}

bool Machine::ce_any_queued(int x, int y) const {
    if (!mesh().contains(x, y)) return false;
    const int i = idx(x, y);
    if (fast_ && fast_->queued_at(i)) return true;
    for (int c = 0; c < kColours; c++)
        if (net_[size_t(i)].ce_count(c)) return true;
    return false;
}

RouterStats Machine::router_stats(int x, int y) const {
    static constexpr int kDelta[2][4] = {{0, 0, 1, -1}, {-1, 1, 0, 0}};
    RouterStats s = router(x, y).stats;
    for (int p = 0; p < 4; ++p) {   // what arrived on port p is what the neighbour there sent towards us
        int nx = x + kDelta[0][p], ny = y + kDelta[1][p];
        if (mesh().contains(nx, ny)) s.in[p] += router(nx, ny).stats.out[opposite(Port(p))];
    }
    return s;
}

MachineStats Machine::stats() const { return stats(Rect{0, 0, cfg_.w, cfg_.h}); }

MachineStats Machine::stats(const Rect& r) const {
    MachineStats s;
    s.cycles = now_;
    const int x0 = std::max(r.x, 0), y0 = std::max(r.y, 0), x1 = std::min(r.x + r.w, cfg_.w), y1 = std::min(r.y + r.h, cfg_.h);
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            const Router& rt = net_[size_t(idx(x, y))];
            for (int p = 0; p < kPorts; ++p) s.hops += rt.stats.out[p];
            s.router_stalls += rt.stats.stalls;
            const Core& c = cores_[idx(x, y)];
            s.instrs += c.stats.instrs, s.busy += c.stats.busy, s.stall += c.stats.stall, s.tasks += c.stats.tasks;
            s.elems += c.stats.elems, s.sent += c.stats.sent, s.received += c.stats.received;
            s.flops += c.stats.flops, s.sram_bytes += c.stats.sram_bytes;
        }
    s.router_steps = router_steps_;
    s.core_steps = core_steps_;
    return s;
}

uint64_t Machine::checksum() const {
    Fnv1a h;
    if (sram_) h.add(sram_.get(), net_.size() * size_t(cfg_.sram_bytes));
    for (const Router& r : net_.routers()) h.add(&r.stats, sizeof r.stats);
    for (const Core& c : cores_) {
        h.add(c.reg, sizeof c.reg);
        h.add(&c.stats, kHashedCoreStats);
    }
    h.add(&now_, sizeof now_);
    return h.value();
}

}  // namespace wl
