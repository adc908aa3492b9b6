// fuzz_llmc.cpp: libFuzzer target for the llm.c weight importer (gpt2_124M.bin
// layout). Any bytes give a model or a CheckpointError naming the file.
#include "engine/gpt/checkpoint.h"
#include "engine/gpt/gpt.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    try {
        auto model = wl::gpt::parse_llmc(bytes, "fuzz.bin");
        if (1024 + model->params_memory.size() * 4 > bytes.size()) std::abort();   // no parameter from nowhere
    } catch (const wl::gpt::CheckpointError& e) {
        if (std::string(e.what()).rfind("fuzz.bin", 0) != 0) std::abort();
    }
    return 0;
}
