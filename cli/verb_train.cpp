// verb_train.cpp: `waferlab-cli train` — train the reference GPT from a config, or on the mesh.
//   waferlab-cli train --config models/gpt-micro.yaml [--data FILE | --corpus NAME] [--steps N]
//                      [--json] [--out CKPT] [--resume CKPT] [--threads N] [--set k=v,k=v] [--bpe-dir DIR]
//                      [--on-mesh [--wafers N] [--mesh WxH] [--execution resident|streaming] [--kernels DIR] [--mode fast|cycle]]
//                      [--sparsity S [--sparsity-mask magnitude|random] [--sparsity-seed N]]
// Terminal: a progress bar with loss and tokens/s; on the mesh a step that takes longer than a
// quarter of a second says where it is (its share done, the op or streamed layer, the sequence). --json: one object per evaluation
// ({step, train_loss, val_loss, tokens_per_s, lr, elapsed_s}), one per step ({step, loss, grad_norm,
// tokens_per_s}; with --on-mesh also cycles, wafer_s, host_bytes, wafers, compute_cycles, swarmx_bytes,
// swarmx_cycles, and streamed: stream_bytes, stream_cycles) and a final summary object.
// --wafers N: N emulated wafers, each on its shard of the step's batch, their gradients summed by
// SwarmX (engine/model/swarmx.h); cycles is the slowest wafer's plus SwarmX's, and evaluation,
// sampling and the checkpoint use wafer 0 (all hold the same weights). Under mpirun with N ranks,
// --wafers N runs one wafer a rank (docs/scale.md): the same losses, bit for bit; rank 0 prints
// and writes the checkpoint.
// The checkpoint (--out, default <config name>.ckpt) is written at every evaluation and at the end,
// in the same format either way (the mesh's weights and AdamW moments, read back from SRAM).
// With --on-mesh the train and validation losses are the mesh's too (the forward and the loss on
// the PEs, the reference's numbers bit for bit on the same weights).
// --sparsity S prunes the linear layers once, from the initial (or resumed) weights, and trains
// with that mask fixed (engine/model/sparsity.h): on the mesh only the non-zeros are held and
// updated; the reference (without --on-mesh) zeroes the masked gradients. --json lines carry
// "density" then.
#include "cli/model_args.h"
#include "cli/mpi_bands.h"
#include "cli/verbs.h"

#include "engine/core/json_text.h"
#include "engine/core/output_guard.h"
#include "engine/core/thousands.h"
#include "engine/gpt/checkpoint.h"
#include "engine/gpt/corpus.h"
#include "engine/gpt/matmul.h"
#include "engine/gpt/parallel.h"
#include "engine/gpt/sampler.h"
#include "engine/gpt/trainer.h"
#include "engine/model/mesh_trainer.h"
#include "engine/model/swarmx.h"

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>

namespace wlcli {

namespace {

using Clock = std::chrono::steady_clock;


std::string base_name(const std::string& path) {
    std::string b = path.substr(path.find_last_of('/') + 1);
    return b.substr(0, b.rfind('.'));
}

std::string fixed(double v, int digits) {
    char b[64];
    std::snprintf(b, sizeof b, "%.*f", digits, v);
    return b;
}

void bar(int64_t step, int64_t total, float loss, double tps) {
    const int width = 30;
    int fill = total ? int(width * step / total) : width;
    std::fprintf(stderr, "\r\033[K[%.*s%.*s] step %lld/%lld  loss %.4f  %.0f tok/s ", fill, "##############################",
                 width - fill, "..............................", (long long)step, (long long)total, loss, tps);
    std::fflush(stderr);
}

}  // namespace

// Under mpirun: SwarmX's wafers one a rank (cli/mpi_bands.h, docs/scale.md), which needs --on-mesh
// and --wafers N for N ranks. nullptr in one process. First thing: ranks other than 0 go quiet.
static wl::Ranks* wafer_ranks(const Args& args) {
    wl::Ranks* ranks = mpirun_ranks();
    if (!ranks) return nullptr;
    const int wafers = int(args.get_int("wafers", 1));
    if (!args.has("on-mesh") || wafers != ranks->ranks())
        throw std::runtime_error("train: under mpirun each rank runs one wafer of SwarmX: give --on-mesh --wafers " +
                                 std::to_string(ranks->ranks()) + " for " + std::to_string(ranks->ranks()) + " ranks" +
                                 (args.has("on-mesh") ? " (got --wafers " + std::to_string(wafers) + ")" : ""));
    return ranks;
}

int verb_train(const Args& args) {
    using namespace wl::gpt;
    wl::Ranks* ranks = wafer_ranks(args);
    set_num_threads(int(args.get_int("threads", 0)));
    const bool json = args.has("json");
    const bool tty = !json && isatty(2);
    std::string bpe_dir = args.get("bpe-dir");

    std::unique_ptr<Trainer> tr;
    std::string name;
    if (args.has("resume")) {   // --set and the flags that stand for keys (--data, --steps, --mesh ...: cli_overrides)
        tr = Trainer::resume(args.get("resume"), cli_overrides(args), bpe_dir);
        name = base_name(args.get("resume"));
    } else {
        if (!args.has("config")) throw std::runtime_error("train needs --config FILE (e.g. models/gpt-micro.yaml)");
        GPTConfig cfg = load_config(args.get("config"));
        apply_cli_overrides(args, &cfg);
        tr = std::make_unique<Trainer>(cfg, bpe_dir);
        name = base_name(args.get("config"));
    }
    const GPTConfig& cfg = tr->cfg;
    require_bpe_tokenizer_for_bpe_dir(args, *tr->tokenizer);
    const std::string out = args.get("out", name + ".ckpt");
    // Never over the config or the text (--resume's checkpoint may be replaced: it is read whole, and
    // the new one is written atomically).
    wl::guard_output({args.has("out") ? "--out" : "the default --out", out}, wl::kCheckpointOutput,
                 {{"--config", args.get("config")},
                  {args.has("data") ? "--data" : "train_input.data", cfg.corpus == "file" ? cfg.data : ""}});
    // The fixed mask, from the weights as they are now; a resumed optimiser's moments of the
    // masked weights go to zero with them (a dense checkpoint's may not be).
    wl::model::PruneStats pruned;
    const bool sparse = prune_from(args, tr->model.get(), &pruned);
    if (sparse) {
        tr->model->mask_out(tr->opt.m.data());
        tr->model->mask_out(tr->opt.v.data());
    }
    const int64_t total = cfg.max_iters;
    if (args.has("resume") && tr->step >= kMaxSteps)
        throw std::runtime_error("--resume " + args.get("resume") + " is at step " + std::to_string(tr->step) +
                                 ", the last any run reaches (runconfig.max_steps is at most " + std::to_string(kMaxSteps) + "): it cannot be trained further");
    if (args.has("resume") && tr->step >= total)   // else it would save the checkpoint again and call it done
        throw std::runtime_error("--resume " + args.get("resume") + " is at step " + std::to_string(tr->step) + ", and the run ends at step " +
                                 std::to_string(total) + (args.has("steps") ? " (--steps)" : " (runconfig.max_steps)") +
                                 ": nothing to train; give --steps past " + std::to_string(tr->step));

    if (!json) {
        std::fprintf(stderr, "model %s: %zu parameters (L=%d NH=%d C=%d T=%d V=%d), corpus %s (%zu bytes), "
                     "%d thread(s), %s kernels\n", name.c_str(), tr->model->num_parameters, cfg.n_layer, cfg.n_head,
                     cfg.n_embd, cfg.block_size, cfg.vocab_size, tr->corpus.name.c_str(), tr->corpus.text.size(),
                     num_threads(), gemm_isa());
        if (sparse)
            std::fprintf(stderr, "pruned (--sparsity %s, %s mask), fixed while training: %zu of %zu linear-layer weights kept (density %.3f)\n",
                         args.get("sparsity").c_str(), args.get("sparsity-mask", "magnitude").c_str(), pruned.kept,
                         pruned.weights, pruned.density());
    }

    // --on-mesh: every step, every evaluation batch (the forward and the loss) and the addition
    // check's greedy decoding on the emulated mesh (engine/model/mesh_trainer.h). The host keeps
    // the data loader, the schedule and the checkpoint (the weights and moments read back).
    // --wafers N: N such meshes, data parallel (engine/model/swarmx.h); mesh is wafer 0.
    std::unique_ptr<wl::model::SwarmX> swarm;
    wl::model::MeshTrainer* mesh = nullptr;
    wl::model::CompileInfo compile_info;
    const int wafers = int(args.get_int("wafers", 1));
    if (args.has("on-mesh")) {
        const std::string split = wl::model::SwarmX::split_error(tr->sequences_per_step(), wafers);
        if (!split.empty()) throw std::runtime_error("train: " + split + "; a step's B is batch_size x grad_accum_steps");
        const wl::RunMode mode = run_mode_of(cfg);
        const GPTConfig mesh_cfg = mesh_training_config(args, cfg, json ? nullptr : stderr);
        swarm = std::make_unique<wl::model::SwarmX>(plan_for(args, mesh_cfg, true, &compile_info, sparse ? tr->model.get() : nullptr),
                                                    *tr->model, wafers, mode, wl::model::cs_links(), ranks);
        mesh = &swarm->wafer(swarm->first_wafer());
        if (tr->opt.t > 0) {   // resumed: AdamW's moments into SRAM
            swarm->write_all(wl::model::MeshTrainer::State::Moment1, &tr->opt.m);
            swarm->write_all(wl::model::MeshTrainer::State::Moment2, &tr->opt.v);
            swarm->set_updates(tr->opt.t);
        }
        if (!json) {
            const auto& p = mesh->mesh().plan();
            std::fprintf(stderr, "on a %dx%d mesh (%s mode): %d PEs, at most %u bytes of SRAM per PE\n", p.mesh_w,
                         p.mesh_h, mode == wl::RunMode::Fast ? "fast" : "cycle", p.pes_used(), p.bytes_max());
            if (p.streaming)
                std::fprintf(stderr, "weight streaming: one layer's ops serve all %d layers; each layer's weights stream in "
                             "from the store and its gradients out, and AdamW on them runs in the store\n", cfg.n_layer);
            if (wafers > 1)
                std::fprintf(stderr, "%d wafers, data parallel: each takes %d of a step's %d sequences; SwarmX sums "
                             "their gradients (%.0f GB/s links)\n", wafers, tr->sequences_per_step() / wafers,
                             tr->sequences_per_step(), swarm->links().bytes_per_s / 1e9);
            print_compile(compile_info, stderr);
        }
    }
    // Streamed, the store holds the weights and the checkpoint is written from it: the host's model
    // gives its copy back (Cerebras-GPT-111M's 440 MB).
    const wl::gpt::GPTConfig model_cfg = tr->model->cfg;
    const size_t parameters = tr->model->num_parameters;
    if (mesh && mesh->mesh().plan().streaming) tr->model.reset();
    // A step's grad_accum_steps micro-batches: the mesh streams their sequences through one at a
    // time and sums the gradients in SRAM, then one AdamW (engine/model/mesh_trainer.h).
    std::vector<int> inputs(size_t(tr->sequences_per_step()) * cfg.block_size), targets(inputs.size());
    // On the mesh the moments are the mesh's (or the store's): the host holds a copy only while a
    // checkpoint is written (Cerebras-GPT-111M's are 0.9 GB).
    auto release_moments = [&]() {
        if (!mesh) return;
        std::vector<float>().swap(tr->opt.m);
        std::vector<float>().swap(tr->opt.v);
    };
    release_moments();
    auto sync_from_mesh = [&]() {   // the mesh's weights and moments into the host's model and optimiser
        if (!mesh) return;
        mesh->read_params(&tr->model->params_memory);
        mesh->transfer(wl::model::MeshTrainer::State::Moment1, &tr->opt.m, false);
        mesh->transfer(wl::model::MeshTrainer::State::Moment2, &tr->opt.v, false);
        tr->opt.t = mesh->updates();
    };

    // The checkpoint: streamed, written from the store's arrays where they lie (Cerebras-GPT-111M's
    // weights and moments are 1.3 GB, never copied); else from the host's copy of the mesh's.
    auto save = [&]() {
        if (ranks && ranks->rank() != 0) return;   // every rank holds the same weights: rank 0 writes them
        using State = wl::model::MeshTrainer::State;
        if (mesh && mesh->mesh().plan().streaming) {
            const CheckpointState state{mesh->gathered(State::Params), mesh->gathered(State::Moment1),
                                        mesh->gathered(State::Moment2), mesh->updates()};
            save_checkpoint(out, model_cfg, state, tr->step, tr->tokenizer->kind(), tr->tokenizer->state());
            return;
        }
        sync_from_mesh();
        tr->save(out);
        release_moments();
    };

    double train_s = 0;
    int64_t trained_tokens = 0;
    float last_loss = 0, train_loss = 0, val_loss = 0;
    int64_t saved_step = -1;   // the step of the checkpoint on disk
    const auto t_start = Clock::now();
    const char* eval_split = "";   // the evaluation in progress, for its progress line
    int eval_batch = 0;
    auto eval_shown = Clock::now();
    // A long evaluation (GPT-small's on the mesh: minutes a batch; runconfig.eval_steps up to 10^6)
    // says where it is: on a terminal as a live line, elsewhere a line every 10 s, as `run` does.
    auto eval_progress = [&] {
        if (Clock::now() - eval_shown < (tty ? std::chrono::milliseconds(250) : std::chrono::milliseconds(10000))) return;
        std::fprintf(stderr, "%s  evaluating at step %lld: the %s split's batch %d of %d (runconfig.eval_steps)%s", tty ? "\r\033[K" : "",
                     (long long)tr->step, eval_split, eval_batch, cfg.eval_iters, tty ? "" : "\n");
        std::fflush(stderr);
        eval_shown = Clock::now();
    };
    auto on_reference = [&](const int* in, const int* tg, int B, int T) {   // one evaluation batch's mean loss
        ++eval_batch;
        eval_progress();
        tr->model->forward(in, tg, B, T);
        return tr->model->mean_loss;
    };
    auto on_mesh = [&](const int* in, const int* tg, int B, int T) {
        const std::string failed = "evaluate on the mesh, step " + std::to_string(tr->step) + ": ";
        if (!mesh->begin_eval(in, tg, B, T)) throw std::runtime_error(failed + mesh->error());
        ++eval_batch;
        while (mesh->busy()) {   // a launch at a time
            if (!mesh->run_slice(1)) throw std::runtime_error(failed + mesh->error());
            eval_progress();
        }
        return mesh->last_eval();
    };
    auto evaluate = [&]() {
        eval_split = "train", eval_batch = 0;
        train_loss = mesh ? tr->eval_loss(Split::Train, on_mesh) : tr->eval_loss(Split::Train, on_reference);
        eval_split = "validation", eval_batch = 0;
        val_loss = mesh ? tr->eval_loss(Split::Val, on_mesh) : tr->eval_loss(Split::Val, on_reference);
        // A step's loss is taken before its update: the last update's overflow shows only here, and
        // is never saved over the last good checkpoint (nor are weights that overflow from the start).
        if (!std::isfinite(train_loss) || !std::isfinite(val_loss)) {
            const std::string what = std::string("the evaluation's loss is ") + (std::isnan(train_loss) || std::isnan(val_loss) ? "NaN" : "infinite");
            if (trained_tokens == 0)
                throw std::runtime_error("step " + std::to_string(tr->step) + ": " + what + " before any step: the weights it starts from (" +
                                         (args.has("resume") ? "--resume " + args.get("resume") : "the config's seed") +
                                         ") overflow the forward; nothing was trained or saved");
            throw std::runtime_error("step " + std::to_string(tr->step) + ": " + what + ": step " + std::to_string(tr->step) +
                                     "'s update left weights that overflow the forward. Stopped; " +
                                     (saved_step < 0 ? "nothing was saved" : out + " keeps step " + std::to_string(saved_step) + "'s weights") +
                                     " (a smaller optimizer.learning_rate, or optimizer.max_gradient_norm > 0 to clip, usually helps)");
        }
        double tps = train_s > 0 ? double(trained_tokens) / train_s : 0.0;
        double elapsed = std::chrono::duration<double>(Clock::now() - t_start).count();
        if (json) {
            nlohmann::json j = {{"step", tr->step}, {"train_loss", train_loss}, {"val_loss", val_loss},
                                {"tokens_per_s", tps}, {"lr", tr->lr()}, {"elapsed_s", elapsed}};
            if (sparse) j["density"] = pruned.density();
            std::printf("%s\n", wl::json_text(j).c_str());
            std::fflush(stdout);
        } else {
            if (tty) std::fprintf(stderr, "\n");
            std::fprintf(stderr, "step %lld: train loss %.4f, val loss %.4f, %.0f tok/s\n", (long long)tr->step,
                         train_loss, val_loss, tps);
        }
        save();
        saved_step = tr->step;
    };
    // A loss that is NaN or infinite stops the run before anything is saved over the last good
    // checkpoint, naming the step and (the reference's forward) the first tensor that left the floats.
    // On the mesh such a step is not applied (SwarmXStep::applied), and the step's sequences run
    // forward again on the weights before it, each op's output looked at (MeshTrainer::find_nonfinite).
    auto stop_if_diverged = [&]() {
        if (std::isfinite(last_loss)) return;
        std::string where;
        if (!mesh) where = tr->model->first_nonfinite();
        else if (!mesh->find_nonfinite(inputs.data(), targets.data(), tr->sequences_per_step(), cfg.block_size, &where))
            where = "(looking for it on the mesh failed: " + mesh->error() + ")";
        throw std::runtime_error(
            "step " + std::to_string(tr->step) + ": the loss is " + (std::isnan(last_loss) ? "NaN" : "infinite") +
            (mesh ? " on the mesh (the step was not applied)" : "") +
            (where.empty() ? "" : "; it first appears in " + where + (mesh ? " (the ops in order)" : " (the forward's tensors in order)")) +
            ". Stopped; " + out + " keeps step " + std::to_string(saved_step) +
            "'s weights (a smaller optimizer.learning_rate, or optimizer.max_gradient_norm > 0 to clip, usually helps)");
    };

    evaluate();
    while (tr->step < total) {
        auto t0 = Clock::now();
        if (mesh) {
            tr->step_batches(tr->step, inputs.data(), targets.data());
            const std::string failed = "train on the mesh, step " + std::to_string(tr->step) + ": ";
            if (!swarm->begin_step(inputs.data(), targets.data(), tr->sequences_per_step(), cfg.block_size, tr->lr()))
                throw std::runtime_error(failed + swarm->error());
            auto shown = Clock::now();
            while (swarm->stepping()) {   // the step a unit at a time; a long one says where it is
                if (!swarm->run_slice(1)) throw std::runtime_error(failed + swarm->error());
                if (!tty || !swarm->stepping() || Clock::now() - shown < std::chrono::milliseconds(250)) continue;
                const wl::model::SwarmXWork w = swarm->next_work();
                std::string unit = wl::model::step_unit_text(w, swarm->wafers());
                if (w.work && w.work->sequence >= 0)
                    unit += ", sequence " + std::to_string(w.work->sequence + 1) + " of " +
                            std::to_string(tr->sequences_per_step() / swarm->wafers());
                std::fprintf(stderr, "\r\033[K  step %lld: %3.0f%%  %s", (long long)tr->step + 1, 100 * swarm->progress(), unit.c_str());
                std::fflush(stderr);
                shown = Clock::now();
            }
            const wl::model::SwarmXStep st = swarm->last_step();
            tr->step += 1;
            tr->last_grad_norm = st.grad_norm;
            last_loss = st.loss;
            train_s += std::chrono::duration<double>(Clock::now() - t0).count();
            trained_tokens += tr->tokens_per_step();
            if (!json && st.seconds >= 1) {   // a long step is news: what it cost, on the host and on the wafer
                std::string line = "step " + std::to_string(tr->step) + ": loss " + fixed(st.loss, 4) + ", " + fixed(st.seconds, 1) +
                                   " s, " + wl::thousands(st.cycles) + " cycles (" + fixed(1e3 * double(st.cycles) / wl::kClockHz, 1) +
                                   " ms of wafer time at " + fixed(wl::kClockHz / 1e9, 1) + " GHz)";
                if (st.stream_bytes)
                    line += ", streamed " + fixed(double(st.stream_bytes) / 1e6, 1) + " MB in and out over " +
                            wl::thousands(st.stream_cycles) + " cycles";
                if (st.wafers > 1) line += ", SwarmX " + wl::thousands(st.swarmx_cycles) + " cycles";
                std::fprintf(stderr, "%s%s\n", tty ? "\r\033[K" : "", line.c_str());
            }
            if (json) {
                nlohmann::json j = wl::model::to_json(st);
                j["step"] = tr->step;
                j["tokens_per_s"] = double(tr->tokens_per_step()) / st.seconds;
                if (sparse) j["density"] = pruned.density();
                std::printf("%s\n", wl::json_text(j).c_str());
                std::fflush(stdout);
            }
        } else {
            last_loss = tr->train_step();
            const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
            train_s += seconds;
            trained_tokens += tr->tokens_per_step();
            if (json) {   // the step's loss, as the mesh's lines give it: the two runs compare line by line
                const nlohmann::json j = {{"step", tr->step}, {"loss", last_loss}, {"grad_norm", tr->last_grad_norm},
                                          {"tokens_per_s", double(tr->tokens_per_step()) / seconds}};
                std::printf("%s\n", wl::json_text(j).c_str());
            }
        }
        stop_if_diverged();
        if (tty) bar(tr->step, total, last_loss, double(trained_tokens) / train_s);
        if (tr->step % cfg.eval_interval == 0 || tr->step == total) evaluate();
    }

    nlohmann::json summary = {{"summary", true},
                              {"steps", tr->step},
                              {"train_loss", train_loss},
                              {"val_loss", val_loss},
                              {"last_batch_loss", last_loss},
                              {"tokens_per_s", train_s > 0 ? double(trained_tokens) / train_s : 0.0},
                              {"train_s", train_s},
                              {"parameters", parameters},
                              {"threads", num_threads()},
                              {"checkpoint", out},
                              {"on_mesh", mesh != nullptr}};
    if (mesh) {
        summary["compile"] = wl::model::to_json(compile_info);
        summary["wafers"] = wafers;
    }
    if (sparse) summary["density"] = pruned.density();
    if (cfg.corpus == "addition") {   // exact-match accuracy on fresh problems, greedy decoding
        auto probs = addition_problems(cfg.seed + 1, 100, cfg.addition_digits);
        summary["addition_accuracy"] = addition_accuracy(probs, [&](const std::string& p) {
            const SampleOptions greedy{0.0f, 0, 1};
            std::vector<int> ids;
            if (!mesh) ids = generate(*tr->model, tr->tokenizer->encode(p), cfg.addition_digits + 2, greedy);
            else if (!mesh->sample(tr->tokenizer->encode(p), cfg.addition_digits + 2, greedy, &ids))
                throw std::runtime_error("sample on the mesh: " + mesh->error());
            return tr->tokenizer->decode(std::vector<int>(ids.begin() + long(p.size()), ids.end()));
        });
    }
    if (json) std::printf("%s\n", wl::json_text(summary).c_str());
    else {
        std::fprintf(stderr, "done: %lld steps, val loss %.4f, %.0f tok/s; checkpoint %s\n", (long long)tr->step,
                     val_loss, summary["tokens_per_s"].get<double>(), out.c_str());
        if (summary.contains("addition_accuracy"))
            std::fprintf(stderr, "addition exact-match accuracy: %.1f%%\n", 100 * summary["addition_accuracy"].get<double>());
    }
    return 0;
}

}  // namespace wlcli
