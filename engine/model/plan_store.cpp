// plan_store.cpp: see plan_store.h.
#include "engine/model/plan_store.h"

#include "engine/core/atomic_file.h"
#include "engine/core/read_file.h"
#include "engine/model/plan_file.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace wl::model {

namespace fs = std::filesystem;

namespace {

constexpr uintmax_t kMaxFileBytes = uintmax_t(1) << 30;   // larger is not a file this engine wrote

// The file's bytes, or false with *why: "cannot be read (is a directory, not a plan file)". The
// store writes plain files only: a link, pipe or device in its folder is not read (a pipe would
// block, a link could lead anywhere).
bool slurp(const fs::path& p, std::string* out, std::string* why) {
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(p, ec);
    if (fs::is_directory(st)) {
        *why = "is a directory, not a file this cache wrote: it is left as it is, and the executable not cached";
        return false;
    }
    if (!fs::is_regular_file(st)) {
        *why = "is not a file this cache wrote (a link, pipe or device): it is replaced";
        return false;
    }
    std::string error;
    if (read_file(p.string(), kMaxFileBytes, "plan", out, &error)) return true;
    const size_t colon = error.find(": ");
    *why = "cannot be read (" + (colon == std::string::npos ? error : error.substr(colon + 2)) + ")";
    return false;
}

// A name the store gives (path_of: 16 hex digits, ".plan") on a plain file that starts as a plan
// file does: the store reads, counts and evicts only these, so a user's own "prod.plan" in a
// shared --cache-dir is never touched.
bool is_store_file(const fs::directory_entry& e) {
    const std::string name = e.path().filename().string();
    std::error_code ec;
    if (name.size() != 21 || e.path().extension() != ".plan" || !e.is_regular_file(ec) || e.is_symlink(ec)) return false;
    if (!std::all_of(name.begin(), name.begin() + 16, [](char c) { return std::isdigit((unsigned char)c) || (c >= 'a' && c <= 'f'); })) return false;
    std::string head, error;
    return read_head(e.path().string(), kPlanFileHeadBytes, "plan", &head, &error) && is_plan_file_head(head);
}

// The folder's plan files, newest first (ties by name, so the order is the same every time).
std::vector<std::pair<fs::file_time_type, fs::path>> plan_files(const std::string& dir) {
    std::vector<std::pair<fs::file_time_type, fs::path>> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (!is_store_file(*it)) continue;
        const fs::file_time_type t = fs::last_write_time(it->path(), ec);
        if (!ec) out.push_back({t, it->path()});
        ec.clear();
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    return out;
}

}  // namespace

std::string PlanStore::default_dir() {
#ifdef __EMSCRIPTEN__
    return "";
#else
    if (const char* d = std::getenv("WAFERLAB_CACHE_DIR"); d && *d) return d;
    // The XDG Base Directory spec: a relative XDG_CACHE_HOME is invalid and ignored.
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/') return std::string(x) + "/waferlab/plans";
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/waferlab/plans";
    return "";
#endif
}

std::string PlanStore::path_of(const PlanShape& shape) const {
    char name[32];
    std::snprintf(name, sizeof name, "%016llx.plan", static_cast<unsigned long long>(shape.hash()));
    return (fs::path(dir_) / name).string();
}

PlanStore::Found PlanStore::load(const wl::gpt::GPTConfig& cfg, const PlanShape& shape, SourceHashes& hashes, PlanKey* key,
                                 MeshPlan* plan, std::string* why) const {
    const std::string path = path_of(shape);
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(path, ec))) return Found::None;
    std::string bytes, problem;
    PlanKey k;
    MeshPlan p;
    if (slurp(path, &bytes, &problem)) problem = read_plan_file(bytes, cfg, &k, &p);
    if (problem.empty() && !(k.shape == shape)) problem = "holds an executable for another shape (" + k.what_changed(shape, hashes) + ")";
    if (!problem.empty()) {
        *why = "cache file " + path + " " + problem;
        return Found::Refused;
    }
    if (!k.kernels_unchanged(hashes)) {
        *why = k.what_changed(shape, hashes);
        return Found::Refused;
    }
    fs::last_write_time(path, fs::file_time_type::clock::now(), ec);   // the most recently used: kept longest
    *key = std::move(k);
    *plan = std::move(p);
    return Found::Hit;
}

bool PlanStore::newest_key(PlanKey* key) const {
    for (const auto& [t, path] : plan_files(dir_)) {
        std::string bytes, why;
        if (slurp(path, &bytes, &why) && read_plan_key(bytes, key).empty()) return true;
    }
    return false;
}

std::string PlanStore::save(const PlanKey& key, const MeshPlan& plan) const {
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec) return "cannot create the cache folder " + dir_ + ": " + ec.message();
    const std::string path = path_of(key.shape);
    const fs::file_status st = fs::symlink_status(path, ec);
    if (fs::is_directory(st)) return path + " is a directory: it is left as it is";
    if (fs::exists(st) && !fs::is_regular_file(st)) fs::remove(path, ec);   // the link or node itself, never what it leads to
    std::string error;
    if (!write_file_atomically(path, write_plan_file(key, plan), &error)) return error;
    const auto files = plan_files(dir_);
    for (size_t i = max_files_; i < files.size(); i++) fs::remove(files[i].second, ec);
    // What a run killed mid-write left (atomic_file.h's temporary names); an hour old is no live writer's.
    const auto hour_ago = fs::file_time_type::clock::now() - std::chrono::hours(1);
    for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code e2;
        if (it->path().filename().string().find(".plan.tmp-") != std::string::npos &&
            fs::last_write_time(it->path(), e2) < hour_ago && !e2)
            fs::remove(it->path(), e2);
    }
    return "";
}

size_t PlanStore::files() const { return plan_files(dir_).size(); }

}  // namespace wl::model
