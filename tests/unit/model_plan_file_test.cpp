// model_plan_file_test.cpp: compile once, run many across processes. A compiled model
// executable written to a file (engine/model/plan_file.h) reads back to the same plan, and the
// mesh runs it to the same bits; a PlanCache with a folder (plan_store.h) finds a fresh cache's
// executable there; a changed shape, an edited kernel or --no-cache compiles again and says
// why; a file that is corrupt, truncated or from another format, engine or build is refused
// with a reason, recompiled and replaced; the folder keeps its newest files.
#include "engine/core/fnv.h"
#include "engine/gpt/gpt.h"
#include "engine/model/mesh_gpt.h"
#include "engine/model/mesh_trainer.h"
#include "engine/model/plan_cache.h"
#include "engine/model/plan_file.h"
#include "engine/model/plan_store.h"
#include "tests/temp_path.h"
#include "tests/unit/model_fixtures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace {

using namespace wl::model;
using namespace wl::model::testing;
namespace fs = std::filesystem;

const uint32_t kSram = wl::MachineConfig{}.sram_bytes;

PlanKey key_of(const MeshPlan& p) {
    SourceHashes h(kernels());
    return PlanKey::of(PlanShape::of(p.cfg, p.mesh_w, p.mesh_h, p.sram_bytes, p.train), p, h);
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void spit(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Written, read back and written again: the same bytes, so every field the file holds survived;
// ops that shared a compiled kernel still share one, and the plan's JSON is the same.
void expect_round_trip(const MeshPlan& plan) {
    const PlanKey key = key_of(plan);
    const std::string bytes = write_plan_file(key, plan);
    PlanKey k2;
    MeshPlan back;
    ASSERT_EQ(read_plan_file(bytes, plan.cfg, &k2, &back), "");
    EXPECT_EQ(k2.value(), key.value());
    EXPECT_EQ(write_plan_file(k2, back), bytes);
    EXPECT_EQ(to_json(back).dump(), to_json(plan).dump());
    ASSERT_EQ(back.ops.size(), plan.ops.size());
    for (size_t i = 0; i < plan.ops.size(); i++) {
        EXPECT_NE(back.ops[i].compiled, plan.ops[i].compiled) << "read, not aliased";
        EXPECT_EQ(back.ops[i].train_only, plan.ops[i].train_only);
        for (size_t j = 0; j < i; j++)
            EXPECT_EQ(back.ops[i].compiled == back.ops[j].compiled, plan.ops[i].compiled == plan.ops[j].compiled)
                << plan.ops[i].name << " and " << plan.ops[j].name;
        const auto& a = plan.ops[i].compiled->placements;
        const auto& b = back.ops[i].compiled->placements;
        ASSERT_EQ(a.size(), b.size());
        for (size_t p = 0; p < a.size(); p++) {
            EXPECT_EQ(a[p].program->disassemble(), b[p].program->disassemble());
            EXPECT_EQ(a[p].consts, b[p].consts);
            for (size_t q = 0; q < p; q++)   // a shared image reads back shared (written once)
                EXPECT_EQ(a[p].program == a[q].program, b[p].program == b[q].program) << plan.ops[i].name;
        }
    }
}

// Images distinct across the plan's kernels.
size_t images(const MeshPlan& plan) {
    std::set<const wl::Program*> s;
    size_t placements = 0;
    for (const PlannedOp& op : plan.ops)
        for (const wl::lang::Placement& p : op.compiled->placements) s.insert(p.program.get()), placements++;
    EXPECT_LT(s.size(), placements) << "the kernels' PEs share images";
    return s.size();
}

TEST(PlanFile, NanoForInferenceAndTrainingReadsBackToTheSamePlan) {
    for (bool train : {false, true}) {
        PlanResult r = plan_model(nano(), 32, 32, kernels(), kSram, train);
        ASSERT_TRUE(r.ok) << r.error;
        SCOPED_TRACE(train ? "training" : "inference");
        images(r.plan);
        expect_round_trip(r.plan);
    }
}

// Tiers (a 4,000-token vocabulary), a head over two PEs (heads of 64 at a context of 64), and a
// layer of GPT-2 small on rows of 256 PEs (whose kernels' warnings, repeated on every PE, are
// reported once each, so no cap's marker stands among them).
TEST(PlanFile, TiersAndCutHeadsReadBackToTheSamePlan) {
    for (const auto& [cfg, side] : {std::pair{config(1, 4, 64, 16, 4000), 32}, std::pair{config(1, 2, 128, 64, 65), 32},
                                    std::pair{config(1, 12, 768, 64, 50257), 256}}) {
        PlanResult r = plan_model(cfg, side, side, kernels(), kSram);
        ASSERT_TRUE(r.ok) << r.error;
        expect_round_trip(r.plan);
        for (const PlannedOp& op : r.plan.ops) {   // a row's PEs share (its ends may differ): code the host's caches hold
            std::set<const wl::Program*> s;
            for (const wl::lang::Placement& p : op.compiled->placements) s.insert(p.program.get());
            EXPECT_LE(s.size(), 3u) << op.name << ": " << op.compiled->placements.size() << " PEs";
        }
    }
}

TEST(PlanFile, TheMeshRunsALoadedExecutableToTheSameLogitBits) {
    const wl::gpt::GPTConfig cfg = nano();
    wl::gpt::GPT model(cfg);
    model.init_weights(5);
    PlanResult fresh = plan_model(cfg, 32, 32, kernels(), kSram);
    ASSERT_TRUE(fresh.ok) << fresh.error;
    PlanKey key;
    MeshPlan loaded;
    ASSERT_EQ(read_plan_file(write_plan_file(key_of(fresh.plan), fresh.plan), cfg, &key, &loaded), "");
    const std::vector<int> in = tokens(64, cfg.vocab_size, 5);
    std::vector<float> a, b;
    MeshGPT ma(fresh.plan, model), mb(loaded, model);
    ASSERT_TRUE(ma.forward(in.data(), 64, &a)) << ma.error();
    ASSERT_TRUE(mb.forward(in.data(), 64, &b)) << mb.error();
    ASSERT_EQ(a.size(), b.size());
    ASSERT_FALSE(a.empty());
    size_t differ = 0;
    for (size_t i = 0; i < a.size(); i++) differ += float_bits(a[i]) != float_bits(b[i]);
    EXPECT_EQ(differ, 0u);
    EXPECT_EQ(ma.last_cycles(), mb.last_cycles());
}

TEST(PlanFile, TheMeshTrainsFromALoadedExecutableToTheSameBits) {
    wl::gpt::GPTConfig cfg = config(2, 2, 16, 16, 23);
    wl::gpt::GPT model(cfg);
    model.init_weights(7);
    PlanResult fresh = plan_model(cfg, 8, 8, kernels(), kSram, true);
    ASSERT_TRUE(fresh.ok) << fresh.error;
    PlanKey key;
    MeshPlan loaded;
    ASSERT_EQ(read_plan_file(write_plan_file(key_of(fresh.plan), fresh.plan), cfg, &key, &loaded), "");
    const std::vector<int> in = tokens(2 * 16, cfg.vocab_size, 1), tg = tokens(2 * 16, cfg.vocab_size, 2);
    MeshTrainer ta(fresh.plan, model), tb(loaded, model);
    TrainStep sa, sb;
    for (int s = 0; s < 2; s++) {
        ASSERT_TRUE(ta.step(in.data(), tg.data(), 2, 16, 1e-3, &sa)) << ta.error();
        ASSERT_TRUE(tb.step(in.data(), tg.data(), 2, 16, 1e-3, &sb)) << tb.error();
        EXPECT_EQ(float_bits(sa.loss), float_bits(sb.loss)) << "step " << s;
    }
    std::vector<float> pa, pb;
    ta.read_params(&pa);
    tb.read_params(&pb);
    ASSERT_EQ(pa.size(), pb.size());
    EXPECT_EQ(0, std::memcmp(pa.data(), pb.data(), pa.size() * sizeof(float)));
}

TEST(PlanCacheOnDisk, AFreshCacheWithTheSameFolderReadsTheExecutable) {
    const wltest::TempPath dir("plan_cache");
    const wl::gpt::GPTConfig cfg = config(2, 2, 16, 16, 23);
    CountingKernels k;
    CompileInfo first, second;
    PlanCache a;
    a.set_dir(dir.str());
    PlanResult ra = a.plan(cfg, 8, 8, k.source(), kSram, true, false, &first);
    ASSERT_TRUE(ra.ok) << ra.error;
    EXPECT_FALSE(first.cached);
    EXPECT_EQ(first.reason, "first compile");
    EXPECT_EQ(first.warning, "");
    ASSERT_TRUE(fs::exists(first.file)) << first.file;
    EXPECT_EQ(PlanStore(dir.str()).files(), 1u);

    PlanCache b;   // another process, as far as the cache can tell
    b.set_dir(dir.str());
    const int reads = k.reads;
    PlanResult rb = b.plan(cfg, 8, 8, k.source(), kSram, true, false, &second);
    ASSERT_TRUE(rb.ok) << rb.error;
    EXPECT_TRUE(second.cached) << second.reason;
    EXPECT_EQ(second.summary().rfind("compiled: cached (", 0), 0u) << second.summary();
    EXPECT_EQ(second.key, first.key);
    EXPECT_EQ(second.file, first.file);
    std::set<std::string> files;
    for (const PlannedOp& o : ra.plan.ops) files.insert(o.kernel);
    EXPECT_EQ(k.reads - reads, int(files.size())) << "each kernel read once, to hash it; none compiled";
    EXPECT_EQ(write_plan_file(key_of(rb.plan), rb.plan), write_plan_file(key_of(ra.plan), ra.plan));
}

TEST(PlanCacheOnDisk, AChangedShapeOrKernelRecompilesAndSaysWhy) {
    const wltest::TempPath dir("plan_cache");
    wl::gpt::GPTConfig cfg = config(2, 2, 16, 16, 23);
    CountingKernels k;
    CompileInfo info;
    auto run = [&](const wl::gpt::GPTConfig& c, bool no_cache = false) {
        PlanCache fresh;   // a new process each time
        fresh.set_dir(dir.str());
        EXPECT_TRUE(fresh.plan(c, 8, 8, k.source(), kSram, false, no_cache, &info).ok);
    };
    run(cfg);
    cfg.block_size = 32;   // the context
    run(cfg);
    EXPECT_FALSE(info.cached);
    EXPECT_EQ(info.reason, "model.block_size 16 -> 32");
    run(cfg);
    EXPECT_TRUE(info.cached);
    cfg.batch_size = 40;   // not part of the key: the mesh streams a batch's sequences
    run(cfg);
    EXPECT_TRUE(info.cached);
    k.edits["gelu.wk"] = kernels()("gelu.wk") + "\n// edited\n";
    run(cfg);
    EXPECT_FALSE(info.cached);
    EXPECT_EQ(info.reason, "gelu.wk edited");
    run(cfg);
    EXPECT_TRUE(info.cached) << "the recompiled executable replaced the stale one";
    run(cfg, true);
    EXPECT_FALSE(info.cached);
    EXPECT_EQ(info.reason, "--no-cache");
    EXPECT_EQ(PlanStore(dir.str()).files(), 2u);   // one per shape
}

// The payload's offset in a plan file: what follows the envelope's fixed fields.
size_t payload_offset(const std::string& bytes) {
    size_t pos = 8 + 4;
    for (int s = 0; s < 2; s++) {   // engine version, source fingerprint
        uint32_t n;
        std::memcpy(&n, bytes.data() + pos, 4);
        pos += 4 + n;
    }
    return pos + 8 + 8 + 8;   // key, payload size, checksum
}

void fix_checksum(std::string* bytes) {
    const size_t at = payload_offset(*bytes);
    wl::Fnv1a f;
    f.add(bytes->data() + at, bytes->size() - at);
    const uint64_t sum = f.value();
    std::memcpy(bytes->data() + at - 8, &sum, 8);
}

// A fresh cache on `dir` plans cfg for 8x8, as a new process would.
PlanResult plan_fresh(const std::string& dir, const wl::gpt::GPTConfig& cfg, CompileInfo* info) {
    PlanCache fresh;
    fresh.set_dir(dir);
    PlanResult r = fresh.plan(cfg, 8, 8, kernels(), kSram, false, false, info);
    EXPECT_TRUE(r.ok) << r.error;
    return r;
}

TEST(PlanCacheOnDisk, ABadFileIsRefusedWithAReasonRecompiledAndReplaced) {
    const wltest::TempPath dir("plan_cache");
    const wl::gpt::GPTConfig cfg = config(2, 2, 16, 16, 23);
    CompileInfo info;
    auto run = [&] { plan_fresh(dir.str(), cfg, &info); };
    run();
    const std::string path = info.file, good = slurp(path);
    ASSERT_GT(good.size(), 1000u);
    const size_t ver = 8 + 4 + 4;   // the engine version's first character
    std::string corrupt = good, truncated = good.substr(0, good.size() / 2), format = good, engine = good,
                build = good, junk = "not a plan";
    corrupt[good.size() - 100] ^= 0x40;
    format[8] = 99;
    engine[ver] = engine[ver] == '9' ? '8' : '9';
    build[payload_offset(good) - 8 - 8 - 8 - 1] ^= 1;   // the fingerprint's last digit
    const std::pair<std::string, std::string> cases[] = {
        {corrupt, "is corrupt (its checksum does not match)"},
        {truncated, "is truncated"},
        {format, "was written in format 99; this build reads format " + std::to_string(kPlanFileFormat)},
        {engine, "was written by engine "},
        {build, "was written by another build of the engine (its sources differ)"},
        {junk, "is not a plan file"},
        {"", "is not a plan file"},
    };
    for (const auto& [bytes, why] : cases) {
        spit(path, bytes);
        run();
        EXPECT_FALSE(info.cached) << why;
        EXPECT_EQ(info.reason.rfind("cache file " + path + " ", 0), 0u) << info.reason;
        EXPECT_NE(info.reason.find(why), std::string::npos) << info.reason;
        EXPECT_EQ(slurp(path), good) << "replaced by a good file: " << why;
        run();
        EXPECT_TRUE(info.cached) << why;
    }
}

// A file whose checksum was made to match after a kernel's symbol was renamed is well formed but
// cannot run: it is refused, naming the op and the name, and the cache recompiles and replaces it.
TEST(PlanCacheOnDisk, AFileThatCannotRunIsRefusedNamedAndRecompiled) {
    const wltest::TempPath dir("plan_cache_renamed");
    const wl::gpt::GPTConfig cfg = config(2, 2, 16, 16, 23);
    CompileInfo info;
    auto run = [&] { return plan_fresh(dir.str(), cfg, &info); };
    PlanResult r = run();
    const std::string path = info.file, good = slurp(path);
    MeshPlan renamed = r.plan;
    PlannedOp& op = renamed.ops.back();
    ASSERT_FALSE(op.weights.empty());
    const std::string sym = op.weights[0].first;
    auto compiled = std::make_shared<wl::lang::CompileResult>(*op.compiled);
    for (wl::lang::Placement& pl : compiled->placements) {
        auto prog = std::make_shared<wl::Program>(*pl.program);
        for (wl::Symbol& s : prog->symbols)
            if (s.name == sym) s.name = sym + "_renamed";
        pl.program = prog;
    }
    op.compiled = compiled;
    PlanKey key;
    MeshPlan back;
    EXPECT_EQ(read_plan_file(write_plan_file(key_of(renamed), renamed), cfg, &key, &back),
              "cannot run: op " + op.name + "'s kernel " + op.kernel + " has no '" + sym + "' (its weights)");
    spit(path, write_plan_file(key_of(renamed), renamed));
    run();
    EXPECT_FALSE(info.cached);
    EXPECT_EQ(info.reason.rfind("cache file " + path + " cannot run: op " + op.name, 0), 0u) << info.reason;
    EXPECT_EQ(slurp(path), good) << "replaced by a good file";
    run();
    EXPECT_TRUE(info.cached);
}

// Bytes that pass the checksum but not the reader's checks: every count, index, enum and
// rectangle is checked, so a flipped byte anywhere is refused or harmless (a name's letter, a
// flops figure), and never read past the end or trusted into the machine.
TEST(PlanFile, AFlippedByteBehindAValidChecksumIsRefusedOrHarmless) {
    const wl::gpt::GPTConfig cfg = config(2, 2, 16, 16, 23);
    PlanResult r = plan_model(cfg, 8, 8, kernels(), kSram, true);
    ASSERT_TRUE(r.ok) << r.error;
    const std::string good = write_plan_file(key_of(r.plan), r.plan);
    int refused = 0, read = 0;
    const size_t from = payload_offset(good), step = std::max<size_t>(1, (good.size() - from) / 499);
    for (size_t at = from; at < good.size(); at += step) {
        for (uint8_t flip : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xff)}) {
            std::string bad = good;
            bad[at] = char(uint8_t(bad[at]) ^ flip);
            fix_checksum(&bad);
            PlanKey key;
            MeshPlan plan;
            const std::string why = read_plan_file(bad, cfg, &key, &plan);
            if (why.empty()) {
                read++;
                for (const PlannedOp& o : plan.ops) {   // what was read is within the mesh it claims
                    EXPECT_LE(o.rect.x + o.rect.w, plan.mesh_w);
                    EXPECT_LE(o.rect.y + o.rect.h, plan.mesh_h);
                    ASSERT_NE(o.compiled, nullptr);
                }
            } else {
                refused++;
                EXPECT_TRUE(why.rfind("is corrupt", 0) == 0 || why.rfind("holds", 0) == 0 || why.rfind("cannot run: ", 0) == 0) << why;
            }
        }
    }
    EXPECT_GT(refused, 0);
    EXPECT_GT(read, 0);
}

// The plan store is native only (plan_store.h). Under node, WASM cannot set a file's time
// (NODERAWFS: "two hours ago" became the year 2446, measured), so the tests that age files run natively.
#ifdef __EMSCRIPTEN__
#define SKIP_WITHOUT_FILE_TIMES() GTEST_SKIP() << "native only: NODERAWFS sets a file's time wrongly"
#else
#define SKIP_WITHOUT_FILE_TIMES() (void)0
#endif

TEST(PlanStore, KeepsTheNewestFiles) {
    SKIP_WITHOUT_FILE_TIMES();
    const wltest::TempPath dir("plan_cache");
    PlanStore store(dir.str(), 2);
    std::vector<std::string> paths;
    for (int block : {8, 16, 32}) {
        PlanResult r = plan_model(config(1, 2, 16, block, 23), 8, 8, kernels(), kSram);
        ASSERT_TRUE(r.ok) << r.error;
        const PlanKey key = key_of(r.plan);
        ASSERT_EQ(store.save(key, r.plan), "");
        paths.push_back(store.path_of(key.shape));
        // Ages set, not slept for: each file ten minutes older than the next.
        for (size_t i = 0; i < paths.size(); i++)
            if (fs::exists(paths[i]))
                fs::last_write_time(paths[i], fs::file_time_type::clock::now() - std::chrono::minutes(10 * int(paths.size() - i)));
    }
    EXPECT_EQ(store.files(), 2u);
    EXPECT_FALSE(fs::exists(paths[0])) << "the oldest goes";
    EXPECT_TRUE(fs::exists(paths[1]));
    EXPECT_TRUE(fs::exists(paths[2]));
    PlanKey newest;
    ASSERT_TRUE(store.newest_key(&newest));
    EXPECT_EQ(newest.shape.block_size, 32);
}

TEST(PlanStore, ASaveClearsWhatAKilledWriteLeft) {
    SKIP_WITHOUT_FILE_TIMES();
    const wltest::TempPath dir("plan_cache");
    fs::create_directories(dir.path());
    const std::string old_tmp = (dir.path() / "0123456789abcdef.plan.tmp-99-1").string(),
                      live_tmp = (dir.path() / "0123456789abcdef.plan.tmp-98-1").string(),
                      other = (dir.path() / "notes.txt").string();
    for (const std::string& f : {old_tmp, live_tmp, other}) spit(f, "partial");
    fs::last_write_time(old_tmp, fs::file_time_type::clock::now() - std::chrono::hours(2));
    fs::last_write_time(other, fs::file_time_type::clock::now() - std::chrono::hours(2));
    PlanResult r = plan_model(config(1, 2, 16, 8, 23), 8, 8, kernels(), kSram);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(PlanStore(dir.str()).save(key_of(r.plan), r.plan), "");
    EXPECT_FALSE(fs::exists(old_tmp));
    EXPECT_TRUE(fs::exists(live_tmp)) << "another run may be writing it";
    EXPECT_TRUE(fs::exists(other)) << "not the cache's";
}

TEST(PlanStore, AFolderThatCannotBeWrittenIsAWarningNotAFailure) {
    const wltest::TempPath dir("plan_cache");
    fs::create_directories(dir.path());
    spit((dir.path() / "plans").string(), "a file where the folder should be");
    PlanCache cache;
    cache.set_dir((dir.path() / "plans").string());
    CompileInfo info;
    PlanResult r = cache.plan(config(1, 2, 16, 8, 23), 8, 8, kernels(), kSram, false, false, &info);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_FALSE(info.cached);
    EXPECT_NE(info.warning.find("cannot create the cache folder"), std::string::npos) << info.warning;
    EXPECT_EQ(info.file, "");
}

}  // namespace
