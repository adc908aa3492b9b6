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
