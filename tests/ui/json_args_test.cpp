// json_args_test.cpp: the scripting methods' argument readers (ui/json_args.h) read a JSON number
// through the engine's one number parser: no wrap, no fraction taken as an integer, a range named
// with the key and what came; a missing or null key takes the default.
#include "ui/json_args.h"

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>

using nlohmann::json;
using wl::NumberRange;

namespace {

std::string refusal(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "accepted";
}

}  // namespace

TEST(JsonArgs, AnIntegerIsReadWholeInItsRange) {
    const NumberRange side = NumberRange::closed(1, 256);
    EXPECT_EQ(wlui::int_arg(json{{"w", 32}}, "w", side), 32);
    // 4294967328 would be 32 through get<int>().
    EXPECT_EQ(refusal([&] { wlui::int_arg(json{{"w", 4294967328LL}}, "w", side); }), "'w' expects an integer in 1..256, got 4294967328");
    EXPECT_EQ(refusal([&] { wlui::int_arg(json{{"w", 2.5}}, "w", side); }), "'w' expects an integer in 1..256, got 2.5");
    EXPECT_EQ(refusal([&] { wlui::int_arg(json{{"w", -1}}, "w", side); }), "'w' expects an integer in 1..256, got -1");
    EXPECT_EQ(refusal([&] { wlui::int_arg(json{{"w", "32"}}, "w", side); }), "'w' expects an integer in 1..256, got '32'");
    EXPECT_EQ(refusal([&] { wlui::int_arg(json{{"w", 1e300}}, "w", side); }), "'w' expects an integer in 1..256, got 1e+300");
    EXPECT_EQ(refusal([&] { wlui::int_arg(json::object(), "w", side); }), "'w' expects an integer in 1..256, got null");
    EXPECT_EQ(wlui::int_arg(json{{"w", nullptr}}, "w", side, 7), 7);
    EXPECT_EQ(wlui::int_arg(json(), "w", side, 7), 7);
}

TEST(JsonArgs, ANumberIsFiniteAndInItsRange) {
    EXPECT_DOUBLE_EQ(wlui::real_arg(json{{"t", 0.8}}, "t", NumberRange::closed(0, 100)), 0.8);
    EXPECT_EQ(refusal([&] { wlui::real_arg(json{{"t", 101}}, "t", NumberRange::closed(0, 100)); }), "'t' expects a number in 0..100, got 101");
    EXPECT_EQ(refusal([&] { wlui::real_arg(json{{"speed", 0}}, "speed", NumberRange::above(0)); }), "'speed' expects a number > 0, got 0");
    EXPECT_EQ(refusal([&] { wlui::real_arg(json{{"t", true}}, "t", NumberRange::closed(0, 100)); }), "'t' expects a number in 0..100, got true");
    EXPECT_DOUBLE_EQ(wlui::real_arg(json::object(), "t", NumberRange::closed(0, 100), 1.0), 1.0);
}

TEST(JsonArgs, StringsAndFlagsAreTheirTypeOrRefused) {
    EXPECT_EQ(wlui::str_arg(json{{"name", "a.wk"}}, "name"), "a.wk");
    EXPECT_EQ(refusal([&] { wlui::str_arg(json{{"name", 5}}, "name"); }), "'name' expects a string, got 5");
    EXPECT_EQ(wlui::str_arg(json::object(), "name", "x"), "x");
    EXPECT_TRUE(wlui::flag_arg(json{{"open", true}}, "open", false));
    EXPECT_TRUE(wlui::flag_arg(json::object(), "open", true));
    EXPECT_EQ(refusal([&] { wlui::flag_arg(json{{"open", "yes"}}, "open", false); }), "'open' expects true or false, got 'yes'");
}
