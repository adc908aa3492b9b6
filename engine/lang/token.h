// token.h: WaferKernel's tokens. A token keeps its position (line, col, byte
// offset and length), so every diagnostic and every emitted instruction can
// point back at the source.
#pragma once
#include <cstdint>
#include <string_view>

namespace wl::lang {

// X(NAME, "spelling") — keywords are matched by spelling in the lexer.
// clang-format off
#define WK_KEYWORDS(X) \
    X(Layout, "layout") X(Program, "program") X(Host, "host") X(Grid, "grid") X(Place, "place") \
    X(At, "at") X(With, "with") X(Route, "route") X(Rx, "rx") X(Tx, "tx") \
    X(North, "north") X(South, "south") X(East, "east") X(West, "west") X(Ramp, "ramp") \
    X(Colour, "colour") X(Const, "const") X(Var, "var") X(Export, "export") X(Fn, "fn") \
    X(Task, "task") X(On, "on") X(Blocked, "blocked") X(Dsd, "dsd") X(Let, "let") \
    X(If, "if") X(Else, "else") X(While, "while") X(For, "for") X(Map, "map") X(In, "in") \
    X(Return, "return") X(Break, "break") X(Continue, "continue") X(Async, "async") X(Then, "then") \
    X(True, "true") X(False, "false") X(F32, "f32") X(I32, "i32") X(U32, "u32") X(Bool, "bool") \
    X(Fill, "fill") X(Launch, "launch") X(Run, "run") X(Print, "print")
// clang-format on

enum class Tok : uint8_t {
    Eof,
    Error,       // a character or literal the lexer rejected (already reported)
    Ident,
    Int,
    Float,
    Comment,     // only from lex_for_highlight(); the parser never sees one
    // punctuation and operators
    LParen, RParen, LBrace, RBrace, LBracket, RBracket,
    Comma, Semi, Colon, DotDot, Arrow,
    Plus, Minus, Star, Slash, Percent, Amp, Pipe, Caret, Shl, Shr, Bang, AmpAmp, PipePipe,
    Assign, PlusAssign, MinusAssign, StarAssign,
    EqEq, BangEq, Lt, Le, Gt, Ge,
#define WK_X(name, s) Kw##name,
    WK_KEYWORDS(WK_X)
#undef WK_X
    kCount
};

struct Token {
    Tok kind = Tok::Eof;
    int line = 1, col = 1;            // 1-based; col counts bytes
    uint32_t offset = 0, length = 0;  // into the source
    std::string_view text;            // view into the source
};

const char* tok_name(Tok t);          // "identifier", "'{'", "'layout'" — for diagnostics
bool tok_is_keyword(Tok t);
bool tok_is_type(Tok t);              // f32 i32 u32 bool

}  // namespace wl::lang
