// lesson_files.cpp: a lesson's config and kernels, from its folder and models/ only (lesson_files.h).
#include "engine/lessons/lesson_files.h"

#include "engine/fabric/machine.h"
#include "engine/gpt/gpt.h"
#include "engine/model/mesh_plan.h"

#include <algorithm>
#include <filesystem>

namespace wl::lessons {

namespace fs = std::filesystem;

namespace {

// Whether `p` lies in folder `dir`, each with its links and '..' resolved (a link out of the
// folder is out of it).
bool inside(const fs::path& p, const fs::path& dir) {
    std::error_code ec, ec_dir;
    const fs::path a = fs::weakly_canonical(p, ec), b = fs::weakly_canonical(dir, ec_dir);
    if (ec || ec_dir) return false;
    return std::mismatch(b.begin(), b.end(), a.begin(), a.end()).first == b.end() && a != b;
}

}  // namespace

std::string model_kernels_dir(const std::string& lesson_dir) { return lesson_dir + "/../../models/kernels"; }

std::string lesson_model_config(const std::string& lesson_dir, const std::string& config, int mesh_w, int mesh_h, bool train,
                                wl::gpt::GPTConfig* cfg) {
    const fs::path path = fs::path(lesson_dir) / config;
    if (!inside(path, lesson_dir) && !inside(path, fs::path(lesson_dir) / ".." / ".." / "models"))
        return "config " + config + " is outside the lesson's folder and the repository's models/ folder (a check reads its files from those only)";
    try {
        *cfg = wl::gpt::load_config(path.string());
    } catch (const std::exception& e) {
        return e.what();
    }
    // What the model compiler refuses before it reads a kernel (the mesh's size, the model's shape),
    // and a model too big for this machine, is the lesson's doing whatever the student writes. The
    // vocabulary comes from the tokenizer when the check runs; none of those checks depends on it.
    try {
        wl::gpt::check_model_memory(*cfg, train);
    } catch (const std::exception& e) {
        return config + ": " + e.what();
    }
    wl::gpt::GPTConfig c = *cfg;
    if (c.vocab_size <= 0) c.vocab_size = 1;
    wl::model::PlanBuilder b(c, mesh_w, mesh_h, [](const std::string&) { return std::string(); }, wl::MachineConfig{}.sram_bytes, train);
    if (b.done())
        return "the model compiler cannot plan " + config + "'s GPT on a " + std::to_string(mesh_w) + "x" + std::to_string(mesh_h) +
               " mesh: " + b.take().error;
    return "";
}

}  // namespace wl::lessons
