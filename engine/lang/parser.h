// parser.h: tokens -> File. Recursive descent with panic-mode recovery: an
// error skips to the next statement or declaration, so one pass reports many.
// Nesting (blocks and expressions) is bounded, so hostile input cannot blow
// the stack of the parser or of any later pass.
#pragma once
#include "engine/lang/ast.h"
#include "engine/lang/diagnostics.h"

#include <vector>

namespace wl::lang {

constexpr int kMaxNesting = 200;      // blocks + expression height

File parse(const std::vector<Token>& toks, Diagnostics& diags);

}  // namespace wl::lang
