// check_bounds.cpp: array indices that the compiler can see are out of range, once per placed
// instance (lengths and loop bounds may depend on its parameters): an index made of constants
// and the counters of enclosing 'for' loops with constant bounds, by + and - and by a constant
// factor, whose smallest or largest value falls outside the array. Only an access that runs on
// every pass is judged (none under an if or a while, none in a loop that can break, continue or
// return, none whose counter the body assigns), in code that runs (what the host block launches,
// the tasks, and what they call), so each warning is an access the run will make. An index of
// constants alone is an error, judged wherever it runs (under an if too: whenever it runs, it
// overruns): a PE does not check an index, so the run would use another variable's bytes and succeed.
//
//   var y: [f32; 4];
//   for i in 0..5 { y[i] = 0.0; }   // warning: the index reaches 4 (i runs from 0 to 4); 'y' has 4 elements, 0 to 3, ...
//   y[4] = 0.0;                     // error: index out of range: the index is 4; 'y' has 4 elements, 0 to 3, ...
//
// A mem() window whose start, length and stride are known the same way and reach past its array is
// reported too: a vector op does not fault there, it runs on into the next variable. A window of
// constants is an error, judged wherever it runs (under an if too: whenever it runs, it overruns);
// one that a loop's counter moves is a warning, as an index is.
//
//   fadds(mem(y, 2, 4), mem(y), mem(x));   // error: mem() window out of range: it reaches y[5] ...
//
// A mem() stride the DSD cannot hold (16 bits: Dsd::stride) is an error at the stride, in all
// code compiled for the instance, run or not: the code generator emits every function and task,
// and the loader refuses the whole program at its dmem before any PE runs.
//
//   fmovs(mem(r), mem(a, 0, 1, 40000));    // error: mem() stride 40000 is out of range: a DSD holds a stride of -32768 to 32767 ...
#include "engine/lang/checker.h"

#include "engine/fabric/dsd.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace wl::lang::detail {

namespace {

struct Counter {
    const Sym* sym;
    int64_t lo, hi;   // every value it takes, hi included
};

struct Interval {
    int64_t lo, hi;
};

// What dmem encodes; outside it the program is refused as it loads (engine/fabric/program.cpp).
constexpr int64_t kStrideMin = std::numeric_limits<decltype(wl::Dsd::stride)>::min();
constexpr int64_t kStrideMax = std::numeric_limits<decltype(wl::Dsd::stride)>::max();

// A mem() call's constant stride for this instance, when it has one.
std::optional<int64_t> constant_stride(const Expr& e, Instance& in) {
    if (e.kind != ExprKind::Call || e.builtin != Builtin::Mem || e.args.size() != 4 || !e.args[3]->konst || e.args[3]->type == Ty::Error)
        return std::nullopt;
    const Value v = eval_const(*e.args[3], &in, in.first_x, in.first_y, nullptr);
    if (v.ty == Ty::I32) return v.i;
    if (v.ty == Ty::U32) return int64_t(uint32_t(v.i));
    return std::nullopt;
}

bool stride_fits(const Expr& e, Instance& in) {
    const std::optional<int64_t> st = constant_stride(e, in);
    return !st || (*st >= kStrideMin && *st <= kStrideMax);
}

// Every mem() stride in the code compiled for one instance (not a branch that a compile-time if
// leaves dead: the code generator skips it too).
struct Strides {
    Instance& in;
    Diagnostics& d;
    std::set<std::pair<int, int>>& seen;
    const std::string& at;

    void expr(const Expr& e) {
        for (const ExprPtr& a : e.args) expr(*a);
        if (stride_fits(e, in)) return;
        const Expr& s = *e.args[3];
        if (!seen.insert({s.line, s.col}).second) return;
        d.error(s.line, s.col, "mem() stride " + std::to_string(*constant_stride(e, in)) + at + " is out of range: a DSD holds a stride of " +
                                   std::to_string(kStrideMin) + " to " + std::to_string(kStrideMax) + ", so the program would not load");
    }

    void block(const std::vector<StmtPtr>& b) {
        for (const StmtPtr& s : b) {
            for (const Expr* e : {s->e0.get(), s->e1.get(), s->target.get()})
                if (e) expr(*e);
            const Value c = s->kind == StmtKind::If && s->e0->konst ? eval_const(*s->e0, &in, in.first_x, in.first_y, nullptr) : Value{};
            if (c.ty != Ty::Bool || c.i) block(s->body);
            if (c.ty != Ty::Bool || !c.i) block(s->else_body);
        }
    }
};

// A break, continue or return anywhere in the body: the loop may not run every pass to its end.
bool may_leave(const std::vector<StmtPtr>& body) {
    for (const StmtPtr& s : body) {
        if (s->kind == StmtKind::Break || s->kind == StmtKind::Continue || s->kind == StmtKind::Return) return true;
        if (may_leave(s->body) || may_leave(s->else_body)) return true;
    }
    return false;
}

// Whether the body assigns `v` (then the counter's values are not the range's).
bool assigns(const std::vector<StmtPtr>& body, const Sym* v) {
    for (const StmtPtr& s : body) {
        if (s->kind == StmtKind::Assign && s->target && s->target->kind == ExprKind::Name && s->target->sym == v) return true;
        if (assigns(s->body, v) || assigns(s->else_body, v)) return true;
    }
    return false;
}

class Bounds {
public:
    Bounds(Instance& in, Diagnostics& d, std::set<std::pair<int, int>>& seen, std::string at) : in_(in), d_(d), seen_(seen), at_(std::move(at)) {}

    void block(const std::vector<StmtPtr>& b) {
        for (const StmtPtr& s : b) stmt(*s);
    }

    // A program-level dsd's constructor (dsd xs = mem(A, 0, NB);).
    void dsd(const Expr& init) { expr(init); }

private:
    Instance& in_;
    Diagnostics& d_;
    std::set<std::pair<int, int>>& seen_;   // one report per place, however many instances
    std::string at_;                        // " at PE (x,y)" for a program with parameters
    std::vector<Counter> counters_;
    int guarded_ = 0;                       // ifs and whiles around the statement: it may not run

    void stmt(const Stmt& s) {
        switch (s.kind) {
        case StmtKind::Let:
        case StmtKind::Return:
        case StmtKind::ExprStmt:
            if (s.e0) expr(*s.e0);
            return;
        case StmtKind::Assign:
            if (s.target) expr(*s.target);
            if (s.e0) expr(*s.e0);
            return;
        case StmtKind::If: {
            expr(*s.e0);   // the condition runs whichever branch follows
            // A condition of constants leaves one branch dead for this instance: nothing there runs.
            const Value c = s.e0->konst ? eval_const(*s.e0, &in_, in_.first_x, in_.first_y, nullptr) : Value{};
            ++guarded_;
            if (c.ty != Ty::Bool || c.i) block(s.body);
            if (c.ty != Ty::Bool || !c.i) block(s.else_body);
            --guarded_;
            return;
        }
        case StmtKind::While:
            ++guarded_;
            expr(*s.e0);
            block(s.body);
            --guarded_;
            return;
        case StmtKind::For: {
            expr(*s.e0);
            expr(*s.e1);
            const Value a = s.e0->konst ? eval_const(*s.e0, &in_, in_.first_x, in_.first_y, nullptr) : Value{};
            const Value b = s.e1->konst ? eval_const(*s.e1, &in_, in_.first_x, in_.first_y, nullptr) : Value{};
            const bool counted = s.sym && a.ty == Ty::I32 && b.ty == Ty::I32 && a.i < b.i && !may_leave(s.body) && !assigns(s.body, s.sym);
            if (counted) counters_.push_back({s.sym, a.i, b.i - 1});
            else ++guarded_;   // not judged: its body may run for other values, or not at all
            block(s.body);
            if (counted) counters_.pop_back();
            else --guarded_;
            return;
        }
        case StmtKind::Block: block(s.body); return;
        case StmtKind::Break:
        case StmtKind::Continue: return;
        }
    }

    void expr(const Expr& e) {
        for (const ExprPtr& a : e.args) expr(*a);
        if (e.kind == ExprKind::Call && e.builtin == Builtin::Mem) return window(e);
        if (e.kind != ExprKind::Index || !e.sym || e.args.empty()) return;
        const auto len = in_.length.find(e.sym);
        if (len == in_.length.end()) return;
        const std::optional<Interval> r = range(*e.args[0]);
        if (!r) return;
        const bool constant = r->lo == r->hi && !counted(*e.args[0]);
        if (guarded_ > 0 && !constant) return;   // a counter's values are the loop's only where every pass runs
        if (r->lo >= 0 && r->hi < int64_t(len->second)) return;
        if (!seen_.insert({e.line, e.col}).second) return;
        const bool high = r->hi >= int64_t(len->second);
        if (constant) {
            d_.error(e.line, e.col, "index out of range: the index is " + std::to_string(r->lo) + "; " + q(e.name) + " has " + elements(len->second) +
                                        at_ + ", and a PE does not check an index: the access would use the memory " + (high ? "after" : "before") + " it");
            return;
        }
        std::string msg = "index out of range: the index " + (high ? "reaches " + std::to_string(r->hi) : "goes down to " + std::to_string(r->lo));
        std::string loops;
        for (const Counter& c : counters_)
            if (mentions(*e.args[0], c.sym))
                loops += std::string(loops.empty() ? "" : ", ") + shown(c.sym->name) + " runs from " + std::to_string(c.lo) + " to " + std::to_string(c.hi);
        if (!loops.empty()) msg += " (" + loops + ")";
        msg += "; " + q(e.name) + " has " + elements(len->second) + at_ + ", so the access reaches past it";
        // A loop's index is a warning: a kernel may mean its last passes to fault (the tests of
        // run-time faults do), and the run still says where it went wrong. At the array's name: a
        // binary index's own place is its operator.
        d_.warning(e.line, e.col, msg);
    }

    // mem(a, start, len[, stride]): the elements from a[start] to a[start + (len - 1) * stride].
    void window(const Expr& e) {
        if (e.args.size() < 3 || !e.args[0]->sym) return;
        const auto len = in_.length.find(e.args[0]->sym);
        if (len == in_.length.end()) return;
        const std::optional<Interval> start = range(*e.args[1]), n = range(*e.args[2]);
        const std::optional<Interval> stride = e.args.size() > 3 ? range(*e.args[3]) : Interval{1, 1};
        if (n && n->lo == n->hi && n->lo <= 0 && seen_.insert({e.args[2]->line, e.args[2]->col}).second) {   // a length is a count: a vector op's is at least 1
            d_.error(e.args[2]->line, e.args[2]->col, "mem() length " + std::to_string(n->lo) + ": a window is at least 1 element long");
            return;
        }
        if (!stride_fits(e, in_)) return;   // its stride's error is said (Strides)
        if (!start || !n || !stride || n->lo != n->hi || stride->lo != stride->hi || n->lo <= 0) return;
        const bool constant = start->lo == start->hi && !counted(*e.args[1]);
        if (guarded_ > 0 && !constant) return;   // a counter's values are the loop's only where every pass runs
        const int64_t span = (n->lo - 1) * stride->lo;   // from the first element to the last
        const int64_t lo = start->lo + std::min<int64_t>(span, 0), hi = start->hi + std::max<int64_t>(span, 0);
        const int64_t size = int64_t(len->second);
        if (lo >= 0 && hi < size) return;
        if (!seen_.insert({e.line, e.col}).second) return;
        const std::string& a = e.args[0]->name;
        const bool high = hi >= size;
        std::string from = start->lo == start->hi ? std::to_string(start->lo) : "from " + std::to_string(start->lo) + " to " + std::to_string(start->hi);
        for (const Counter& c : counters_)
            if (mentions(*e.args[1], c.sym)) from += ", " + shown(c.sym->name) + " runs from " + std::to_string(c.lo) + " to " + std::to_string(c.hi);
        const std::string msg = "mem() window out of range: it reaches " + shown(a) + "[" + std::to_string(high ? hi : lo) + "] (start " + from +
                                "; length " + std::to_string(n->lo) + ", stride " + std::to_string(stride->lo) + "); " + q(a) + " has " +
                                elements(size) + at_ +
                                ", and a vector op does not stop there: it would run into the memory " + (high ? "after" : "before") + " it";
        // A loop's window is a warning, as an index is: a kernel may mean its last passes to fault
        // (the tests of run-time faults do: past SRAM the run names the place).
        if (constant) d_.error(e.line, e.col, msg);
        else d_.warning(e.line, e.col, msg);
    }

    // "4 elements, 0 to 3"
    static std::string elements(int64_t n) { return std::to_string(n) + " element" + (n == 1 ? "" : "s") + ", 0 to " + std::to_string(n - 1); }

    bool counted(const Expr& e) const {
        return std::any_of(counters_.begin(), counters_.end(), [&](const Counter& c) { return mentions(e, c.sym); });
    }

    static bool mentions(const Expr& e, const Sym* s) {
        if (e.kind == ExprKind::Name && e.sym == s) return true;
        return std::any_of(e.args.begin(), e.args.end(), [&](const ExprPtr& a) { return mentions(*a, s); });
    }

    // Every value the index takes over the passes, when it is that simple to know.
    std::optional<Interval> range(const Expr& e) {
        if (e.kind == ExprKind::Name)
            for (const Counter& c : counters_)
                if (c.sym == e.sym) return Interval{c.lo, c.hi};
        if (e.konst) {
            const Value v = eval_const(e, &in_, in_.first_x, in_.first_y, nullptr);
            if (v.ty == Ty::I32) return Interval{v.i, v.i};
            if (v.ty == Ty::U32) return Interval{int64_t(uint32_t(v.i)), int64_t(uint32_t(v.i))};
            return std::nullopt;
        }
        if (e.kind != ExprKind::Binary || e.args.size() != 2) return std::nullopt;
        const std::optional<Interval> a = range(*e.args[0]), b = range(*e.args[1]);
        if (!a || !b) return std::nullopt;
        switch (e.op) {
        case Tok::Plus: return Interval{a->lo + b->lo, a->hi + b->hi};
        case Tok::Minus: return Interval{a->lo - b->hi, a->hi - b->lo};
        case Tok::Star:   // a counter times a constant (or constants): the extremes are at the ends
            if (a->lo != a->hi && b->lo != b->hi) return std::nullopt;
            {
                const int64_t p[] = {a->lo * b->lo, a->lo * b->hi, a->hi * b->lo, a->hi * b->hi};
                return Interval{*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
            }
        default: return std::nullopt;
        }
    }
};

}  // namespace

namespace {

// The functions a call in `e` reaches, into `out`.
void calls(const Expr& e, std::set<const Decl*>& out) {
    if (e.kind == ExprKind::Call && e.sym && e.sym->kind == SymKind::Fn && e.sym->decl) out.insert(e.sym->decl);
    for (const ExprPtr& a : e.args) calls(*a, out);
}

void calls(const std::vector<StmtPtr>& body, std::set<const Decl*>& out) {
    for (const StmtPtr& s : body) {
        for (const Expr* e : {s->e0.get(), s->e1.get(), s->target.get()})
            if (e) calls(*e, out);
        calls(s->body, out);
        calls(s->else_body, out);
    }
}

}  // namespace

void Checker::bounds_checks(Instance& in) {
    // A file without a host block is a model kernel, whose entry points the model compiler picks
    // per configuration: its other code is compiled with arrays cut to one element, and never runs.
    // Its strides are the configuration's too (TP, the context): one past 16 bits comes with
    // arrays past a PE's SRAM, which the planner names with what would fit.
    if (!f_.has_host) return;
    ProgramDecl& p = f_.programs[size_t(in.program)];
    const std::string at = p.params.empty() ? "" : " at " + pe_str(in.first_x, in.first_y);
    Strides strides{in, d_, bounds_seen_, at};   // all code: the loader refuses the program whole
    for (const Decl& d : p.decls) {
        if (d.kind == DeclKind::Dsd && d.init) strides.expr(*d.init);
        strides.block(d.body);
    }
    // Only code that runs: the functions the host block launches, the tasks, and what they call.
    std::set<const Decl*> runs;
    for (const Decl& d : p.decls) {
        const bool launched = std::any_of(f_.host.begin(), f_.host.end(),
                                          [&](const HostStmt& h) { return h.kind == HostKind::Launch && h.name == d.name; });
        if (d.kind == DeclKind::Task || (d.kind == DeclKind::Fn && launched)) runs.insert(&d);
    }
    for (size_t before = 0; before != runs.size();) {   // what they call, to a fixed point
        before = runs.size();
        for (const Decl* d : std::set<const Decl*>(runs)) calls(d->body, runs);
    }
    Bounds b(in, d_, bounds_seen_, at);
    for (const Decl& d : p.decls)
        if (runs.count(&d)) b.block(d.body);
        else if (d.kind == DeclKind::Dsd && d.init) b.dsd(*d.init);
}

}  // namespace wl::lang::detail
