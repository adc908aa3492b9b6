// help.cpp: the words of WaferKernel explained (see help.h).
#include "engine/lang/help.h"

#include "engine/lang/builtins.h"
#include "engine/lang/token.h"

#include <string>

namespace wl::lang {

namespace {

struct KeywordDoc {
    Tok tok;
    const char* doc;
};

// One row per keyword of WK_KEYWORDS (token.h), in its order.
const KeywordDoc kKeywords[] = {
    {Tok::KwLayout, "the layout block: the grid, which program runs on which PEs, and the routes"},
    {Tok::KwProgram, "program P(params) { ... }: the code and SRAM of one kind of PE; params are fixed per PE at compile time"},
    {Tok::KwHost, "the host block: what the host does — fill SRAM, launch functions, run the machine, print results"},
    {Tok::KwGrid, "grid W x H: the mesh of PEs the kernel uses (each side from 1 up to a whole WSE-3 fabric's); comes first in the layout"},
    {Tok::KwPlace, "place P at REGION [with (param = expr, ...)]: runs program P on every PE of the region"},
    {Tok::KwAt, "at (x, y) or at (x0..x1, y0..y1): the PE or region a place, route, fill, launch or print applies to"},
    {Tok::KwWith, "with (param = expr, ...): a placed program's parameters; x and y are the PE's coordinates"},
    {Tok::KwRoute, "route C at REGION rx PORTS tx PORTS: how each router of the region forwards colour C — "
                   "from the ports it receives on to the ports it sends to"},
    {Tok::KwRx, "rx: the ports a router accepts a colour's wavelets from (north, south, east, west, ramp)"},
    {Tok::KwTx, "tx: the ports a router sends a colour's wavelets out of (north, south, east, west, ramp)"},
    {Tok::KwNorth, "north: the router port towards y - 1"},
    {Tok::KwSouth, "south: the router port towards y + 1"},
    {Tok::KwEast, "east: the router port towards x + 1"},
    {Tok::KwWest, "west: the router port towards x - 1"},
    {Tok::KwRamp, "ramp: the router port to and from the PE's own compute engine (rx ramp: the CE sends; tx ramp: it receives)"},
    {Tok::KwColour, "colour NAME = N: names one of the 24 routable colours (0..23), the fabric's virtual channels; "
                    "also the type of a colour parameter"},
    {Tok::KwConst, "const NAME = expr: a compile-time constant"},
    {Tok::KwVar, "var NAME: T [= init]: a variable in the PE's SRAM (arrays: [f32; N])"},
    {Tok::KwExport, "export: makes an SRAM variable visible to the host (fill, print), or a function launchable by it"},
    {Tok::KwFn, "fn NAME(params) [-> T] { ... }: a function; an exported fn with no parameters can be launched by the host"},
    {Tok::KwTask, "task NAME(v: T) on C { ... }: a data task, run once per wavelet arriving on colour C; "
                  "task NAME() { ... }: a local task, started by activate"},
    {Tok::KwOn, "on C: the colour whose wavelets trigger a data task"},
    {Tok::KwBlocked, "blocked: the task starts blocked; unblock(t) lets it run"},
    {Tok::KwDsd, "dsd NAME = mem(...) / fabin(...) / fabout(...): a named data structure descriptor — "
                 "the operand of a vector builtin: memory, or wavelets from or to the fabric"},
    {Tok::KwLet, "let x = expr: a register variable (block scoped)"},
    {Tok::KwIf, "if cond { ... } else { ... }; with a compile-time condition only the branch the PE takes is kept"},
    {Tok::KwElse, "else: the other branch of an if"},
    {Tok::KwWhile, "while cond { ... }: a loop"},
    {Tok::KwFor, "for i in a..b { ... }: an i32 counter from a up to b (excluded); bounds evaluated once"},
    {Tok::KwMap, "map i in a..b { op(...); }: one vector op on memory issued b - a times, as the hardware issues CSL's @map "
                 "(about a cycle a pass, no loop code): its mem() offsets and its scalar's index step by a constant each pass"},
    {Tok::KwIn, "in: the range of a for or map loop"},
    {Tok::KwReturn, "return [value]: leaves the function, or ends the task"},
    {Tok::KwBreak, "break: leaves the innermost loop"},
    {Tok::KwContinue, "continue: the next iteration of the innermost loop"},
    {Tok::KwAsync, "async OP(...): runs a vector op on a microthread (4 per PE) while the code goes on"},
    {Tok::KwThen, "then activate T / then unblock T: starts or unblocks a local task when the vector op completes"},
    {Tok::KwTrue, "true: the bool constant"},
    {Tok::KwFalse, "false: the bool constant"},
    {Tok::KwF32, "f32: a 32-bit IEEE float"},
    {Tok::KwI32, "i32: a 32-bit signed integer (arithmetic wraps)"},
    {Tok::KwU32, "u32: a 32-bit unsigned integer"},
    {Tok::KwBool, "bool: true or false"},
    {Tok::KwFill, "fill A at REGION with iota(start, step) / random(seed) / value(v) / [a, b, ...]: the host writes an exported array"},
    {Tok::KwLaunch, "launch F at REGION: the host starts exported function F on every PE of the region"},
    {Tok::KwRun, "run: the machine runs until nothing moves (quiescent); a fault stops it"},
    {Tok::KwPrint, "print A at REGION: the host prints an exported variable, one line per PE"},
};

const char* spelling(Tok t) {
    switch (t) {
#define WK_X(name, sp) \
    case Tok::Kw##name: return sp;
        WK_KEYWORDS(WK_X)
#undef WK_X
    default: return "";
    }
}

}  // namespace

std::string word_help(std::string_view word) {
    if (word.empty()) return "";
    for (const KeywordDoc& k : kKeywords)
        if (word == spelling(k.tok)) return k.doc;
    Op op;
    const Builtin b = builtin_of(word, &op);
    if (b == Builtin::None) return "";
    if (b == Builtin::Vector) {
        const OpInfo& o = op_info(op);
        return std::string(o.mnemonic) + vector_args(o.fmt).doc + ": " + o.doc + ". A vector op over n elements: " +
               std::to_string(o.base_cycles) + " + ceil(" + std::to_string(o.per_elem) +
               "·n / simd) cycles; operands are mem (SRAM) or fabin/fabout (wavelets) DSDs.";
    }
    const BuiltinInfo& info = builtin_info(b);
    if (info.op == Op::NOP) return std::string(info.call) + ": " + info.note + ".";
    const OpInfo& o = op_info(info.op);
    return std::string(info.call) + ": compiles to " + o.mnemonic + " — " + o.doc + ". " + std::to_string(o.base_cycles) + " cycle" +
           (o.base_cycles == 1 ? "" : "s") + (info.note[0] ? std::string("; ") + info.note : "") + ".";
}

std::string keyword_help_markdown() {
    std::string md = "| word | meaning |\n|---|---|\n";
    for (const KeywordDoc& k : kKeywords) md += std::string("| `") + spelling(k.tok) + "` | " + k.doc + " |\n";
    return md;
}

}  // namespace wl::lang
