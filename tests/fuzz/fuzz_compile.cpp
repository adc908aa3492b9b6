// fuzz_compile.cpp: libFuzzer target for the WaferKernel compiler. Any input
// must give diagnostics, never a crash, a hang or a sanitizer report. Inputs
// that compile (on a small grid) are also run with a small cycle budget, so
// code generation and the engine's program validation are fuzzed too.
//
// Build (Debian clang-14), from the repository root:
//   clang++-14 -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. \
//     tests/fuzz/fuzz_compile.cpp engine/lang/*.cpp engine/fabric/*.cpp engine/core/*.cpp -o build/fuzz_compile
//   build/fuzz_compile -max_total_time=1800 -max_len=4096 -dict=tests/fuzz/wk.dict tests/fuzz/corpus examples tests/kernels/errors
#include "engine/lang/compile.h"
#include "engine/lang/run.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view src(reinterpret_cast<const char*>(data), size);
    wl::lang::CompileResult r = wl::lang::compile(src, "fuzz.wk");
    if (r.ok() && r.grid_w * r.grid_h <= 64) {
        wl::lang::RunOptions opt;
        opt.cycle_budget = 20000;
        wl::lang::RunReport rep = wl::lang::run_kernel(r, opt);
        (void)rep;
    }
    return 0;
}
