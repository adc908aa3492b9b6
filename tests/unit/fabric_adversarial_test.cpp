// fabric_adversarial_test.cpp: the hostile cases of tests/kernels/adversarial/ that
// WaferKernel cannot express (addresses are element-scaled; routes have one switch
// position), built by hand. Each must stop with a fault that names its PE and,
// where it has one, the instruction's place.
#include "engine/fabric/host.h"
#include "engine/fabric/program_builder.h"

#include <gtest/gtest.h>

#include <fstream>
#ifndef __EMSCRIPTEN__
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

using namespace wl;

TEST(FabricAdversarial, MisalignedScalarLoadFaultsAtItsLine) {
    ProgramBuilder b("p", "misaligned.wl");
    uint32_t a = b.array("a", 4);
    b.func("main", 2, 0, true).at(7).li(0, int32_t(a) + 2).at(8).ld(1, 0).ret();
    Host h(MachineConfig{.w = 2, .h = 1});
    ASSERT_FALSE(h.load(b.finish(), {1, 0, 1, 1}));
    ASSERT_FALSE(h.launch({1, 0, 1, 1}, "main"));
    RunResult r = h.run_until_quiescent(1000);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.fault.kind, FaultKind::OutOfBounds);
    EXPECT_EQ(r.fault.x, 1);
    EXPECT_EQ(r.fault.y, 0);
    EXPECT_EQ(r.fault.where, "misaligned.wl:8:1");
    EXPECT_NE(r.fault.message.find("not 4-aligned"), std::string::npos) << r.fault.message;
}

TEST(FabricAdversarial, MisalignedVectorOperandFaultsAtItsLine) {
    ProgramBuilder b("p", "misaligned.wl");
    uint32_t a = b.array("a", 8);
    b.func("main", 3, 0, true).at(3).li(0, int32_t(a) + 1).li(1, 4).dmem(0, 0, 1).dmem(1, 0, 1).at(4).fadds(0, 0, 1).ret();
    Host h(MachineConfig{.w = 1, .h = 1});
    ASSERT_FALSE(h.load(b.finish(), {0, 0, 1, 1}));
    ASSERT_FALSE(h.launch({0, 0, 1, 1}, "main"));
    RunResult r = h.run_until_quiescent(1000);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.fault.kind, FaultKind::OutOfBounds);
    EXPECT_EQ(r.fault.x, 0);
    EXPECT_EQ(r.fault.where, "misaligned.wl:4:1");
}

// A control wavelet mid-stream turns (1,0)'s route south, toward a PE with no route
// for the colour: the data after it stops there with a NoRoute fault naming that PE.
TEST(FabricAdversarial, ControlWaveletSwitchesARouteAwayMidStream) {
    ProgramBuilder b("sw", "switch.wl");
    b.array("got", 1, ElemType::U32);
    b.data_task(0, "on_data");
    b.func("main", 2, 0, true);
    for (int k = 0; k < 4; ++k) b.li(0, k).send(0, 0);
    b.at(5).li(0, 99).sendc(0, 0);
    for (int k = 0; k < 4; ++k) b.li(0, 10 + k).send(0, 0);
    b.ret();
    b.func("on_data", 2, 1).li(1, 0).st(1, 0, 0).ret();
    Host h(MachineConfig{.w = 3, .h = 2});
    ASSERT_FALSE(h.load(b.finish(), {0, 0, 3, 1}));
    ASSERT_FALSE(h.route(0, 0, 0, Route::of(kR, kE)));
    ASSERT_FALSE(h.route(1, 0, 0, Route::of(kW, kE).then(kW, kS)));
    ASSERT_FALSE(h.route(2, 0, 0, Route::of(kW, kR)));
    ASSERT_FALSE(h.launch({0, 0, 1, 1}, "main"));
    RunResult r = h.run_until_quiescent(10000);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.fault.kind, FaultKind::NoRoute) << r.fault.to_string();
    EXPECT_EQ(r.fault.x, 1);
    EXPECT_EQ(r.fault.y, 1);
    EXPECT_EQ(r.fault.colour, 0);
}

// Memory is refused up front, naming the size, instead of failing half-way.
TEST(FabricAdversarial, AMeshOverTheMemoryLimitIsRefusedWithItsSize) {
    MachineConfig cfg{.w = 256, .h = 256};
    cfg.memory_limit = uint64_t(1) << 30;
    Machine m(cfg);
    ASSERT_EQ(m.fault().kind, FaultKind::HostError);
    EXPECT_NE(m.fault().message.find("a 256x256 mesh needs 3."), std::string::npos) << m.fault().message;
    EXPECT_NE(m.fault().message.find("GiB (48 KiB SRAM + "), std::string::npos) << m.fault().message;
    EXPECT_NE(m.fault().message.find("this build allows 1.0 GiB"), std::string::npos) << m.fault().message;
    EXPECT_EQ(m.mesh().w, 1);   // a refused machine is a 1 x 1 stand-in that only reports the fault
    EXPECT_FALSE(m.run_until_quiescent(10).ok());
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__EMSCRIPTEN__)
// Natively there is no limit by default, and the SRAM arena is reserved, not committed
// (zeroed_alloc.h): an allocation that fails is the same error, not a crash. A child process with
// 1 GiB of address space to spare builds a 256 x 256 mesh (3 GiB of SRAM); the allocation fails.
// (ASan aborts on a request this size instead of returning null.)
TEST(FabricAdversarial, AnAllocationPastTheAddressSpaceLimitIsAnError) {
    size_t pages = 0;
    std::ifstream("/proc/self/statm") >> pages;   // the address space in use now, in pages
    ASSERT_GT(pages, 0u);
    const rlim_t limit = rlim_t(pages) * rlim_t(::sysconf(_SC_PAGESIZE)) + (rlim_t(1) << 30);
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        struct rlimit no_core = {0, 0}, cap = {limit, limit};
        ::setrlimit(RLIMIT_CORE, &no_core);
        ::setrlimit(RLIMIT_AS, &cap);
        Machine m(MachineConfig{.w = 256, .h = 256});
        const std::string& msg = m.fault().message;
        const bool right = m.fault().kind == FaultKind::HostError && msg.find("a 256x256 mesh needs 3.") != std::string::npos &&
                           msg.find("the allocation failed") != std::string::npos;
        ::_exit(right ? 0 : 3);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "the child was ended by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    EXPECT_EQ(WEXITSTATUS(status), 0) << "the fault was not \"a 256x256 mesh needs 3... the allocation failed\"";
}
#endif
