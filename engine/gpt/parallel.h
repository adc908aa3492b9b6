// parallel.h: a tiny fixed-size thread pool for the GPT reference.
//
// What it is: parallel_for(n, fn) splits [0, n) into contiguous chunks, one per
// thread, and waits. Callers give each thread disjoint outputs, each computed in
// a fixed order, so results never depend on the thread count.
// What it is not: a work-stealing scheduler, or a reduction primitive (never
// split a sum across threads; that would change the rounding).
// The WASM build is single-threaded: everything runs on the caller.
#pragma once
#include <functional>

namespace wl::gpt {

inline constexpr int kMaxThreads = 64;   // the pool's size at most (--threads' range)
void set_num_threads(int n);   // n <= 0: hardware concurrency (capped at kMaxThreads); always 1 in WASM
int num_threads();

// fn(begin, end) over [0, n) in chunks aligned to `grain`; runs inline when n is small.
void parallel_for(int n, int grain, const std::function<void(int, int)>& fn);

}  // namespace wl::gpt
