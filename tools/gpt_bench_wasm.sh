#!/bin/sh
# gpt_bench_wasm.sh: gpt-micro training tokens/s of the reference GPT, native
# (one thread) against WASM under node, same harness (bench/gpt_bench.cpp).
# Each side is built by its CMake build with that build's flags (the top-level
# CMakeLists.txt; the web build's include -msimd128), so the figures are the
# ones users get.
#   tools/gpt_bench_wasm.sh [steps] [data-file]
# Needs build/native and build/web configured (make native, make web).
set -e
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"   # Emscripten's optimizer needs acorn
cd "$(dirname "$0")/.."
steps=${1:-20}
data=$2
for b in build/native build/web; do
  [ -f "$b/CMakeCache.txt" ] || { echo "configure $b first (make native, make web)"; exit 1; }
done
cmake --build build/native --target gpt_bench
cmake --build build/web --target gpt_bench
build/native/bench/gpt_bench "$steps" $data
node build/web/bench/gpt_bench.js "$steps" $data
