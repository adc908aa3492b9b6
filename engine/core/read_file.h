// read_file.h: the one way the engine reads a whole file a user names: a kernel, a config, a
// checkpoint, a training text. A size limit is checked while reading, so /dev/zero or a
// 100 GB file is refused with the limit, not read until memory runs out; a directory is
// called a directory.
#pragma once
#include <cstdint>
#include <string>

namespace wl {

// The largest file of each kind a reader takes. A checkpoint holds weights and two AdamW
// moments; GPT-2 small's is 1.5 GB.
constexpr uint64_t kMaxSourceBytes = uint64_t(64) << 20;       // kernels, configs, lessons
constexpr uint64_t kMaxTextBytes = uint64_t(1) << 30;          // training texts
constexpr uint64_t kMaxCheckpointBytes = uint64_t(16) << 30;   // checkpoints, llm.c weights

// A path as a message shows it: one longer than 200 bytes is cut to 200 and its size said, so a
// 50 MB "path" (a --set value) or a 4 KB one repeated by every diagnostic is not megabytes of stderr.
std::string path_in_message(const std::string& path);

// The file's bytes, or false with `error` = "PATH: is a directory" / "PATH: cannot open (No such
// file or directory)" / "PATH: larger than the limit of 64 MiB for a kernel" (`what` names the kind).
bool read_file(const std::string& path, uint64_t limit, const char* what, std::string* out, std::string* error);

// The file's first `n` bytes (fewer if it is shorter), with read_file's errors: for a reader that
// checks what a file says it is (its magic, its declared size) before reading it whole, so that
// /dev/zero is "not a checkpoint" at once, not 16 GiB later.
bool read_head(const std::string& path, size_t n, const char* what, std::string* out, std::string* error);

}  // namespace wl
