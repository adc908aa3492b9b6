// share_state_test.cpp: a share link's state round-trips, and a damaged, hostile or newer one
// is refused with a reason for the user (never a crash, never half applied).
#include "ui/share_state.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace wlui;
using nlohmann::json;

static SharedState sample() {
    SharedState s;
    s.file = "gemv.wk";
    s.text = "// gemv\nlayout {\n  grid 4 x 2;\n}\n\"é\"\n";
    s.example = "gemv";
    s.lesson = 3;
    s.mesh_w = 4, s.mesh_h = 2;
    s.cycle = 40;
    s.colouring = "sram";
    s.pe = std::pair{1, 0};
    s.run_mode = wl::RunMode::Fast;
    s.optimise = true;
    return s;
}

TEST(SharedState, RoundTripsThroughJson) {
    std::string problem;
    const SharedState s = sample();
    auto back = shared_state_from_json(json::parse(shared_state_to_json(s).dump()), &problem);
    ASSERT_TRUE(back) << problem;
    EXPECT_EQ(*back, s);
    SharedState none;   // no PE selected, no kernel
    back = shared_state_from_json(shared_state_to_json(none), &problem);
    ASSERT_TRUE(back) << problem;
    EXPECT_EQ(*back, none);
}

TEST(SharedState, RefusesWhatItCannotUse) {
    const json good = shared_state_to_json(sample());
    auto with = [&](const char* key, json v) { json j = good; j[key] = std::move(v); return j; };
    const std::pair<json, const char*> bad[] = {
        {json(nullptr), "not a WaferLab share link"},
        {json::array({1, 2}), "not a WaferLab share link"},
        {with("format", "waferlab-workspace"), "not a WaferLab share link"},
        {with("version", "1"), "no format version"},
        {with("version", 2), "newer WaferLab (share format 2; this one reads formats 1 to 1)"},
        {with("version", json(18446744073709551615ull)), "newer WaferLab"},
        {with("version", 0), "share format 0 is not one WaferLab ever wrote"},
        {with("text", 5), "wrong type"},
        {with("text", std::string(SharedState::kMaxText + 1, 'x')), "over 4 MiB"},
        {with("file", "../../etc/passwd"), "not a plain file name"},
        {with("file", ""), "not a plain file name"},
        {with("example", "<script>"), "not a plain name"},
        {with("colouring", "rainbow"), "colouring mode this WaferLab does not have ('rainbow')"},
        {with("lesson", -1), "not a lesson number"},
        {with("mesh", {{"w", 0}, {"h", 2}}), "W and H in 1..256"},
        {with("mesh", {{"w", 4}, {"h", 100000}}), "W and H in 1..256"},
        {with("mesh", "4x2"), "W and H in 1..256"},
        {with("cycle", -5), "number of cycles from 0 to 100000000"},
        {with("cycle", 100000001), "number of cycles from 0 to 100000000"},
        {with("cycle", 1.5), "number of cycles"},
        {with("pe", {{"x", 1}}), "not a place on a mesh"},
        {with("pe", {{"x", -1}, {"y", 0}}), "not a place on a mesh"},
        {with("run_mode", "turbo"), "run mode"},
        {with("optimise", "yes"), "optimise is not true or false"},
    };
    for (const auto& [j, why] : bad) {
        std::string problem;
        EXPECT_FALSE(shared_state_from_json(j, &problem)) << j.dump().substr(0, 80);
        EXPECT_NE(problem.find(why), std::string::npos) << "got: " << problem << "; wanted: " << why;
    }
}

TEST(SharedState, MissingFieldsTakeTheDefaults) {
    std::string problem;
    auto s = shared_state_from_json(json{{"format", "waferlab-share"}, {"version", 1}, {"text", "x"}}, &problem);
    ASSERT_TRUE(s) << problem;
    SharedState want;
    want.text = "x";
    EXPECT_EQ(*s, want);
}
