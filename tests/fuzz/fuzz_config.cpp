// fuzz_config.cpp: libFuzzer target for the YAML params-file loader (models/*.yaml,
// engine/gpt/gpt_config.h). Any text gives a config or a ConfigError, never another
// exception or a crash; a config that parses prints (to_text) and parses back to the
// same text. Seeds: tests/fuzz/corpus/config/ (the shipped files and some mistakes).
#include "engine/gpt/gpt_config.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    wl::gpt::GPTConfig cfg;
    try {
        cfg = wl::gpt::parse_config_text(text, "fuzz.yaml");
    } catch (const wl::gpt::ConfigError&) {
        return 0;
    }
    const std::string once = cfg.to_text();
    wl::gpt::GPTConfig again;
    try {
        again = wl::gpt::parse_config_text(once, "fuzz.yaml (printed)");
    } catch (const wl::gpt::ConfigError&) {
        std::abort();   // what we print must read back
    }
    if (again.to_text() != once) std::abort();
    return 0;
}
