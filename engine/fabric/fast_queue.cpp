// fast_queue.cpp: fast mode's CE input queue (fast_queue.h).
#include "engine/fabric/fast_queue.h"

#include "engine/core/simd.h"
#include "engine/core/thread_local.h"

#include <new>
#include <utility>
#include <vector>

namespace wl {

namespace {
template <int W>
__attribute__((always_inline)) inline void add_delay_by(uint64_t* to, const uint64_t* from, size_t n, uint64_t delay) {
    typedef uint64_t V __attribute__((vector_size(8 * W)));
    size_t k = 0;
    for (; k + W <= n; k += W) {
        V v;
        std::memcpy(&v, from + k, sizeof v);
        v += delay;
        std::memcpy(to + k, &v, sizeof v);
    }
    for (; k < n; ++k) to[k] = from[k] + delay;
}
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
__attribute__((target("avx2"))) void add_delay4(uint64_t* to, const uint64_t* from, size_t n, uint64_t d) { add_delay_by<4>(to, from, n, d); }
__attribute__((target("avx512f"))) void add_delay8(uint64_t* to, const uint64_t* from, size_t n, uint64_t d) { add_delay_by<8>(to, from, n, d); }
#endif

// n words from `from` into memory from `to`, `step` bytes apart.
void put_words(uint8_t* to, int64_t step, const uint32_t* from, size_t n) {
    if (step == 4) {
        std::memcpy(to, from, n * 4);
    } else {
        for (size_t k = 0; k < n; ++k) std::memcpy(to + int64_t(k) * step, from + k, 4);
    }
}

// The latest of t and a[0, n): four running maxima, so the compares do not wait on each other.
uint64_t latest(const uint64_t* a, size_t n, uint64_t t) {
    uint64_t m[4] = {t, t, t, t};
    size_t k = 0;
    for (; k + 4 <= n; k += 4)
        for (int j = 0; j < 4; ++j) m[j] = std::max(m[j], a[k + size_t(j)]);
    for (; k < n; ++k) m[0] = std::max(m[0], a[k]);
    return std::max(std::max(m[0], m[1]), std::max(m[2], m[3]));
}
}  // namespace

void add_delay(uint64_t* to, const uint64_t* from, size_t n, uint64_t delay) {
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
    switch (simd_level()) {
    case Simd::Avx512: return add_delay8(to, from, n, delay);
    case Simd::Avx2: return add_delay4(to, from, n, delay);
    default: break;
    }
#endif
    add_delay_by<2>(to, from, n, delay);
}

namespace {
// Each thread keeps the blocks given back, by size class (room for 2^c wavelets, from 16), up to
// kKept bytes: a gpt-nano forward makes and gives back about 4,600 blocks, each a malloc and a
// free otherwise (3% of its host time in WebAssembly's dlmalloc). A block is its thread's, as its
// queues are (fast_queue.h).
constexpr int kClasses = 33;
constexpr size_t kKept = size_t(32) << 20;
size_t block_bytes(int c) { return sizeof(FastBlock) + (size_t(1) << c) * 12; }
WL_THREAD_LOCAL bool pool_gone = false;   // trivially destroyed: readable after the pool's end
struct BlockPool {
    std::vector<void*> free[kClasses];
    size_t bytes = 0;
    ~BlockPool() {
        for (auto& list : free)
            for (void* p : list) ::operator delete(p);
        pool_gone = true;   // a block given back after this (a queue of a static machine) is freed
    }
};
WL_THREAD_LOCAL BlockPool pool;
}  // namespace

void FastBlock::recycle(FastBlock* b) {
    const int c = b->size_class_;
    if (pool_gone || pool.bytes + block_bytes(c) > kKept) return ::operator delete(b);
    pool.bytes += block_bytes(c);
    pool.free[c].push_back(b);
}

FastBlock* FastBlock::make(const uint32_t* data, const uint64_t* at, uint32_t n) {
    int c = 4;
    while ((size_t(1) << c) < n) ++c;
    void* room;
    if (!pool_gone && !pool.free[c].empty()) {
        room = pool.free[c].back();
        pool.free[c].pop_back();
        pool.bytes -= block_bytes(c);
    } else {
        room = ::operator new(block_bytes(c));
    }
    FastBlock* b = new (room) FastBlock(n, uint8_t(c));
    std::memcpy(const_cast<uint64_t*>(b->at()), at, size_t(n) * 8);
    std::memcpy(const_cast<uint32_t*>(b->data()), data, size_t(n) * 4);
    uint64_t apart = 0;   // the bits where a stamp is not its first's plus its index (a loop the compiler vectorises)
    for (uint32_t k = 0; k < n; ++k) apart |= at[k] ^ (at[0] + k);
    b->consecutive_ = apart == 0;
    return b;
}

FastQueue::FastQueue(const FastQueue& o) {
    size_t r = 0;
    for (size_t e = 0; e < o.s_; ++e) {
        const size_t from = (o.head_ + e) & (o.cap_ - 1);
        if (o.ctrl_[from] != kRun) {
            push(FastWavelet{o.data_[from], o.ctrl_[from], o.at_[from]});
            continue;
        }
        const Run& run = o.runs_[(o.rhead_ + r++) & (o.rcap_ - 1)];
        for (uint32_t k = run.next; k < run.end; ++k) push(FastWavelet{run.b->data()[k], 0, run.b->at()[k] + run.delay});
    }
}

FastQueue::~FastQueue() {
    for (size_t r = 0; r < rn_; ++r) runs_[(rhead_ + r) & (rcap_ - 1)].b->release();
}

void FastQueue::swap(FastQueue& o) noexcept {
    std::swap(data_, o.data_), std::swap(at_, o.at_), std::swap(ctrl_, o.ctrl_);
    std::swap(cap_, o.cap_), std::swap(head_, o.head_), std::swap(s_, o.s_), std::swap(n_, o.n_);
    std::swap(runs_, o.runs_), std::swap(rcap_, o.rcap_), std::swap(rhead_, o.rhead_), std::swap(rn_, o.rn_);
    std::swap(ordered_, o.ordered_), std::swap(back_at_, o.back_at_);
}

// The slots move to the front of rings twice the size (or more); the runs' ring is apart.
void FastQueue::grow(size_t more) {
    size_t c = cap_ ? cap_ * 2 : 16;
    while (c - s_ < more) c *= 2;
    std::unique_ptr<uint32_t[]> data(new uint32_t[c]);
    std::unique_ptr<uint64_t[]> at(new uint64_t[c]);
    std::unique_ptr<uint8_t[]> ctrl(new uint8_t[c]);   // slots past s_ are read only after a push writes them
    for (size_t e = 0; e < s_; ++e) {
        const size_t from = (head_ + e) & (cap_ - 1);
        data[e] = data_[from], at[e] = at_[from], ctrl[e] = ctrl_[from];
    }
    data_ = std::move(data), at_ = std::move(at), ctrl_ = std::move(ctrl);
    cap_ = c, head_ = 0;
}

void FastQueue::push_block(const uint32_t* data, const uint64_t* at, size_t n, uint64_t delay) {
    if (cap_ - s_ < n) grow(n);
    if (n) note(at[0] + delay, at[n - 1] + delay);
    // The ring's two contiguous stretches from the back: no wrap per element.
    const size_t back = (head_ + s_) & (cap_ - 1), first = std::min(n, cap_ - back);
    const auto put = [&](size_t to, size_t from, size_t k) {
        std::memcpy(data_.get() + to, data + from, k * 4);
        add_delay(at_.get() + to, at + from, k, delay);
        std::memset(ctrl_.get() + to, 0, k);
    };
    put(back, 0, first);
    put(0, first, n - first);
    s_ += n, n_ += n;
}

void FastQueue::push_run(FastBlock* b, uint32_t begin, uint32_t end, uint64_t delay) {
    if (begin == end) return;
    if (s_ == cap_) grow(1);
    if (rn_ == rcap_) {
        const size_t c = rcap_ ? rcap_ * 2 : 4;
        std::unique_ptr<Run[]> runs(new Run[c]);
        for (size_t r = 0; r < rn_; ++r) runs[r] = runs_[(rhead_ + r) & (rcap_ - 1)];
        runs_ = std::move(runs), rcap_ = c, rhead_ = 0;
    }
    note(b->at()[begin] + delay, b->at()[end - 1] + delay);
    b->hold();
    runs_[(rhead_ + rn_++) & (rcap_ - 1)] = Run{b, begin, end, delay};
    ctrl_[(head_ + s_++) & (cap_ - 1)] = kRun;
    n_ += end - begin;
}

uint64_t FastQueue::pop_into(size_t n, uint8_t* to, int64_t step, uint64_t t) {
    n_ -= n;
    while (n) {
        size_t k;
        if (ctrl_[head_] != kRun) {
            k = singles(n);
            put_words(to, step, data_.get() + head_, k);
            t = ordered_ ? std::max(t, at_[head_ + k - 1]) : latest(at_.get() + head_, k, t);
            drop_slots(k);
        } else {
            Run& r = runs_[rhead_];
            k = std::min<size_t>(n, r.end - r.next);
            const uint64_t* const at = r.b->at() + r.next;
            put_words(to, step, r.b->data() + r.next, k);
            t = std::max(t, (ordered_ ? at[k - 1] : latest(at, k, 0)) + r.delay);
            if ((r.next += uint32_t(k)) == r.end) drop_run();
        }
        to += int64_t(k) * step, n -= k;
    }
    return t;
}

void FastQueue::pop_block(size_t n, uint32_t* data, uint64_t* at) {
    n_ -= n;
    while (n) {
        size_t k;
        if (ctrl_[head_] != kRun) {
            k = singles(n);
            std::memcpy(data, data_.get() + head_, k * 4);
            std::memcpy(at, at_.get() + head_, k * 8);
            drop_slots(k);
        } else {
            Run& r = runs_[rhead_];
            k = std::min<size_t>(n, r.end - r.next);
            std::memcpy(data, r.b->data() + r.next, k * 4);
            add_delay(at, r.b->at() + r.next, k, r.delay);
            if ((r.next += uint32_t(k)) == r.end) drop_run();
        }
        data += k, at += k, n -= k;
    }
}

}  // namespace wl
