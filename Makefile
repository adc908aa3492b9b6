# WaferLab: short commands over CMake. Run ./tools/setup once first (it is idempotent).
#   make serve     build the web app and the docs site, serve them on http://127.0.0.1:8000/ (docs at /docs/)
#   make docs      the documentation site from docs/ (Debian's mkdocs), with live demos (build/site)
#   make test      every test: native, WASM under node, browser, native GUI smoke, ASan+UBSan
#   make native    engine, CLI, app and tests, native       (build/native)
#   make web       engine, app and tests, WebAssembly       (build/web)
#   make app       run the native app
#   make sanitize  the native tests under ASan + UBSan      (build/asan)
#   make test-slow tests too slow for `make test`: 200 steps of gpt-nano on the mesh against the reference
#   make screenshot  regenerate docs/screenshot.png (SUMMA mid-run) from the native app under Xvfb
#   make fuzz      fuzz one reader with libFuzzer + ASan/UBSan: TARGET=compile|checkpoint|config|bpe|llmc|workspace|share|plan
#                  (FUZZ_SECONDS=60; seeds in tests/fuzz/corpus/, crashes in build/fuzz/crashes/)
#   make bench-web the web app's frame rate idle, editing and training; frame times running a 32 x 32 SUMMA, a 64 x 64 one, gpt-nano training and generation (headless Chromium)
#   make soak      the web app loops SUMMA with rewinds, resets and example switches for SOAK_MINUTES (30),
#                  sampling the WASM and JS heaps each minute (not in CI; docs/reliability.md)
MAKEFLAGS += --no-print-directory
JOBS  ?= $(shell nproc)
PORT  ?= 8000
NATIVE := build/native
WEB    := build/web
ASAN   := build/asan
FUZZ   := build/fuzz
FUZZ_SECONDS ?= 60
# libFuzzer's -timeout counts wall-clock seconds: at idle priority on a shared machine, inputs that
# take 0.1 s alone were reported as hangs at 10 s (docs/reliability.md), so the limit is generous.
FUZZ_TIMEOUT ?= 120
TARGET ?= compile
SOAK_MINUTES ?= 30
export NODE_PATH := /usr/share/nodejs

.PHONY: all native web docs serve app test test-native test-slow test-web test-browser sanitize fuzz soak screenshot bench-web node-bench clean

all: native web

native:
	cmake -S . -B $(NATIVE) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(NATIVE) -j$(JOBS)

web:
	emcmake cmake -S . -B $(WEB) -DCMAKE_BUILD_TYPE=Release -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node
	cmake --build $(WEB) -j$(JOBS)

docs:
	mkdocs build -q -f mkdocs.yml -d build/site

serve: web docs
	node web/serve.mjs --root $(WEB)/ui --docs build/site --port $(PORT)

app: native
	$(NATIVE)/ui/waferlab

test: test-native test-web test-browser sanitize
	@echo "make test: all suites passed"

test-native: native
	ctest --test-dir $(NATIVE) --output-on-failure -j$(JOBS) -LE slow

test-slow: native
	ctest --test-dir $(NATIVE) --output-on-failure -L slow

test-web: web
	ctest --test-dir $(WEB) --output-on-failure -j$(JOBS)

# node --test runs nproc - 1 files at a time: one on two cores, where a file's node and Chromium
# use well under both. $(JOBS) at once instead where node has the option (20.10 or later; Debian
# 12's own node 18 keeps its default; docs/testing.md).
NODE_TEST_JOBS := $(shell node --test-concurrency=1 -e 0 >/dev/null 2>&1 && echo --test-concurrency=$(JOBS))
test-browser: web
	node --test $(NODE_TEST_JOBS) tests/web/

sanitize:
	cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DWAFERLAB_SANITIZE=ON -DWAFERLAB_APP=OFF
	cmake --build $(ASAN) -j$(JOBS)
	ctest --test-dir $(ASAN) --output-on-failure -j$(JOBS) -LE slow

# Each target: its seeds (committed, read-only) and a working corpus under build/fuzz that grows.
FUZZ_SEEDS_compile    := examples tests/kernels/errors tests/kernels/adversarial
FUZZ_FLAGS_compile    := -max_len=4096 -dict=tests/fuzz/wk.dict
FUZZ_FLAGS_checkpoint := -max_len=65536
FUZZ_FLAGS_config     := -max_len=4096
FUZZ_FLAGS_bpe        := -max_len=16384 -dict=tests/fuzz/json.dict
FUZZ_FLAGS_llmc       := -max_len=65536
FUZZ_FLAGS_workspace  := -max_len=8192 -dict=tests/fuzz/json.dict
FUZZ_FLAGS_share      := -max_len=8192 -dict=tests/fuzz/json.dict
FUZZ_FLAGS_plan       := -max_len=131072
fuzz:
	@test -f tests/fuzz/fuzz_$(TARGET).cpp || { echo "make fuzz: no target '$(TARGET)'; one of: compile checkpoint config bpe llmc workspace share plan"; exit 2; }
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(FUZZ) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWAFERLAB_FUZZ=ON \
	  -DWAFERLAB_SANITIZE=ON -DWAFERLAB_APP=OFF
	cmake --build $(FUZZ) -j$(JOBS) --target fuzz_$(TARGET)
	mkdir -p $(FUZZ)/corpus/$(TARGET) $(FUZZ)/crashes/$(TARGET)
	$(FUZZ)/tests/fuzz_$(TARGET) -max_total_time=$(FUZZ_SECONDS) -timeout=$(FUZZ_TIMEOUT) -rss_limit_mb=2048 $(FUZZ_FLAGS_$(TARGET)) \
	  -artifact_prefix=$(FUZZ)/crashes/$(TARGET)/ -print_final_stats=1 \
	  $(FUZZ)/corpus/$(TARGET) $(or $(FUZZ_SEEDS_$(TARGET)),tests/fuzz/corpus/$(TARGET))

screenshot: native
	xvfb-run -a -s "-screen 0 1280x720x24" $(NATIVE)/ui/waferlab --example summa --play 15 --frames 150 --no-persist --screenshot docs/screenshot.png

bench-web: web
	node bench/fps_web.mjs
	node bench/app_frames.mjs
	node bench/train_web.mjs
	node bench/generate_web.mjs
	node bench/summa_web.mjs

# The CLI's fabric, mesh-gpt and fast benches in the web build, under node (docs/performance.md,
# "WebAssembly against native"): node build/web/bench/node_bench.js mesh-gpt --json
node-bench: web
	cmake --build $(WEB) --target node_bench

soak: web
	node bench/soak.mjs --minutes $(SOAK_MINUTES)

clean:
	rm -rf build
