#!/bin/sh
# gpt_bench_wasm.sh: gpt-micro training tokens/s of the reference GPT, native
# (one thread) against WASM under node, same harness (tools/gpt_bench_wasm.cpp).
#   tools/gpt_bench_wasm.sh [steps] [data-file]
# Needs em++ (Emscripten) and node; writes binaries under build/gpt-bench-wasm/.
set -e
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"   # Emscripten's optimizer needs acorn
cd "$(dirname "$0")/.."
steps=${1:-20}
data=$2
out=build/gpt-bench-wasm
mkdir -p "$out"
sysinc=$(ls -d build/*/sysinc 2>/dev/null | head -1)
[ -n "$sysinc" ] || { echo "configure any CMake build first (for build/*/sysinc)"; exit 1; }
srcs="$(ls engine/gpt/*.cpp) tools/gpt_bench_wasm.cpp"
flags="-std=c++20 -O3 -DNDEBUG -ffp-contract=off -fno-fast-math -I. -isystem $sysinc"
g++ $flags $srcs -o "$out/native" -pthread
em++ $flags $srcs -o "$out/wasm.js" -sWASM_ASYNC_COMPILATION=0 -sALLOW_MEMORY_GROWTH=1 -sNODERAWFS=1 -sEXIT_RUNTIME=1
"$out/native" "$steps" $data
node "$out/wasm.js" "$steps" $data
