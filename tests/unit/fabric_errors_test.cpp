// Every fault kind is triggered, comes back as a value (never an abort), and
// names its place: PE (x,y), colour, task and source location.
#include "engine/fabric/host.h"
#include "engine/fabric/program_builder.h"

#include <gtest/gtest.h>
#include <string>

using namespace wl;

TEST(FabricErrors, OutOfBoundsLoadNamesPeTaskAndLine) {
    ProgramBuilder b("oob", "oob.wl");
    b.func("main", 2, 0, true);
    b.at(5).li(0, 48 * 1024);
    b.at(7, 3).ld(1, 0);
    b.ret();
    Host h(MachineConfig{.w = 3, .h = 2});
    ASSERT_FALSE(h.load(b.finish(), {2, 1, 1, 1}));
    ASSERT_FALSE(h.launch({2, 1, 1, 1}, "main"));
    RunResult r = h.run_until_quiescent(1000);
    ASSERT_EQ(r.status, RunStatus::Faulted);
    EXPECT_EQ(r.fault.kind, FaultKind::OutOfBounds);
    EXPECT_EQ(r.fault.x, 2);
    EXPECT_EQ(r.fault.y, 1);
    EXPECT_EQ(r.fault.task, -1);   // the host launch
    EXPECT_EQ(r.fault.loc.line, 7);
    EXPECT_EQ(r.fault.loc.col, 3);
    EXPECT_EQ(r.fault.where, "oob.wl:7:3");
    EXPECT_NE(r.fault.message.find("49152"), std::string::npos) << r.fault.message;
    // Sticky: the machine stays stopped and says why.
    RunResult again = h.run(10);
    EXPECT_EQ(again.status, RunStatus::Faulted);
    EXPECT_EQ(again.fault.kind, FaultKind::OutOfBounds);
}

TEST(FabricErrors, OutOfBoundsVectorOperandInADataTask) {
    ProgramBuilder b("oobv", "oobv.wl");
    b.data_task(4, "on_data", 9);
    b.func("on_data", 4, 1);
    b.at(11).li(1, 48 * 1024 - 8).li(2, 4).dmem(0, 1, 2).at(12).fmovs(0, 0).ret();
    b.func("main", 2, 0, true).li(0, 1).at(20).send(0, 4).ret();
    Host h(MachineConfig{.w = 2, .h = 1});
    ASSERT_FALSE(h.load(b.finish(), {0, 0, 2, 1}));
    ASSERT_FALSE(h.route(0, 0, 4, Route::of(kR, kE)));
    ASSERT_FALSE(h.route(1, 0, 4, Route::of(kW, kR)));
    ASSERT_FALSE(h.launch({0, 0, 1, 1}, "main"));
    RunResult r = h.run_until_quiescent(1000);
    ASSERT_EQ(r.fault.kind, FaultKind::OutOfBounds) << r.fault.to_string();
    EXPECT_EQ(r.fault.x, 1);
    EXPECT_EQ(r.fault.task, 9);
    EXPECT_EQ(r.fault.loc.line, 12);
}

TEST(FabricErrors, NoRouteAtTheReceivingRouter) {
    ProgramBuilder b("nr", "nr.wl");
    b.func("main", 2, 0, true).li(0, 7).at(3).send(0, 3).ret();
    Host h(MachineConfig{.w = 3, .h = 1});
    ASSERT_FALSE(h.load(b.finish(), {0, 0, 1, 1}));
    ASSERT_FALSE(h.route(0, 0, 3, Route::of(kR, kE)));   // (1,0) has no route for colour 3
    ASSERT_FALSE(h.launch({0, 0, 1, 1}, "main"));
    RunResult r = h.run_until_quiescent(1000);
    ASSERT_EQ(r.fault.kind, FaultKind::NoRoute) << r.fault.to_string();
    EXPECT_EQ(r.fault.x, 1);
    EXPECT_EQ(r.fault.y, 0);
    EXPECT_EQ(r.fault.colour, 3);
}

TEST(FabricErrors, NoRouteForTheRampNamesTheSendLine) {
    ProgramBuilder b("nr2", "nr2.wl");
    b.func("main", 2, 0, true).li(0, 7).at(9, 5).send(0, 5).ret();
    Host h(MachineConfig{.w = 1, .h = 1});
    ASSERT_FALSE(h.load(b.finish(), {0, 0, 1, 1}));
    ASSERT_FALSE(h.launch({0, 0, 1, 1}, "main"));
    RunResult r = h.run_until_quiescent(1000);
    ASSERT_EQ(r.fault.kind, FaultKind::NoRoute);
    EXPECT_EQ(r.fault.colour, 5);
    EXPECT_EQ(r.fault.where, "nr2.wl:9:5");
}

TEST(FabricErrors, NoTaskForADeliveredColour) {
    ProgramBuilder s("sender");
    s.func("main", 2, 0, true).li(0, 1).send(0, 2).ret();
    ProgramBuilder idle("idle");
    idle.func("main", 1, 0, true).ret();
    Host h(MachineConfig{.w = 3, .h = 1});
    ASSERT_FALSE(h.load(s.finish(), {0, 0, 1, 1}));
    ASSERT_FALSE(h.load(idle.finish(), {1, 0, 1, 1}));
    ASSERT_FALSE(h.route(0, 0, 2, Route::of(kR, kE)));
    ASSERT_FALSE(h.route(1, 0, 2, Route::of(kW, kR)));
    ASSERT_FALSE(h.launch({0, 0, 1, 1}, "main"));
    RunResult r = h.run_until_quiescent(1000);
    ASSERT_EQ(r.fault.kind, FaultKind::NoTask) << r.fault.to_string();
    EXPECT_EQ(r.fault.x, 1);
    EXPECT_EQ(r.fault.colour, 2);

    // A PE with no program at all.
    Host h2(MachineConfig{.w = 2, .h = 1});
    ProgramBuilder s2("sender");
    s2.func("main", 2, 0, true).li(0, 1).send(0, 2).ret();
    ASSERT_FALSE(h2.load(s2.finish(), {0, 0, 1, 1}));
    ASSERT_FALSE(h2.route(0, 0, 2, Route::of(kR, kE)));
    ASSERT_FALSE(h2.route(1, 0, 2, Route::of(kW, kR)));
    ASSERT_FALSE(h2.launch({0, 0, 1, 1}, "main"));
    RunResult r2 = h2.run_until_quiescent(1000);
    ASSERT_EQ(r2.fault.kind, FaultKind::NoTask);
    EXPECT_NE(r2.fault.message.find("no program"), std::string::npos);
}

// Both modes ask the one network where a wavelet goes (network.h), so a wavelet no route accepts,
// and one delivered to a CE with nothing to read it, fault alike: the same kind, place and words.
TEST(FabricErrors, TheNetworksFaultsAreTheSameInBothModes) {
    auto run = [](RunMode mode, bool reader_route) {
        ProgramBuilder s("sender");
        s.func("main", 2, 0, true).li(0, 1).send(0, 2).ret();
        ProgramBuilder idle("idle");
        idle.func("main", 1, 0, true).ret();
        Host h(MachineConfig{.w = 3, .h = 1});
        EXPECT_FALSE(h.machine().set_mode(mode));
        EXPECT_FALSE(h.load(s.finish(), {0, 0, 1, 1}));
        EXPECT_FALSE(h.load(idle.finish(), {1, 0, 1, 1}));
        EXPECT_FALSE(h.route(0, 0, 2, Route::of(kR, kE)));
        if (reader_route) {
            EXPECT_FALSE(h.route(1, 0, 2, Route::of(kW, kR)));
        }   // else (1,0) takes nothing on colour 2
        EXPECT_FALSE(h.launch({0, 0, 1, 1}, "main"));
        return h.run_until_quiescent(1000).fault;
    };
    for (bool reader_route : {false, true}) {
        const Fault cycle = run(RunMode::Cycle, reader_route), fast = run(RunMode::Fast, reader_route);
        EXPECT_EQ(cycle.kind, reader_route ? FaultKind::NoTask : FaultKind::NoRoute) << cycle.to_string();
        EXPECT_EQ(fast.kind, cycle.kind) << fast.to_string();
        EXPECT_EQ(fast.x, 1);
        EXPECT_EQ(cycle.x, 1);
        EXPECT_EQ(fast.colour, cycle.colour);
        EXPECT_EQ(fast.message, cycle.message);
        if (!reader_route) {
            EXPECT_EQ(cycle.message, Network::refused(2, kWest));
        }
    }
}

TEST(FabricErrors, InvalidRoutes) {
    Host h(MachineConfig{.w = 2, .h = 2});
    Fault f = h.route(0, 0, 6, Route::of(kR, kW));   // off the west edge
    EXPECT_EQ(f.kind, FaultKind::InvalidRoute);
    EXPECT_EQ(f.x, 0);
    EXPECT_EQ(f.y, 0);
    EXPECT_EQ(f.colour, 6);
    EXPECT_EQ(h.route(1, 1, 2, Route::of(kN, kS)).kind, FaultKind::InvalidRoute);   // off the south edge
    EXPECT_EQ(h.route(0, 0, 24, Route::of(kR, kE)).kind, FaultKind::InvalidRoute);  // no colour 24
    EXPECT_EQ(h.route(0, 0, 1, Route::of(kW, 0)).kind, FaultKind::InvalidRoute);    // receives, sends nowhere
    EXPECT_EQ(h.route(5, 0, 1, Route::of(kR, kE)).kind, FaultKind::InvalidRoute);   // no such PE
    EXPECT_FALSE(h.route(0, 0, 1, Route::of(kW | kR, kE | kS)));                    // fine
}

// Two PEs each wait for the other's wavelet before sending their own.
TEST(FabricErrors, DeadlockListsStuckPesAndWhatTheyWaitFor) {
    ProgramBuilder b("dl", "dl.wl");
    b.func("main", 2, 0, true);
    int right = b.label();
    b.peid(0, 0).bnz(0, right);
    b.at(4, 9).recv(1, 1).send(1, 0).ret();      // PE 0: wait on colour 1, then send on 0
    b.bind(right).at(8, 9).recv(1, 0).send(1, 1).ret();   // PE 1: wait on colour 0, then send on 1
    Host h(MachineConfig{.w = 2, .h = 1});
    ASSERT_FALSE(h.load(b.finish(), {0, 0, 2, 1}));
    ASSERT_FALSE(h.route(0, 0, 0, Route::of(kR, kE)));
    ASSERT_FALSE(h.route(1, 0, 0, Route::of(kW, kR)));
    ASSERT_FALSE(h.route(1, 0, 1, Route::of(kR, kW)));
    ASSERT_FALSE(h.route(0, 0, 1, Route::of(kE, kR)));
    ASSERT_FALSE(h.launch({0, 0, 2, 1}, "main"));
    RunResult r = h.run_until_quiescent(100000);
    ASSERT_EQ(r.fault.kind, FaultKind::Deadlock) << r.fault.to_string();
    EXPECT_LT(r.fault.cycle, 100u);   // found at once, not at the budget
    ASSERT_EQ(r.fault.stuck.size(), 2u) << r.fault.to_string();
    EXPECT_EQ(r.fault.stuck[0].x, 0);
    EXPECT_EQ(r.fault.stuck[0].colour, 1);
    EXPECT_EQ(r.fault.stuck[1].x, 1);
    EXPECT_EQ(r.fault.stuck[1].colour, 0);
    EXPECT_EQ(r.fault.stuck[0].kind, StuckKind::Stalled);
    EXPECT_EQ(r.fault.stuck[0].task, -1);   // the launched function
    EXPECT_EQ(r.fault.stuck[0].where, "dl.wl:4:9");
    EXPECT_EQ(r.fault.where, "dl.wl:4:9");
    // In a student's words, the machine's beside them; the head says kind, PE and cycle once.
    EXPECT_EQ(r.fault.stuck[0].what, "PE (0,0): main (the launched function) at dl.wl:4:9 (instruction recv) waits for a wavelet on colour 1");
    const std::string text = r.fault.to_string();
    EXPECT_EQ(text.rfind("deadlock at PE (0,0) colour 1 [dl.wl:4:9] cycle ", 0), 0u) << text;
    EXPECT_NE(text.find(": nothing can move any more, yet 2 places still wait:\n  PE (0,0): main"), std::string::npos) << text;
    EXPECT_EQ(text.find("deadlock", 1), std::string::npos) << text;
    EXPECT_EQ(text.find("task -1"), std::string::npos) << text;
}

// Wavelets left in a router because the switch never turns: a deadlock with queued data.
TEST(FabricErrors, DeadlockWithWaveletsStuckInARouter) {
    ProgramBuilder b("stuckq");
    b.func("main", 2, 0, true).li(0, 5).send(0, 0).send(0, 0).send(0, 0).ret();
    Host h(MachineConfig{.w = 2, .h = 1});
    ASSERT_FALSE(h.load(b.finish(), {0, 0, 1, 1}));
    ASSERT_FALSE(h.route(0, 0, 0, Route::of(kR, kE)));
    ASSERT_FALSE(h.route(1, 0, 0, Route::of(kN, kR).then(kW, kR)));   // position 0 does not take W
    ASSERT_FALSE(h.launch({0, 0, 1, 1}, "main"));
    RunResult r = h.run_until_quiescent(10000);
    ASSERT_EQ(r.fault.kind, FaultKind::Deadlock) << r.fault.to_string();
    const Stuck* at_w = nullptr;
    for (const Stuck& s : r.fault.stuck)
        if (s.x == 1 && s.colour == 0 && s.kind == StuckKind::RouterPort && s.port == kWest) at_w = &s;
    ASSERT_TRUE(at_w) << r.fault.to_string();
    EXPECT_EQ(at_w->count, 2u);   // the third waits behind them at (0,0)
    EXPECT_EQ(at_w->what, "PE (1,0): colour 0: 2 wavelets from the west (port W) wait in its router; the colour's route now (switch "
                          "position 0) takes none from there");
}

TEST(FabricErrors, WatchdogStopsAnEndlessLoop) {
    ProgramBuilder b("spin", "spin.wl");
    b.func("main", 2, 0, true);
    int top = b.label();
    b.bind(top).at(2).addi(0, 0, 1).at(3).jmp(top);
    Host h(MachineConfig{.w = 2, .h = 2});
    ASSERT_FALSE(h.load(b.finish(), {1, 1, 1, 1}));
    ASSERT_FALSE(h.launch({1, 1, 1, 1}, "main"));
    RunResult r = h.run_until_quiescent(5000);
    ASSERT_EQ(r.fault.kind, FaultKind::Watchdog);
    EXPECT_EQ(r.fault.x, 1);
    EXPECT_EQ(r.fault.y, 1);
    EXPECT_EQ(r.cycles, 5000u);
    ASSERT_FALSE(r.fault.stuck.empty());
    EXPECT_EQ(r.fault.stuck[0].kind, StuckKind::Running);
    EXPECT_EQ(r.fault.stuck[0].where.rfind("spin.wl:", 0), 0u) << r.fault.stuck[0].where;
    EXPECT_EQ(r.fault.stuck[0].what.rfind("PE (1,1): main (the launched function) runs at spin.wl:", 0), 0u) << r.fault.stuck[0].what;
    EXPECT_EQ(r.fault.message, "still running (not quiescent) when its budget of 5,000 cycles ran out:");
}

TEST(FabricErrors, BadProgramsAreRejectedWithTheirLine) {
    ProgramBuilder b("bad", "bad.wl");
    b.func("main", 2, 0, true).at(6, 2).emit(Op::IADD, 0, 1, 5).ret();   // r5 in a 2-register function
    Host h(MachineConfig{.w = 1, .h = 1});
    Fault f = h.load(b.finish(), {0, 0, 1, 1});
    EXPECT_EQ(f.kind, FaultKind::BadProgram);
    EXPECT_EQ(f.where, "bad.wl:6:2");

    ProgramBuilder br("br", "br.wl");   // blt's second register is checked too
    const int top = br.label();
    br.func("main", 2, 0, true).bind(top).at(4, 1).blt(0, 5, top).ret();
    f = h.load(br.finish(), {0, 0, 1, 1});
    EXPECT_EQ(f.kind, FaultKind::BadProgram);
    EXPECT_EQ(f.where, "br.wl:4:1");

    ProgramBuilder big("big");
    big.array("huge", 20000);   // 80 KB > 48 KiB
    big.func("main", 1, 0, true).ret();
    EXPECT_EQ(h.load(big.finish(), {0, 0, 1, 1}).kind, FaultKind::BadProgram);

    ProgramBuilder nolabel("nolabel");
    nolabel.func("main", 1, 0, true).jmp(nolabel.label()).ret();
    nolabel.finish();
    EXPECT_FALSE(nolabel.errors().empty());
}

TEST(FabricErrors, EndlessRecursionOverflowsTheCallStack) {
    ProgramBuilder b("rec", "rec.wl");
    b.func("f", 4, 0).at(3).call(0, "f").ret(0);
    b.func("main", 2, 0, true).call(0, "f").ret();
    Host h(MachineConfig{.w = 1, .h = 1});
    ASSERT_FALSE(h.load(b.finish(), {0, 0, 1, 1}));
    ASSERT_FALSE(h.launch({0, 0, 1, 1}, "main"));
    RunResult r = h.run_until_quiescent(10000);
    ASSERT_EQ(r.fault.kind, FaultKind::BadProgram);
    EXPECT_EQ(r.fault.loc.line, 3);
    EXPECT_NE(r.fault.message.find("stack overflow"), std::string::npos);
}

TEST(FabricErrors, HostErrors) {
    ProgramBuilder b("p");
    b.array("x", 4);
    b.array("hidden", 4, ElemType::F32, false);
    b.func("main", 1, 0, true).ret();
    b.func("helper", 1, 0, false).ret();
    Host h(MachineConfig{.w = 2, .h = 1});
    ASSERT_FALSE(h.load(b.finish(), {0, 0, 1, 1}));
    float v[8] = {};
    EXPECT_EQ(h.h2d(0, 0, "nope", v, 1).kind, FaultKind::HostError);
    EXPECT_EQ(h.h2d(0, 0, "x", v, 5).kind, FaultKind::HostError);
    EXPECT_EQ(h.h2d(0, 0, "hidden", v, 1).kind, FaultKind::HostError);
    EXPECT_EQ(h.h2d(1, 0, "x", v, 1).kind, FaultKind::HostError);   // no program there
    EXPECT_EQ(h.launch({0, 0, 1, 1}, "helper").kind, FaultKind::HostError);
    EXPECT_EQ(h.load(b.finish(), {1, 0, 2, 1}).kind, FaultKind::HostError);   // outside the mesh
    Machine huge(MachineConfig{.w = 4096, .h = 4096});   // refused as a value, not a bad_alloc
    EXPECT_EQ(huge.fault().kind, FaultKind::HostError);
    Machine bad(MachineConfig{.w = 0, .h = 3});
    EXPECT_EQ(bad.fault().kind, FaultKind::HostError);
    EXPECT_EQ(bad.run(10).status, RunStatus::Faulted);
}
