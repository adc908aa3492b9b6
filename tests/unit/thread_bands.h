// thread_bands.h: a BandLink (engine/fabric/band.h) between threads of one process, for tests
// that split a mesh into bands without MPI: each band runs on its own thread, and every call
// meets the other bands' same call at a barrier.
#pragma once
#include "engine/fabric/band.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <string>
#include <vector>

namespace wl::test {

class ThreadBands {
public:
    explicit ThreadBands(int n) : slots_(size_t(n)) {
        for (int r = 0; r < n; ++r) links_.emplace_back(this, r);
    }
    BandLink& link(int rank) { return links_[size_t(rank)]; }

private:
    struct Slot {
        std::string up, down, mine;
        std::vector<uint64_t> v;
    };
    class Link final : public BandLink {
    public:
        Link(ThreadBands* t, int r) : t_(t), r_(r) {}
        int rank() const override { return r_; }
        int ranks() const override { return int(t_->slots_.size()); }
        void exchange(const std::string& up, const std::string& down, std::string* from_up, std::string* from_down) override {
            Slot& s = t_->slots_[size_t(r_)];
            s.up = up, s.down = down;
            t_->barrier();
            *from_up = r_ > 0 ? t_->slots_[size_t(r_ - 1)].down : std::string();
            *from_down = r_ + 1 < ranks() ? t_->slots_[size_t(r_ + 1)].up : std::string();
            t_->barrier();
        }
        void max(uint64_t* v, int n) override {
            t_->slots_[size_t(r_)].v.assign(v, v + n);
            t_->barrier();
            for (const Slot& s : t_->slots_)
                for (int k = 0; k < n; ++k) v[k] = std::max(v[k], s.v[size_t(k)]);
            t_->barrier();
        }
        std::vector<std::string> gather(const std::string& mine) override {
            t_->slots_[size_t(r_)].mine = mine;
            t_->barrier();
            std::vector<std::string> all;
            for (const Slot& s : t_->slots_) all.push_back(s.mine);
            t_->barrier();
            return all;
        }

    private:
        ThreadBands* t_;
        int r_;
    };

    // Every band's thread waits here until all have arrived. Yielding, not sleeping: a cycle is a
    // few microseconds of work, and a futex wake-up per barrier would cost more than the cycle.
    void barrier() {
        const uint64_t gen = gen_.load(std::memory_order_acquire);
        if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == slots_.size()) {
            arrived_.store(0, std::memory_order_relaxed);
            gen_.store(gen + 1, std::memory_order_release);
            return;
        }
        while (gen_.load(std::memory_order_acquire) == gen) std::this_thread::yield();
    }

    std::vector<Slot> slots_;
    std::vector<Link> links_;
    std::atomic<size_t> arrived_{0};
    std::atomic<uint64_t> gen_{0};
};

}  // namespace wl::test
