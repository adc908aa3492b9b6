// parser.cpp: WaferKernel's grammar (docs/kernel-language.md has it in full).
//
// Index of this file:
//   [SECTION] machinery: cursor, errors, recovery
//   [SECTION] expressions (precedence climbing)
//   [SECTION] statements
//   [SECTION] program declarations
//   [SECTION] layout and host
//   [SECTION] the file
#include "engine/lang/parser.h"

#include "engine/lang/literal_limits.h"

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <string>

namespace wl::lang {

namespace {

struct ParseError {};      // unwinds to the nearest recovery point
struct TooDeep {};         // unwinds the whole parse

class Parser {
public:
    Parser(const std::vector<Token>& t, Diagnostics& d) : toks_(t), diags_(d) {}

    File run() {
        File f;
        try {
            while (!at(Tok::Eof)) item(f);
        } catch (const TooDeep&) {
            f.cut_short = true;
        }
        return f;
    }

private:
    // [SECTION] machinery: cursor, errors, recovery
    const std::vector<Token>& toks_;
    Diagnostics& diags_;
    size_t i_ = 0;
    int depth_ = 0;

    const Token& cur() const { return toks_[i_]; }
    const Token& peek(size_t k = 1) const { return toks_[i_ + k < toks_.size() ? i_ + k : toks_.size() - 1]; }
    bool at(Tok k) const { return cur().kind == k; }
    const Token& advance() {
        const Token& t = toks_[i_];
        if (i_ + 1 < toks_.size()) i_++;
        return t;
    }
    bool match(Tok k) {
        if (!at(k)) return false;
        advance();
        return true;
    }
    static std::string describe(const Token& t) {
        if (t.kind == Tok::Ident) return quoted(t.text);
        if (t.kind == Tok::Int || t.kind == Tok::Float) return "number " + shown(t.text);
        return tok_name(t.kind);
    }
    [[noreturn]] void fail(const Token& t, const std::string& msg) {
        // Tok::Error was already reported by the lexer: stay quiet about it.
        if (t.kind != Tok::Error) diags_.error(t.line, t.col, msg);
        throw ParseError{};
    }
    [[noreturn]] void fail_expected(const std::string& what) { fail(cur(), "expected " + what + ", found " + describe(cur())); }
    const Token& expect(Tok k, const char* context = nullptr) {
        if (!at(k)) {
            std::string what = std::string(tok_name(k)) + (context ? std::string(" ") + context : "");
            // A missing ';' belongs at the end of what came before it, not at the next line's first token.
            if (k == Tok::Semi && i_ > 0 && cur().kind != Tok::Error) {
                const Token& prev = toks_[i_ - 1];
                diags_.error(prev.line, prev.col + int(prev.length), "expected " + what + ", found " + describe(cur()));
                throw ParseError{};
            }
            fail_expected(what);
        }
        return advance();
    }
    const Token& ident(const char* what) {
        if (!at(Tok::Ident)) fail_expected(what);
        return advance();
    }
    void enter(const Token& t) {
        if (++depth_ > kMaxNesting) {
            diags_.error(t.line, t.col, "nesting is too deep (more than " + std::to_string(kMaxNesting) + " levels)");
            throw TooDeep{};
        }
    }
    struct Guard {
        Parser& p;
        Guard(Parser& pp, const Token& t) : p(pp) { p.enter(t); }
        ~Guard() { p.depth_--; }
    };

    // Skip to just after the next ';' at this nesting level, or to a '}' that
    // closes it, or to a token that starts a statement.
    void sync_stmt() {
        int nest = 0;
        while (!at(Tok::Eof)) {
            Tok k = cur().kind;
            if (k == Tok::LBrace) nest++;
            else if (k == Tok::RBrace) {
                if (nest == 0) return;
                nest--;
                if (nest == 0) { advance(); return; }
            } else if (nest == 0) {
                if (k == Tok::Semi) { advance(); return; }
                if (k == Tok::KwLet || k == Tok::KwIf || k == Tok::KwWhile || k == Tok::KwFor || k == Tok::KwMap || k == Tok::KwReturn ||
                    k == Tok::KwAsync || starts_decl(k) || starts_item(k))
                    return;
            }
            advance();
        }
    }
    static bool starts_decl(Tok k) {
        return k == Tok::KwConst || k == Tok::KwVar || k == Tok::KwExport || k == Tok::KwFn || k == Tok::KwTask || k == Tok::KwDsd;
    }
    static bool starts_item(Tok k) { return k == Tok::KwLayout || k == Tok::KwProgram || k == Tok::KwHost || k == Tok::KwColour; }

    // [SECTION] expressions (precedence climbing)
    static int prec(Tok k) {
        switch (k) {
        case Tok::PipePipe: return 1;
        case Tok::AmpAmp: return 2;
        case Tok::EqEq: case Tok::BangEq: case Tok::Lt: case Tok::Le: case Tok::Gt: case Tok::Ge: return 3;
        case Tok::Pipe: return 4;
        case Tok::Caret: return 5;
        case Tok::Amp: return 6;
        case Tok::Shl: case Tok::Shr: return 7;
        case Tok::Plus: case Tok::Minus: return 8;
        case Tok::Star: case Tok::Slash: case Tok::Percent: return 9;
        default: return 0;
        }
    }

    ExprPtr node(ExprKind k, const Token& t) {
        auto e = std::make_unique<Expr>();
        e->kind = k;
        e->line = t.line, e->col = t.col;
        return e;
    }
    // Height bookkeeping: long operator chains are iterative here but deep in the tree.
    void height(Expr& e, const Token& t) {
        int h = 0;
        for (auto& a : e.args) h = a && a->depth > h ? a->depth : h;
        e.depth = h + 1;
        if (e.depth + depth_ > kMaxNesting) {
            diags_.error(t.line, t.col, "expression is too deeply nested (more than " + std::to_string(kMaxNesting) + " levels)");
            throw TooDeep{};
        }
    }

    ExprPtr expr(int min_prec = 1) {
        ExprPtr lhs = unary();
        for (;;) {
            int p = prec(cur().kind);
            if (p < min_prec || p == 0) return lhs;
            const Token& op = advance();
            ExprPtr rhs = expr(p + 1);
            auto b = node(ExprKind::Binary, op);
            b->op = op.kind;
            b->args.push_back(std::move(lhs));
            b->args.push_back(std::move(rhs));
            height(*b, op);
            lhs = std::move(b);
        }
    }

    ExprPtr unary() {
        if (at(Tok::Minus) || at(Tok::Bang)) {
            const Token& op = advance();
            Guard g(*this, op);
            auto u = node(ExprKind::Unary, op);
            u->op = op.kind;
            u->args.push_back(unary());
            height(*u, op);
            return u;
        }
        return primary();
    }

    std::vector<ExprPtr> call_args() {
        std::vector<ExprPtr> args;
        expect(Tok::LParen);
        if (!at(Tok::RParen)) {
            do args.push_back(expr());
            while (match(Tok::Comma));
        }
        expect(Tok::RParen, "after the arguments");
        return args;
    }

    ExprPtr primary() {
        const Token& t = cur();
        Guard g(*this, t);
        switch (t.kind) {
        case Tok::Int: {
            advance();
            auto e = node(ExprKind::Int, t);
            // Decimal or 0x hex, never base 0's octal: 010 is ten (and the lexer's error).
            const bool hex = t.text.size() > 1 && (t.text[1] == 'x' || t.text[1] == 'X');
            const std::string s(t.text.substr(hex ? 2 : 0));
            errno = 0;
            const unsigned long long v = std::strtoull(s.c_str(), nullptr, hex ? 16 : 10);
            if (errno == ERANGE || v > 0xffffffffull) {
                diags_.error(t.line, t.col, "integer literal " + shown(t.text) + " does not fit in 32 bits");
                e->refused = true;   // typed Error: no second error about the number it would have wrapped to
                return e;
            }
            e->ival = int64_t(v);
            return e;
        }
        case Tok::Float: {
            advance();
            auto e = node(ExprKind::Float, t);
            errno = 0;
            e->fval = std::strtod(std::string(t.text).c_str(), nullptr);
            const bool underflow = errno == ERANGE && e->fval == 0;   // below even a double's range
            // Beyond f32's largest finite value the PE would hold infinity, below its smallest 0: say so, as for integers.
            if (errno == ERANGE && e->fval != 0) e->fval = HUGE_VAL;
            if (const std::string why = f32_literal_problem(e->fval, underflow); !why.empty())
                diags_.error(t.line, t.col, "float literal " + shown(t.text) + " " + why);
            return e;
        }
        case Tok::KwTrue: case Tok::KwFalse: {
            advance();
            auto e = node(ExprKind::Bool, t);
            e->ival = t.kind == Tok::KwTrue;
            return e;
        }
        case Tok::KwF32: case Tok::KwI32: case Tok::KwU32: {
            advance();
            auto e = node(ExprKind::Cast, t);
            e->op = t.kind;
            auto args = call_args();
            if (args.size() != 1) {
                diags_.error(t.line, t.col, std::string("conversion ") + tok_name(t.kind) + " takes one argument");
                if (args.empty()) { auto z = node(ExprKind::Int, t); args.push_back(std::move(z)); }
            }
            e->args.push_back(std::move(args[0]));
            height(*e, t);
            return e;
        }
        case Tok::Ident: {
            advance();
            if (at(Tok::LParen)) {
                auto e = node(ExprKind::Call, t);
                e->name = std::string(t.text);
                e->args = call_args();
                height(*e, t);
                return e;
            }
            if (match(Tok::LBracket)) {
                auto e = node(ExprKind::Index, t);
                e->name = std::string(t.text);
                e->args.push_back(expr());
                expect(Tok::RBracket, "after the index");
                height(*e, t);
                return e;
            }
            auto e = node(ExprKind::Name, t);
            e->name = std::string(t.text);
            return e;
        }
        case Tok::LParen: {
            advance();
            ExprPtr e = expr();
            expect(Tok::RParen, "to close '('");
            return e;
        }
        default: fail_expected("an expression");
        }
    }

    // [SECTION] statements
    Ty scalar_type(const char* what) {
        switch (cur().kind) {
        case Tok::KwF32: advance(); return Ty::F32;
        case Tok::KwI32: advance(); return Ty::I32;
        case Tok::KwU32: advance(); return Ty::U32;
        case Tok::KwBool: advance(); return Ty::Bool;
        default: fail_expected(what);
        }
    }

    std::vector<StmtPtr> block() {
        const Token& open = expect(Tok::LBrace);
        Guard g(*this, open);
        std::vector<StmtPtr> out;
        while (!at(Tok::RBrace) && !at(Tok::Eof)) {
            if (starts_decl(cur().kind) || starts_item(cur().kind)) break;   // a missing '}': let the caller recover
            size_t before = i_;
            try {
                out.push_back(stmt());
            } catch (const ParseError&) {
                sync_stmt();
                if (i_ == before) advance();
            }
        }
        expect(Tok::RBrace, "to close the block");
        return out;
    }

    StmtPtr mk(StmtKind k, const Token& t) {
        auto s = std::make_unique<Stmt>();
        s->kind = k;
        s->line = t.line, s->col = t.col;
        return s;
    }

    StmtPtr stmt() {
        const Token& t = cur();
        switch (t.kind) {
        case Tok::KwLet: {
            advance();
            auto s = mk(StmtKind::Let, t);
            const Token& n = ident("a variable name after 'let'");
            s->name = std::string(n.text), s->name_line = n.line, s->name_col = n.col;
            if (match(Tok::Colon)) {
                s->has_type = true;
                s->declared = scalar_type("a type (f32, i32, u32 or bool)");
            }
            expect(Tok::Assign, "after the variable ('let' needs a value)");
            s->e0 = expr();
            expect(Tok::Semi, "after the statement");
            return s;
        }
        case Tok::KwIf: return if_stmt();
        case Tok::KwWhile: {
            advance();
            auto s = mk(StmtKind::While, t);
            s->e0 = expr();
            s->body = block();
            return s;
        }
        case Tok::KwFor: case Tok::KwMap: {
            advance();
            auto s = mk(StmtKind::For, t);
            s->map = t.kind == Tok::KwMap;
            const Token& n = ident(s->map ? "a pass variable after 'map'" : "a loop variable after 'for'");
            s->name = std::string(n.text), s->name_line = n.line, s->name_col = n.col;
            expect(Tok::KwIn, "after the loop variable");
            s->e0 = expr();
            expect(Tok::DotDot, "in the loop range");
            s->e1 = expr();
            s->body = block();
            return s;
        }
        case Tok::KwReturn: {
            advance();
            auto s = mk(StmtKind::Return, t);
            if (!at(Tok::Semi) && !at(Tok::RBrace)) s->e0 = expr();
            expect(Tok::Semi, "after the statement");
            return s;
        }
        case Tok::KwBreak: case Tok::KwContinue: {
            advance();
            auto s = mk(t.kind == Tok::KwBreak ? StmtKind::Break : StmtKind::Continue, t);
            expect(Tok::Semi, "after the statement");
            return s;
        }
        case Tok::LBrace: {
            auto s = mk(StmtKind::Block, t);
            s->body = block();
            return s;
        }
        case Tok::KwAsync: {
            advance();
            auto s = mk(StmtKind::ExprStmt, t);
            s->async = true;
            if (!at(Tok::Ident) || peek().kind != Tok::LParen) fail_expected("a vector builtin call after 'async'");
            s->e0 = expr();
            then_clause(*s);
            expect(Tok::Semi, "after the statement");
            return s;
        }
        default: break;
        }
        auto s = mk(StmtKind::ExprStmt, t);
        ExprPtr e = expr();
        if (at(Tok::Assign) || at(Tok::PlusAssign) || at(Tok::MinusAssign) || at(Tok::StarAssign)) {
            const Token& op = advance();
            if (e->kind != ExprKind::Name && e->kind != ExprKind::Index) {
                diags_.error(op.line, op.col, "the left side of " + std::string(tok_name(op.kind)) + " must be a variable or an array element");
            }
            s->kind = StmtKind::Assign;
            s->op = op.kind;
            s->target = std::move(e);
            s->e0 = expr();
        } else {
            s->e0 = std::move(e);
            then_clause(*s);
        }
        expect(Tok::Semi, "after the statement");
        return s;
    }

    void then_clause(Stmt& s) {
        if (!match(Tok::KwThen)) return;
        const Token& a = ident("'activate' or 'unblock' after 'then'");
        if (a.text != "activate" && a.text != "unblock") fail(a, "expected 'activate' or 'unblock' after 'then', found " + quoted(a.text));
        s.then_action = std::string(a.text);
        const Token& tn = ident("a task name");
        s.then_task = std::string(tn.text), s.then_line = tn.line, s.then_col = tn.col;
    }

    StmtPtr if_stmt() {
        const Token& t = advance();
        Guard g(*this, t);
        auto s = mk(StmtKind::If, t);
        s->e0 = expr();
        s->body = block();
        if (match(Tok::KwElse)) {
            s->has_else = true;
            if (at(Tok::KwIf)) s->else_body.push_back(if_stmt());
            else s->else_body = block();
        }
        return s;
    }

    // [SECTION] program declarations
    std::vector<Param> params(bool allow_colour) {
        std::vector<Param> ps;
        expect(Tok::LParen);
        if (!at(Tok::RParen)) {
            do {
                Param p;
                const Token& n = ident("a parameter name");
                p.name = std::string(n.text), p.line = n.line, p.col = n.col;
                expect(Tok::Colon, "after the parameter name");
                if (allow_colour && match(Tok::KwColour)) p.ty = Ty::Colour;
                else p.ty = scalar_type(allow_colour ? "a type (f32, i32, u32, bool or colour)" : "a type (f32, i32, u32 or bool)");
                ps.push_back(std::move(p));
            } while (match(Tok::Comma));
        }
        expect(Tok::RParen, "after the parameters");
        return ps;
    }

    void decl(ProgramDecl& pd) {
        Decl d;
        bool exported = false;
        const Token& first = cur();
        if (match(Tok::KwExport)) {
            exported = true;
            if (!at(Tok::KwVar) && !at(Tok::KwFn)) fail_expected("'var' or 'fn' after 'export'");
        }
        d.exported = exported;
        const Token& kw = advance();
        auto name = [&](const char* what) {
            const Token& n = ident(what);
            d.name = std::string(n.text), d.line = n.line, d.col = n.col;
        };
        switch (kw.kind) {
        case Tok::KwConst:
            d.kind = DeclKind::Const;
            name("a constant name");
            if (match(Tok::Colon)) d.type.ty = scalar_type("a type (f32, i32, u32 or bool)");
            expect(Tok::Assign, "after the constant (it needs a value)");
            d.init = expr();
            expect(Tok::Semi, "after the declaration");
            break;
        case Tok::KwVar:
            d.kind = DeclKind::Var;
            name("a variable name");
            expect(Tok::Colon, "after the variable name (SRAM variables need a type)");
            if (const Token& lb = cur(); match(Tok::LBracket)) {
                d.type.ty = Ty::Array;
                d.type.elem = scalar_type("an element type (f32, i32 or u32)");
                if (d.type.elem == Ty::Bool) diags_.error(lb.line, lb.col, "arrays hold f32, i32 or u32, not bool");
                expect(Tok::Semi, "between the element type and the length");
                d.len_expr = expr();
                d.type.len = d.len_expr.get();
                expect(Tok::RBracket, "after the array length");
            } else {
                d.type.ty = scalar_type("a type (f32, i32, u32 or [T; N])");
            }
            if (match(Tok::Assign)) {
                if (match(Tok::LBracket)) {
                    d.has_init_list = true;
                    if (!at(Tok::RBracket)) {
                        do d.init_list.push_back(expr());
                        while (match(Tok::Comma));
                    }
                    expect(Tok::RBracket, "after the initial values");
                } else {
                    d.init = expr();
                }
            }
            expect(Tok::Semi, "after the declaration");
            break;
        case Tok::KwFn:
            d.kind = DeclKind::Fn;
            name("a function name");
            d.params = params(false);
            if (match(Tok::Arrow)) d.ret = scalar_type("a return type");
            body(d);
            break;
        case Tok::KwTask:
            d.kind = DeclKind::Task;
            name("a task name");
            d.params = params(false);
            if (match(Tok::KwOn)) {
                const Token& c = ident("a colour name after 'on'");
                d.colour = std::string(c.text), d.colour_line = c.line, d.colour_col = c.col;
            }
            if (match(Tok::KwBlocked)) d.blocked = true;
            body(d);
            break;
        case Tok::KwDsd:
            d.kind = DeclKind::Dsd;
            name("a DSD name");
            expect(Tok::Assign, "after the DSD name");
            d.init = expr();
            expect(Tok::Semi, "after the declaration");
            break;
        default:
            fail(first, "expected a declaration ('const', 'var', 'fn', 'task' or 'dsd'), found " + describe(first));
        }
        pd.decls.push_back(std::move(d));
    }

    void body(Decl& d) {
        d.body = block();
        const Token& close = toks_[i_ > 0 ? i_ - 1 : 0];
        d.end_line = close.line, d.end_col = close.col;
    }

    void program(File& f) {
        advance();   // 'program'
        ProgramDecl pd;
        const Token& n = ident("a program name after 'program'");
        pd.name = std::string(n.text), pd.line = n.line, pd.col = n.col;
        if (at(Tok::LParen)) pd.params = params(true);
        expect(Tok::LBrace, "to open the program");
        while (!at(Tok::RBrace) && !at(Tok::Eof)) {
            if (starts_item(cur().kind)) break;   // a missing '}'
            size_t before = i_;
            try {
                decl(pd);
            } catch (const ParseError&) {
                sync_decl();
                if (i_ == before) advance();
            }
        }
        f.programs.push_back(std::move(pd));
        expect(Tok::RBrace, "to close the program");
    }

    void sync_decl() {
        int nest = 0;
        while (!at(Tok::Eof)) {
            Tok k = cur().kind;
            if (k == Tok::LBrace) nest++;
            else if (k == Tok::RBrace) {
                if (nest == 0) return;
                nest--;
            } else if (nest == 0 && (starts_decl(k) || starts_item(k))) {
                return;
            } else if (nest == 0 && k == Tok::Semi) {
                advance();
                return;
            }
            advance();
        }
    }

    // [SECTION] layout and host
    Range range() {
        Range r;
        r.line = cur().line, r.col = cur().col;
        r.lo = expr();
        if (match(Tok::DotDot)) r.hi = expr();
        return r;
    }
    Region region() {
        Region g;
        const Token& open = expect(Tok::LParen, "to open a PE region like (x, y) or (0..4, 0)");
        g.line = open.line, g.col = open.col;
        g.x = range();
        expect(Tok::Comma, "between the x and y of the region");
        g.y = range();
        expect(Tok::RParen, "to close the region");
        return g;
    }
    uint8_t ports(const char* after) {
        uint8_t m = 0;
        do {
            switch (cur().kind) {
            case Tok::KwNorth: m |= 1; break;
            case Tok::KwSouth: m |= 2; break;
            case Tok::KwEast: m |= 4; break;
            case Tok::KwWest: m |= 8; break;
            case Tok::KwRamp: m |= 16; break;
            default: fail_expected(std::string("a port (north, south, east, west or ramp) after ") + after);
            }
            advance();
        } while (match(Tok::Comma));
        return m;
    }

    void layout_stmt(File& f) {
        const Token& t = cur();
        LayoutStmt s;
        s.line = t.line, s.col = t.col;
        switch (t.kind) {
        case Tok::KwGrid: {
            advance();
            s.kind = LayoutKind::Grid;
            s.w = expr();
            if (!at(Tok::Ident) || cur().text != "x") fail_expected("'x' between the grid's width and height");
            advance();
            s.h = expr();
            break;
        }
        case Tok::KwPlace: {
            advance();
            s.kind = LayoutKind::Place;
            const Token& n = ident("a program name after 'place'");
            s.name = std::string(n.text), s.name_line = n.line, s.name_col = n.col;
            expect(Tok::KwAt, "after the program name");
            s.region = region();
            if (match(Tok::KwIf)) s.cond = expr();
            if (match(Tok::KwWith)) {
                expect(Tok::LParen, "after 'with'");
                if (!at(Tok::RParen)) {
                    do {
                        Binding b;
                        const Token& bn = ident("a parameter name");
                        b.name = std::string(bn.text), b.line = bn.line, b.col = bn.col;
                        expect(Tok::Assign, "after the parameter name");
                        b.value = expr();
                        s.bindings.push_back(std::move(b));
                    } while (match(Tok::Comma));
                }
                expect(Tok::RParen, "after the parameters");
            }
            break;
        }
        case Tok::KwRoute: {
            advance();
            s.kind = LayoutKind::Route;
            const Token& n = ident("a colour name after 'route'");
            s.name = std::string(n.text), s.name_line = n.line, s.name_col = n.col;
            expect(Tok::KwAt, "after the colour name");
            s.region = region();
            if (match(Tok::KwIf)) s.cond = expr();
            const Token& rx = expect(Tok::KwRx, "(a route is 'rx <ports> tx <ports>')");
            s.rx_line = rx.line, s.rx_col = rx.col;
            s.rx = ports("'rx'");
            const Token& tx = expect(Tok::KwTx, "after the rx ports");
            s.tx_line = tx.line, s.tx_col = tx.col;
            s.tx = ports("'tx'");
            break;
        }
        default: fail(t, "expected 'grid', 'place' or 'route' in the layout, found " + describe(t));
        }
        expect(Tok::Semi, "after the layout statement");
        f.layout.push_back(std::move(s));
    }

    void host_stmt(File& f) {
        const Token& t = cur();
        HostStmt s;
        s.line = t.line, s.col = t.col;
        auto name = [&](const char* what) {
            const Token& n = ident(what);
            s.name = std::string(n.text), s.name_line = n.line, s.name_col = n.col;
        };
        switch (t.kind) {
        case Tok::KwFill: {
            advance();
            s.kind = HostKind::Fill;
            name("a symbol name after 'fill'");
            expect(Tok::KwAt, "after the symbol");
            s.region = region();
            expect(Tok::KwWith, "after the region (fill <symbol> at <region> with <values>)");
            s.gen_line = cur().line, s.gen_col = cur().col;
            if (match(Tok::LBracket)) {
                s.gen = GenKind::List;
                if (!at(Tok::RBracket)) {
                    do s.gen_args.push_back(expr());
                    while (match(Tok::Comma));
                }
                expect(Tok::RBracket, "after the values");
            } else {
                const Token& g = ident("values: iota(start, step), value(v), random(seed) or [a, b, ...]");
                if (g.text == "iota") s.gen = GenKind::Iota;
                else if (g.text == "value") s.gen = GenKind::Value;
                else if (g.text == "random") s.gen = GenKind::Random;
                else fail(g, "unknown value generator " + quoted(g.text) + " (use iota, value, random or a [list])");
                s.gen_args = call_args();
            }
            break;
        }
        case Tok::KwLaunch:
            advance();
            s.kind = HostKind::Launch;
            name("a function name after 'launch'");
            expect(Tok::KwAt, "after the function");
            s.region = region();
            break;
        case Tok::KwRun: advance(); s.kind = HostKind::Run; break;
        case Tok::KwPrint:
            advance();
            s.kind = HostKind::Print;
            name("a symbol name after 'print'");
            expect(Tok::KwAt, "after the symbol");
            s.region = region();
            break;
        default: fail(t, "expected 'fill', 'launch', 'run' or 'print' in the host block, found " + describe(t));
        }
        expect(Tok::Semi, "after the host statement");
        f.host.push_back(std::move(s));
    }

    template <class F>
    void section(const char* name, F each) {
        expect(Tok::LBrace, (std::string("to open the ") + name).c_str());
        while (!at(Tok::RBrace) && !at(Tok::Eof)) {
            if (starts_item(cur().kind)) break;
            size_t before = i_;
            try {
                each();
            } catch (const ParseError&) {
                sync_stmt();
                if (i_ == before) advance();
            }
        }
        expect(Tok::RBrace, (std::string("to close the ") + name).c_str());
    }

    // [SECTION] the file
    void item(File& f) {
        size_t before = i_;
        try {
            const Token& t = cur();
            switch (t.kind) {
            case Tok::KwColour: case Tok::KwConst: {
                advance();
                TopDecl d;
                d.is_colour = t.kind == Tok::KwColour;
                const Token& n = ident(d.is_colour ? "a colour name" : "a constant name");
                d.name = std::string(n.text), d.line = n.line, d.col = n.col;
                if (!d.is_colour && match(Tok::Colon)) d.ty = scalar_type("a type (f32, i32, u32 or bool)");
                expect(Tok::Assign, d.is_colour ? "after the colour name (e.g. colour data = 3;)" : "after the constant (it needs a value)");
                d.value = expr();
                expect(Tok::Semi, "after the declaration");
                f.globals.push_back(std::move(d));
                return;
            }
            case Tok::KwLayout:
                advance();
                if (f.has_layout) diags_.error(t.line, t.col, "a file has one layout; this is the second");
                f.has_layout = true;
                f.layout_line = t.line, f.layout_col = t.col;
                section("layout", [&] { layout_stmt(f); });
                return;
            case Tok::KwHost:
                advance();
                if (f.has_host) diags_.error(t.line, t.col, "a file has one host block; this is the second");
                f.has_host = true;
                section("host block", [&] { host_stmt(f); });
                return;
            case Tok::KwProgram: program(f); return;
            default:
                fail(t, "expected 'layout', 'program', 'host', 'colour' or 'const' at the top level, found " + describe(t));
            }
        } catch (const ParseError&) {
            // Top level: skip to the next item keyword.
            if (i_ == before) advance();
            while (!at(Tok::Eof) && !starts_item(cur().kind) && !at(Tok::KwConst)) advance();
        }
    }
};

}  // namespace

File parse(const std::vector<Token>& toks, Diagnostics& diags) { return Parser(toks, diags).run(); }

}  // namespace wl::lang
