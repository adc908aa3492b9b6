// model_session.cpp: see model_session.h.
#include "ui/model_session.h"

#include "engine/core/json_text.h"
#include "engine/core/memory_limit.h"
#include "engine/gpt/checkpoint.h"
#include "engine/gpt/trainer.h"
#include "engine/gpu/wafer_estimate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <utility>

namespace wlui {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
    std::string s;
    for (const std::string& p : parts) s += (s.empty() ? "" : sep) + p;
    return s;
}

std::string constants_text(const wl::model::PlannedOp& o) {
    std::vector<std::string> kv;
    for (const auto& [k, v] : o.constants) kv.push_back(k + "=" + fmt("%g", v));
    return join(kv, " ");
}

// The program an op's compiled kernel loads on PE (x, y) of the mesh, or nullptr.
const wl::Program* program_at(const wl::model::PlannedOp& o, int x, int y) {
    const int lx = x - o.rect.x, ly = (y - o.rect.y) % std::max(1, o.compiled->grid_h);   // each tier a copy of the kernel
    for (const auto& p : o.compiled->placements)
        if (lx >= p.x && lx < p.x + p.w && ly >= p.y && ly < p.y + p.h) return p.program.get();
    return nullptr;
}

}  // namespace

// [SECTION] the compiler's stages as tables

std::vector<PlanStage> plan_stages(const wl::model::MeshPlan& p) {
    const auto& c = p.cfg;
    std::vector<PlanStage> s(6);
    auto layer = [](const wl::model::PlannedOp& o) { return o.layer < 0 ? std::string("-") : std::to_string(o.layer); };

    s[0].title = "1. graph";
    s[0].summary = std::to_string(p.ops.size()) + " ops, one forward at T = " + std::to_string(c.block_size) + " (" +
                   std::to_string(c.n_layer) + " layers, " + std::to_string(c.n_head) + " heads, " +
                   std::to_string(c.n_embd) + " channels, vocabulary " + std::to_string(c.vocab_size) + ")";
    s[0].columns = {"tensor", "op", "layer", "MFLOP"};
    for (const auto& o : p.ops) s[0].rows.push_back({o.name, o.op, layer(o), fmt("%.3f", o.flops / 1e6)});

    int last_row = 0;
    for (const auto& o : p.ops) last_row = std::max(last_row, o.rect.y + o.rect.h - 1);
    s[1].title = "2. placement";
    s[1].summary = "a row of PEs per op (or its tiers: rows stacked, each holding a part of its weights) in schedule order, "
                   "down bands of rows where they fit: " + std::to_string(p.pes_used()) + " of " +
                   std::to_string(p.mesh_w * p.mesh_h) + " PEs, rows 0.." + std::to_string(last_row);
    s[1].columns = {"tensor", "PEs", "x", "y"};
    for (const auto& o : p.ops)
        s[1].rows.push_back({o.name, std::to_string(o.rect.w * o.rect.h),
                             std::to_string(o.rect.x) + ".." + std::to_string(o.rect.x + o.rect.w - 1),
                             o.rect.h > 1 ? std::to_string(o.rect.y) + ".." + std::to_string(o.rect.y + o.rect.h - 1) + " (" +
                                                std::to_string(o.rect.h) + " tiers)"
                                          : std::to_string(o.rect.y)});

    s[2].title = "3. memory plan";
    s[2].summary = "SRAM per used PE: max " + std::to_string(p.bytes_max()) + " bytes, mean " +
                   fmt("%.0f", p.bytes_mean()) + " (of " + std::to_string(p.sram_bytes) + ")";
    s[2].columns = {"tensor", "bytes/PE", "SRAM map of its first PE (offset: symbol[elements])"};
    for (const auto& o : p.ops) {
        std::vector<std::string> map;
        for (const auto& sym : o.compiled->placements.front().program->symbols)
            map.push_back(std::to_string(sym.offset) + ": " + sym.name + "[" + std::to_string(sym.length) + "]");
        s[2].rows.push_back({o.name, std::to_string(o.bytes_per_pe), join(map, "  ")});
    }

    s[3].title = "4. kernels";
    s[3].summary = "each op instantiates a kernel from models/kernels/; its constants fix the sizes and the tiling";
    s[3].columns = {"tensor", "kernel", "constants", "weights"};
    for (const auto& o : p.ops) {
        std::vector<std::string> w;
        for (const auto& [sym, param] : o.weights) w.push_back(sym + " <- " + param);
        s[3].rows.push_back({o.name, o.kernel, constants_text(o), join(w, ", ")});
    }

    s[4].title = "5. schedule";
    int links = 0, inputs = 0;
    for (const auto& o : p.ops)
        for (const auto& t : o.inputs) {
            links += t.colour > 0;
            inputs += t.slice != wl::model::Slice::Tokens;
        }
    s[4].summary = "launch each op's main on its PEs in this order; " + std::to_string(links) + " of " +
                   std::to_string(inputs) + " inputs come as wavelets over a link from the op above, the host copies the rest";
    s[4].columns = {"#", "tensor", "in (tensor -> symbol)", "out"};
    for (size_t i = 0; i < p.ops.size(); i++) {
        const auto& o = p.ops[i];
        std::vector<std::string> in;
        for (const auto& t : o.inputs)
            in.push_back(t.tensor + " -> " + t.symbol + (t.colour ? " (link " + std::to_string(t.colour) + ")"
                                                         : t.between_layers ? " (host, between layers)" : ""));
        s[4].rows.push_back({std::to_string(i + 1), o.name, join(in, ", "), o.output.symbol + " -> " + o.output.tensor});
    }

    // One row per distinct compiled kernel: ops with equal constants share one.
    s[5].title = "6. executable";
    s[5].columns = {"kernel", "constants", "ops", "instructions"};
    std::vector<const wl::lang::CompileResult*> seen;
    size_t instrs_all = 0;
    for (const auto& o : p.ops) {
        const auto at = std::find(seen.begin(), seen.end(), o.compiled.get());
        if (at != seen.end()) {
            auto& row = s[5].rows[size_t(at - seen.begin())];
            row[2] = std::to_string(std::stoi(row[2]) + 1);
            continue;
        }
        size_t instrs = 0;
        for (const auto& pl : o.compiled->placements) instrs += pl.program->code.size();
        instrs_all += instrs;
        seen.push_back(o.compiled.get());
        s[5].rows.push_back({o.kernel, constants_text(o), "1", std::to_string(instrs)});
    }
    s[5].summary = std::to_string(seen.size()) + " compiled kernels (" + std::to_string(instrs_all) +
                   " instructions in all), " + std::to_string(p.pes_used()) + " PEs loaded, " +
                   (p.streaming ? "one layer's ops serve all " + std::to_string(p.cfg.n_layer) +
                                      " layers, each layer's weights streamed in over the mesh's edge"
                                : std::string("weights resident"));
    return s;
}

// [SECTION] results as JSON


nlohmann::json to_json(const ForwardReport& f) {
    nlohmann::json j = wl::model::to_json(f.run);
    j["prompt"] = f.prompt;
    j["logits"] = f.run.logits;
    return j;
}

// Text a model made may split a multi-byte character between tokens: invalid UTF-8 becomes U+FFFD
// here, so that dumping the JSON never throws.
static nlohmann::json utf8(const std::string& s) {
    return nlohmann::json::parse(wl::json_text(nlohmann::json(s)));
}

nlohmann::json to_json(const Generation& g) {
    return {{"prompt", utf8(g.prompt)}, {"text", utf8(g.text)}, {"tokens", g.wanted}, {"made", g.made()},
            {"running", g.running()}, {"temperature", g.opt.temperature}, {"top_k", g.opt.top_k},
            {"seed", g.opt.seed}, {"cycles", g.cycles}, {"cycles_per_token", g.cycles_per_token()},
            {"wafer_s_per_token", g.cycles_per_token() / wl::kClockHz}, {"clock_hz", wl::kClockHz},
            {"wall_s", g.wall_seconds}, {"tokens_per_s", g.tokens_per_second()},
            {"error", g.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(g.error)}};
}

nlohmann::json to_json(const std::vector<SramEntry>& map) {
    nlohmann::json j = nlohmann::json::array();
    for (const SramEntry& e : map)
        j.push_back({{"symbol", e.symbol}, {"offset", e.offset}, {"length", e.length}, {"bytes", e.bytes}});
    return j;
}

// [SECTION] loading and compiling

ModelSession::ModelSession(std::string models_dir) : dir_(std::move(models_dir)) {}

std::vector<std::string> ModelSession::configs() const {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir_, ec))
        if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::string ModelSession::config_path(const std::string& config) const {
    const bool is_path = config.find('/') != std::string::npos || config.find(".yaml") != std::string::npos;
    return is_path ? config : dir_ + "/" + config + ".yaml";
}

bool ModelSession::compile(const std::string& config, int w, int h, const std::string& checkpoint, const std::string& set,
                           bool no_cache) {
    // Everything is built aside and swapped in only when it all worked: a failed compile (a mesh too
    // small, a broken kernel) leaves the last good one loaded and usable.
    try {
        const std::string path = config_path(config);
        Loaded m;
        wl::model::CompileInfo early_info;   // when the early check below compiled
        bool early_ran = false;
        if (!model_ || config != config_ || checkpoint != checkpoint_ || set != set_) {
            if (from_bytes_ && !checkpoint.empty() && checkpoint == checkpoint_)   // no file here to read again
                throw std::runtime_error(checkpoint + " was opened from the page's file picker, and only the model made from it for " +
                                         config_ + (set_.empty() ? "" : " (" + set_ + ")") +
                                         " is kept: open the file again (Open weights...) for another config or setting, or use the seed's weights");
            if (!checkpoint.empty() && wl::gpt::is_llmc_file(checkpoint)) {   // GPT-2's weights from llm.c, for this config
                try {
                    wl::gpt::LlmcModel w = wl::gpt::llmc_model(checkpoint, [&](wl::gpt::GPTConfig* cfg) {
                        *cfg = wl::gpt::load_config(path);
                        wl::gpt::apply_overrides(*cfg, set, "set");
                    });
                    m.model = std::move(w.model), m.tokenizer = std::move(w.tokenizer), m.source = std::move(w.source);
                } catch (const std::invalid_argument& e) {   // the config's shape is not the weights'
                    throw std::runtime_error(config + " and " + checkpoint + ": " + e.what());
                }
            } else if (!checkpoint.empty()) {
                wl::gpt::Checkpoint ck = wl::gpt::load_checkpoint(checkpoint);
                m.tokenizer = wl::gpt::checkpoint_tokenizer(ck, checkpoint);
                wl::gpt::apply_checkpoint_overrides(ck, wl::gpt::parse_overrides(set, "set"), "set", checkpoint);   // as the CLI's --set on a checkpoint
                m.model = wl::gpt::model_from_checkpoint(ck);
                m.source = "checkpoint " + checkpoint + " (step " + std::to_string(ck.step) + ")";
            } else {
                wl::gpt::GPTConfig cfg = wl::gpt::load_config(path);
                wl::gpt::apply_overrides(cfg, set, "set");
                // A config that names its vocabulary can be planned before its weights are made: a model
                // too big for the mesh fails here, in milliseconds, not after building its parameters.
                if (cfg.vocab_size > 0) {
                    const wl::model::PlanResult early =
                        cache_.plan(cfg, w, h, kernels(), wl::MachineConfig{}.sram_bytes, false, no_cache, &early_info);
                    if (!early.ok) throw std::runtime_error(early.error);
                    early_ran = true;
                }
                wl::gpt::InitialModel init = wl::gpt::initial_model(cfg);   // the weights from the seed; no optimizer
                m.tokenizer = std::move(init.tokenizer);
                m.model = std::move(init.model);
                m.source = "config " + config + ", initial weights (seed " + std::to_string(cfg.seed) + ")";
            }
        }
        install(std::move(m), config, checkpoint, set, w, h, no_cache && !early_ran, early_ran ? &early_info : nullptr);
        return true;
    } catch (const std::exception& e) {
        error_ = e.what();
        return false;
    }
}

void ModelSession::install(Loaded m, const std::string& config, const std::string& checkpoint, const std::string& set, int w, int h,
                           bool no_cache, const wl::model::CompileInfo* early) {
    const wl::gpt::GPT& model = m.model ? *m.model : *model_;
    wl::model::CompileInfo info;
    wl::model::PlanResult r = cache_.plan(model.cfg, w, h, kernels(), wl::MachineConfig{}.sram_bytes, false, no_cache, &info);
    if (!r.ok) throw std::runtime_error(r.error);
    if (early && early->key == info.key) {   // the early check did the compiling (or the lookup)
        const double seconds = info.seconds;
        info = *early;
        info.seconds += seconds;
    }
    auto mesh = std::make_unique<wl::model::MeshGPT>(std::move(r.plan), model);
    mesh_.reset();   // it refers to model_
    if (m.model) {
        model_ = std::move(m.model);
        tokenizer_ = std::move(m.tokenizer);
        source_ = std::move(m.source);
        from_bytes_ = m.from_bytes;
        config_ = config;
        checkpoint_ = checkpoint;
        set_ = set;
    }
    mesh_ = std::move(mesh);
    if (schedule_) mesh_->set_schedule(*schedule_);
    compile_info_ = info;
    have_forward_ = false;
    gen_ = Generation{};
    error_.clear();
}

// [SECTION] llm.c's weights as bytes (the browser's file picker)

bool ModelSession::check_llmc(const std::string& name, std::string_view head, uint64_t size, const std::string& config, int w, int h,
                              const std::string& set, const MemoryUse& memory, LlmcNeed* need) {
    try {
        const wl::gpt::LlmcHeader header = wl::gpt::parse_llmc_header(head, name);
        wl::gpt::GPTConfig cfg = wl::gpt::load_config(config_path(config));
        wl::gpt::apply_overrides(cfg, set, "set");
        try {
            cfg = wl::gpt::context_config(header.cfg, cfg);
        } catch (const std::invalid_argument& e) {   // the config's shape is not the weights', as compile() says it
            throw std::runtime_error(config + " and " + name + ": " + e.what());
        }
        // What it needs, before a byte more is read: the refusal a GPT-2 small file on a mesh too
        // big for the tab gets at once, not after 500 MB.
        LlmcNeed n;
        n.name = name;
        n.file = header.file_bytes;
        n.weights = uint64_t(wl::gpt::count_parameters(header.cfg)) * 4;
        n.model = uint64_t(wl::gpt::count_parameters(cfg)) * 4;
        const wl::MachineConfig machine;
        n.mesh = uint64_t(w) * uint64_t(h) * (machine.sram_bytes + wl::Machine::state_bytes_per_pe());
        n.store = cfg.execution == wl::gpt::Execution::Streaming ? n.model : 0;   // as the planner reads the key
        n.mesh_limit = machine.memory_limit;
        n.memory = memory;
        if (need) *need = n;
        if (!n.fits()) throw std::runtime_error(n.text(w, h));
        wl::gpt::check_llmc_size(header, size, name);
        // The plan now, so a mesh too small says so before the file is read (compile_llmc finds it in the cache).
        llmc_plan_.reset();
        wl::model::CompileInfo info;
        const wl::model::PlanResult plan = cache_.plan(cfg, w, h, kernels(), machine.sram_bytes, false, false, &info);
        if (!plan.ok) throw std::runtime_error(plan.error);
        llmc_plan_ = info;
        error_.clear();
        return true;
    } catch (const std::exception& e) {
        error_ = e.what();
        return false;
    }
}

bool ModelSession::compile_llmc(const std::string& name, std::string bytes, const std::string& config, int w, int h,
                                const std::string& set, bool no_cache) {
    try {
        Loaded m;
        try {
            wl::gpt::LlmcModel l = wl::gpt::llmc_model_from_bytes(std::move(bytes), name, [&](wl::gpt::GPTConfig* cfg) {
                *cfg = wl::gpt::load_config(config_path(config));
                wl::gpt::apply_overrides(*cfg, set, "set");
            });
            m.model = std::move(l.model), m.tokenizer = std::move(l.tokenizer), m.source = std::move(l.source);
        } catch (const std::invalid_argument& e) {   // the config's shape is not the weights'
            throw std::runtime_error(config + " and " + name + ": " + e.what());
        }
        m.from_bytes = true;
        const std::optional<wl::model::CompileInfo> early = std::exchange(llmc_plan_, std::nullopt);
        install(std::move(m), config, name, set, w, h, no_cache, early ? &*early : nullptr);
        return true;
    } catch (const std::exception& e) {
        error_ = e.what();
        return false;
    }
}

std::string LlmcNeed::text(int w, int h) const {
    using wl::byte_size_text;
    const std::string mesh_text = std::to_string(w) + "x" + std::to_string(h);
    std::string s = name + " on a " + mesh_text + " mesh needs at least " + byte_size_text(double(peak())) +
                    " at once: the file (" + byte_size_text(double(file)) + ") is read whole and parsed into its weights (" +
                    byte_size_text(double(weights)) + " as f32), and the model";
    if (model != weights) s += " for the config's context (" + byte_size_text(double(model)) + ")";
    s += " is kept beside the mesh's SRAM and state (" + byte_size_text(double(mesh)) + ")";
    if (store) s += " and the streamed weights' store (" + byte_size_text(double(store)) + ")";
    s += ". This tab has " + byte_size_text(double(memory.available())) + " free of its " + byte_size_text(double(memory.ceiling)) +
         " (" + byte_size_text(double(memory.in_use)) + " in use)";
    if (mesh_limit && mesh > mesh_limit)
        s += ", and one mesh may take at most " + byte_size_text(double(mesh_limit)) + " (a " + mesh_text + " mesh needs " +
             byte_size_text(double(mesh)) + ")";
    return s + ".";
}

nlohmann::json to_json(const LlmcNeed& n) {
    return {{"name", n.name}, {"file", n.file}, {"weights", n.weights}, {"model", n.model}, {"mesh", n.mesh}, {"store", n.store},
            {"peak", n.peak()}, {"fits", n.fits()}, {"mesh_limit", n.mesh_limit},
            {"memory", {{"ceiling", n.memory.ceiling}, {"in_use", n.memory.in_use}, {"available", n.memory.available()}}}};
}

nlohmann::json ModelSession::plan_json() const {
    if (!mesh_) return nullptr;
    nlohmann::json j = wl::model::to_json(mesh_->plan());
    const auto& c = mesh_->plan().cfg;
    j["model"] = source_;
    j["config"] = config_;
    j["compile"] = wl::model::to_json(compile_info_);
    j["shape"] = {{"n_layer", c.n_layer}, {"n_head", c.n_head}, {"n_embd", c.n_embd}, {"block_size", c.block_size},
                  {"vocab_size", c.vocab_size}, {"parameters", wl::gpt::count_parameters(c)}};
    return j;
}

// [SECTION] PEs

const wl::model::PlannedOp* ModelSession::op_at(int x, int y) const {
    if (!mesh_) return nullptr;
    for (const auto& o : mesh_->plan().ops)
        if (x >= o.rect.x && x < o.rect.x + o.rect.w && y >= o.rect.y && y < o.rect.y + o.rect.h) return &o;
    return nullptr;
}

std::vector<SramEntry> ModelSession::sram_map(int x, int y) const {
    std::vector<SramEntry> out;
    const wl::model::PlannedOp* o = op_at(x, y);
    const wl::Program* p = o ? program_at(*o, x, y) : nullptr;
    if (!p) return out;
    for (const wl::Symbol& s : p->symbols) out.push_back({s.name, s.offset, s.length * 4, s.length});
    std::sort(out.begin(), out.end(), [](const SramEntry& a, const SramEntry& b) { return a.offset < b.offset; });
    return out;
}

wl::model::KernelSource ModelSession::kernels() const { return wl::model::read_kernels(dir_ + "/kernels"); }

std::string ModelSession::kernel_text(const std::string& kernel) const {
    if (kernel.find('/') != std::string::npos) return "";   // a name in kernels/, never a path
    return kernels()(kernel);
}

// [SECTION] forward and generation

bool ModelSession::encode(const std::string& prompt, std::vector<int>* ids) {
    if (!mesh_) {
        error_ = "compile a model first";
        return false;
    }
    try {
        *ids = tokenizer_->encode(prompt);
    } catch (const std::exception& e) {
        error_ = std::string("the prompt: ") + e.what();
        return false;
    }
    if (ids->empty()) {
        error_ = "the prompt encodes to no tokens";
        return false;
    }
    return true;
}

wl::model::Schedule ModelSession::schedule() const {
    return mesh_ ? mesh_->schedule() : schedule_.value_or(wl::model::Schedule::Sequential);
}

void ModelSession::set_schedule(wl::model::Schedule s) {
    schedule_ = s;
    if (mesh_) mesh_->set_schedule(s);
}

bool ModelSession::forward(const std::string& prompt, int batch) {
    error_.clear();
    if (batch < 1 || batch > kMaxBatch) {
        error_ = "batch must be 1.." + std::to_string(kMaxBatch) + " sequences, got " + std::to_string(batch);
        return false;
    }
    std::vector<int> ids;
    if (!encode(prompt, &ids)) return false;
    if (int(ids.size()) > model_->maxT) ids.erase(ids.begin(), ids.end() - model_->maxT);
    ForwardReport f;
    f.prompt = prompt;
    f.tokens = ids;
    std::vector<int> all;
    for (int b = 0; b < batch; b++) all.insert(all.end(), ids.begin(), ids.end());
    if (!wl::model::forward_checked(*mesh_, *model_, all, &f.run, batch)) {
        error_ = mesh_->error();
        return false;
    }
    forward_ = std::move(f);
    have_forward_ = true;
    return true;
}

std::vector<float> ModelSession::reference_logits(const std::vector<int>& tokens) {
    const int T = int(tokens.size()), V = model_->cfg.vocab_size;
    model_->forward(tokens.data(), nullptr, 1, T);
    return std::vector<float>(model_->logits(), model_->logits() + size_t(T) * size_t(V));
}

bool ModelSession::start_generation(const std::string& prompt, int tokens, const wl::gpt::SampleOptions& opt) {
    error_.clear();
    gen_ = Generation{};
    if (tokens < 0) {
        error_ = "tokens must be >= 0";
        return false;
    }
    std::vector<int> ids;
    if (!encode(prompt, &ids)) return false;
    gen_.prompt = prompt;
    gen_.tokens = ids;
    gen_.prompt_tokens = int(ids.size());
    gen_.wanted = tokens;
    gen_.opt = opt;
    rng_ = wl::gpt::Rng(opt.seed);
    return true;
}

// gpt::generate's loop body: the last max_context tokens in, one token out.
bool ModelSession::step() {
    if (!mesh_ || !gen_.running()) return false;
    const auto t0 = Clock::now();
    const int T = std::min<int>(int(gen_.tokens.size()), model_->maxT);
    try {
        const float* logits = mesh_->next_logits(gen_.tokens.data() + gen_.tokens.size() - T, T);
        gen_.cycles += mesh_->last_cycles();
        gen_.tokens.push_back(wl::gpt::sample_token(logits, model_->V, gen_.opt.temperature, gen_.opt.top_k, rng_));
        gen_.text = tokenizer_->decode(std::vector<int>(gen_.tokens.begin() + gen_.prompt_tokens, gen_.tokens.end()));
    } catch (const std::exception& e) {
        gen_.error = e.what();
        error_ = gen_.error;
    }
    gen_.wall_seconds += since(t0);
    return true;
}

std::vector<int> ModelSession::reference_tokens() const {
    if (!model_ || gen_.tokens.empty()) return {};
    const std::vector<int> prompt(gen_.tokens.begin(), gen_.tokens.begin() + gen_.prompt_tokens);
    return wl::gpt::generate(*model_, prompt, gen_.wanted, gen_.opt);
}

}  // namespace wlui
