// lexer.cpp: a hand-written scanner. One pass, no backtracking, linear in the
// input (a 10 MB file is fine). Positions are 1-based lines and byte columns.
// A UTF-8 byte-order mark that opens the file (editors on Windows write one) is
// skipped and is not a column; anywhere else it is an error that says what it is, and then read as
// a space, so the parse goes on as if it were not there. Integers are
// decimal or 0x hex: a leading 0 (010) is an error, not C's octal (literal_limits.h).
#include "engine/lang/lexer.h"

#include "engine/lang/builtins.h"
#include "engine/lang/literal_limits.h"

#include <cstring>

namespace wl::lang {

const char* tok_name(Tok t) {
    switch (t) {
    case Tok::Eof: return "end of file";
    case Tok::Error: return "invalid token";
    case Tok::Ident: return "identifier";
    case Tok::Int: return "integer";
    case Tok::Float: return "number";
    case Tok::Comment: return "comment";
    case Tok::LParen: return "'('";
    case Tok::RParen: return "')'";
    case Tok::LBrace: return "'{'";
    case Tok::RBrace: return "'}'";
    case Tok::LBracket: return "'['";
    case Tok::RBracket: return "']'";
    case Tok::Comma: return "','";
    case Tok::Semi: return "';'";
    case Tok::Colon: return "':'";
    case Tok::DotDot: return "'..'";
    case Tok::Arrow: return "'->'";
    case Tok::Plus: return "'+'";
    case Tok::Minus: return "'-'";
    case Tok::Star: return "'*'";
    case Tok::Slash: return "'/'";
    case Tok::Percent: return "'%'";
    case Tok::Amp: return "'&'";
    case Tok::Pipe: return "'|'";
    case Tok::Caret: return "'^'";
    case Tok::Shl: return "'<<'";
    case Tok::Shr: return "'>>'";
    case Tok::Bang: return "'!'";
    case Tok::AmpAmp: return "'&&'";
    case Tok::PipePipe: return "'||'";
    case Tok::Assign: return "'='";
    case Tok::PlusAssign: return "'+='";
    case Tok::MinusAssign: return "'-='";
    case Tok::StarAssign: return "'*='";
    case Tok::EqEq: return "'=='";
    case Tok::BangEq: return "'!='";
    case Tok::Lt: return "'<'";
    case Tok::Le: return "'<='";
    case Tok::Gt: return "'>'";
    case Tok::Ge: return "'>='";
#define WK_X(name, s) \
    case Tok::Kw##name: return "'" s "'";
        WK_KEYWORDS(WK_X)
#undef WK_X
    case Tok::kCount: break;
    }
    return "?";
}

bool tok_is_keyword(Tok t) { return t >= Tok::KwLayout && t < Tok::kCount; }
bool tok_is_type(Tok t) { return t == Tok::KwF32 || t == Tok::KwI32 || t == Tok::KwU32 || t == Tok::KwBool; }

static Tok keyword(std::string_view s) {
#define WK_X(name, sp) \
    if (s == sp) return Tok::Kw##name;
    WK_KEYWORDS(WK_X)
#undef WK_X
    return Tok::Ident;
}

static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_bom(std::string_view s, size_t at) { return s.substr(at, 3) == "\xEF\xBB\xBF"; }

namespace {
struct Scanner {
    std::string_view src;
    Diagnostics* diags;   // null: highlighting, report nothing
    bool keep_comments;
    size_t pos = 0;
    int line = 1;
    size_t line_start = 0;

    Scanner(std::string_view s, Diagnostics* d, bool comments) : src(s), diags(d), keep_comments(comments) {
        if (is_bom(src, 0)) pos = line_start = 3;   // offsets stay bytes into src; columns start after it
    }

    char peek(size_t k = 0) const { return pos + k < src.size() ? src[pos + k] : '\0'; }
    int col_of(size_t p) const { return int(p - line_start) + 1; }
    void error(int l, int c, std::string m) {
        if (diags) diags->error(l, c, std::move(m));
    }

    Token make(Tok k, size_t start, int l, int c) {
        Token t;
        t.kind = k;
        t.line = l, t.col = c;
        t.offset = uint32_t(start);
        t.length = uint32_t(pos - start);
        t.text = src.substr(start, pos - start);
        return t;
    }

    // Returns false at end of input.
    bool next(Token* out) {
        for (;;) {
            // whitespace
            while (pos < src.size()) {
                char c = src[pos];
                if (c == '\n' || (c == '\r' && peek(1) != '\n')) {   // a lone CR ends a line too (old Mac files)
                    pos++;
                    line++;
                    line_start = pos;
                } else if (c == ' ' || c == '\t' || c == '\r') {
                    pos++;
                } else {
                    break;
                }
            }
            if (pos >= src.size()) {
                *out = make(Tok::Eof, pos, line, col_of(pos));
                return false;
            }
            size_t start = pos;
            int l = line, c = col_of(pos);
            char ch = src[pos];
            // A mark elsewhere (files pasted together) is said once and then read as a space: as an
            // error token the parser would skip the statement it opens, and report that as missing.
            if (is_bom(src, pos)) {
                pos += 3;
                error(l, c, "unexpected byte 0xef: a byte-order mark (ef bb bf) is allowed only at the start of the file");
                if (keep_comments) { *out = make(Tok::Error, start, l, c); return true; }   // the editor marks it
                continue;
            }
            if (ch == '/' && peek(1) == '/') {
                while (pos < src.size() && src[pos] != '\n' && src[pos] != '\r') pos++;
                if (keep_comments) { *out = make(Tok::Comment, start, l, c); return true; }
                continue;
            }
            if (ch == '/' && peek(1) == '*') {
                pos += 2;
                bool closed = false;
                while (pos < src.size()) {
                    if (src[pos] == '*' && peek(1) == '/') { pos += 2; closed = true; break; }
                    if (src[pos] == '\n' || (src[pos] == '\r' && peek(1) != '\n')) { line++; line_start = pos + 1; }
                    pos++;
                }
                if (!closed) error(l, c, "unterminated block comment");
                if (keep_comments) { *out = make(Tok::Comment, start, l, c); return true; }
                continue;
            }
            if (is_alpha(ch)) {
                while (pos < src.size() && (is_alpha(src[pos]) || is_digit(src[pos]))) pos++;
                *out = make(keyword(src.substr(start, pos - start)), start, l, c);
                return true;
            }
            if (is_digit(ch)) { *out = number(start, l, c); return true; }
            pos++;
            auto two = [&](char n, Tok yes, Tok no) {
                if (peek() == n) { pos++; return yes; }
                return no;
            };
            Tok k = Tok::Error;
            switch (ch) {
            case '(': k = Tok::LParen; break;
            case ')': k = Tok::RParen; break;
            case '{': k = Tok::LBrace; break;
            case '}': k = Tok::RBrace; break;
            case '[': k = Tok::LBracket; break;
            case ']': k = Tok::RBracket; break;
            case ',': k = Tok::Comma; break;
            case ';': k = Tok::Semi; break;
            case ':': k = Tok::Colon; break;
            case '.':
                if (peek() == '.') { pos++; k = Tok::DotDot; }
                else error(l, c, "unexpected '.'; ranges are written 'a..b'");
                break;
            case '+': k = two('=', Tok::PlusAssign, Tok::Plus); break;
            case '-':
                if (peek() == '>') { pos++; k = Tok::Arrow; }
                else k = two('=', Tok::MinusAssign, Tok::Minus);
                break;
            case '*': k = two('=', Tok::StarAssign, Tok::Star); break;
            case '/': k = Tok::Slash; break;
            case '%': k = Tok::Percent; break;
            case '^': k = Tok::Caret; break;
            case '&': k = two('&', Tok::AmpAmp, Tok::Amp); break;
            case '|': k = two('|', Tok::PipePipe, Tok::Pipe); break;
            case '!': k = two('=', Tok::BangEq, Tok::Bang); break;
            case '=': k = two('=', Tok::EqEq, Tok::Assign); break;
            case '<':
                if (peek() == '<') { pos++; k = Tok::Shl; }
                else k = two('=', Tok::Le, Tok::Lt);
                break;
            case '>':
                if (peek() == '>') { pos++; k = Tok::Shr; }
                else k = two('=', Tok::Ge, Tok::Gt);
                break;
            default: {
                // One diagnostic per run of bad bytes, so binary garbage stays cheap.
                while (pos < src.size()) {
                    char d = src[pos];
                    if (is_alpha(d) || is_digit(d) || d == ' ' || d == '\n' || d == '\t' || d == '\r' || std::strchr("(){}[],;:.+-*/%^&|!=<>", d)) break;
                    if (is_bom(src, pos)) break;   // said on its own
                    pos++;
                }
                unsigned char u = static_cast<unsigned char>(ch);
                if (u >= 0x20 && u < 0x7f) error(l, c, std::string("unexpected character '") + ch + "'");
                else {
                    char buf[8];
                    static const char* hex = "0123456789abcdef";
                    buf[0] = '0', buf[1] = 'x', buf[2] = hex[u >> 4], buf[3] = hex[u & 15], buf[4] = 0;
                    error(l, c, std::string("unexpected byte ") + buf);
                }
            }
            }
            *out = make(k, start, l, c);
            return true;
        }
    }

    Token number(size_t start, int l, int c) {
        bool is_float = false;
        if (src[pos] == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
            pos += 2;
            while (pos < src.size() && (is_digit(src[pos]) || (src[pos] >= 'a' && src[pos] <= 'f') || (src[pos] >= 'A' && src[pos] <= 'F'))) pos++;
            if (pos - start == 2) error(l, c, "hex literal needs digits after '0x'");
        } else {
            while (pos < src.size() && is_digit(src[pos])) pos++;
            if (peek() == '.' && is_digit(peek(1))) {
                is_float = true;
                pos++;
                while (pos < src.size() && is_digit(src[pos])) pos++;
            }
            if (peek() == 'e' || peek() == 'E') {
                size_t save = pos;
                pos++;
                if (peek() == '+' || peek() == '-') pos++;
                if (is_digit(peek())) {
                    is_float = true;
                    while (pos < src.size() && is_digit(src[pos])) pos++;
                } else {
                    pos = save;
                }
            }
        }
        if (pos < src.size() && (is_alpha(src[pos]) || is_digit(src[pos]))) {
            while (pos < src.size() && (is_alpha(src[pos]) || is_digit(src[pos]))) pos++;
            error(l, c, "malformed number " + quoted(src.substr(start, pos - start)));
            return make(Tok::Error, start, l, c);
        }
        // 010 is 8 in C and 10 to a reader: neither, here. Still an integer token, so the parse goes on.
        if (!is_float)
            if (const std::string why = leading_zero_problem(src.substr(start, pos - start)); !why.empty())
                error(l, c, "integer literal " + shown(src.substr(start, pos - start)) + " " + why);
        return make(is_float ? Tok::Float : Tok::Int, start, l, c);
    }
};
}  // namespace

std::vector<Token> lex(std::string_view src, Diagnostics& diags) {
    Scanner s{src, &diags, false};
    std::vector<Token> out;
    out.reserve(src.size() / 4 + 1);
    Token t;
    while (s.next(&t)) out.push_back(t);
    out.push_back(t);   // Eof
    return out;
}

const char* token_class_name(TokenClass c) {
    switch (c) {
    case TokenClass::Keyword: return "keyword";
    case TokenClass::Type: return "type";
    case TokenClass::Builtin: return "builtin";
    case TokenClass::Identifier: return "identifier";
    case TokenClass::Number: return "number";
    case TokenClass::Comment: return "comment";
    case TokenClass::Operator: return "operator";
    case TokenClass::Punctuation: return "punctuation";
    case TokenClass::Error: return "error";
    }
    return "?";
}

std::vector<HighlightSpan> lex_for_highlight(std::string_view src) {
    Scanner s{src, nullptr, true};
    std::vector<HighlightSpan> out;
    Token t;
    while (s.next(&t)) {
        TokenClass cls;
        switch (t.kind) {
        case Tok::Error: cls = TokenClass::Error; break;
        case Tok::Ident: cls = builtin_of(t.text) != Builtin::None ? TokenClass::Builtin : TokenClass::Identifier; break;
        case Tok::Int: case Tok::Float: cls = TokenClass::Number; break;
        case Tok::Comment: cls = TokenClass::Comment; break;
        case Tok::LParen: case Tok::RParen: case Tok::LBrace: case Tok::RBrace: case Tok::LBracket: case Tok::RBracket:
        case Tok::Comma: case Tok::Semi: case Tok::Colon: case Tok::Arrow:
            cls = TokenClass::Punctuation;
            break;
        default:
            cls = tok_is_type(t.kind) ? TokenClass::Type : tok_is_keyword(t.kind) ? TokenClass::Keyword : TokenClass::Operator;
        }
        out.push_back(HighlightSpan{t.offset, t.length, t.line, t.col, cls});
    }
    return out;
}

}  // namespace wl::lang
