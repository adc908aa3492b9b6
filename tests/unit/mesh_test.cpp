#include "engine/fabric/mesh.h"
#include "engine/core/version.h"

#include <gtest/gtest.h>
#include <string>

TEST(Mesh, ContainsAndIndexAreRowMajor) {
    wl::Mesh m{4, 3};
    EXPECT_EQ(m.size(), 12);
    EXPECT_TRUE(m.contains(3, 2));
    EXPECT_FALSE(m.contains(4, 0));
    EXPECT_FALSE(m.contains(0, -1));
    EXPECT_EQ(m.index(1, 2), 9);
}

TEST(Version, MatchesProject) {
    EXPECT_EQ(std::string(wl::version()), WAFERLAB_VERSION);
    EXPECT_FALSE(std::string(wl::version()).empty());
}
