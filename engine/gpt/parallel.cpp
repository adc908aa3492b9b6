// parallel.cpp: see parallel.h. One persistent pool; workers sleep on a
// condition variable between jobs, so an idle pool costs nothing.
#include "engine/gpt/parallel.h"

#include <algorithm>

#ifndef __EMSCRIPTEN__
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>
#endif

namespace wl::gpt {

#ifdef __EMSCRIPTEN__

void set_num_threads(int) {}
int num_threads() { return 1; }
void parallel_for(int n, int, const std::function<void(int, int)>& fn) {
    if (n > 0) fn(0, n);
}

#else

namespace {

class Pool {
public:
    ~Pool() { resize(1); }

    int size() const { return int(workers_.size()) + 1; }

    void resize(int n) {
        {
            std::lock_guard<std::mutex> lk(mu_);
            stop_ = true;
            ++generation_;
        }
        cv_.notify_all();
        for (auto& t : workers_) t.join();
        workers_.clear();
        stop_ = false;
        for (int i = 1; i < n; ++i) workers_.emplace_back([this, i] { loop(i); });
    }

    // Chunk i of `chunks` goes to thread i (0 is the caller): a fixed mapping.
    void run(int chunks, const std::function<void(int)>& task) {
        {
            std::lock_guard<std::mutex> lk(mu_);
            task_ = &task;
            chunks_ = chunks;
            pending_ = chunks - 1;
            ++generation_;
        }
        cv_.notify_all();
        task(0);
        std::unique_lock<std::mutex> lk(mu_);
        done_cv_.wait(lk, [this] { return pending_ == 0; });
        task_ = nullptr;
    }

private:
    void loop(int id) {
        unsigned long long seen = 0;
        for (;;) {
            const std::function<void(int)>* task;
            {
                std::unique_lock<std::mutex> lk(mu_);
                cv_.wait(lk, [&] { return generation_ != seen; });
                seen = generation_;
                if (stop_) return;
                if (!task_ || id >= chunks_) continue;
                task = task_;
            }
            (*task)(id);
            std::lock_guard<std::mutex> lk(mu_);
            if (--pending_ == 0) done_cv_.notify_one();
        }
    }

    std::vector<std::thread> workers_;
    std::mutex mu_;
    std::condition_variable cv_, done_cv_;
    const std::function<void(int)>* task_ = nullptr;
    int chunks_ = 0, pending_ = 0;
    unsigned long long generation_ = 0;
    bool stop_ = false;
};

Pool& pool() {
    static Pool p;
    return p;
}
int g_threads = 1;
std::mutex g_run_mu;   // one parallel_for at a time (the pool is shared)

}  // namespace

void set_num_threads(int n) {
    if (n <= 0) n = int(std::thread::hardware_concurrency());
    n = std::clamp(n, 1, kMaxThreads);
    std::lock_guard<std::mutex> lk(g_run_mu);
    if (n != pool().size()) pool().resize(n);
    g_threads = n;
}

int num_threads() { return g_threads; }

void parallel_for(int n, int grain, const std::function<void(int, int)>& fn) {
    if (n <= 0) return;
    grain = std::max(grain, 1);
    int units = (n + grain - 1) / grain;
    int chunks = std::min(g_threads, units);
    if (chunks <= 1) { fn(0, n); return; }
    std::lock_guard<std::mutex> lk(g_run_mu);
    auto task = [&](int i) {
        int b = int((long long)units * i / chunks) * grain;
        int e = std::min(n, int((long long)units * (i + 1) / chunks) * grain);
        if (b < e) fn(b, e);
    };
    pool().run(chunks, task);
}

#endif

}  // namespace wl::gpt
