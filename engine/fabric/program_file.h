// program_file.h: a Program image as bytes, and back: every field, in order, so a program read
// back runs exactly as the one written. Reading checks each count against the bytes left,
// each enum against its range, and then the whole program with the validator the machine
// uses on load (program.h, validate_program): a program read here is one Machine::load takes.
// (The plan cache's files carry compiled kernels this way: engine/model/plan_file.h.)
#pragma once
#include "engine/core/byte_io.h"
#include "engine/fabric/program.h"

#include <memory>

namespace wl {


// base: a program the reader will have too (the previous PE's, in a kernel whose PEs differ in a
// few constants): code and source locations equal to base's at the same index are written as a
// count, not again. A matmul's 16 per-PE programs differ in about 1% of their instructions.
void write_program(ByteWriter& w, const Program& p, const Program* base = nullptr);
// The same base as the writer's. Throws ByteError naming what is wrong ("program gelu.wk: unknown opcode").
std::shared_ptr<const Program> read_program(ByteReader& r, uint32_t sram_bytes, const Program* base = nullptr);

}  // namespace wl
