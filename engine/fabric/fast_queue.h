// fast_queue.h: fast mode's CE input queue, a FIFO of wavelets stamped with the cycle each is
// visible at its CE (fast_mode.h).
//
// A multicast sends the same block of data to every CE on its path, each seeing it a few hops
// later. The block is written once (FastBlock) and each queue it reaches holds a run of it and
// its own delay, not a copy: a row's broadcast to P receivers writes its words once, not P times,
// and the receivers read the same cache lines.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

namespace wl {

// to[k] = from[k] + delay for k < n: a block's stamps as it joins a queue down its path, in the
// widest vectors the CPU has (simd.h; integer adds, so every width gives the same stamps).
void add_delay(uint64_t* to, const uint64_t* from, size_t n, uint64_t delay);

struct FastWavelet {
    uint32_t data;
    uint32_t ctrl;      // 1 = control wavelet
    uint64_t at;        // the cycle it is visible at its CE (or reaches its router, while held)
};

// Data wavelets sent together along one path, and the cycles they entered it (nondecreasing),
// in one allocation. The queues holding a run of it count themselves in refs; the last to take
// its run gives it back (to the thread's free blocks of its size, for the next make()). One
// machine's: the count is not atomic, so a copied queue holds its own wavelets, never a block of
// the original's.
class alignas(8) FastBlock {   // 8: its stamps follow it
public:
    static FastBlock* make(const uint32_t* data, const uint64_t* at, uint32_t n);
    uint32_t size() const { return n_; }
    // Its stamps one cycle apart (a send from memory's, and a relay's of them): a relay sends a
    // run of it on unchanged, as a run of the same block with a later delay.
    bool consecutive() const { return consecutive_; }
    const uint64_t* at() const { return reinterpret_cast<const uint64_t*>(this + 1); }
    const uint32_t* data() const { return reinterpret_cast<const uint32_t*>(at() + n_); }
    void hold() { ++refs_; }
    void release() {
        if (--refs_ == 0) recycle(this);
    }

private:
    FastBlock(uint32_t n, uint8_t size_class) : n_(n), size_class_(size_class) {}
    static void recycle(FastBlock* b);   // to this thread's free blocks of its size class (fast_queue.cpp)
    uint32_t refs_ = 0, n_;
    bool consecutive_ = false;
    uint8_t size_class_;                 // room for 2^size_class_ wavelets
};
static_assert(sizeof(FastBlock) % 8 == 0, "a block's stamps start 8-byte aligned");

// A FIFO on a ring of slots that doubles when full: its storage is the most it ever held at once,
// however many wavelets pass through it. A slot is one wavelet, or a run of a shared block (its
// next and end, and the queue's delay, in a second ring in the same order). A wavelet's data,
// stamp and control bit lie in three arrays, so a block of data moves as a copy and its stamps as
// one vectorised loop. While its stamps are in order (one sender's wavelets, as they nearly
// always are) the latest of a run taken is its last.
class FastQueue {
public:
    FastQueue() = default;
    FastQueue(FastQueue&& o) noexcept { swap(o); }
    FastQueue& operator=(FastQueue&& o) noexcept {
        FastQueue t(std::move(o));
        swap(t);
        return *this;
    }
    FastQueue(const FastQueue& o);   // the same wavelets, each its own slot: no block shared with o
    FastQueue& operator=(const FastQueue& o) { return *this = FastQueue(o); }
    ~FastQueue();

    bool empty() const { return n_ == 0; }
    size_t size() const { return n_; }   // wavelets
    FastWavelet front() const {
        if (ctrl_[head_] != kRun) return FastWavelet{data_[head_], ctrl_[head_], at_[head_]};
        const Run& r = runs_[rhead_];
        return FastWavelet{r.b->data()[r.next], 0, r.b->at()[r.next] + r.delay};
    }
    uint64_t front_at() const {
        if (ctrl_[head_] != kRun) return at_[head_];
        const Run& r = runs_[rhead_];
        return r.b->at()[r.next] + r.delay;
    }
    void push(const FastWavelet& w) {
        if (s_ == cap_) grow(1);
        note(w.at, w.at);
        const size_t k = (head_ + s_++) & (cap_ - 1);
        data_[k] = w.data, at_[k] = w.at, ctrl_[k] = uint8_t(w.ctrl);
        ++n_;
    }
    FastWavelet pop() {
        const FastWavelet w = front();
        --n_;
        if (ctrl_[head_] != kRun) drop_slots(1);
        else if (++runs_[rhead_].next == runs_[rhead_].end) drop_run();
        return w;
    }
    // n data wavelets at the back, stamped at[k] + delay (at nondecreasing), copied.
    void push_block(const uint32_t* data, const uint64_t* at, size_t n, uint64_t delay);
    // b's wavelets [begin, end) at the back, stamped b->at()[k] + delay: one slot, b shared.
    void push_run(FastBlock* b, uint32_t begin, uint32_t end, uint64_t delay);
    // The head, when it is a run: its block, first wavelet, wavelets left and delay.
    struct RunView {
        FastBlock* b;
        uint32_t next, left;
        uint64_t delay;
    };
    bool head_run(RunView* r) const {
        if (!n_ || ctrl_[head_] != kRun) return false;
        const Run& h = runs_[rhead_];
        *r = RunView{h.b, h.next, h.end - h.next, h.delay};
        return true;
    }
    // The first k wavelets, all of the head's run, taken unread (a caller that keeps the block holds it).
    void skip(uint32_t k) {
        n_ -= k;
        if ((runs_[rhead_].next += k) == runs_[rhead_].end) drop_run();
    }
    // The first n, all data, into memory from `to`, `step` bytes apart. Returns the latest of t and their stamps.
    uint64_t pop_into(size_t n, uint8_t* to, int64_t step, uint64_t t);
    // The first n, all data, in order: their data into data[] and their stamps into at[].
    void pop_block(size_t n, uint32_t* data, uint64_t* at);

    size_t room() const { return cap_; }   // slots its ring holds
    // Empty and holding room for more than `keep`: its storage goes.
    void shrink(size_t keep) {
        if (n_ == 0 && cap_ > keep) *this = FastQueue();
    }

private:
    static constexpr uint8_t kRun = 2;   // a slot's control byte: the slot is runs_'s next
    struct Run {
        FastBlock* b;
        uint32_t next, end;   // b's wavelets [next, end) are still queued
        uint64_t delay;       // each visible at b->at()[k] + delay
    };
    void swap(FastQueue& o) noexcept;
    // Stamps first..last arrive at the back: still in order if first is not before the last one's.
    void note(uint64_t first, uint64_t last) {
        ordered_ = n_ == 0 || (ordered_ && first >= back_at_);
        back_at_ = last;
    }
    void grow(size_t more);                // room for `more` slots past those used, in one step
    void drop_slots(size_t k) {            // the k at the head, taken
        head_ = (head_ + k) & (cap_ - 1);
        s_ -= k;
    }
    void drop_run() {                      // the head slot, a run whose last wavelet was taken
        runs_[rhead_].b->release();
        rhead_ = (rhead_ + 1) & (rcap_ - 1);
        --rn_;
        drop_slots(1);
    }
    // How many of the head's slots, up to n, are single wavelets in one stretch of the ring.
    size_t singles(size_t n) const {
        const size_t lim = std::min(n, cap_ - head_);
        if (!rn_) return lim;
        const void* run = std::memchr(ctrl_.get() + head_, kRun, lim);
        return run ? size_t(static_cast<const uint8_t*>(run) - ctrl_.get()) - head_ : lim;
    }

    std::unique_ptr<uint32_t[]> data_;
    std::unique_ptr<uint64_t[]> at_;
    std::unique_ptr<uint8_t[]> ctrl_;
    size_t cap_ = 0, head_ = 0, s_ = 0;    // slots: 0 or a power of two, the head, in use
    size_t n_ = 0;                         // wavelets
    std::unique_ptr<Run[]> runs_;
    size_t rcap_ = 0, rhead_ = 0, rn_ = 0;
    bool ordered_ = true;    // stamps nondecreasing from the head to the back
    uint64_t back_at_ = 0;   // the back's stamp
};

}  // namespace wl
