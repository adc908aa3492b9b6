// plan_store.h: the plan cache on disk: one compiled model executable per shape (plan_key.h),
// a file in a folder (plan_file.h's format), so that compile once, run many holds across
// processes: the second `waferlab-cli compile-model` reads the file instead of compiling.
//
//   folder: --cache-dir DIR, else $WAFERLAB_CACHE_DIR, else $XDG_CACHE_HOME/waferlab/plans,
//           else ~/.cache/waferlab/plans (default_dir()); WebAssembly builds keep none
//   files:  <16 hex digits of the shape's hash>.plan, written atomically; the newest
//           kMaxFiles are kept (reading one makes it the newest)
//
// A file that is corrupt, truncated, from another format, engine or build, or for edited
// kernels is not used: load() says why, and the next save() replaces it.
#pragma once
#include "engine/model/mesh_plan.h"
#include "engine/model/plan_key.h"

#include <string>

namespace wl::model {

class PlanStore {
public:
    static constexpr size_t kMaxFiles = 16;
    explicit PlanStore(std::string dir, size_t max_files = kMaxFiles) : dir_(std::move(dir)), max_files_(max_files) {}
    // $WAFERLAB_CACHE_DIR, $XDG_CACHE_HOME/waferlab/plans or $HOME/.cache/waferlab/plans; "" when
    // none is set, and always in WebAssembly (the browser's app keeps its executables in memory).
    static std::string default_dir();
    const std::string& dir() const { return dir_; }
    std::string path_of(const PlanShape& shape) const;

    enum class Found { None, Hit, Refused };
    // The executable for cfg's shape (shape) made from today's kernel sources. Hit: *key and
    // *plan are filled (plan->cfg is cfg). Refused: a file was there; *why says why it was not
    // used ("cache file F is corrupt (its checksum does not match)", "gelu.wk edited").
    Found load(const wl::gpt::GPTConfig& cfg, const PlanShape& shape, SourceHashes& hashes, PlanKey* key, MeshPlan* plan,
               std::string* why) const;
    // The most recently written or read file's key (what the last run compiled), to say what
    // changed since; false when the folder holds no readable file.
    bool newest_key(PlanKey* key) const;
    // Writes the executable atomically, then drops the oldest files past max_files and any
    // temporary file over an hour old (a run killed mid-write). "" or the error.
    std::string save(const PlanKey& key, const MeshPlan& plan) const;
    size_t files() const;   // *.plan files in the folder

private:
    std::string dir_;
    size_t max_files_;
};

}  // namespace wl::model
