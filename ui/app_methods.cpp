// app_methods.cpp: every scripting method, once. window.waferlab (web/waferlab-api.js), the
// postMessage API for embeds and the tests all reach the app through this table: the page asks
// for it (wl_js_methods) and builds its JS methods from the rows; App::call dispatches by it.
// The Model window's rows live beside its code (ModelWindow::methods) and join the table here.
//   [SECTION] argument helpers
//   [SECTION] the table: view, editor, run, PE, compare, help
//   [SECTION] the table: files and saved state
//   [SECTION] the table: share links (app_share.cpp)
//   [SECTION] the table: lessons
//   [SECTION] the table: the Model window (rows from ui/model_window.cpp)
//   [SECTION] dispatch
//
// `params` says how a JS call's positional arguments become the JSON object C++ receives.
// Words separated by spaces, one per argument:
//   x            the argument goes in as {x: value} (left out when undefined)
//   open=true    the same, with a JSON default when the argument is undefined
//   [file]       a leading optional argument: dropped when the call passes fewer arguments than there are words
//   ...options   an object whose fields are merged into the arguments
//   {settings}   the argument is the whole JSON object (default {})
// No words: C++ receives null. So select_pe(1, 2) sends {x: 1, y: 2}; set_source('t') sends {text: 't'}.
#include "ui/app.h"

#include "engine/core/output_guard.h"
#include "engine/gpu/compare.h"
#include "ui/json_args.h"
#include "ui/memory_use.h"
#include "ui/pe_report.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unordered_map>

namespace wlui {

using nlohmann::json;

// [SECTION] argument helpers

using wl::NumberRange;
static NumberRange upto(int n) { return NumberRange::closed(0, n - 1); }   // an index below n

// What the process holds, for `make soak`'s leak check: malloc's bytes in use, and on the web the
// WebAssembly memory (which grows and never shrinks: a high-water mark) and its ceiling.
static json memory_json() {
    const MemoryUse m = memory_use();
    return {{"malloc_in_use", m.malloc_in_use}, {"wasm_memory", m.wasm_memory ? json(m.wasm_memory) : json(nullptr)},
            {"in_use", m.in_use}, {"ceiling", m.ceiling}};
}

const std::vector<App::Method>& App::methods() {
    using M = App::Method;
    static const std::vector<M> table = [] {
    std::vector<M> t = {
        // [SECTION] the table: view, editor, run, PE, compare, help
        {"state", "", M::kReads, [](App& a, const json&) { return a.state(); }},
        {"set_mesh", "w h", 0, [](App& a, const json& x) {   // an empty mesh: a loaded kernel's machine has its layout's size, so it goes
             const int w = int(int_arg(x, "w", NumberRange::closed(1, wl::kMaxMeshSide))), h = int(int_arg(x, "h", NumberRange::closed(1, wl::kMaxMeshSide)));
             a.runner_.unload();
             a.gate_.unloaded();   // Run compiles the editor's kernel again, and its grid comes back
             a.empty_mesh_ = wl::Mesh{w, h};
             a.canvas_.select(std::nullopt);
             a.canvas_.fit();
             return a.state();
         }},
        {"canvas", "{settings}", 0, [](App& a, const json& x) {
             a.canvas_.configure(x);
             return a.state();
         }},
        {"select_pe", "x y", 0, [](App& a, const json& x) {   // select_pe(null) and select_pe() clear it
             if (x.is_null() || (x.contains("x") && x["x"].is_null()) || (x.is_object() && !x.contains("x") && !x.contains("y"))) {
                 a.canvas_.select(std::nullopt);
             } else {
                 const int px = int(int_arg(x, "x", upto(a.mesh().w))), py = int(int_arg(x, "y", upto(a.mesh().h)));
                 a.canvas_.select(PeCoord{px, py});
             }
             return a.state();
         }},
        {"editor", "open=true focus=false", 0, [](App& a, const json& x) {
             a.show_editor_ = flag_arg(x, "open", true);
             if (flag_arg(x, "focus", false)) a.editor_.focus();
             return a.state();
         }},
        {"get_source", "", 0, [](App& a, const json&) { return json{{"file", a.doc_.name()}, {"text", a.doc_.buffer().text()}}; }},
        {"load_example", "name discard=false", 0, [](App& a, const json& x) {
             const std::string name = str_arg(x, "name");
             if (a.lesson_replaces_work() && !flag_arg(x, "discard", false))   // a lesson's edits are kept instead
                 throw std::invalid_argument(a.doc_.name() + " has unsaved edits; pass discard=true to replace them");
             a.load_example(name);
             return a.state();
         }},
        {"set_source", "[file] text", 0, [](App& a, const json& x) {
             const std::string text = str_arg(x, "text");
             if (x.contains("file") && x["file"].is_string()) {
                 a.keep_lesson_work();
                 a.doc_.open(x["file"].get<std::string>(), "");
                 a.example_.clear();
             }
             // An edit like any other: undoable, and it marks the kernel modified.
             a.doc_.buffer().select_all();
             a.doc_.buffer().insert(text);
             a.doc_.refresh();
             a.show_editor_ = true;
             return a.state();
         }},
        {"compile", "", 0, [](App& a, const json&) {
             a.compile_and_load();
             return a.state();
         }},
        // Run controls: each sets a target; the frames get there (poll state().running).
        {"run", "cycles", M::kWaitRun, [](App& a, const json& x) { return a.run_method(x); }},
        {"step", "cycles=1", M::kWaitRun, [](App& a, const json& x) { return a.run_method(x); }},
        {"play", "speed", 0, [](App& a, const json& x) {
             if (has_arg(x, "speed")) a.runner_.set_speed(real_arg(x, "speed", NumberRange::above(0)));
             if (!a.ready_to_run()) throw std::invalid_argument(a.not_compiled().empty() ? "no kernel is loaded" : a.not_compiled());
             a.runner_.play();
             return a.state();
         }},
        {"pause", "", 0, [](App& a, const json&) {
             a.runner_.pause();
             return a.state();
         }},
        {"reset", "", 0, [](App& a, const json&) {
             a.runner_.reset();
             return a.state();
         }},
        {"rewind", "cycle", 0, [](App& a, const json& x) {
             a.runner_.rewind_to(uint64_t(int_arg(x, "cycle", NumberRange::closed(0, double(wl::lang::kMaxCycleBudget)))));
             return a.state();
         }},
        {"set_mode", "mode", 0, [](App& a, const json& x) {   // reloads at cycle 0, as the toolbar's switch does
             const json mode = x.is_object() && x.contains("mode") ? x["mode"] : json(nullptr);
             wl::RunMode m;
             if (!mode.is_string() || !wl::run_mode_from_name(mode.get<std::string>(), &m))
                 throw std::invalid_argument("unknown mode " + (mode.is_null() ? std::string("(none)") : mode.dump()) + ": use \"cycle\" or \"fast\"");
             a.runner_.set_run_mode(m);
             return a.state();
         }},
        {"set_arch", "arch lanes=\"fp32\"", 0, [](App& a, const json& x) {   // a machine profile (engine/fabric/wafer.h); reloads at cycle 0
             const json arch = x.is_object() && x.contains("arch") ? x["arch"] : json(nullptr);
             const wl::MachineProfile* p = arch.is_string() ? wl::find_machine_profile(arch.get<std::string>()) : nullptr;
             if (!p) throw std::invalid_argument("unknown arch " + (arch.is_null() ? std::string("(none)") : arch.dump()) + ": use " + wl::machine_profile_list());
             const json lanes = x.contains("lanes") ? x["lanes"] : json("fp32");
             wl::Lanes l;
             if (!lanes.is_string() || !wl::lanes_from_name(lanes.get<std::string>(), &l))
                 throw std::invalid_argument("unknown lanes " + lanes.dump() + ": use \"fp32\" or \"fp16\"");
             a.runner_.set_arch(*p, l);
             return a.state();
         }},
        {"set_optimise", "on", 0, [](App& a, const json& x) {   // rebuilds a loaded kernel at cycle 0
             const json on = x.is_object() && x.contains("on") ? x["on"] : json(nullptr);
             if (!on.is_boolean()) throw std::invalid_argument("'on' must be true or false");
             a.set_optimise(on.get<bool>());
             return a.state();
         }},
        {"inspect", "x y", 0, [](App& a, const json& x) {
             const wl::lang::KernelRun* run = a.runner_.run();
             if (!run) throw std::invalid_argument("no kernel is loaded: load_example() or compile() first");
             const wl::Mesh m = run->machine().mesh();
             return pe_json(*run, int(int_arg(x, "x", upto(m.w))), int(int_arg(x, "y", upto(m.h))), a.compiled_source());
         }},
        {"memory", "", 0, [](App&, const json&) { return memory_json(); }},
        {"compare", "config=\"gpt-nano\" gpu=\"a100\" ...options", 0, [](App& a, const json& x) {
             json out = wl::gpu::compare_call(x, a.models_dir());   // never throws; errors come back as {"error"}
             if (flag_arg(x, "show", false)) {
                 a.show_compare_ = true;
                 a.compare_.show_view(CompareWindow::View::Gpt);
                 a.compare_.set(x.value("config", "gpt-nano"), x.value("gpu", "a100"), x.value("profile", "tuned-bf16"), x.value("batch", 0),
                                x.value("gpus", 1));
                 a.compare_.set_inference(x.value("mode", "train") == std::string("infer"), x.value("mesh", "32x32"));
                 wl::gpu::WaferExecution e;   // by fit, unless one was asked for (a bad one: compare_call said so)
                 if (wl::gpt::Execution asked; wl::gpt::execution_from_name(x.value("execution", std::string()), &asked)) e = asked;
                 a.compare_.set_case(e, x.value("sparsity", 0.0));
             }
             return out;
         }},
        {"help", "{options}", 0, [](App& a, const json& x) {
             if (flag_arg(x, "tour", false)) a.start_tour();
             else if (flag_arg(x, "open", true) != a.help_.is_open()) a.help_.toggle();
             return a.state();
         }},
        {"about", "open=true", 0, [](App& a, const json& x) {
             a.show_about_ = flag_arg(x, "open", true);
             return a.state();
         }},

        // [SECTION] the table: files and saved state
        {"open_file", "name text discard=false", 0, [](App& a, const json& x) {
             if (flag_arg(x, "discard", false)) a.doc_.buffer().mark_saved();
             a.open_text(str_arg(x, "name"), str_arg(x, "text"), "", flag_arg(x, "ask", false));
             return a.state();
         }},
        {"save_file", "path", M::kLocal, [](App& a, const json& x) {
             const std::string p = has_arg(x, "path") ? str_arg(x, "path") : a.files_.path;
             if (!kWeb && p.empty()) throw std::invalid_argument("no file yet: pass a path");
             a.save_file(p);
             return a.state();
         }},
        {"export_png", "path", M::kLocal, [](App& a, const json& x) {
             a.files_.png_path = has_arg(x, "path") ? str_arg(x, "path") : kWeb ? "waferlab.png" : "";
             if (a.files_.png_path.empty()) throw std::invalid_argument("pass a path");
             if (!kWeb) wl::guard_output({"the PNG's path", a.files_.png_path}, wl::kPngOutput, {{"the kernel", a.files_.path}});
             a.files_.png_frame = a.frame_ + 2;   // after any menu or popup has gone
             return a.state();
         }},
        {"set_font_scale", "scale", 0, [](App& a, const json& x) {
             a.files_.font_scale = std::clamp(float(real_arg(x, "scale", NumberRange::above(0))), Workspace::kMinFontScale, Workspace::kMaxFontScale);
             return a.state();
         }},
        {"save_state", "", M::kLocal, [](App& a, const json&) {
             if (!a.write_workspace()) throw std::runtime_error(a.files_.problem);
             return a.state();
         }},
        {"raise_in_frame", "trap=false frames=1", M::kLocal | M::kInternal, [](App& a, const json& x) {   // the tests: the next frames fail, as a bug would
             const bool trap = flag_arg(x, "trap", false);
#ifndef __EMSCRIPTEN__
             if (trap) throw std::invalid_argument("a trap ends a native process: the page's frame guard only");
#endif
             a.raise_trap_ = trap;
             a.raise_frames_ = int(int_arg(x, "frames", NumberRange::closed(1, 100), 1));
             return json(nullptr);
         }},
        {"flush_state", "", M::kLocal | M::kInternal, [](App& a, const json&) {   // the page, as it goes away
             a.flush_state();
             return a.state();
         }},
        {"clear_state", "", M::kLocal, [](App& a, const json&) {
             a.clear_state();
             return a.state();
         }},
        {"dismiss_notices", "", 0, [](App& a, const json&) {
             a.files_.notices.clear();
             return a.state();
         }},

        // [SECTION] the table: share links (app_share.cpp)
        {"share_state", "", 0, [](App& a, const json&) { return shared_state_to_json(a.share_state()); }},
        {"open_share", "{state}", 0, [](App& a, const json& x) {
             std::string problem;
             const auto s = shared_state_from_json(x, &problem);
             if (!s) throw std::invalid_argument(problem);
             a.open_share(*s);
             return a.state();
         }},
        {"restore_before_share", "", M::kLocal, [](App& a, const json&) {
             a.restore_before_share();
             return a.state();
         }},
        {"notice", "text training=false", M::kLocal | M::kInternal, [](App& a, const json& x) {   // the page's own problems (a bad link, a text refused for training), in the app's notices
             a.notice(str_arg(x, "text").substr(0, 2000), flag_arg(x, "training", false) ? Notices::About::Training : Notices::About::App);
             return a.state();
         }},

        // [SECTION] the table: lessons
        {"open_lesson", "number discard=false", 0, [](App& a, const json& x) {
             a.open_lesson(int(int_arg(x, "number", NumberRange::closed(0, wl::lessons::kMaxLessonNumber))), a.lesson_edit(x));
             return a.state();
         }},
        {"check_lesson", "", 0, [](App& a, const json&) {
             json out = wl::lessons::verdict_json(a.check_lesson());
             out["lesson"] = a.lessons_.current_number();
             return out;
         }},
        {"lesson_hint", "", 0, [](App& a, const json&) {
             const wl::lessons::Lesson& l = a.open_lesson_or_throw();
             if (!a.lessons_.reveal_hint())
                 throw std::invalid_argument("all " + std::to_string(l.spec.hints.size()) + " hints of lesson " + std::to_string(l.number) + " are shown");
             return a.state();
         }},
        {"lesson_starter", "discard=false", 0, [](App& a, const json& x) {
             a.lesson_to_editor(a.open_lesson_or_throw().starter, Pending::Starter, a.lesson_edit(x));
             return a.state();
         }},
        {"show_solution", "discard=false", 0, [](App& a, const json& x) {
             a.open_lesson_or_throw();
             const LessonEdit how = a.lesson_edit(x);
             if (how == LessonEdit::Throw && a.doc_.buffer().modified())
                 throw std::invalid_argument(a.doc_.name() + " has unsaved edits; pass discard=true to replace them");
             a.lessons_.ask_solution();
             a.lesson_to_editor(*a.lessons_.confirm_solution(), Pending::Solution, how);
             return a.state();
         }},
        {"lessons_panel", "open=true", 0, [](App& a, const json& x) {
             a.show_lessons_ = flag_arg(x, "open", true);
             return a.state();
         }},
    };
    // [SECTION] the table: the Model window (its rows are ModelWindow::methods(), ui/model_window.cpp)
    for (const ModelWindow::Method& m : ModelWindow::methods())
        t.push_back({m.name, m.params,
                     (m.waits_generation ? unsigned(M::kWaitGeneration) : 0u) | (m.local ? unsigned(M::kLocal) : 0u) |
                         (m.internal ? unsigned(M::kInternal) : 0u),
                     [run = m.run](App& a, const json& x) { return run(a.model_, x); }});
    return t;
    }();
    return table;
}

// [SECTION] dispatch

// run(cycles) and step(cycles): like the toolbar, an edited kernel compiles first.
json App::run_method(const json& args) {
    if (!runner_.loaded() && doc_.buffer().text().empty())
        throw std::invalid_argument("no kernel is loaded: load_example() or compile() first");
    if (!ready_to_run()) throw std::invalid_argument(not_compiled());
    if (has_arg(args, "cycles")) {   // omitted: to completion
        runner_.step(uint64_t(int_arg(args, "cycles", NumberRange::closed(1, double(wl::lang::kMaxCycleBudget)))));
    } else {
        runner_.run_to_end();
    }
    return state();
}

App::LessonEdit App::lesson_edit(const json& args) { return flag_arg(args, "discard", false) ? LessonEdit::Discard : LessonEdit::Throw; }

const wl::lessons::Lesson& App::open_lesson_or_throw() const {
    if (!lessons_.current()) throw std::invalid_argument("no lesson is open: open_lesson(n) first");
    return *lessons_.current();
}

json App::method_table() {
    json out = json::array();
    for (const Method& m : methods())
        out.push_back({{"name", m.name}, {"params", m.params}, {"local", (m.flags & Method::kLocal) != 0},
                       {"internal", (m.flags & Method::kInternal) != 0},
                       {"wait", m.flags & Method::kWaitRun ? json("run") : m.flags & Method::kWaitGeneration ? json("generation") : json(nullptr)}});
    return out;
}

json App::call(const std::string& method, const json& args) {
    static const std::unordered_map<std::string, const Method*> by_name = [] {
        std::unordered_map<std::string, const Method*> m;
        for (const Method& row : methods()) m[row.name] = &row;
        return m;
    }();
    const auto it = by_name.find(method);
    if (it == by_name.end()) return {{"error", "unknown method '" + method + "'"}};
    if (!(it->second->flags & Method::kReads)) quiet_frames_ = 0;   // it may change what is shown: draw again
    try {
        return it->second->run(*this, args);
    } catch (const std::exception& e) {
        return {{"error", method + ": " + e.what()}};
    }
}

}  // namespace wlui
