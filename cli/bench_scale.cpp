// bench_scale.cpp: `waferlab-cli bench scale` — one kernel in one process and split by bands of
// rows over mpirun's ranks (docs/scale.md), in one run: the wall times and their ratio, what the
// bands exchanged per exchange (a cycle in cycle mode, a window in fast mode), and each rank's
// peak memory and time spent waiting for the others. Without mpirun, one rank: the split's own cost.
//   mpirun -np 2 waferlab-cli bench scale --json
#include "cli/mpi_bands.h"
#include "cli/verbs.h"

#include "engine/core/json_text.h"
#include "engine/core/read_file.h"
#include "engine/lang/compile.h"
#include "engine/lang/run.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <sys/resource.h>

namespace wlcli {

namespace {

// The ranks' link, counted: exchanges (one a cycle, or a window), the bytes this rank sends in them, the
// bytes of its gathers (the syncs at the end of a run), and the seconds spent in its calls: waiting for
// the other ranks, but for the copies of the end-of-run gathers. With no link below it, one rank alone.
class CountedLink final : public wl::BandLink {
public:
    explicit CountedLink(wl::BandLink* below) : below_(below) {}
    int rank() const override { return below_ ? below_->rank() : 0; }
    int ranks() const override { return below_ ? below_->ranks() : 1; }
    void exchange(const std::string& up, const std::string& down, std::string* from_up, std::string* from_down) override {
        const Timed t(&in_link_s);
        exchanges++;
        exchange_bytes += up.size() + down.size();
        if (below_) below_->exchange(up, down, from_up, from_down);
        else from_up->clear(), from_down->clear();
    }
    void max(uint64_t* v, int n) override {
        const Timed t(&in_link_s);
        if (below_) below_->max(v, n);
    }
    std::vector<std::string> gather(const std::string& mine) override {
        const Timed t(&in_link_s);
        gather_bytes += mine.size();
        return below_ ? below_->gather(mine) : std::vector<std::string>{mine};
    }
    uint64_t exchanges = 0, exchange_bytes = 0, gather_bytes = 0;
    double in_link_s = 0;

private:
    struct Timed {
        double* into;
        std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
        explicit Timed(double* s) : into(s) {}
        ~Timed() { *into += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
    };
    wl::BandLink* below_;
};

double peak_rss_mb() {
    struct rusage u {};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_maxrss) / 1024.0;   // KiB on Linux
}

}  // namespace

int bench_scale(const Args& args) {
    CountedLink link(mpirun_ranks());
    const std::string path = args.get("kernel", "examples/published/stencil2d.wk");
    std::string src, error;
    if (!wl::read_file(path, wl::kMaxSourceBytes, "kernel", &src, &error)) throw std::runtime_error(error);
    wl::lang::CompileOptions co;
    const std::string consts = args.has("const") ? args.get("const") : "K=256\nNG=1024";   // 65,536 PEs, 4 x 4 points each
    if (std::string why = const_overrides(consts, &co.constants); !why.empty()) throw std::runtime_error("--const " + why);
    auto cr = std::make_shared<const wl::lang::CompileResult>(wl::lang::compile(src, wl::path_in_message(path), co));
    if (!cr->ok()) throw std::runtime_error(path + " does not compile (waferlab-cli check " + path + " says where)");
    wl::RunMode mode = wl::RunMode::Fast;
    if (!wl::run_mode_from_name(args.get("mode", "fast"), &mode)) throw std::runtime_error("--mode must be cycle or fast");
    if (link.ranks() > cr->grid_h) throw std::runtime_error("more ranks than the grid's " + std::to_string(cr->grid_h) + " rows");
    using Clock = std::chrono::steady_clock;
    auto timed = [&](wl::BandLink* bands, wl::lang::RunReport* rep) {
        uint64_t sync[1] = {0};
        link.max(sync, 1);   // every rank starts together
        link.in_link_s = 0;
        const auto t0 = Clock::now();
        wl::lang::RunOptions opt;
        opt.bands = bands;
        opt.mode = mode;
        *rep = wl::lang::run_kernel(*cr, opt);
        return std::chrono::duration<double>(Clock::now() - t0).count();
    };
    // Split first, so each rank's peak memory is its band's run; then rank 0 alone.
    wl::lang::RunReport split, one;
    const double split_s = timed(&link, &split);
    const double split_rss = peak_rss_mb(), split_wait = link.in_link_s;
    double one_s = 0;
    if (link.rank() == 0) one_s = timed(nullptr, &one);
    else {   // the others meet rank 0's start, then wait for its end below
        uint64_t start[1] = {0};
        link.max(start, 1);
    }
    uint64_t done[1] = {0};
    link.max(done, 1);
    if (!split.ok || (link.rank() == 0 && !one.ok)) throw std::runtime_error("the kernel failed: " + (split.ok ? one.error : split.error));
    const double mine[2] = {split_rss, split_wait};
    std::vector<std::string> ranks = link.gather(std::string(reinterpret_cast<const char*>(mine), sizeof mine));
    if (link.rank() != 0) return 0;
    if (split.output != one.output || split.cycles != one.cycles || split.stats.hops != one.stats.hops)
        throw std::runtime_error("the split run ended otherwise than one process (docs/scale.md says it cannot: a bug)");
    nlohmann::json per_rank = nlohmann::json::array(), wait = nlohmann::json::array();
    for (const std::string& b : ranks) {
        double v[2] = {0, 0};
        std::memcpy(v, b.data(), sizeof v);
        per_rank.push_back(v[0]);
        wait.push_back(v[1]);
    }
    const double exchanges = double(std::max<uint64_t>(link.exchanges, 1));
    nlohmann::json j = {{"kernel", path},
                        {"consts", consts},
                        {"grid", {{"w", cr->grid_w}, {"h", cr->grid_h}}},
                        {"mode", wl::run_mode_name(mode)},
                        {"ranks", link.ranks()},
                        {"cycles", one.cycles},
                        {"one_process_s", one_s},
                        {"split_s", split_s},
                        {"speedup", split_s > 0 ? one_s / split_s : 0.0},
                        {"exchanges", link.exchanges},
                        {"bytes_per_exchange_rank0", double(link.exchange_bytes) / exchanges},
                        {"messages_per_exchange", 2 * (link.ranks() - 1)},
                        {"sync_bytes_rank0", link.gather_bytes},
                        {"peak_rss_mb_per_rank", per_rank},
                        {"wait_s_per_rank", wait}};
    if (args.has("json")) {
        std::printf("%s\n", wl::json_text(j).c_str());
        return 0;
    }
    std::string shown = consts;
    std::replace(shown.begin(), shown.end(), '\n', ' ');
    std::printf("%s (%s) on %dx%d PEs, %llu cycles, %s mode\n", path.c_str(), shown.c_str(), cr->grid_w, cr->grid_h, (unsigned long long)one.cycles,
                wl::run_mode_name(mode));
    std::printf("  one process   %8.2f s\n  %d rank%s       %8.2f s   %.2fx\n", one_s, link.ranks(), link.ranks() == 1 ? " " : "s", split_s,
                split_s > 0 ? one_s / split_s : 0.0);
    std::printf("  %llu exchanges (%s), %.0f bytes each from rank 0's band, %d messages; the gathers: %.1f MB from rank 0\n",
                (unsigned long long)link.exchanges, mode == wl::RunMode::Fast ? "windows" : "cycles", double(link.exchange_bytes) / exchanges,
                2 * (link.ranks() - 1), double(link.gather_bytes) / 1e6);
    std::string mem, waits;
    for (size_t r = 0; r < per_rank.size(); r++) {
        mem += (r ? ", " : "") + std::to_string(int(per_rank[r].get<double>())) + " MB";
        char b[32];
        std::snprintf(b, sizeof b, "%s%.2f s", r ? ", " : "", wait[r].get<double>());
        waits += b;
    }
    std::printf("  peak memory per rank: %s\n  waiting for the other ranks (in the link's calls), per rank: %s\n", mem.c_str(), waits.c_str());
    return 0;
}

}  // namespace wlcli
