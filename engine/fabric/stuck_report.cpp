// stuck_report.cpp: who holds pending work when a run cannot go on (Machine::stuck), in words
// a student can read with the machine's word beside them, and the deadlock fault it makes.
// Both run modes call it: cycle mode after a cycle without progress, fast mode at quiescence.
#include "engine/fabric/machine.h"

#include "engine/fabric/fast_mode.h"
#include "engine/fabric/pe_status.h"

#include <cstdio>
#include <string>

namespace wl {

// A cycle without progress and without timers repeats forever: report who is stuck.
// A Deadlock or Watchdog fault names the kernel line the PE's CE is at; an idle CE
// whose wavelets wait for a data task names that task.
void Machine::place_at_instruction(Fault& f, int pe) const {
    const Core& c = cores_[pe];
    if (c.prog < 0) return;
    const Program& p = *progs_[c.prog].prog;
    uint32_t pc = c.state == ThreadState::Vec ? c.vop.pc : c.pc;
    if (c.state == ThreadState::Idle) {
        const int t = f.colour >= 0 ? progs_[c.prog].task_of_colour[f.colour] : -1;
        auto b = std::find_if(p.tasks.begin(), p.tasks.end(), [&](const TaskBinding& tb) { return tb.id == t; });
        if (t < 0 || b == p.tasks.end() || b->function >= p.functions.size()) return;
        pc = p.functions[b->function].entry;
    }
    if (pc < p.locs.size()) f.loc = p.locs[pc], f.where = p.where(pc);
}

bool Machine::check_deadlock(const std::vector<int>* pes) {
    if (link_) return band_deadlock();
    auto st = stuck(false, pes);
    if (!st.empty() && pes) st = stuck(false);   // the report lists every place, in the mesh's order
    if (st.empty()) {
        rnow_.clear();
        cnow_.clear();
        return true;
    }
    fault_ = deadlock_fault(std::move(st));
    return false;
}

Fault Machine::deadlock_fault(std::vector<Stuck> st) const {
    Fault f;
    f.kind = FaultKind::Deadlock;
    f.cycle = now_;
    f.x = st[0].x, f.y = st[0].y, f.colour = st[0].colour, f.task = st[0].task;
    place_at_instruction(f, idx(f.x, f.y));
    // The kind, PE and cycle head the fault's text (Fault::to_string) and the places follow it: say neither again.
    const bool capped = st.size() >= cfg_.max_stuck_reported;
    f.message = "nothing can move any more, yet " + std::to_string(st.size()) + (capped ? " or more" : "") +
                (st.size() == 1 ? " place still waits:" : " places still wait:");
    f.stuck = std::move(st);
    return f;
}

static const char* op_name(const Program& p, uint32_t pc) {
    return pc < p.code.size() ? op_info(p.code[pc].op).mnemonic : "?";
}

// Each place in words a student can read, the machine's word beside ("(port W)", "(instruction recv)").
// The words are said here once, for both run modes; the fields say the same for tests.
static std::string wavelets_wait(size_t n, const std::string& from = {}) {   // "2 wavelets from the west (port W) wait"
    return std::to_string(n) + (n == 1 ? " wavelet" : " wavelets") + from + (n == 1 ? " waits" : " wait");
}

static std::string ports_words(uint8_t mask) {
    std::string s;
    for (int p = 0; p < kPorts; ++p)
        if (mask >> p & 1) s += (s.empty() ? "" : " and ") + port_words(p);
    return s;
}

std::vector<Stuck> Machine::stuck(bool include_running, const std::vector<int>* pes) const {
    std::vector<Stuck> out;
    auto add = [&](StuckKind kind, int i, int colour, int task, std::string what, int port = -1, uint32_t count = 0,
                   std::string where = {}) {
        if (out.size() >= cfg_.max_stuck_reported) return;
        Stuck s;
        s.kind = kind, s.x = i % cfg_.w, s.y = i / cfg_.w, s.colour = colour, s.task = task, s.port = port, s.count = count;
        s.where = std::move(where);
        char head[48];
        std::snprintf(head, sizeof head, "PE (%d,%d): ", s.x, s.y);
        s.what = head + what;
        out.push_back(std::move(s));
    };
    // Every PE, or this band's own (band.h: the other rows here are not the live ones).
    const int first = pes ? 0 : own0_, n = pes ? int(pes->size()) : own1_;
    for (int k = first; k < n && out.size() < cfg_.max_stuck_reported; ++k) {
        const int i = pes ? (*pes)[size_t(k)] : k;
        const Router& r = net_[size_t(i)];
        const Core& ce = cores_[i];
        const Program* prog = ce.prog >= 0 ? progs_[ce.prog].prog.get() : nullptr;
        const uint32_t pc = ce.state == ThreadState::Vec ? ce.vop.pc : ce.pc;
        // Built only for a PE that is reported: this scan runs after every run.
        auto where = [&](uint32_t q) { return prog ? prog->where(q) : std::string(); };
        auto at = [&](uint32_t q) {   // " at k.wk:4:9 (instruction recv)"
            return prog ? " at " + prog->where(q) + " (instruction " + op_name(*prog, q) + ")" : std::string();
        };
        // Wavelets waiting: in cycle mode's queues, or fast mode's (held at a router, queued at the CE).
        const bool held = fast_ && fast_->holds_any();
        auto port_count = [&](int p, int c) { return size_t(r.count(p, c)) + (held ? fast_->held(i, p, c) : 0); };
        auto ce_count = [&](int c) { return size_t(r.ce_count(c)) + (fast_ ? fast_->queued(i, c) : 0); };
        for (int p = 0; p < kPorts && (r.work || held); ++p)   // most PEs hold nothing: skip them fast
            for (int c = 0; c < kColours; ++c)
                if (const size_t n = port_count(p, c)) {
                    SwitchPos sp = r.cur_sw[c];
                    std::string why = !(sp.rx >> p & 1) ? "the colour's route now (switch position " + std::to_string(r.cur[c]) +
                                                              ") takes none from there"
                                                        : "no room further on, to " + ports_words(sp.tx);
                    add(StuckKind::RouterPort, i, c, ce.task,
                        "colour " + std::to_string(c) + ": " + wavelets_wait(n, " from " + port_words(p)) + " in its router; " + why, p,
                        uint32_t(n));
                }
        for (int c = 0; c < kColours && (r.nonempty[kCeQ] || (fast_ && fast_->queued_at(i))); ++c)
            if (const size_t n = ce_count(c)) {
                std::string why = "no task takes this colour";
                if (prog) {
                    const LoadedProgram& lp = progs_[ce.prog];
                    int t = lp.task_of_colour[c];
                    if (t >= 0 && (ce.tasks_blocked >> t & 1)) why = "task " + std::to_string(t) + ", which takes this colour, is blocked";
                    else if (t >= 0 && ce.state != ThreadState::Idle) why = "the CE is busy with " + thread_name(prog, ce);
                }
                add(StuckKind::CeQueue, i, c, ce.task, "colour " + std::to_string(c) + ": " + wavelets_wait(n) + " at the CE, and " + why, -1,
                    uint32_t(n));
            }
        if (ce.state == ThreadState::Stalled)
            add(StuckKind::Stalled, i, ce.wait_colour, ce.task, thread_name(prog, ce) + at(pc) + " " + stall_text(ce), -1, 0, where(pc));
        auto vec_what = [&](const VecOp& v) {   // the colour, and " waits for ...: 4 of 8 done"
            const bool in = v.a.kind == DsdKind::FabIn || v.b.kind == DsdKind::FabIn;
            const int col = v.a.kind == DsdKind::FabIn ? v.a.colour : v.b.kind == DsdKind::FabIn ? v.b.colour : v.dst.colour;
            return std::pair<int, std::string>(col, (in ? " waits for wavelets on colour " + std::to_string(col)
                                                        : " waits for room to send on colour " + std::to_string(col) + " (ramp full)") +
                                                        ": " + std::to_string(v.i) + " of " + std::to_string(v.n) + " done");
        };
        if (ce.state == ThreadState::Vec) {
            auto [col, w] = vec_what(ce.vop);
            add(StuckKind::VectorOp, i, col, ce.task, thread_name(prog, ce) + at(pc) + w, -1, ce.vop.i, where(pc));
        }
        for (int k = 0; k < kMicrothreads; ++k)
            if ((ce.ut_busy >> k & 1) && !ce.ut[k].done_at) {
                auto [col, w] = vec_what(ce.ut[k]);
                add(StuckKind::Microthread, i, col, ce.task, "microthread " + std::to_string(k) + " started" + at(ce.ut[k].pc) + w, -1,
                    ce.ut[k].i, where(ce.ut[k].pc));
            }
        if (include_running && ce.state == ThreadState::Run)
            add(StuckKind::Running, i, -1, ce.task, thread_name(prog, ce) + " runs" + at(pc), -1, 0, where(pc));
        if (include_running && ce.launch_fn >= 0)
            add(StuckKind::LaunchPending, i, -1, -1,
                "the host's launch of " +
                    (prog && size_t(ce.launch_fn) < prog->functions.size() ? prog->functions[size_t(ce.launch_fn)].name : std::string("?")) +
                    " has not started yet (launch pending)");
    }
    return out;
}

}  // namespace wl
