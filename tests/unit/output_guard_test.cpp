// output_guard_test.cpp: the one check every output file passes (engine/core/output_guard.h), for
// each kind the CLI and the app write: a new file, an empty one or one of its own kind is
// replaced; a file being read (by another name too) or of another kind is refused with both
// paths named, and is left as it was.
#include "engine/core/output_guard.h"

#include "tests/temp_path.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace {

void write(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }
std::string read(const std::string& path) {
    std::stringstream s;
    s << std::ifstream(path, std::ios::binary).rdbuf();
    return s.str();
}
std::string refusal(const wl::NamedPath& out, const wl::OutputKind& kind, const std::vector<wl::NamedPath>& inputs = {}) {
    try {
        wl::guard_output(out, kind, inputs);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "accepted";
}

}  // namespace

TEST(OutputGuard, EachKindReplacesOnlyItsOwnKind) {
    const wltest::TempPath text("guard_notes.txt"), ckpt("guard_a.ckpt"), png("guard.png"), csv("guard.csv"), wk("guard.wk");
    write(text.str(), "precious");
    write(ckpt.str(), "WLGPTCKP and the rest");
    write(png.str(), "\x89PNG\r\n\x1a\n...");
    write(csv.str(), "x,y,program,busy\n0,0,p,1\n");
    write(wk.str(), "layout {}\n");
    EXPECT_EQ(refusal({"--out", ckpt.str()}, wl::kCheckpointOutput), "accepted");
    EXPECT_EQ(refusal({"--out", text.str()}, wl::kCheckpointOutput),
              "--out " + text.str() + " exists and is not a checkpoint: it would be replaced; remove it first or choose another --out");
    EXPECT_EQ(refusal({"the PNG's path", png.str()}, wl::kPngOutput), "accepted");
    EXPECT_NE(refusal({"the PNG's path", ckpt.str()}, wl::kPngOutput).find("is not a PNG image"), std::string::npos);
    EXPECT_EQ(refusal({"the CSV's path", csv.str()}, wl::kStatsCsvOutput), "accepted");
    EXPECT_NE(refusal({"the CSV's path", csv.str()}, wl::kTimelineCsvOutput).find("is not a timeline CSV"), std::string::npos);
    // A kernel is any text: its kind is its name's end.
    EXPECT_EQ(refusal({"Save as", wk.str()}, wl::kKernelOutput), "accepted");
    EXPECT_EQ(refusal({"Save as", text.str()}, wl::kKernelOutput),
              "Save as " + text.str() + " exists and is not a kernel (.wk): it would be replaced; remove it first or choose another name ending in .wk");
    EXPECT_EQ(refusal({"Save as", text.str() + ".new.wk"}, wl::kKernelOutput), "accepted");   // a new file
    const wltest::TempPath empty("guard_empty.bin");
    write(empty.str(), "");
    EXPECT_EQ(refusal({"--out", empty.str()}, wl::kCheckpointOutput), "accepted");   // nothing to lose
    EXPECT_EQ(read(text.str()), "precious");
}

TEST(OutputGuard, AFileBeingReadIsNeverTheOutputByAnyName) {
    const wltest::TempPath ckpt("guard_resume.ckpt");
    write(ckpt.str(), "WLGPTCKP");
    const std::filesystem::path p(ckpt.str());
    const std::string other_name = (p.parent_path() / "." / p.filename()).string();
    EXPECT_EQ(refusal({"--out", other_name}, wl::kCheckpointOutput, {{"--config", ckpt.str()}}),
              "--out " + other_name + " is the file --config " + ckpt.str() + " reads: writing the checkpoint would replace it; choose another --out");
    // A default path's remedy is to give the flag, not "another the default --out".
    EXPECT_EQ(refusal({"the default --out", ckpt.str()}, wl::kCheckpointOutput, {{"--config", ckpt.str()}}),
              "the default --out " + ckpt.str() + " is the file --config " + ckpt.str() + " reads: writing the checkpoint would replace it; give --out");
    EXPECT_TRUE(wl::same_file(other_name, ckpt.str()));
    EXPECT_FALSE(wl::same_file(ckpt.str(), ""));
    const std::string dir = p.parent_path().string();
    EXPECT_EQ(refusal({"--out", dir}, wl::kCheckpointOutput), "--out " + dir + " is a directory; --out names the checkpoint file to write");
}
