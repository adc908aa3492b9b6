// fuzz_checkpoint.cpp: libFuzzer target for the checkpoint loader. Any bytes must
// give a Checkpoint or a CheckpointError naming the file; a checkpoint that loads
// must build its model, whose parameters are exactly the file's. An input whose
// first byte is even is taken as a payload and given a valid envelope (magic, size,
// checksum), so the fuzzer reaches the payload parser past the checksum.
#include "engine/gpt/checkpoint.h"
#include "engine/gpt/gpt.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string bytes(reinterpret_cast<const char*>(data), size);
    if (size > 0 && !(data[0] & 1)) bytes = wl::gpt::checkpoint_envelope(bytes.substr(1));
    wl::gpt::Checkpoint ck;
    try {
        ck = wl::gpt::parse_checkpoint(bytes, "fuzz.ckpt");
    } catch (const wl::gpt::CheckpointError& e) {
        if (std::string(e.what()).rfind("fuzz.ckpt", 0) != 0) std::abort();   // every error names the file
        return 0;
    }
    auto model = wl::gpt::model_from_checkpoint(ck);
    if (model->params_memory.size() != ck.params.size()) std::abort();
    return 0;
}
