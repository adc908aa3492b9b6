// atomic_file_test.cpp: wl::write_file_atomically replaces whole files, follows
// links, and fails with the path named and the old file untouched.
#include "engine/core/atomic_file.h"
#include "tests/temp_path.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

}  // namespace

TEST(AtomicFile, ReplacesTheWholeFileAndLeavesNothingBeside) {
    const wltest::TempPath tmp("atomic");
    const fs::path& d = tmp.path();
    fs::create_directories(d);
    std::string err;
    ASSERT_TRUE(wl::write_file_atomically((d / "a.txt").string(), "first version, longer", &err)) << err;
    ASSERT_TRUE(wl::write_file_atomically((d / "a.txt").string(), "second", &err)) << err;
    EXPECT_EQ(read_all(d / "a.txt"), "second");
    EXPECT_EQ(std::distance(fs::directory_iterator(d), fs::directory_iterator()), 1);
}

TEST(AtomicFile, FollowsALinkAndKeepsIt) {
    const wltest::TempPath tmp("atomic_link");
    const fs::path& d = tmp.path();
    fs::create_directories(d);
    { std::ofstream(d / "real.wk") << "old"; }
    fs::create_symlink("real.wk", d / "link.wk");
    std::string err;
    ASSERT_TRUE(wl::write_file_atomically((d / "link.wk").string(), "new", &err)) << err;
    EXPECT_TRUE(fs::is_symlink(d / "link.wk"));
    EXPECT_EQ(read_all(d / "real.wk"), "new");
}

TEST(AtomicFile, AFailureNamesThePathAndKeepsTheOldFile) {
    const wltest::TempPath tmp("atomic_fail");
    const fs::path& d = tmp.path();
    fs::create_directories(d);
    std::string err;
    EXPECT_FALSE(wl::write_file_atomically((d / "no" / "such" / "dir.txt").string(), "x", &err));
    EXPECT_NE(err.find((d / "no" / "such").string()), std::string::npos) << err;
    // A directory in the file's place: the rename fails, the temporary is removed.
    fs::create_directories(d / "taken" / "inside");
    err.clear();
    EXPECT_FALSE(wl::write_file_atomically((d / "taken").string(), "x", &err));
    EXPECT_NE(err.find("taken"), std::string::npos) << err;
    EXPECT_TRUE(fs::is_directory(d / "taken" / "inside"));
    EXPECT_EQ(std::distance(fs::directory_iterator(d), fs::directory_iterator()), 1);
}
