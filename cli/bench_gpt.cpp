// bench_gpt.cpp: `waferlab-cli bench gpt` — training throughput of the reference
// GPT against PyTorch on the same config, data and machine, in one run.
//   waferlab-cli bench gpt [--json] [--config models/gpt-micro.yaml] [--data FILE] [--steps N]
//                          [--threads N] [--python /usr/bin/python3] [--no-torch]
// Data: --data, else $WAFERLAB_BENCH_DATA, else ../shared/data/tinyshakespeare.txt when present,
// else the generated stories corpus (written to a temporary file so PyTorch reads the same text).
// Peak fp32 FLOP/s = threads x clock (/proc/cpuinfo "cpu MHz") x 2 FMA units x SIMD lanes x 2,
// for the widest SIMD the CPU reports (AVX-512: 16 lanes, AVX2: 8, SSE: 4). Model FLOPs per
// token come from op_list (forward + backward + AdamW), the same list the cost models read.
#include "cli/verbs.h"

#include "engine/core/json_text.h"
#include "engine/core/parse_number.h"
#include "engine/gpt/corpus.h"
#include "engine/gpt/matmul.h"
#include "engine/gpt/parallel.h"
#include "engine/gpt/trainer.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>

namespace wlcli {

namespace {

bool exists(const std::string& p) { return std::ifstream(p).good(); }

double cpu_mhz() {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("cpu MHz", 0) == 0) return std::stod(line.substr(line.find(':') + 1));
    return 0;
}

int simd_lanes() {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return 16;
    if (__builtin_cpu_supports("avx2")) return 8;
#endif
    return 4;
}

std::string run_capture(const std::string& cmd) {
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return "";
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    const int status = pclose(p);   // a wait status: the exit code is its WEXITSTATUS
    if (status != 0)
        throw std::runtime_error("PyTorch run failed (" + (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status)) : std::string("killed by a signal")) + "): " + cmd);
    return out;
}

// A word for sh -c, whatever bytes it holds: 'it'\''s'.
std::string shell_word(const std::string& w) {
    std::string q = "'";
    for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// The generated text PyTorch reads too, in a file of its own (mkstemp: no fixed name in a shared
// folder to be raced or pointed elsewhere), removed when the bench ends.
struct GeneratedText {
    std::string path;
    explicit GeneratedText(const std::string& text) {
        const char* tmp = std::getenv("TMPDIR");
        std::string name = std::string(tmp && *tmp ? tmp : "/tmp") + "/waferlab_bench_gpt_XXXXXX";
        const int fd = ::mkstemp(name.data());
        if (fd < 0) throw std::runtime_error("bench gpt: cannot create a temporary file for the generated text in " + name.substr(0, name.rfind('/')));
        const bool ok = ::write(fd, text.data(), text.size()) == ssize_t(text.size());
        ::close(fd);
        path = name;
        if (!ok) throw std::runtime_error("bench gpt: cannot write the generated text to " + path);
    }
    ~GeneratedText() { std::remove(path.c_str()); }
};

}  // namespace

int bench_gpt(const Args& args) {
    using namespace wl::gpt;
    using Clock = std::chrono::steady_clock;
    const bool json = args.has("json");
    const int threads = int(args.get_int("threads", std::thread::hardware_concurrency()));
    const int steps = int(args.get_int("steps", 30)), warmup = 3;
    set_num_threads(threads);

    GPTConfig cfg;   // the defaults are gpt-micro's
    std::string cfg_path = args.get("config", exists("models/gpt-micro.yaml") ? "models/gpt-micro.yaml" : "");
    if (!cfg_path.empty()) cfg = load_config(cfg_path);
    apply_overrides(cfg, args.get("set"), "command line");
    std::string data = args.get("data");
    if (data.empty() && std::getenv("WAFERLAB_BENCH_DATA")) data = std::getenv("WAFERLAB_BENCH_DATA");
    if (data.empty() && exists("../shared/data/tinyshakespeare.txt")) data = "../shared/data/tinyshakespeare.txt";
    std::unique_ptr<GeneratedText> generated;
    if (data.empty()) {   // generated text, shared with PyTorch through a file
        generated = std::make_unique<GeneratedText>(generate_stories(cfg.seed, 1000000));
        data = generated->path;
    }
    cfg.corpus = "file";
    cfg.data = data;
    cfg.max_iters = warmup + steps;

    Trainer tr(cfg);
    for (int i = 0; i < warmup; i++) tr.train_step();
    auto t0 = Clock::now();
    float loss = 0;
    for (int i = 0; i < steps; i++) loss = tr.train_step();
    double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    const double ours_tps = double(steps) * double(tr.tokens_per_step()) / dt;
    const double flops_tok = flops_per_token(tr.cfg, tr.cfg.block_size, true);
    const double mhz = cpu_mhz(), peak = threads * mhz * 1e6 * 2 * simd_lanes() * 2;

    nlohmann::json j = {{"bench", "gpt"},
                        {"config", cfg_path.empty() ? "built-in gpt-micro defaults" : cfg_path},
                        {"data", data},
                        {"steps", steps},
                        {"threads", num_threads()},
                        {"kernels", gemm_isa()},
                        {"parameters", tr.model->num_parameters},
                        {"tokens_per_step", tr.tokens_per_step()},
                        {"ours_tokens_per_s", ours_tps},
                        {"ours_ms_per_step", 1000 * dt / steps},
                        {"ours_last_loss", loss},
                        {"flops_per_token", flops_tok},
                        {"ours_gflops", ours_tps * flops_tok / 1e9},
                        {"cpu_mhz", mhz},
                        {"peak_gflops", peak / 1e9},
                        {"fraction_of_peak", peak > 0 ? ours_tps * flops_tok / peak : 0.0}};

    if (!args.has("no-torch")) {
        std::string py = args.get("python", "/usr/bin/python3");
        std::string script = exists("tools/gpt_bench_torch.py") ? "tools/gpt_bench_torch.py" : "";
        if (script.empty()) throw std::runtime_error("tools/gpt_bench_torch.py not found: run from the repository root");
        std::ostringstream cmd;
        cmd << shell_word(py) << " " << script << " --data " << shell_word(data) << " --steps " << steps << " --warmup " << warmup
            << " --threads " << threads << " --n_layer " << cfg.n_layer << " --n_head " << cfg.n_head << " --n_embd "
            << cfg.n_embd << " --block_size " << cfg.block_size << " --batch_size " << cfg.batch_size << " --lr "
            << cfg.learning_rate;
        const std::string out = run_capture(cmd.str());
        nlohmann::json t;
        try {   // its last line is a JSON object with tokens_per_s, ms_per_step, threads and torch
            t = nlohmann::json::parse(out.substr(out.rfind('{') == std::string::npos ? out.size() : out.rfind('{')));
            (void)t.at("tokens_per_s").get<double>(), t.at("ms_per_step").get<double>(), t.at("threads").get<int>(), t.at("torch").get<std::string>();
        } catch (const std::exception&) {
            throw std::runtime_error("--python " + py + ": tools/gpt_bench_torch.py did not print its JSON line (tokens_per_s, ms_per_step, threads, torch); it printed " +
                                     wl::quote_prefix(out, 200));
        }
        double torch_tps = t["tokens_per_s"].get<double>();
        j["torch_tokens_per_s"] = torch_tps;
        j["torch_ms_per_step"] = t["ms_per_step"];
        j["torch_threads"] = t["threads"];
        j["torch_version"] = t["torch"];
        j["ratio"] = ours_tps / torch_tps;
    }

    if (json) {
        std::printf("%s\n", wl::json_text(j).c_str());
    } else {
        std::printf("%s training, %d steps of %lld tokens, %d thread(s), %s kernels, data %s\n",
                    cfg_path.empty() ? "gpt-micro (built-in defaults)" : cfg_path.c_str(), steps,
                    (long long)tr.tokens_per_step(), num_threads(), gemm_isa(), data.c_str());
        std::printf("  ours:    %8.0f tokens/s  (%.1f ms/step, %.2f GFLOP/s = %.1f%% of %.0f GFLOP/s peak)\n", ours_tps,
                    1000 * dt / steps, ours_tps * flops_tok / 1e9, 100 * j["fraction_of_peak"].get<double>(), peak / 1e9);
        if (j.contains("torch_tokens_per_s"))
            std::printf("  pytorch: %8.0f tokens/s  (%.1f ms/step, torch %s, %d thread(s))\n  ratio:   %.2fx\n",
                        j["torch_tokens_per_s"].get<double>(), j["torch_ms_per_step"].get<double>(),
                        j["torch_version"].get<std::string>().c_str(), j["torch_threads"].get<int>(),
                        j["ratio"].get<double>());
    }
    return 0;
}

}  // namespace wlcli
