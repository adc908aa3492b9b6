// gpt_bench.cpp: gpt-micro training throughput, one thread, built by the native
// and the web build with their own flags (bench/CMakeLists.txt), so
// tools/gpt_bench_wasm.sh compares what users get. Prints one JSON line.
//   usage: gpt_bench [steps] [data-file]   (no file: the generated stories corpus)
#include "engine/gpt/matmul.h"
#include "engine/gpt/trainer.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
    using namespace wl::gpt;
    const int steps = argc > 1 ? std::atoi(argv[1]) : 20;
    GPTConfig cfg;   // gpt-micro's shape and settings are the defaults
    if (argc > 2) {
        cfg.corpus = "file";
        cfg.data = argv[2];
    }
    Trainer tr(cfg);
    for (int i = 0; i < 2; i++) tr.train_step();
    auto t0 = std::chrono::steady_clock::now();
    float loss = 0;
    for (int i = 0; i < steps; i++) loss = tr.train_step();
    double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
#ifdef __EMSCRIPTEN__
    const char* platform = "wasm";
#else
    const char* platform = "native";
#endif
    std::printf("{\"platform\":\"%s\",\"kernels\":\"%s\",\"steps\":%d,\"tokens_per_s\":%.1f,\"ms_per_step\":%.2f,"
                "\"last_loss\":%.6f}\n",
                platform, gemm_isa(), steps, steps * double(tr.tokens_per_step()) / dt, 1000 * dt / steps, loss);
    return 0;
}
