// compile.cpp: lex -> parse -> check -> generate, collecting diagnostics.
#include "engine/lang/compile.h"

#include "engine/lang/checker.h"
#include "engine/lang/codegen.h"
#include "engine/lang/lexer.h"
#include "engine/lang/literal_limits.h"
#include "engine/lang/parser.h"
#include "engine/lang/sema.h"
#include "engine/lang/shared_images.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

namespace wl::lang {

size_t CompileResult::images() const {
    std::set<const wl::Program*> distinct;
    for (const Placement& p : placements) distinct.insert(p.program.get());
    return distinct.size();
}

// The type a constant's override is read as: the declared one; else f32 for a fraction, or where
// the file's own value is a float literal (const ALPHA = 0.1; then ALPHA=2 means 2.0); else i32,
// as the same number written in the file would be.
static Ty override_type(const TopDecl& d, double v) {
    if (d.ty != Ty::Error) return d.ty;
    if (v != std::trunc(v)) return Ty::F32;
    const Expr* e = d.value.get();
    while (e && e->kind == ExprKind::Unary && e->op == Tok::Minus && !e->args.empty()) e = e->args[0].get();
    return e && e->kind == ExprKind::Float ? Ty::F32 : Ty::I32;
}

// The caller's constant values replace the initialisers of the file's top-level constants. Each
// gets the checks its literal would get in the file (f32's range, or the integer type's), the
// error at the constant's value naming the override; the file's value then stays, so nothing follows from it.
static void override_constants(File& ast, const CompileOptions& opt, Diagnostics& diags) {
    for (const auto& [name, v] : opt.constants) {
        TopDecl* d = nullptr;
        for (TopDecl& g : ast.globals)
            if (!g.is_colour && g.name == name) d = &g;
        if (!d && opt.optional_constants.count(name)) continue;
        if (!d) {
            diags.error(1, 1, "constant override " + quoted(name) + ": the file declares no top-level " + quoted("const " + name));
            continue;
        }
        const int line = d->value ? d->value->line : d->line, col = d->value ? d->value->col : d->col;
        const Ty t = override_type(*d, v);
        const bool integer = t == Ty::I32 || t == Ty::U32;
        if (const std::string why = t == Ty::F32 ? f32_literal_problem(v) : integer ? int_value_problem(v, t) : ""; !why.empty()) {
            diags.error(line, col, "constant override " + quoted(name) + ": " + detail::num_text(v) + " " + why);
            continue;
        }
        auto e = std::make_unique<Expr>();
        e->line = line, e->col = col;
        if (integer) {   // (another declared type refuses the number at check time)
            e->kind = ExprKind::Int;
            e->ival = int64_t(v);
        } else {
            e->kind = ExprKind::Float;
            e->fval = v;
        }
        d->value = std::move(e);
    }
}

struct Compilation::State {
    std::string source;                // the tokens are views into it
    CompileOptions opt;
    CompileResult r;
    Diagnostics diags;
    File ast;
    Checked checked;
    bool front_done = false, finished = false;
    bool gen = false;                  // the front end found no error: the programs and tables are made
    size_t next = 0;                   // the next instance to generate
    std::vector<std::shared_ptr<wl::Program>> progs;   // one per instance generated; shared at the end
    std::vector<int> family;                           // share_images' families and names
    std::vector<std::string> family_name;
};

Compilation::Compilation(std::string_view source, std::string_view file, const CompileOptions& opt) : s_(std::make_unique<State>()) {
    s_->source = std::string(source);
    s_->opt = opt;
    s_->r.file = std::string(file);
    s_->diags = Diagnostics{std::string(file)};
}
Compilation::Compilation(Compilation&&) noexcept = default;
Compilation& Compilation::operator=(Compilation&&) noexcept = default;
Compilation::~Compilation() = default;

bool Compilation::done() const { return s_->finished; }
size_t Compilation::programs_done() const { return s_->next; }
size_t Compilation::programs_total() const { return s_->checked.instances.size(); }

bool Compilation::step() {
    State& s = *s_;
    if (s.finished) return false;
    if (!s.front_done) {
        s.front_done = true;
        std::vector<Token> toks = lex(s.source, s.diags);
        s.ast = parse(toks, s.diags);
        override_constants(s.ast, s.opt, s.diags);
        // A parse cut short at its nesting limit lost the rest of the file: checking it would only
        // add knock-on errors ("undefined program") about what was never read.
        if (!s.ast.cut_short) check(s.ast, s.diags, s.opt, &s.checked);
        s.r.grid_w = s.checked.grid_w, s.r.grid_h = s.checked.grid_h;
        s.gen = s.diags.errors() == 0 && s.opt.codegen && s.checked.grid_w > 0;
        if (!s.gen) s.checked.instances.clear();   // nothing to generate
        return true;
    }
    if (s.next < s.checked.instances.size()) {
        Instance& in = s.checked.instances[s.next++];
        s.progs.push_back(generate(s.ast, s.checked, in, s.r.file, s.diags, s.opt.optimise));
        s.family.push_back(s.opt.share_images ? in.program : int(s.family.size()));   // not sharing: each its own family
        s.family_name.push_back(s.ast.programs[size_t(in.program)].name);
        return true;
    }
    // The tables, once every instance is generated.
    s.finished = true;
    CompileResult& r = s.r;
    if (s.gen) {
        const std::vector<ImageUse> uses = share_images(s.progs, s.family, s.family_name);
        for (size_t k = 0; k < s.checked.instances.size(); ++k) {
            const Instance& in = s.checked.instances[k];
            const ImageUse& u = uses[k];
            // one rectangle when the instance covers one exactly, else one PE at a time
            int x0 = 1 << 30, y0 = 1 << 30, x1 = -1, y1 = -1;
            for (auto [x, y] : in.pes) x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x), y1 = std::max(y1, y);
            if (size_t(x1 - x0 + 1) * size_t(y1 - y0 + 1) == in.pes.size()) {
                r.placements.push_back(Placement{u.program, x0, y0, x1 - x0 + 1, y1 - y0 + 1, u.consts});
            } else {
                for (auto [x, y] : in.pes) r.placements.push_back(Placement{u.program, x, y, 1, 1, u.consts});
            }
        }
        for (int c = 0; c < kColours && size_t(c) < s.checked.routes.size(); ++c)
            for (int k = 0; k < s.checked.grid_w * s.checked.grid_h; ++k) {
                const RouteCell& rc = s.checked.routes[size_t(c)][size_t(k)];
                if (rc.set) r.routes.push_back(RouteSetting{k % s.checked.grid_w, k / s.checked.grid_w, c, wl::Route::of(rc.rx, rc.tx)});
            }
        r.host = s.checked.host;
        r.colour_names = s.checked.colour_names;
    }
    r.errors = s.diags.errors();
    // One report per (place, message): per-PE instances can repeat a problem.
    std::set<std::tuple<int, int, std::string>> seen;
    std::vector<Diagnostic> all = s.diags.take();
    std::stable_sort(all.begin(), all.end(), [](const Diagnostic& a, const Diagnostic& b) { return a.line != b.line ? a.line < b.line : a.col < b.col; });
    for (Diagnostic& d : all)
        if (seen.insert({d.line, d.col, d.message}).second) r.diagnostics.push_back(std::move(d));
    if (s.diags.truncated()) {
        Diagnostic more;
        more.file = r.file;
        // At the last one kept, where the reporting stopped: a place in the file, as every reader expects.
        if (!r.diagnostics.empty()) more.line = r.diagnostics.back().line, more.col = r.diagnostics.back().col;
        more.severity = s.diags.dropped_errors() ? Severity::Error : Severity::Warning;   // a warning when only warnings went
        more.message = "too many problems; stopped reporting after " + std::to_string(Diagnostics::kMaxReported);
        r.diagnostics.push_back(std::move(more));
    }
    return false;
}

CompileResult Compilation::take() {
    while (step()) {
    }
    return std::move(s_->r);
}

CompileResult compile(std::string_view source, std::string_view file, const CompileOptions& opt) {
    return Compilation(source, file, opt).take();
}

void require_layout(CompileResult& cr, std::string_view src) {
    if (!cr.ok() || cr.grid_w != 0) return;
    const bool blank = src.find_first_not_of(" \t\r\n") == std::string_view::npos;
    int lines = 1;
    for (size_t k = 0; k < src.size(); ++k)
        if (src[k] == '\n' || (src[k] == '\r' && (k + 1 == src.size() || src[k + 1] != '\n'))) ++lines;
    Diagnostic d;
    d.file = cr.file;
    d.line = blank ? 1 : lines;
    d.col = 1;
    d.message = blank ? "the file is empty: a kernel is programs, a layout that places them and a host block that runs them"
                      : "no layout: nothing is placed on the mesh (add layout { grid W x H; place P at (x, y); })";
    cr.diagnostics.push_back(d);
    cr.errors++;
}

}  // namespace wl::lang
