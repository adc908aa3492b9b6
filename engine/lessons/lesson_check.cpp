// lesson_check.cpp: compile, run, compare, explain (lesson_check.h).
#include "engine/lessons/lesson_check.h"

#include "engine/lessons/gpu_check.h"
#include "engine/lessons/forward_check.h"
#include "engine/lessons/train_check.h"

#include "engine/lang/compile.h"
#include "engine/lang/run.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace wl::lessons {

namespace {

std::string num(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return b;
}

template <typename T>
std::string nums(const std::vector<T>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + num(double(v[i]));
    return s;
}

std::string pes_text(int n) { return std::to_string(n) + (n == 1 ? " PE runs" : " PEs run"); }

std::string pe(int x, int y) { return "(" + std::to_string(x) + "," + std::to_string(y) + ")"; }

bool close(double got, double want, double tol) { return std::fabs(got - want) <= tol * std::max(1.0, std::fabs(want)); }

// What a fault of this kind usually means, for someone who just met the fabric.
std::string fault_advice(wl::FaultKind k) {
    switch (k) {
        case wl::FaultKind::Deadlock:
            return "Nothing could move any more: some PE waits for a wavelet that never comes. "
                   "The lines above say who waits for what; compare the counts sent and received, "
                   "and the routes on the way.";
        case wl::FaultKind::OutOfBounds:
            return "A read or write fell outside the PE's " + std::to_string(wl::kSramBytesPerPe / 1024) +
                   " KiB of SRAM: check the index or the length used on that line.";
        case wl::FaultKind::NoRoute:
            return "A wavelet reached a router that has no route for its colour from that side: "
                   "look at the route of that colour at that PE.";
        case wl::FaultKind::NoTask:
            return "A wavelet reached a PE with nothing to take it (no task, recv or fabin for "
                   "its colour): fix the route, or receive the colour there.";
        case wl::FaultKind::Watchdog:
            return "The kernel ran far past its cycle budget without finishing: a loop that never "
                   "ends, or a PE that waits forever on a wavelet.";
        default: return "";
    }
}

// Why `got` differs from `want`, as one clause (the caller says what was expected).
std::string explain(const std::vector<float>& got, const std::vector<double>& want, double tol) {
    if (got.size() != want.size())
        return "it printed " + std::to_string(got.size()) + " values, not " + std::to_string(want.size()) +
               ": is the symbol declared with the right length?";
    const size_t n = want.size();
    size_t first_bad = n;
    for (size_t i = 0; i < n; ++i)
        if (!close(got[i], want[i], tol)) { first_bad = i; break; }
    bool all_zero = true;
    for (float g : got) all_zero = all_zero && g == 0.0f;
    if (all_zero) return "nothing was written (all still 0): did the values arrive, and did the code that stores them run?";
    // The tail still 0 where values were due: the last wavelets never arrived, or a loop stopped short.
    size_t zeros = 0;
    while (zeros < n && got[n - 1 - zeros] == 0.0f && want[n - 1 - zeros] != 0.0) ++zeros;
    bool head_ok = true;
    for (size_t i = 0; i + zeros < n; ++i) head_ok = head_ok && close(got[i], want[i], tol);
    if (zeros > 0 && head_ok)
        return zeros == 1 ? "the last value never arrived or was never written (it is still 0)"
                          : "the last " + std::to_string(zeros) + " values never arrived or were never written (still 0)";
    // One factor or one offset for every value: the arithmetic, not the data flow.
    bool same_ratio = true, same_offset = true;
    const double r = want[first_bad] != 0.0 ? got[first_bad] / want[first_bad] : NAN;
    const double d = got[first_bad] - want[first_bad];
    for (size_t i = 0; i < n; ++i) {
        same_ratio = same_ratio && std::isfinite(r) && close(got[i], want[i] * r, tol);
        same_offset = same_offset && close(got[i], want[i] + d, tol);
    }
    if (same_ratio && n > 1) return "every value is " + num(r) + " times what it should be";
    if (same_offset && n > 1) return "every value is " + num(std::fabs(d)) + (d > 0 ? " more" : " less") + " than it should be";
    return "the first wrong value is number " + std::to_string(first_bad + 1) + ": " + num(got[first_bad]) +
           " instead of " + num(want[first_bad]);
}

}  // namespace

const char* check_kind_name(CheckKind k) {
    switch (k) {
        case CheckKind::Compile: return "compile";
        case CheckKind::Fault: return "fault";
        case CheckKind::Values: return "values";
        case CheckKind::Cycles: return "cycles";
        case CheckKind::Pes: return "pes";
        case CheckKind::Loss: return "loss";
        case CheckKind::Gpu: return "gpu";
    }
    return "?";
}

std::string Verdict::summary() const {
    int failed = 0;
    for (const CheckItem& i : items) failed += !i.ok;
    if (passed && loss >= 0) {
        char b[64];
        std::snprintf(b, sizeof b, "Passed: every check holds (loss %.2f).", loss);
        return b;
    }
    if (passed) return "Passed: every check holds (" + std::to_string(cycles) + " cycles).";
    if (lesson_error) return "The lesson's check cannot run: the error above is the lesson's; your kernel was not judged.";
    return "Not yet: " + std::to_string(failed) + " of " + std::to_string(items.size()) + " checks failed.";
}

std::string grouped(uint64_t n) {
    std::string s = std::to_string(n);
    for (int at = int(s.size()) - 3; at > 0; at -= 3) s.insert(size_t(at), ",");
    return s;
}

uint64_t watchdog_cycles(const CheckSpec& spec) {
    const uint64_t budget = spec.cycle_budget ? spec.cycle_budget : spec.forward.cycles_below;
    return budget ? std::max<uint64_t>(20 * budget, 100'000) : 2'000'000;
}

KernelCheck::~KernelCheck() = default;
KernelCheck::KernelCheck(KernelCheck&&) noexcept = default;
KernelCheck& KernelCheck::operator=(KernelCheck&&) noexcept = default;

bool KernelCheck::done() const { return !train_ || train_->done(); }
int KernelCheck::steps_done() const { return train_ ? train_->steps_done() : 0; }
int KernelCheck::steps() const { return train_ ? train_->steps() : 0; }
float KernelCheck::batch_loss() const { return train_ ? train_->batch_loss() : 0.0f; }
const std::vector<float>& KernelCheck::batch_losses() const {
    static const std::vector<float> none;
    return train_ ? train_->batch_losses() : none;
}
const wl::Machine* KernelCheck::machine() const { return train_ ? train_->machine() : nullptr; }

void KernelCheck::advance() {
    if (done()) return;
    train_->step();
    if (!train_->done()) return;
    train_->finish(&v_);
    v_.passed = v_.ran;
    for (const CheckItem& i : v_.items) v_.passed = v_.passed && i.ok;
}

Verdict check_kernel(const CheckSpec& spec, std::string_view source, std::string_view file) {
    KernelCheck c(spec, source, file);
    while (!c.done()) c.advance();
    return c.verdict();
}

KernelCheck::KernelCheck(const CheckSpec& spec, std::string_view source, std::string_view file) {
    Verdict& v = v_;
    wl::lang::CompileResult cr = wl::lang::compile(source, file);
    wl::lang::require_layout(cr, source);
    if (!cr.ok()) {
        std::string msg = "The kernel does not compile (" + std::to_string(cr.errors) + " error" +
                          (cr.errors == 1 ? "" : "s") + "); the first ones:";
        int shown = 0;
        for (const wl::lang::Diagnostic& d : cr.diagnostics)
            if (d.severity == wl::lang::Severity::Error && shown++ < 5) msg += "\n  " + wl::lang::format_diagnostic(d);
        v.items.push_back({CheckKind::Compile, false, msg});
        return;
    }
    v.compiled = true;
    if (spec.trains()) {   // a model kernel: no host block to run; the training is the run
        train_ = std::make_unique<TrainingCheck>(spec, source);
        if (train_->done()) {   // the model could not be built or planned: nothing to step
            train_->finish(&v);
            v.passed = false;
        }
        return;
    }
    if (spec.forwards()) {   // a model kernel too: one forward of the GPT is the run
        check_forward(spec, source, &v);
        v.passed = v.ran;
        for (const CheckItem& i : v.items) v.passed = v.passed && i.ok;
        return;
    }
    wl::lang::RunOptions opt;
    opt.mode = wl::RunMode::Cycle;
    opt.cycle_budget = watchdog_cycles(spec);
    const wl::lang::RunReport rep = wl::lang::run_kernel(cr, opt);
    v.cycles = rep.cycles;
    v.pes = rep.pes_loaded;
    v.ran = rep.ok;
    if (!rep.ok) {
        std::string msg = "The run stopped with a fault: " + rep.error;
        if (const std::string advice = fault_advice(rep.fault.kind); !advice.empty()) msg += "\n" + advice;
        v.items.push_back({CheckKind::Fault, false, msg});
    }
    for (const ExpectLine& e : spec.expects) {
        const std::string what = e.symbol + " @ " + pe(e.x, e.y);
        CheckItem item{CheckKind::Values, false, ""};
        auto it = rep.values.find(value_key(e.symbol, e.x, e.y));
        if (it == rep.values.end()) {
            item.message = what + " was never printed" +
                           (rep.ok ? ": the host block must print it (print " + e.symbol + " at " + pe(e.x, e.y) + ";)"
                                   : ", because the run stopped first");
        } else {
            bool ok = it->second.size() == e.values.size();
            for (size_t i = 0; ok && i < e.values.size(); ++i) ok = close(it->second[i], e.values[i], spec.tolerance);
            item.ok = ok;
            if (ok) item.message = what + " is " + nums(e.values);
            else {
                item.message = what + " should be " + nums(e.values) + "; you got " + nums(it->second) + " — " +
                               explain(it->second, e.values, spec.tolerance);
                if (!e.when_wrong.empty()) item.message += "; " + e.when_wrong;
            }
        }
        v.items.push_back(std::move(item));
    }
    if (spec.cycle_budget) {
        const bool ok = rep.ok && rep.cycles <= spec.cycle_budget;
        std::string msg;
        if (!rep.ok) msg = "The cycle budget is " + std::to_string(spec.cycle_budget) + "; it counts once the run ends cleanly.";
        else if (ok) msg = std::to_string(rep.cycles) + " cycles, within the budget of " + std::to_string(spec.cycle_budget) + ".";
        else
            msg = std::to_string(rep.cycles) + " cycles: over the budget of " + std::to_string(spec.cycle_budget) + " by " +
                  std::to_string(rep.cycles - spec.cycle_budget) + ". The text explains where the cycles go.";
        v.items.push_back({CheckKind::Cycles, ok, msg});
    }
    if (spec.pes) {
        const bool ok = rep.pes_loaded == spec.pes;
        v.items.push_back({CheckKind::Pes, ok,
                           ok ? pes_text(spec.pes) + " a program, as asked."
                              : pes_text(rep.pes_loaded) + " a program; this lesson wants " + std::to_string(spec.pes) + "."});
    }
    if (!spec.faster_than_gpu.empty()) v.items.push_back(check_gpu(spec, cr, rep, &v));
    v.passed = v.ran;
    for (const CheckItem& i : v.items) v.passed = v.passed && i.ok;
}

void lesson_fault(Verdict* v, int line, const std::string& why) {
    v->lesson_error = true;
    v->items.push_back({CheckKind::Fault, false,
                        "check.txt:" + std::to_string(line) + ": the lesson's model fails whatever the kernel (its own solution too), so this is "
                        "the lesson's error, not yours: " + why});
}

nlohmann::json verdict_json(const Verdict& v) {
    nlohmann::json checks = nlohmann::json::array();
    for (const CheckItem& i : v.items) checks.push_back({{"kind", check_kind_name(i.kind)}, {"ok", i.ok}, {"message", i.message}});
    nlohmann::json j = {{"passed", v.passed}, {"cycles", v.cycles}, {"pes", v.pes}, {"summary", v.summary()}, {"checks", checks},
                        {"lesson_error", v.lesson_error}};
    if (v.loss >= 0) j["loss"] = v.loss, j["loss_start"] = v.loss_start;
    if (v.gpu_s > 0) j["wafer_s"] = v.wafer_s, j["gpu_s"] = v.gpu_s;
    return j;
}

}  // namespace wl::lessons
