// swarmx.cpp: see swarmx.h.
#include "engine/model/swarmx.h"

#include "engine/core/byte_io.h"
#include "engine/fabric/wafer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace wl::model {

nlohmann::json to_json(const SwarmXStep& s) {
    nlohmann::json shards = nlohmann::json::array();
    for (const SwarmXShard& sh : s.shards)
        shards.push_back({{"loss", sh.loss}, {"cycles", sh.cycles}, {"stream_bytes", sh.stream_bytes}, {"stream_cycles", sh.stream_cycles}});
    return {{"loss", s.loss},
            {"grad_norm", s.grad_norm},
            {"cycles", s.cycles},
            {"wafer_s", double(s.cycles) / kClockHz},
            {"step_s", s.seconds},
            {"instructions", s.instructions},
            {"host_bytes", s.host_bytes},
            {"compute_cycles", s.compute_cycles},
            {"stream_bytes", s.stream_bytes},
            {"stream_cycles", s.stream_cycles},
            {"swarmx_bytes", s.swarmx_bytes},
            {"swarmx_cycles", s.swarmx_cycles},
            {"wafers", s.wafers},
            {"applied", s.applied},
            {"shards", shards}};
}

SwarmXLinks cs_links() {
    return {wse2_facts().io_bytes_per_s, kClockHz};
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

SwarmX::SwarmX(const MeshPlan& plan, const gpt::GPT& model, int wafers, RunMode mode, const SwarmXLinks& links, Ranks* ranks)
    : ranks_(ranks), links_(links) {
    if (wafers < 1 || wafers > kMaxWafers)
        throw std::invalid_argument("swarmx: " + std::to_string(wafers) + " wafers; 1 to " + std::to_string(kMaxWafers) +
                                    " run in one process");
    if (ranks && ranks->ranks() != wafers)
        throw std::invalid_argument("swarmx: " + std::to_string(wafers) + " wafers over " + std::to_string(ranks->ranks()) +
                                    " ranks: one wafer a rank (mpirun -np " + std::to_string(wafers) + ")");
    if (ranks && plan.streaming)
        throw std::invalid_argument("swarmx: streamed wafers share one store (MemoryX), which lives in one process: "
                                    "over ranks only resident plans train (wafer.execution: resident)");
    check_links();
    first_ = ranks ? ranks->rank() : 0;
    for (int k = 0; k < (ranks ? 1 : wafers); k++) {
        auto w = std::make_unique<MeshTrainer>(plan, mode, MeshGPT::InSteps{});
        if (k > 0 && plan.streaming) w->share_store(*wafers_[0]);   // one MemoryX: its weights loaded once
        while (w->load_step(model)) {
        }
        wafers_.push_back(std::move(w));
    }
}

SwarmX::SwarmX(std::vector<std::unique_ptr<MeshTrainer>> wafers, const SwarmXLinks& links)
    : wafers_(std::move(wafers)), links_(links) {
    const int n = int(wafers_.size());
    if (n < 1 || n > kMaxWafers)
        throw std::invalid_argument("swarmx: " + std::to_string(n) + " wafers; 1 to " + std::to_string(kMaxWafers) +
                                    " run in one process");
    check_links();
    for (int k = 0; k < n; k++)
        if (!wafers_[size_t(k)] || !wafers_[size_t(k)]->loaded())
            throw std::invalid_argument("swarmx: wafer " + std::to_string(k) + " is not loaded (MeshTrainer::load_step until loaded())");
        else if (k > 0 && wafers_[0]->mesh().plan().streaming && &wafers_[size_t(k)]->store() != &wafers_[0]->store())
            throw std::invalid_argument("swarmx: streamed wafer " + std::to_string(k) + " has a store of its own (MeshTrainer::share_store)");
}

void SwarmX::check_links() const {
    if (links_.bytes_per_s <= 0 || links_.clock_hz <= 0)
        throw std::invalid_argument("swarmx: the links need a bandwidth and a clock above zero");
}

const char* swarmx_stage_name(SwarmXStage s) {
    static const char* kNames[] = {"idle", "shard", "reduce", "update", "check"};
    return kNames[int(s)];
}

std::string SwarmX::split_error(int B, int wafers) {
    if (B >= wafers && B % wafers == 0) return "";
    return "swarmx: a batch of B = " + std::to_string(B) + " sequences does not split over N = " + std::to_string(wafers) +
           " wafers (B must be a multiple of N)";
}

uint64_t SwarmX::gradient_bytes() const { return uint64_t(wafers_[0]->own_parameters()) * sizeof(float); }

std::vector<std::string> SwarmX::every_wafer(std::vector<std::string> here) const {
    if (!ranks_) return here;
    return ranks_->gather(here.at(0));   // one wafer a rank: rank k's is wafer k's
}

// A float vector as a blob and back (every_wafer's), bit for bit.
static std::string floats_blob(const std::vector<float>& v) { return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)); }
static std::vector<float> blob_floats(const std::string& b) {
    std::vector<float> v(b.size() / sizeof(float));
    std::memcpy(v.data(), b.data(), v.size() * sizeof(float));
    return v;
}

void SwarmX::write_all(MeshTrainer::State state, std::vector<float>* buf) {
    for (auto& w : wafers_) w->transfer(state, buf, true);
}

void SwarmX::set_updates(int64_t t) {
    for (auto& w : wafers_) w->set_updates(t);
}

bool SwarmX::step(const int* inputs, const int* targets, int B, int T, double lr, SwarmXStep* out) {
    if (!begin_step(inputs, targets, B, T, lr)) return false;
    while (stepping())
        if (!run_slice(1 << 20)) return false;
    *out = last_;
    return true;
}

bool SwarmX::begin_step(const int* inputs, const int* targets, int B, int T, double lr) {
    if (stepping()) {
        error_ = "swarmx: a step is still in progress (run_slice until stepping() is false)";
        return false;
    }
    error_ = split_error(B, wafers());
    if (!error_.empty()) return false;
    inputs_.assign(inputs, inputs + size_t(B) * size_t(std::max(T, 0)));
    targets_.assign(targets, targets + inputs_.size());
    B_ = B, T_ = T, lr_ = lr;
    cur_ = SwarmXStep{};
    cur_.wafers = wafers();
    cur_.shards.assign(size_t(wafers()), SwarmXShard{});
    lsum_ = 0;
    units_ = 0;
    stage_ = SwarmXStage::Shard;
    k_ = 0;
    queued_ = false;
    return true;
}

bool SwarmX::fail(int wafer, const std::string& why) {
    error_ = "swarmx: " + (wafer >= 0 ? "wafer " + std::to_string(wafer) + ": " : std::string()) + why;
    stage_ = SwarmXStage::Idle;
    return false;
}

bool SwarmX::run_slice(int units) {
    for (int i = 0; i < units && stepping(); i++) {
        const auto start = std::chrono::steady_clock::now();
        const bool ok = unit();
        units_++;
        cur_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!ok) return false;
    }
    return true;
}

// One unit, in step()'s order:
//   1. Shard: each wafer's shard, its loss weighted by the whole batch (1/(B*T)), a launch a unit.
//   2. Reduce: the gradients summed and the sum broadcast back (one unit).
//   3. Update: the norm, the clipping and AdamW on every wafer's PEs, from the same gradients.
//   4. Check: every wafer holds the same weights (one unit).
bool SwarmX::unit() {
    const int N = wafers(), here = int(wafers_.size());
    MeshTrainer* w = k_ < here ? wafers_[size_t(k_)].get() : nullptr;
    switch (stage_) {
    case SwarmXStage::Idle: return true;
    case SwarmXStage::Shard: {
        const int b = B_ / N;
        if (!queued_) {
            const size_t at = size_t(first_ + k_) * size_t(b) * size_t(T_);
            if (!w->begin_backward(inputs_.data() + at, targets_.data() + at, b, T_, B_ * T_)) return fail(first_ + k_, w->error());
            queued_ = true;
            if (k_ == 0) here_.clear();
        }
        if (!w->run_slice(1)) return fail(first_ + k_, w->error());
        if (w->busy()) return true;
        here_.push_back(floats_blob({w->loss_sum()}));
        queued_ = false;
        if (++k_ < here) return true;
        k_ = 0;
        // The shards' loss sums in wafer order (the reference's sum runs over the sequences in order).
        const std::vector<std::string> all = every_wafer(std::move(here_));
        for (int k = 0; k < N; k++) {
            const float shard = blob_floats(all[size_t(k)]).at(0);
            lsum_ = k == 0 ? shard : lsum_ + shard;
            cur_.shards[size_t(k)].loss = shard / float(B_ * T_);
        }
        cur_.loss = lsum_ / float(B_ * T_);   // crossentropy.wk's division
        if (!std::isfinite(cur_.loss)) {   // not applied: the weights before it stay, to look for the cause in
            cur_.applied = false;
            last_ = cur_;
            last_units_ = units_ + 1;
            stage_ = SwarmXStage::Idle;
            return true;
        }
        stage_ = N > 1 ? SwarmXStage::Reduce : SwarmXStage::Update;
        return true;
    }
    case SwarmXStage::Reduce: {
        // Floating-point addition is not associative: summing in a fixed order (wafer 0, then 1, ...),
        // not in the order the wafers finish, makes the sum, and every weight after it, the same bits
        // on every run and every platform. Streamed, the store's part is summed already: each wafer's
        // gradient streams added into the one store's sums as they came, wafer by wafer; what is
        // left is what the wafers hold (MeshTrainer::read_own).
        std::vector<std::string> mine;
        for (auto& wf : wafers_) mine.push_back(floats_blob(wf->read_own(MeshTrainer::State::Grads)));
        const std::vector<std::string> all = every_wafer(std::move(mine));
        std::vector<float> sum = blob_floats(all[0]);
        for (int k = 1; k < N; k++) {
            const std::vector<float> g = blob_floats(all[size_t(k)]);
            for (size_t i = 0; i < sum.size(); i++) sum[i] += g[i];
        }
        for (auto& wf : wafers_) wf->write_own(MeshTrainer::State::Grads, sum);
        const uint64_t G = gradient_bytes();
        cur_.swarmx_bytes = 2 * uint64_t(N) * G;
        cur_.swarmx_cycles = links_.cycles(G, N) + links_.cycles(G, N);   // up the tree, then down it
        stage_ = SwarmXStage::Update;
        return true;
    }
    case SwarmXStage::Update: {
        if (!queued_) {
            if (!w->begin_update(lr_)) return fail(first_ + k_, w->error());
            queued_ = true;
            if (k_ == 0) here_.clear();
        }
        if (!w->run_slice(1)) return fail(first_ + k_, w->error());
        if (w->busy()) return true;
        queued_ = false;
        const TrainStep& st = w->last_step();
        ByteWriter rec;   // what the step's totals need of this wafer's update
        rec.put(st.grad_norm);
        for (uint64_t v : {st.cycles, st.stream_bytes, st.stream_cycles, st.instructions, st.host_bytes}) rec.u64(v);
        here_.push_back(rec.take());
        if (++k_ < here) return true;
        k_ = 0;
        const std::vector<std::string> all = every_wafer(std::move(here_));
        for (int k = 0; k < N; k++) {
            ByteReader r(all[size_t(k)]);
            const float norm = r.get<float>("norm");
            if (k == 0) cur_.grad_norm = norm;
            else if (std::memcmp(&norm, &cur_.grad_norm, sizeof norm) != 0)
                return fail(-1, "wafer " + std::to_string(k) + "'s gradient norm " + std::to_string(norm) + " differs from wafer 0's " +
                                    std::to_string(cur_.grad_norm));
            SwarmXShard& sh = cur_.shards[size_t(k)];
            sh.cycles = r.u64("cycles");
            sh.stream_bytes = r.u64("stream bytes");
            sh.stream_cycles = r.u64("stream cycles");
            cur_.compute_cycles = std::max(cur_.compute_cycles, sh.cycles);
            cur_.instructions += r.u64("instructions");
            cur_.host_bytes += r.u64("host bytes");
            cur_.stream_bytes += sh.stream_bytes;
            cur_.stream_cycles = std::max(cur_.stream_cycles, sh.stream_cycles);
        }
        stage_ = SwarmXStage::Check;
        if (N > 1) return true;
        [[fallthrough]];
    }
    case SwarmXStage::Check:
        // Every wafer holds the same weights: checked, not assumed.
        // Streamed, the store's weights are one copy: the wafers' own parts are compared.
        if (N > 1) {
            std::vector<std::string> mine;
            for (auto& wf : wafers_) mine.push_back(floats_blob(wf->read_own(MeshTrainer::State::Params)));
            const std::vector<std::string> all = every_wafer(std::move(mine));
            for (int k = 1; k < N; k++) {
                if (all[size_t(k)] == all[0]) continue;
                const std::vector<float> first = blob_floats(all[0]), p = blob_floats(all[size_t(k)]);
                size_t i = 0;
                while (i < p.size() && i < first.size() && std::memcmp(&p[i], &first[i], sizeof(float)) == 0) i++;
                return fail(-1, "after the update wafer " + std::to_string(k) + "'s weights differ from wafer 0's (first at element " +
                                    std::to_string(i) + " of its own part)");
            }
        }
        cur_.cycles = cur_.compute_cycles + cur_.swarmx_cycles;
        last_ = cur_;
        last_units_ = units_ + 1;   // with this one
        stage_ = SwarmXStage::Idle;
        return true;
    }
    return true;
}

std::string step_unit_text(const SwarmXWork& sw, int N, bool brief) {
    if (sw.stage == SwarmXStage::Reduce) return "SwarmX: the " + std::to_string(N) + " wafers' gradients summed, the sum broadcast back";
    if (sw.stage == SwarmXStage::Check) return "SwarmX: checking every wafer holds the same weights";
    const std::string who = N > 1 ? "wafer " + std::to_string(sw.wafer + 1) + " of " + std::to_string(N) + ": " : "";
    if (!sw.work)   // its part is queued by its first unit
        return brief ? "" : who + (sw.stage == SwarmXStage::Shard ? (N > 1 ? "its shard of the batch next" : "the step next")
                                                                  : (N > 1 ? "its update next" : "the update next"));
    return who + work_text(*sw.work, brief);
}

SwarmXWork SwarmX::next_work() const {
    SwarmXWork w;
    w.stage = stage_;
    if (stage_ == SwarmXStage::Shard || stage_ == SwarmXStage::Update) {
        w.wafer = first_ + k_;
        w.work = queued_ ? wafers_[size_t(k_)]->next_work() : nullptr;
    }
    return w;
}

double SwarmX::progress() const {
    if (!stepping()) return 0;
    if (last_units_) return std::min(1.0, double(units_) / double(last_units_));
    // Parts: each wafer's shard here, the reduction (N > 1), each wafer's update here, the check (N > 1).
    const int N = wafers(), here = int(wafers_.size());
    const double parts = 2.0 * here + (N > 1 ? 2 : 0);
    const MeshTrainer& w = *wafers_[size_t(std::min(k_, here - 1))];
    const double in_part = queued_ && w.work_total() ? double(w.work_done()) / double(w.work_total()) : 0.0;
    double done = 0;
    if (stage_ == SwarmXStage::Shard) done = k_ + in_part;
    else if (stage_ == SwarmXStage::Reduce) done = here;
    else if (stage_ == SwarmXStage::Update) done = here + (N > 1) + k_ + in_part;
    else done = parts - 1;
    return done / parts;
}

}  // namespace wl::model
