// plan_file.h: a compiled model executable as a file, and back: the MeshPlan (placement,
// memory plan, schedule) with every kernel's CompileResult (programs, routes, host block,
// diagnostics), and the PlanKey it was made for. What plan_store.h keeps on disk so that a
// second `waferlab-cli compile-model` is a lookup.
//
//   file: "WLPLAN\r\n" | u32 format | engine version | source fingerprint | u64 key
//         | u64 payload bytes | u64 payload FNV-1a | payload
//   payload: the key (shape, kernels) | mesh, SRAM, train | compile results | ops (each naming
//            its compile result by index: ops with the same kernel and constants share one)
//
// Reading trusts nothing: the magic, the format, the engine version and the source
// fingerprint must be this build's, the checksum must match, every count must fit in the
// bytes left, every enum and index must be in range, every rectangle on the mesh, and every
// program must pass the machine's validator. What fails is refused with a reason.
#pragma once
#include "engine/model/mesh_plan.h"
#include "engine/model/plan_key.h"

#include <string>
#include <string_view>

namespace wl::model {

constexpr uint32_t kPlanFileFormat = 8;   // bump when the layout below changes (8: a shared image's per-PE initial words)

std::string write_plan_file(const PlanKey& key, const MeshPlan& plan);
// A payload in this build's envelope (what write_plan_file does after the payload; the fuzz
// target wraps its inputs with it to reach the payload's parser past the checksum).
std::string plan_envelope(uint64_t key, std::string_view payload);

// Whether a file's first bytes are a plan file's magic: the cache evicts only its own files,
// never a user's that happens to end in ".plan" in the same folder.
bool is_plan_file_head(std::string_view head);
constexpr size_t kPlanFileHeadBytes = 8;

// The file's key, for saying what changed since it was made (a cheaper read: the ops are
// not parsed). "" when read, else why not ("is truncated (while reading ...)", "was written
// by engine 0.0.9; this is 0.1.0").
std::string read_plan_key(std::string_view bytes, PlanKey* key);

// The whole executable; plan->cfg becomes `cfg` (the file keeps only its shape, which must be
// cfg's: the caller looked the file up by it). "" when read, else why not.
std::string read_plan_file(std::string_view bytes, const wl::gpt::GPTConfig& cfg, PlanKey* key, MeshPlan* plan);

}  // namespace wl::model
