// help.h: a sentence or two on each word of WaferKernel — keywords, types and
// builtins — for the editor's hover help and docs/kernel-language.md.
// Builtins are described from the same tables as their cost docs (WL_BUILTINS,
// WL_ISA); keywords from one table here, which a test checks covers every
// keyword the lexer knows and keeps the docs' keyword table current.
#pragma once
#include <string>
#include <string_view>

namespace wl::lang {

// "fmacs(dst, a, b, s: f32): dA[i] = dB[i] + dC[i] * rD. 1 + ceil(1·n / simd) cycles." —
// or "" when `word` is not a keyword, type or builtin.
std::string word_help(std::string_view word);

// The keywords and types as a Markdown table (docs/kernel-language.md holds this text).
std::string keyword_help_markdown();

}  // namespace wl::lang
