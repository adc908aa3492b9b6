// op_table_test.cpp: the GPT's one op table (engine/gpt/op_table.h) against its uses: names
// that round-trip, the plan built from its rows, and every kernel it names exporting the entries
// and symbols it says (and no entry it does not).
#include "engine/gpt/op_table.h"
#include "tests/unit/model_fixtures.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace wl::model::testing {
namespace {

TEST(OpTable, ARowPerIdWithUniqueNames) {
    std::set<std::string> names, grads;
    for (size_t i = 0; i < gpt::op_table().size(); i++) {
        const gpt::OpRow& r = gpt::op_table()[i];
        EXPECT_EQ(size_t(r.id), i) << r.name;
        EXPECT_EQ(&gpt::op_row(r.id), &r);
        EXPECT_TRUE(names.insert(r.name).second) << r.name;
        if (r.grad) {
            EXPECT_TRUE(grads.insert(std::string(r.in_block ? "l<N>." : "") + r.grad).second) << r.grad;
        }
        EXPECT_EQ(r.backward == nullptr, r.grad == nullptr) << r.name;
        if (r.kind == gpt::OpKind::Matmul) {
            EXPECT_EQ(r.inputs, 1) << r.name;
        }
        if (r.prunable) {
            EXPECT_TRUE(r.in_block && r.kind == gpt::OpKind::Matmul) << r.name;
        }
    }
    EXPECT_THROW(gpt::op_row(gpt::OpId::Stream), std::logic_error);
}

TEST(OpTable, NamesRoundTrip) {
    for (const gpt::OpRow& r : gpt::op_table())
        for (int l : {0, 3, 11}) {
            const gpt::OpName n = gpt::parse_op_name(gpt::op_name(r, l));
            EXPECT_EQ(n.row, &r) << gpt::op_name(r, l);
            EXPECT_EQ(n.layer, r.in_block ? l : -1);
        }
    const gpt::OpName w = gpt::parse_op_name(gpt::layer_unit_name(2, "weights"));
    EXPECT_TRUE(w.row == nullptr && w.layer == 2 && w.rest == "weights");
    for (const char* odd : {"l.qkv", "lx.qkv", "l-1.qkv", "qkv", "l2.logits", "grad_norm", ""})
        EXPECT_EQ(gpt::parse_op_name(odd).row, nullptr) << odd;   // a block's row only with its layer, and only it
    // The residual stream into a block: the embedding's output, then the block before's.
    const gpt::OpRow& ln1 = gpt::op_row(gpt::OpId::Ln1);
    EXPECT_EQ(gpt::input_name(ln1, 0, 0, 4), "encoded");
    EXPECT_EQ(gpt::input_name(ln1, 0, 2, 4), "l1.residual3");
    EXPECT_EQ(gpt::input_name(gpt::op_row(gpt::OpId::Lnf), 0, -1, 4), "l3.residual3");
    EXPECT_EQ(gpt::input_name(gpt::op_row(gpt::OpId::Residual3), 1, 2, 4), "l2.fcproj");
}

// The plan has an op for every row the mesh runs (a block's per layer), in the table's order.
TEST(OpTable, ThePlanIsTheTablesRows) {
    const gpt::GPTConfig cfg = nano();
    const PlanResult r = plan_model(cfg, 32, 32, kernels(), MachineConfig{}.sram_bytes, /*train=*/true);
    ASSERT_TRUE(r.ok) << r.error;
    std::vector<std::string> want;
    for (const gpt::OpInfo& o : gpt::op_list(cfg, 1, cfg.block_size, false))
        if (o.row->mesh == gpt::OnMesh::Forward) want.push_back(o.tensor);
    want.push_back(gpt::grad_name(gpt::op_row(gpt::OpId::Losses), -1));   // training: the loss's gradient
    std::vector<std::string> got;
    for (const PlannedOp& o : r.plan.ops) {
        got.push_back(o.name);
        EXPECT_EQ(o.kernel, o.kernel_info().file) << o.name;
        EXPECT_GT(o.flops, 0) << o.name;   // every op's count comes from its row, none is silently zero
    }
    EXPECT_EQ(got, want);
}

bool exports_function(const Program& p, const std::string& name) {
    for (const Function& f : p.functions)
        if (f.name == name) return f.exported;
    return false;
}

bool exports_symbol(const Program& p, const std::string& name) {
    for (const Symbol& s : p.symbols)
        if (s.name == name) return s.exported;
    return false;
}

// Each kernel the plans use, compiled as they compile it, exports what its KernelInfo says, and
// launches nothing the table does not name.
void expect_exports(const MeshPlan& plan, std::set<std::string>* seen) {
    for (const PlannedOp& o : plan.ops) {
        const gpt::KernelInfo& k = o.kernel_info();
        seen->insert(k.file);
        std::set<std::string> named;
        for (const gpt::Export& e : k.exports) named.insert(e.name);
        for (const lang::Placement& pl : o.compiled->placements) {
            const Program& p = *pl.program;
            for (const gpt::Export& e : k.exports) {
                const bool wanted = e.when == gpt::When::Always || (e.when == gpt::When::Training && plan.train) ||
                                    (e.when == gpt::When::Streaming && streamed(o));
                if (wanted) {
                    EXPECT_TRUE(exports_function(p, e.name) || exports_symbol(p, e.name))
                        << k.file << " (for " << o.name << ") exports no " << e.name;
                }
            }
            for (const Function& f : p.functions)
                if (f.exported) {
                    EXPECT_TRUE(named.count(f.name)) << k.file << " exports " << f.name << ", which op_table.cpp does not name";
                }
            for (int i = 0; i < 3 && k.inputs[i]; i++) EXPECT_TRUE(exports_symbol(p, k.inputs[i])) << k.file << " " << k.inputs[i];
            EXPECT_TRUE(exports_symbol(p, k.output)) << k.file;
            for (const auto& [sym, param] : o.weights) EXPECT_TRUE(exports_symbol(p, sym)) << k.file << " " << sym;
        }
    }
}

TEST(OpTable, EveryKernelExportsWhatTheTableSays) {
    std::set<std::string> seen;
    for (bool train : {false, true})
        for (bool stream : {false, true}) {
            const gpt::GPTConfig cfg = stream ? streaming(nano()) : nano();
            const PlanResult r = plan_model(cfg, 32, 32, kernels(), MachineConfig{}.sram_bytes, train);
            ASSERT_TRUE(r.ok) << r.error;
            expect_exports(r.plan, &seen);
        }
    for (const gpt::KernelInfo& k : gpt::kernel_infos()) EXPECT_TRUE(seen.count(k.file)) << k.file << " is in no plan";
}

}  // namespace
}  // namespace wl::model::testing
