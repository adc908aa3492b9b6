// compile.cpp: lex -> parse -> check -> generate, collecting diagnostics.
#include "engine/lang/compile.h"

#include "engine/lang/codegen.h"
#include "engine/lang/lexer.h"
#include "engine/lang/parser.h"
#include "engine/lang/sema.h"
#include "engine/lang/shared_images.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace wl::lang {

// The caller's constant values replace the initialisers of the file's top-level constants.
static void override_constants(File& ast, const std::map<std::string, double>& values, Diagnostics& diags) {
    for (const auto& [name, v] : values) {
        TopDecl* d = nullptr;
        for (TopDecl& g : ast.globals)
            if (!g.is_colour && g.name == name) d = &g;
        if (!d) {
            diags.error(1, 1, "constant override '" + name + "': the file declares no top-level 'const " + name + "'");
            continue;
        }
        auto e = std::make_unique<Expr>();
        e->line = d->value ? d->value->line : d->line;
        e->col = d->value ? d->value->col : d->col;
        if (v == double(int64_t(v)) && d->ty != Ty::F32) {
            e->kind = ExprKind::Int;
            e->ival = int64_t(v);
        } else {
            e->kind = ExprKind::Float;
            e->fval = v;
        }
        d->value = std::move(e);
    }
}

CompileResult compile(std::string_view source, std::string_view file, const CompileOptions& opt) {
    CompileResult r;
    r.file = std::string(file);
    Diagnostics diags{std::string(file)};
    std::vector<Token> toks = lex(source, diags);
    File ast = parse(toks, diags);
    override_constants(ast, opt.constants, diags);
    Checked checked;
    check(ast, diags, opt, &checked);
    r.grid_w = checked.grid_w, r.grid_h = checked.grid_h;
    if (diags.errors() == 0 && opt.codegen && checked.grid_w > 0) {
        std::vector<std::shared_ptr<wl::Program>> progs;
        std::vector<int> family;
        std::vector<std::string> family_name;
        for (Instance& in : checked.instances) {
            progs.push_back(generate(ast, checked, in, std::string(file), diags, opt.optimise));
            family.push_back(opt.share_images ? in.program : int(family.size()));   // not sharing: each its own family
            family_name.push_back(ast.programs[size_t(in.program)].name);
        }
        const std::vector<ImageUse> uses = share_images(progs, family, family_name);
        for (size_t k = 0; k < checked.instances.size(); ++k) {
            const Instance& in = checked.instances[k];
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
        for (int c = 0; c < kColours && size_t(c) < checked.routes.size(); ++c)
            for (int k = 0; k < checked.grid_w * checked.grid_h; ++k) {
                const RouteCell& rc = checked.routes[size_t(c)][size_t(k)];
                if (rc.set) r.routes.push_back(RouteSetting{k % checked.grid_w, k / checked.grid_w, c, wl::Route::of(rc.rx, rc.tx)});
            }
        r.host = checked.host;
        r.colour_names = checked.colour_names;
    }
    r.errors = diags.errors();
    // One report per (place, message): per-PE instances can repeat a problem.
    std::set<std::tuple<int, int, std::string>> seen;
    std::vector<Diagnostic> all = diags.take();
    std::stable_sort(all.begin(), all.end(), [](const Diagnostic& a, const Diagnostic& b) { return a.line != b.line ? a.line < b.line : a.col < b.col; });
    for (Diagnostic& d : all)
        if (seen.insert({d.line, d.col, d.message}).second) r.diagnostics.push_back(std::move(d));
    if (diags.truncated()) {
        Diagnostic more;
        more.file = std::string(file);
        more.severity = Severity::Error;
        more.message = "too many problems; stopped reporting after " + std::to_string(Diagnostics::kMaxReported);
        r.diagnostics.push_back(std::move(more));
    }
    return r;
}

}  // namespace wl::lang
