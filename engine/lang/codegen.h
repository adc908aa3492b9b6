// codegen.h: one checked program instance -> a wl::Program, through the
// engine's ProgramBuilder. Every instruction carries the line:col of the
// statement or expression it came from, so a fault maps back to the kernel.
#pragma once
#include "engine/fabric/program.h"
#include "engine/lang/sema.h"

#include <memory>

namespace wl::lang {

// optimise: immediate operands, folded address arithmetic and loops tested at the bottom
// (CompileOptions::optimise); the same results in fewer instructions.
std::shared_ptr<wl::Program> generate(File& f, Checked& c, Instance& in, const std::string& file, Diagnostics& d, bool optimise);

}  // namespace wl::lang
