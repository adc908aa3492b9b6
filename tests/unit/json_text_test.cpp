// json_text: the renamed keys keep their old names beside them, at any depth, for one release.
#include "engine/core/json_text.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

TEST(JsonText, RenamedKeysKeepTheirOldNamesAtAnyDepth) {
    const nlohmann::json j = {{"wafer_s", 0.5}, {"ops", {{{"name", "a"}, {"tokens_per_s", 7.0}}}}, {"cycles", 3}};
    const nlohmann::json out = nlohmann::json::parse(wl::json_text(j));
    EXPECT_EQ(out["wafer_s"], 0.5);
    EXPECT_EQ(out["wafer_seconds"], 0.5);
    EXPECT_EQ(out["ops"][0]["tokens_per_second"], 7.0);
    EXPECT_FALSE(out.contains("mesh_seconds"));   // only where the new key is
    EXPECT_EQ(out["cycles"], 3);
}

TEST(JsonText, AnOldNameAlreadyThereIsLeftAlone) {
    const nlohmann::json out = nlohmann::json::parse(wl::json_text({{"wall_s", 1.0}, {"wall_seconds", 2.0}}));
    EXPECT_EQ(out["wall_seconds"], 2.0);
}

// Every new name follows the rule (a time ends in _s, a rate in _per_s, a time per token has _s_per_),
// and no name is renamed twice.
TEST(JsonText, TheRenamesFollowTheRule) {
    std::set<std::string> olds;
    for (const wl::RenamedKey& k : wl::kRenamedKeys) {
        const std::string n = k.new_name;
        const bool time_or_rate = n.size() > 2 && n.compare(n.size() - 2, 2, "_s") == 0;   // _s and _per_s alike
        EXPECT_TRUE(time_or_rate || n.find("_s_per_") != std::string::npos) << n;
        EXPECT_TRUE(olds.insert(k.old_name).second) << k.old_name;
    }
}
