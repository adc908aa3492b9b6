// loop_facts.h: what the optimising code generator (codegen.cpp) may assume of a for-loop's body
// before it hoists a descriptor out of the loop or steps an address instead of recomputing it:
//   - what the body assigns, and whether it calls a function (a callee shares the DSD registers);
//   - which expressions it cannot change: constants, and locals it does not assign (invariant);
//   - which integer expressions step by a constant each pass: c * i + (something invariant), for
//     the loop's counter i or a derived induction variable (affine).
// The generator decides what to do with them; this file only reads the tree.
#pragma once
#include "engine/lang/sema.h"

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace wl::lang {

const Expr& resolved(const Expr& e);                 // a declared dsd's name -> its mem() / fabin()
bool has_loop(const std::vector<StmtPtr>& body);     // a for or while at any depth
bool reads(const Expr& e, const Sym* v);             // e reads variable v

class LoopFacts {
public:
    // locals: the function's variables held in registers, which an invariant expression may read.
    LoopFacts(Instance& in, const std::unordered_map<const Sym*, int>& locals) : in_(in), locals_(locals) {}

    // What body assigns (its lets, assignments' variables and loops' counters) into *out, and
    // whether it calls a function.
    static void assigned_in(const std::vector<StmtPtr>& body, std::vector<const Sym*>* out, bool* calls);
    bool invariant(const Expr& e, const std::vector<const Sym*>& assigned) const;

    // For one innermost loop's body, from begin() to end(): its derived induction variables, locals
    // stepped by a constant once a pass (`v += c` as a statement of the body itself and v's only
    // assignment there, with no `continue` to skip it and no read of v after it). In every pass, up
    // to that statement, v is its value before the loop plus c per pass so far, so its addresses
    // step as the counter's do (matmul.wk's `yo += TP; wi += K;`).
    void begin(const std::vector<StmtPtr>& body, const std::vector<const Sym*>& assigned);
    void end() { derived_.clear(); }
    // *c such that e = c * i + (a value the loop does not change), wrapping; false if e is not so.
    bool affine(const Expr& e, const Sym* i, const std::vector<const Sym*>& assigned, uint32_t* c) const;

private:
    Value konst(const Expr& e) const;

    Instance& in_;
    const std::unordered_map<const Sym*, int>& locals_;
    std::vector<std::pair<const Sym*, uint32_t>> derived_;   // variable, its step a pass
};

}  // namespace wl::lang
