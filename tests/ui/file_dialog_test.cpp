// file_dialog_test.cpp: the native app's file dialog (ui/file_dialog.h), with a stand-in program
// in zenity's place (WAFERLAB_FILE_DIALOG): the path it prints is the choice, exit 1 a cancel, and
// the app goes on drawing while it is open. The WebAssembly build has the page's picker instead.
#ifndef __EMSCRIPTEN__
#include "ui/file_dialog.h"

#include "tests/temp_path.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <thread>

namespace {

// A dialog that writes its arguments to args_file, then prints `out` and exits with `code`.
std::string stand_in(const wltest::TempPath& script, const std::string& args_file, const std::string& out, int code) {
    std::ofstream(script.str()) << "#!/bin/sh\nprintf '%s\\n' \"$@\" > '" << args_file << "'\nsleep 0.2\nprintf '" << out
                                << "'\nexit " << code << "\n";
    chmod(script.str().c_str(), 0755);
    return script.str();
}

std::optional<std::string> wait_for(wlui::FileDialog& d, int* polls) {
    for (*polls = 0; *polls < 500; ++*polls) {
        if (auto r = d.poll()) return r;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return std::nullopt;
}

}  // namespace

TEST(FileDialog, ThePathItPrintsIsTheChoiceAndACancelIsEmpty) {
    const wltest::TempPath script("dialog.sh"), args("dialog.args");
    setenv("WAFERLAB_FILE_DIALOG", stand_in(script, args.str(), "/data/gpt2_124M.bin\\n", 0).c_str(), 1);
    EXPECT_EQ(wlui::FileDialog::program(), script.str());
    wlui::FileDialog d;
    std::string why;
    EXPECT_FALSE(d.poll()) << "nothing opened";
    ASSERT_TRUE(d.open("Open GPT-2 weights", {"*.bin", "*.ckpt"}, &why)) << why;
    EXPECT_TRUE(d.running());
    EXPECT_FALSE(d.open("again", {}, &why));
    EXPECT_EQ(why, "a file dialog is open already");
    int polls = 0;
    const std::optional<std::string> got = wait_for(d, &polls);
    EXPECT_GT(polls, 1) << "poll() does not wait for the dialog";
    ASSERT_TRUE(got);
    EXPECT_EQ(*got, "/data/gpt2_124M.bin");
    EXPECT_FALSE(d.running());
    std::ifstream in(args.str());
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_EQ(ss.str(), "--file-selection\n--title=Open GPT-2 weights\n--file-filter=Open GPT-2 weights | *.bin *.ckpt\n");

    stand_in(script, args.str(), "", 1);   // cancelled
    ASSERT_TRUE(d.open("Open", {"*.bin"}, &why)) << why;
    EXPECT_EQ(wait_for(d, &polls), std::string());
    EXPECT_EQ(d.error(), "");
    stand_in(script, args.str(), "", 5);   // failed
    ASSERT_TRUE(d.open("Open", {"*.bin"}, &why)) << why;
    EXPECT_EQ(wait_for(d, &polls), std::string());
    EXPECT_EQ(d.error(), "the file dialog failed (exit status 5)");
    unsetenv("WAFERLAB_FILE_DIALOG");
}

TEST(FileDialog, NoProgramIsAClearRefusal) {
    setenv("WAFERLAB_FILE_DIALOG", "/nonexistent/zenity", 1);
    wlui::FileDialog d;
    std::string why;
    EXPECT_FALSE(d.open("Open", {"*.bin"}, &why));
    EXPECT_NE(why.find("cannot start the file dialog /nonexistent/zenity"), std::string::npos) << why;
    EXPECT_FALSE(d.running());
    const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
    setenv("PATH", "/nonexistent", 1);   // neither zenity nor kdialog
    unsetenv("WAFERLAB_FILE_DIALOG");
    EXPECT_EQ(wlui::FileDialog::program(), "");
    EXPECT_FALSE(d.open("Open", {"*.bin"}, &why));
    EXPECT_EQ(why, "no file dialog on this system (install zenity or kdialog); type the path instead");
    setenv("PATH", path.c_str(), 1);
}
#endif
