// fuzz_plan.cpp: libFuzzer target for the plan cache's files (engine/model/plan_file.h). Any
// bytes must be refused with a reason or read; an executable that reads writes back and reads
// again to the same bytes. An input whose first byte is even is taken as a payload and given
// this build's envelope (magic, format, engine version, source fingerprint, the key its own
// shape and kernels hash to, the checksum), so the fuzzer reaches the payload's parser; the
// seeds are payloads, valid in every build of the same format (kPlanFileFormat).
#include "engine/model/plan_file.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

wl::gpt::GPTConfig config_of(const wl::model::PlanShape& s) {
    wl::gpt::GPTConfig c;
    c.n_layer = s.n_layer;
    c.n_head = s.n_head;
    c.n_embd = s.n_embd;
    c.block_size = s.block_size;
    c.vocab_size = s.vocab_size;
    return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace wl::model;
    std::string bytes(reinterpret_cast<const char*>(data), size);
    PlanKey key;
    if (size > 0 && !(data[0] & 1)) {
        const std::string payload = bytes.substr(1);
        read_plan_key(plan_envelope(0, payload), &key);   // fills the key before it finds 0 is not its hash
        bytes = plan_envelope(key.value(), payload);
    }
    if (!read_plan_key(bytes, &key).empty()) return 0;
    MeshPlan plan;
    const wl::gpt::GPTConfig cfg = config_of(key.shape);
    const std::string why = read_plan_file(bytes, cfg, &key, &plan);
    if (!why.empty()) {
        if (why.rfind("is ", 0) != 0 && why.rfind("was ", 0) != 0 && why.rfind("holds ", 0) != 0) std::abort();
        return 0;
    }
    const std::string again = write_plan_file(key, plan);
    PlanKey key2;
    MeshPlan plan2;
    if (!read_plan_file(again, cfg, &key2, &plan2).empty()) std::abort();   // what reads writes back readable
    if (write_plan_file(key2, plan2) != again) std::abort();                // and the same
    return 0;
}
