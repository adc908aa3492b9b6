// swarmx.cpp: see swarmx.h.
#include "engine/model/swarmx.h"

#include "engine/gpu/wafer_estimate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace wl::model {

SwarmXLinks cs_links() {
    const gpu::WaferSpec cs = gpu::wse2();
    return {cs.io_bytes_per_s, cs.clock_hz};
}

int SwarmXLinks::depth(int wafers) const {
    int d = 0;
    while ((1 << d) < wafers) d++;
    return d;
}

uint64_t SwarmXLinks::cycles(uint64_t bytes, int wafers) const {
    if (bytes == 0 || wafers < 2) return 0;
    const double per_level = std::ceil(double(bytes) / bytes_per_s * clock_hz);
    return uint64_t(depth(wafers)) * uint64_t(per_level);
}

SwarmX::SwarmX(const MeshPlan& plan, const gpt::GPT& model, int wafers, RunMode mode, const SwarmXLinks& links)
    : links_(links) {
    if (wafers < 1 || wafers > kMaxWafers)
        throw std::invalid_argument("swarmx: " + std::to_string(wafers) + " wafers; 1 to " + std::to_string(kMaxWafers) +
                                    " run in one process");
    if (links.bytes_per_s <= 0 || links.clock_hz <= 0)
        throw std::invalid_argument("swarmx: the links need a bandwidth and a clock above zero");
    for (int k = 0; k < wafers; k++) wafers_.push_back(std::make_unique<MeshTrainer>(plan, model, mode));
}

std::string SwarmX::split_error(int B, int wafers) {
    if (B >= wafers && B % wafers == 0) return "";
    return "swarmx: a batch of B = " + std::to_string(B) + " sequences does not split over N = " + std::to_string(wafers) +
           " wafers (B must be a multiple of N)";
}

uint64_t SwarmX::gradient_bytes() const { return uint64_t(gpt::count_parameters(wafer(0).mesh().plan().cfg)) * sizeof(float); }

void SwarmX::write_all(MeshTrainer::State state, std::vector<float>* buf) {
    for (auto& w : wafers_) w->transfer(state, buf, true);
}

void SwarmX::set_updates(int64_t t) {
    for (auto& w : wafers_) w->set_updates(t);
}

bool SwarmX::step(const int* inputs, const int* targets, int B, int T, double lr, SwarmXStep* out) {
    const int N = wafers();
    error_ = split_error(B, N);
    if (!error_.empty()) return false;
    const auto start = std::chrono::steady_clock::now();
    const int b = B / N;
    SwarmXStep s;
    s.wafers = N;
    // 1. Each wafer's shard, its loss weighted by the whole batch (1/(B*T)).
    float lsum = 0;
    for (int k = 0; k < N; k++) {
        float shard_loss = 0;
        const size_t at = size_t(k) * b * T;
        if (!wafers_[size_t(k)]->backward(inputs + at, targets + at, b, T, &shard_loss, B * T)) {
            error_ = "swarmx: wafer " + std::to_string(k) + ": " + wafers_[size_t(k)]->error();
            return false;
        }
        // The shards' loss sums in wafer order (the reference's sum runs over the sequences in order).
        lsum = k == 0 ? wafers_[0]->loss_sum() : lsum + wafers_[size_t(k)]->loss_sum();
    }
    s.loss = lsum / float(B * T);   // crossentropy.wk's division
    // 2. The reduce and the broadcast. Floating-point addition is not associative: summing in a
    // fixed order (wafer 0, then 1, ...), not in the order the wafers finish, makes the sum, and
    // every weight after it, the same bits on every run and every platform.
    if (N > 1) {
        wafers_[0]->read_grads(&sum_);
        for (int k = 1; k < N; k++) {
            wafers_[size_t(k)]->read_grads(&grads_);
            for (size_t i = 0; i < sum_.size(); i++) sum_[i] += grads_[i];
        }
        write_all(MeshTrainer::State::Grads, &sum_);
        const uint64_t G = gradient_bytes();
        s.swarmx_bytes = 2 * uint64_t(N) * G;
        s.swarmx_cycles = links_.cycles(G, N) + links_.cycles(G, N);   // up the tree, then down it
    }
    // 3. The norm, the clipping and AdamW on every wafer's PEs, from the same gradients.
    for (int k = 0; k < N; k++) {
        MeshTrainer& w = *wafers_[size_t(k)];
        float norm = 0;
        if (!w.update(lr, &norm)) {
            error_ = "swarmx: wafer " + std::to_string(k) + ": " + w.error();
            return false;
        }
        const TrainStep& st = w.last_step();
        if (k == 0) s.grad_norm = norm;
        else if (std::memcmp(&norm, &s.grad_norm, sizeof norm) != 0) {
            error_ = "swarmx: wafer " + std::to_string(k) + "'s gradient norm " + std::to_string(norm) +
                     " differs from wafer 0's " + std::to_string(s.grad_norm);
            return false;
        }
        s.compute_cycles = std::max(s.compute_cycles, st.cycles);
        s.instructions += st.instructions;
        s.host_bytes += st.host_bytes;
        s.stream_bytes += st.stream_bytes;
        s.stream_cycles = std::max(s.stream_cycles, st.stream_cycles);
    }
    // Every wafer holds the same weights: checked, not assumed.
    if (N > 1) {
        wafers_[0]->read_params(&params0_);
        for (int k = 1; k < N; k++) {
            wafers_[size_t(k)]->read_params(&params_);
            if (std::memcmp(params_.data(), params0_.data(), params0_.size() * sizeof(float)) == 0) continue;
            size_t i = 0;
            while (std::memcmp(&params_[i], &params0_[i], sizeof(float)) == 0) i++;
            error_ = "swarmx: after the update wafer " + std::to_string(k) + "'s weights differ from wafer 0's (first at parameter " +
                     std::to_string(i) + ")";
            return false;
        }
    }
    s.cycles = s.compute_cycles + s.swarmx_cycles;
    s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    *out = s;
    return true;
}

}  // namespace wl::model
