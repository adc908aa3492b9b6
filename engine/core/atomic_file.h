// atomic_file.h: replace a file's contents so that a crash at any moment leaves
// either the old file or the new one, never half of either.
//   write aside (a temporary name in the same folder), flush to disk (fsync),
//   rename over the old name (atomic in POSIX), then fsync the folder.
// A symbolic link is followed: its target is replaced, the link stays.
#pragma once
#include <span>
#include <string>
#include <string_view>

namespace wl {

// false, with `error` naming the path and the reason, when any step fails; the
// old file is then untouched and the temporary one removed.
bool write_file_atomically(const std::string& path, std::string_view bytes, std::string* error = nullptr);
// ... the pieces one after another, never joined in memory (a checkpoint's weights and moments).
bool write_file_atomically(const std::string& path, std::span<const std::string_view> pieces, std::string* error = nullptr);

}  // namespace wl
