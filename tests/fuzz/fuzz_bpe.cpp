// fuzz_bpe.cpp: libFuzzer target for GPT-2 BPE tokenizer files. The input is
// encoder.json, a NUL byte, then vocab.bpe. Any input gives a tokenizer or a
// std::runtime_error; a tokenizer that loads must round-trip text exactly.
#include "engine/gpt/tokenizer_bpe.h"

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string in(reinterpret_cast<const char*>(data), size);
    const size_t nul = in.find('\0');
    if (nul == std::string::npos) return 0;
    try {
        wl::gpt::BpeTokenizer t = wl::gpt::BpeTokenizer::parse(in.substr(0, nul), in.substr(nul + 1));
        const std::string text = "Hello, world! It's 2024 \xE2\x80\x94 caf\xC3\xA9  \n\t x";
        if (t.decode(t.encode(text)) != text) std::abort();
    } catch (const std::runtime_error&) {
    }
    return 0;
}
