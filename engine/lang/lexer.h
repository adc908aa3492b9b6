// lexer.h: source text -> tokens. Lexing never fails: bad characters become
// Tok::Error tokens with a diagnostic, and the parser skips them.
// Also exposes token classes for the editor's syntax highlighting.
#pragma once
#include "engine/lang/diagnostics.h"
#include "engine/lang/token.h"

#include <string_view>
#include <vector>

namespace wl::lang {

// Comments are dropped; the last token is always Tok::Eof.
std::vector<Token> lex(std::string_view src, Diagnostics& diags);

// [SECTION] highlighting (the app's editor)
enum class TokenClass : uint8_t {
    Keyword,      // layout, program, fn, if, ...
    Type,         // f32 i32 u32 bool
    Builtin,      // send, recv, fmacs, mem, ... (an identifier naming a builtin)
    Identifier,
    Number,
    Comment,
    Operator,     // + - * / == && = += ..
    Punctuation,  // ( ) { } [ ] , ; : ->
    Error,        // what the lexer rejected
};
const char* token_class_name(TokenClass c);   // "keyword", "type", ...

struct HighlightSpan {
    uint32_t offset = 0, length = 0;   // bytes into the source
    int line = 1, col = 1;
    TokenClass cls = TokenClass::Identifier;
};
// Every token and comment, in order; reports nothing.
std::vector<HighlightSpan> lex_for_highlight(std::string_view src);

}  // namespace wl::lang
