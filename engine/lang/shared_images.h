// shared_images.h: one program image for the PEs whose programs differ only in their
// `place ... with` parameters.
//
// The code generator compiles each instance (a program with one set of parameter values) on
// its own, so a parameter is folded into constants: `mx == k` loads mx with `li`. Instances
// of one program whose code is equal except for such `li` immediates share one image here:
// each differing `li` becomes `ldp rA, slot`, which loads the PE's own constant (Core::konst,
// set by Machine::load from Placement::consts). `ldp` costs what `li` cost, so cycle counts
// and results do not change. A one-word initial value that differs (`var me: i32 = px`) is
// such a constant too, written into SRAM at load (InitData::konst). The optimiser keeps a
// parameter out of other instructions' immediates (codegen.cpp, per_pe) so that it stays an
// `li`. Instances that differ in anything else (a branch a parameter removed, an array
// length, a colour) keep their own images. Why: 4,096 copies of SUMMA's code on a 64x64 mesh miss the host's caches at every
// instruction fetch (docs/performance.md, Fast mode).
#pragma once
#include "engine/fabric/program.h"

#include <memory>
#include <string>
#include <vector>

namespace wl::lang {

struct ImageUse {                                  // what one instance runs
    std::shared_ptr<const wl::Program> program;
    std::vector<uint32_t> consts;                  // its ldp slots' values (program->nconsts of them)
};

// progs[i]: instance i's own image; family[i]: its source program (only one family shares);
// family_name[i]: the name a shared image takes ("summa"; an unshared one keeps its own).
std::vector<ImageUse> share_images(const std::vector<std::shared_ptr<wl::Program>>& progs, const std::vector<int>& family,
                                   const std::vector<std::string>& family_name);

}  // namespace wl::lang
