// builtins.cpp: name -> builtin. Vector builtins come from the isa table.
#include "engine/lang/builtins.h"

#include <string>

namespace wl::lang {

Builtin builtin_of(std::string_view n, Op* op) {
    struct Row { const char* name; Builtin b; };
    static const Row kRows[] = {
        {"send", Builtin::Send}, {"recv", Builtin::Recv}, {"recv_i32", Builtin::RecvI32},
        {"activate", Builtin::Activate}, {"block", Builtin::Block}, {"unblock", Builtin::Unblock},
        {"mem", Builtin::Mem}, {"fabin", Builtin::FabIn}, {"fabout", Builtin::FabOut},
        {"exp", Builtin::Exp}, {"sqrt", Builtin::Sqrt}, {"rsqrt", Builtin::Rsqrt}, {"tanh", Builtin::Tanh},
        {"abs", Builtin::Abs}, {"min", Builtin::Min}, {"max", Builtin::Max},
        {"bits", Builtin::Bits}, {"from_bits", Builtin::FromBits}, {"select", Builtin::Select},
    };
    for (const Row& r : kRows)
        if (n == r.name) return r.b;
    Op o;
    if (n.size() < 16 && op_from_mnemonic(std::string(n), &o) && op_is_vector(o)) {
        if (op) *op = o;
        return Builtin::Vector;
    }
    return Builtin::None;
}

}  // namespace wl::lang
