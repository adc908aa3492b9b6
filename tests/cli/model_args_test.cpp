// model_args_test.cpp: where the GPT verbs find their kernels, from any working directory.
#include "cli/model_args.h"

#include <gtest/gtest.h>

#include <filesystem>
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
    Args orphan;
    orphan.options["sparsity-mask"] = "random";
    EXPECT_NE(error(orphan).find("give --sparsity S too"), std::string::npos) << error(orphan);
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
    a.options["config"] = WAFERLAB_SOURCE_DIR "/models/gpt-nano.yaml";
    EXPECT_EQ(config_from(a).execution, "resident");
    a.options["execution"] = "streaming";
    EXPECT_EQ(config_from(a).execution, "streaming");
    wl::gpt::GPTConfig from_checkpoint;
    apply_cli_overrides(a, &from_checkpoint);
    EXPECT_EQ(from_checkpoint.execution, "streaming");
    a.options["execution"] = "pipelined";
    try {
        config_from(a);
        ADD_FAILURE() << "--execution pipelined was accepted";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("wafer.execution must be resident or streaming, got 'pipelined'"), std::string::npos)
            << e.what();
    }
}
