// workspace_test.cpp: the saved workspace round-trips, bad or foreign saved state is
// refused with a reason (never a crash), the start rules keep unsaved edits, autosave
// debounces, and natively it all lands in the config directory.
#include "ui/storage.h"
#include "ui/workspace.h"
#include "tests/kill_mid_write.h"
#include "tests/temp_path.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace wlui;

TEST(Workspace, RoundTripsThroughJson) {
    Workspace ws;
    ws.file = "mine.wk";
    ws.text = "task t() {\n  x = \"é\\n\";\n}\n";
    ws.example = "gemv";
    ws.modified = true;
    ws.path = "/tmp/mine.wk";
    ws.font_scale = 1.5f;
    ws.lessons_done = {1, 2, 5};
    ws.run_mode = wl::RunMode::Fast;
    ws.optimise = true;
    ws.lesson = 3;
    ws.lesson_work = {{12, "const P = 8;\n"}, {13, "// mine\n"}};
    std::string problem;
    auto back = workspace_from_json(workspace_to_json(ws), &problem);
    ASSERT_TRUE(back) << problem;
    EXPECT_EQ(*back, ws);
    // Kept work that does not read is dropped, the rest kept.
    back = workspace_from_json(R"({"format": "waferlab-workspace", "version": 1, "lesson_work": {"13": "x", "-1": "y", "07": "z", "5": 5}})",
                               &problem);
    ASSERT_TRUE(back) << problem;
    EXPECT_EQ(back->lesson_work, (std::map<int, std::string>{{13, "x"}}));
}

TEST(Workspace, RefusesWhatItCannotRead) {
    const char* bad[][2] = {
        {"garbage{", "not valid JSON"},
        {"", "not valid JSON"},
        {"[1,2]", "not valid JSON"},
        {R"({"file": "x.wk"})", "not a WaferLab workspace"},
        {R"({"format": 5555555555555555555555525})", "not a WaferLab workspace"},   // fuzz_workspace: threw type_error
        {R"({"format": ["waferlab-workspace"]})", "not a WaferLab workspace"},
        {R"({"format": "waferlab-workspace"})", "no format version"},
        {R"({"format": "waferlab-workspace", "version": 0})", "old format"},
        {R"({"format": "waferlab-workspace", "version": 99})", "newer WaferLab"},
        {R"({"format": "waferlab-workspace", "version": 1, "text": 5})", "wrong type"},
        {R"({"format": "waferlab-workspace", "version": 1, "modified": "yes"})", "wrong type"},
    };
    for (auto& [text, why] : bad) {
        std::string problem;
        EXPECT_FALSE(workspace_from_json(text, &problem)) << text;
        EXPECT_NE(problem.find(why), std::string::npos) << text << " -> " << problem;
    }
}

TEST(Workspace, FillsDefaultsAndClampsSettings) {
    std::string problem;
    auto ws = workspace_from_json(R"({"format": "waferlab-workspace", "version": 1, "font_scale": 40, "file": ""})", &problem);
    ASSERT_TRUE(ws) << problem;
    EXPECT_EQ(ws->file, "untitled.wk");
    EXPECT_EQ(ws->text, "");
    EXPECT_FALSE(ws->modified);
    EXPECT_EQ(ws->font_scale, Workspace::kMaxFontScale);
    EXPECT_TRUE(ws->lessons_done.empty());
    EXPECT_EQ(ws->run_mode, wl::RunMode::Cycle);
    EXPECT_FALSE(ws->optimise);   // plain code unless saved otherwise
    // A run mode this build does not know starts in cycle mode, the default, rather than refusing the kernel.
    ws = workspace_from_json(R"({"format": "waferlab-workspace", "version": 1, "run_mode": "turbo", "text": "k"})", &problem);
    ASSERT_TRUE(ws) << problem;
    EXPECT_EQ(ws->run_mode, wl::RunMode::Cycle);
    EXPECT_EQ(ws->text, "k");
    ws = workspace_from_json(R"({"format": "waferlab-workspace", "version": 1, "run_mode": "fast"})", &problem);
    ASSERT_TRUE(ws) << problem;
    EXPECT_EQ(ws->run_mode, wl::RunMode::Fast);
    // Lesson progress keeps the numbers it can read and drops the rest.
    ws = workspace_from_json(R"({"format": "waferlab-workspace", "version": 1, "lessons_done": [3, "x", 4.5, 7]})", &problem);
    ASSERT_TRUE(ws) << problem;
    EXPECT_EQ(ws->lessons_done, (std::vector<int>{3, 7}));
    EXPECT_EQ(ws->lesson, 0);
    ws = workspace_from_json(R"({"format": "waferlab-workspace", "version": 1, "lesson": -4})", &problem);
    ASSERT_TRUE(ws) << problem;
    EXPECT_EQ(ws->lesson, 0);   // no lesson open, rather than a refusal
}

TEST(Workspace, StartNeverDropsUnsavedEditsForAnExample) {
    Workspace edited;
    edited.file = "gemv.wk";
    edited.example = "gemv";
    edited.modified = true;
    Workspace clean = edited;
    clean.modified = false;

    StartPlan p = plan_start(edited, "hello");
    EXPECT_EQ(p.open, StartPlan::Open::Saved);
    EXPECT_NE(p.notice.find("hello"), std::string::npos);

    p = plan_start(clean, "hello");
    EXPECT_EQ(p.open, StartPlan::Open::Example);
    EXPECT_EQ(p.notice, "");

    EXPECT_EQ(plan_start(edited, "").open, StartPlan::Open::Saved);
    EXPECT_EQ(plan_start(std::nullopt, "hello").open, StartPlan::Open::Example);
    EXPECT_EQ(plan_start(std::nullopt, "").open, StartPlan::Open::Nothing);
}

TEST(Workspace, AutosaveWaitsForAPauseButNotForever) {
    Autosave a(0.5, 3.0);
    EXPECT_FALSE(a.due(0.0));
    a.changed(0.0);
    EXPECT_FALSE(a.due(0.4));
    EXPECT_TRUE(a.due(0.5));
    // Steady typing keeps it waiting, up to max_wait after the first change.
    for (double t = 0.1; t < 2.95; t += 0.1) {
        a.changed(t);
        EXPECT_FALSE(a.due(t + 0.05)) << t;
    }
    a.changed(3.0);
    EXPECT_TRUE(a.due(3.05));
    a.written();
    EXPECT_FALSE(a.due(10.0));
    EXPECT_FALSE(a.dirty());
}

TEST(Storage, ConfigDirFollowsXdg) {
    EXPECT_EQ(storage::config_dir("/x/cfg", "/home/u"), "/x/cfg/waferlab");
    EXPECT_EQ(storage::config_dir(nullptr, "/home/u"), "/home/u/.config/waferlab");
    EXPECT_EQ(storage::config_dir("", "/home/u"), "/home/u/.config/waferlab");
    EXPECT_EQ(storage::config_dir("relative", "/home/u"), "/home/u/.config/waferlab");   // invalid per XDG
}

#ifndef __EMSCRIPTEN__
namespace fs = std::filesystem;

// The native store, end to end, in a temporary $XDG_CONFIG_HOME.
TEST(Storage, PersistsInTheConfigDir) {
    const wltest::TempPath cfg("cfg");
    const fs::path& tmp = cfg.path();
    const char* old = std::getenv("XDG_CONFIG_HOME");
    const std::string saved_env = old ? old : "";
    ::setenv("XDG_CONFIG_HOME", tmp.c_str(), 1);

    EXPECT_EQ(storage::where(), (tmp / "waferlab").string());
    EXPECT_FALSE(storage::read("workspace.json"));   // nothing yet, and no error

    Workspace ws;
    ws.file = "edited.wk";
    ws.text = "// my edit\n";
    ws.modified = true;
    std::string err;
    ASSERT_TRUE(storage::write("workspace.json", workspace_to_json(ws), &err)) << err;
    ASSERT_TRUE(storage::write("imgui.ini", "[Window][x]\nPos=1,2\n", &err)) << err;
    EXPECT_TRUE(fs::exists(tmp / "waferlab" / "workspace.json"));
    EXPECT_FALSE(fs::exists(tmp / "waferlab" / "workspace.json.tmp"));   // written aside, then renamed

    auto text = storage::read("workspace.json", &err);
    ASSERT_TRUE(text) << err;
    auto back = workspace_from_json(*text, &err);
    ASSERT_TRUE(back) << err;
    EXPECT_EQ(*back, ws);
    EXPECT_EQ(*storage::read("imgui.ini"), "[Window][x]\nPos=1,2\n");

    // A corrupt file reads back as text; the parser, not the store, refuses it.
    { std::ofstream(tmp / "waferlab" / "workspace.json") << "\x01garbage"; }
    text = storage::read("workspace.json");
    ASSERT_TRUE(text);
    EXPECT_FALSE(workspace_from_json(*text, &err));

    // Killed mid-save: the previous workspace is still there, whole.
    ASSERT_TRUE(storage::write("workspace.json", workspace_to_json(ws), &err)) << err;
    Workspace bigger = ws;
    bigger.text = std::string(1 << 20, 'x');
    const int sig = wltest::kill_mid_write(64 * 1024, [&] { storage::write("workspace.json", workspace_to_json(bigger)); });
    ASSERT_EQ(sig, SIGXFSZ) << "the save was not cut short";
    text = storage::read("workspace.json", &err);
    ASSERT_TRUE(text) << err;
    back = workspace_from_json(*text, &err);
    ASSERT_TRUE(back) << err;
    EXPECT_EQ(*back, ws);

    EXPECT_TRUE(storage::remove("workspace.json"));
    EXPECT_FALSE(storage::read("workspace.json"));

    if (old) ::setenv("XDG_CONFIG_HOME", saved_env.c_str(), 1);
    else ::unsetenv("XDG_CONFIG_HOME");
}
#endif
