// gpu_projection_sentence_test.cpp: the sentence that relates a step on the emulated mesh to the
// full-wafer projections (engine/gpu/compare.h), and why a bigger wafer can project slower.
#include "engine/gpu/compare.h"
#include "tests/unit/model_fixtures.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace wl;
using namespace wl::gpu;

Comparison nano_on(int w, int h, int vocab) {
    CompareOptions o;
    o.mesh.w = w, o.mesh.h = h;
    return compare(model::testing::config(3, 4, 64, 64, vocab), o);
}

TEST(GpuProjectionSentence, NamesTheMeshItsTimeAndTheFullWafers) {
    const Comparison c = nano_on(32, 32, 45);
    ASSERT_EQ(c.projections.size(), 2u);
    const std::string est = projection_sentence(c);
    EXPECT_EQ(est.rfind("The emulated 32 x 32 mesh (1,024 PEs) is estimated at " + format_seconds(c.wafer.step_s) + " per step; "
                        "the estimate for the same step on a full WSE-2 (753,972 PEs) is " + format_seconds(c.projections[0].step_s),
                        0),
              0u)
        << est;
    const std::string meas = projection_sentence(c, 0.0419);
    EXPECT_NE(meas.find("mesh (1,024 PEs) measured 41.9 ms per step"), std::string::npos) << meas;
    EXPECT_NE(meas.find("x less (the measured step runs each op on the few PEs"), std::string::npos) << meas;
}

// A model this small fills neither wafer: WSE-3's larger grid costs more fill and drain, and the
// sentence says so only when it happens.
TEST(GpuProjectionSentence, SaysWhyTheLargerWaferIsSlower) {
    const Comparison c = nano_on(32, 32, 45);
    const WaferEstimate &w2 = c.projections[0], &w3 = c.projections[1];
    ASSERT_GT(w3.step_s, w2.step_s);
    int small = 0;
    for (const WaferOpTime& t : w3.ops) small += t.bound == "latency";
    const std::string s = projection_sentence(c);
    EXPECT_NE(s.find(" WSE-3 comes out slower than WSE-2 (" + format_seconds(w3.step_s) + " against " + format_seconds(w2.step_s) +
                     ") though it has more PEs: " + std::to_string(small) + " of the step's " + std::to_string(w3.ops.size()) + " ops"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("(762 + 1176 against 757 + 996)"), std::string::npos) << s;
    Comparison faster = c;
    faster.projections[1].step_s = w2.step_s * 0.9;
    EXPECT_EQ(projection_sentence(faster).find("slower"), std::string::npos);
}

}  // namespace
