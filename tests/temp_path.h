// temp_path.h: a file or folder in the temp folder that is this process's alone, removed with
// all under it when it goes. ctest runs the tests two at a time, each in a process of its own:
// a fixed name would be written by one test while another reads it.
#pragma once
#include <filesystem>
#include <string>
#include <system_error>
#include <unistd.h>

namespace wltest {

class TempPath {
public:
    explicit TempPath(const std::string& name)
        : path_(std::filesystem::temp_directory_path() / ("waferlab-" + std::to_string(::getpid()) + "-" + name)) {
        std::filesystem::remove_all(path_);
    }
    ~TempPath() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempPath(const TempPath&) = delete;
    TempPath& operator=(const TempPath&) = delete;

    const std::filesystem::path& path() const { return path_; }
    std::string str() const { return path_.string(); }

private:
    std::filesystem::path path_;
};

}  // namespace wltest
