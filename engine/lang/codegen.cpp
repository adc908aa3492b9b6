// codegen.cpp: tree-walking code generation. Functions are generated into a
// small buffer first (the builder needs a function's register count up front),
// then replayed into the ProgramBuilder.
//
// Registers: a function's parameters (or a data task's payload) are r0..;
// locals and temporaries are allocated stack-wise above them. DSD operands of
// a vector op are materialised into d0 (destination), d1, d2 right before it;
// the engine copies DSDs when an op issues, so async ops may reuse them.
//
// What the optimising passes (hoisted descriptors, induction variables) may assume of a loop's
// body is loop_facts.cpp's; here they emit the code.
//
// Index of this file:
//   [SECTION] the buffer and registers
//   [SECTION] expressions
//   [SECTION] builtins and vector ops
//   [SECTION] loop-invariant descriptors (optimising)
//   [SECTION] induction variables (optimising)
//   [SECTION] statements
//   [SECTION] the program
#include "engine/lang/codegen.h"

#include "engine/lang/loop_facts.h"
#include "engine/lang/map_rule.h"

#include "engine/fabric/program_builder.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <unordered_map>

namespace wl::lang {

namespace {

struct PI {                             // one buffered instruction or label binding
    enum Kind : uint8_t { Ins, Bind, Jmp, Bnz, Bz, Blt, Call } kind = Ins;
    Op op = Op::NOP;
    int a = 0, b = 0, c = 0, d = 0, e = 0;
    int32_t imm = 0;
    int label = -1;
    std::string callee;
    int line = 0, col = 0;
};

static uint32_t fbits(double v) {
    float f = float(v);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

class FnGen {
public:
    // induction: step addresses in innermost loops (optimising); off when they would need too many registers
    FnGen(Instance& in, const std::unordered_map<const Sym*, uint32_t>& offsets, bool optimise, bool induction = true)
        : in_(in), off_(offsets), opt_(optimise), iv_(optimise && induction) {}

    std::vector<PI> code;
    int max_regs = 1;
    int nlabels = 0;

    void function(Decl& fd) {
        for (Param& p : fd.params) bind_local(p.sym);
        line_ = fd.line, col_ = fd.col;
        stmts(fd.body);
        line_ = fd.end_line, col_ = fd.end_col;
        emit(Op::RET, kNoReg);
    }

private:
    Instance& in_;
    const std::unordered_map<const Sym*, uint32_t>& off_;
    const bool opt_;                           // immediate operands, folded addresses, loops tested at the bottom
    const bool iv_;                            // induction variables: addresses stepped, not recomputed, in innermost loops
    std::unordered_map<const Sym*, int> reg_of_;
    LoopFacts facts_{in_, reg_of_};            // what the optimising passes may assume of a loop (loop_facts.h)
    int next_ = 0;
    int line_ = 0, col_ = 0;
    std::vector<std::pair<int, int>> loops_;   // (continue label, break label)
    std::unordered_map<const Sym*, bool> per_pe_const_;   // per_pe()'s answers for program consts

    // [SECTION] the buffer and registers
    int alloc() {
        int r = next_++;
        if (next_ > max_regs) max_regs = next_;
        return r;
    }
    int bind_local(const Sym* s) {
        int r = alloc();
        if (s) reg_of_[s] = r;
        named_[size_t(r) & 63] = true;
        return r;
    }
    // Registers that ever held a named variable: an expression may read them, so
    // they are never used as scratch while computing a value for themselves.
    bool named_[64] = {};
    int label() { return nlabels++; }
    void at(int line, int col) { line_ = line, col_ = col; }
    void emit(Op op, int a = 0, int b = 0, int c = 0, int d = 0, int e = 0, int32_t imm = 0) {
        PI p;
        p.op = op, p.a = a, p.b = b, p.c = c, p.d = d, p.e = e, p.imm = imm, p.line = line_, p.col = col_;
        code.push_back(std::move(p));
    }
    void jump(PI::Kind k, int lbl, int r = 0, int r2 = 0) {
        PI p;
        p.kind = k, p.label = lbl, p.a = r, p.b = r2, p.line = line_, p.col = col_;
        code.push_back(std::move(p));
    }
    void bind(int lbl) {
        PI p;
        p.kind = PI::Bind, p.label = lbl;
        code.push_back(std::move(p));
    }
    void li(int r, uint32_t v) { emit(Op::LI, r, 0, 0, 0, 0, int32_t(v)); }
    // dst = src * k (int32, wrapping): a shift when k is a power of two.
    void muli(int dst, int src, uint32_t k) {
        if (k && !(k & (k - 1))) emit(Op::ISHLI, dst, src, 0, 0, 0, __builtin_ctz(k));
        else emit(Op::IMULI, dst, src, 0, 0, 0, int32_t(k));
    }
    // dst = 4 * ix, less the constant part, which is returned to add to the base: the word index
    // (x + a) * c + b becomes one multiply and an offset. Wrapping int32, as the plain sequence.
    uint32_t scaled_index(Expr& ix, int dst) {
        uint32_t scale = 4, off = 0;
        Expr* e = &ix;
        if (opt_) {
            for (;;) {
                if (e->kind != ExprKind::Binary || e->type == Ty::F32) break;
                Expr& l = *e->args[0];
                Expr& r = *e->args[1];
                if ((e->op == Tok::Plus || e->op == Tok::Star) && (shared_konst(l) || shared_konst(r))) {
                    const bool rk = shared_konst(r);
                    const uint32_t c = uint32_t(konst(rk ? r : l).i);
                    if (e->op == Tok::Plus) off += scale * c;
                    else scale *= c;
                    e = rk ? &l : &r;
                } else if (e->op == Tok::Minus && shared_konst(r)) {
                    off -= scale * uint32_t(konst(r).i);
                    e = &l;
                } else {
                    break;
                }
            }
        }
        int ri = operand(*e);
        if (opt_) {
            muli(dst, ri, scale);
        } else {
            int t = alloc();
            li(t, 2);
            emit(Op::ISHL, dst, ri, t);
        }
        return off;
    }

    Value konst(const Expr& e) { return eval_const(e, &in_, in_.first_x, in_.first_y, nullptr); }
    // A constant that differs from PE to PE: it reads a `place ... with` parameter or a coordinate,
    // itself or through a program's const. The optimiser loads it with li rather than folding it
    // into another instruction's immediate, so instances still differ only in li and share one
    // image (shared_images.h): a folded `px * n` gave each of a row's 256 matmul PEs its own.
    bool per_pe(const Expr& e) {
        if (e.kind == ExprKind::Name && e.sym) {
            const Sym* s = e.sym;
            if (s->kind == SymKind::Param || s->kind == SymKind::Coord) return true;
            if (s->kind != SymKind::Const || !s->decl || !s->decl->init) return false;
            auto it = per_pe_const_.find(s);
            if (it != per_pe_const_.end()) return it->second;
            per_pe_const_[s] = false;   // sema has refused a const that depends on itself
            return per_pe_const_[s] = per_pe(*s->decl->init);
        }
        for (const ExprPtr& a : e.args)
            if (a && per_pe(*a)) return true;
        return false;
    }
    bool shared_konst(const Expr& e) { return e.konst && !per_pe(e); }   // foldable into an immediate
    static uint32_t bits_of(const Value& v) { return v.ty == Ty::F32 ? fbits(v.f) : uint32_t(uint64_t(v.i)); }
    int colour_of(const Expr& e) { return int(konst(e).i); }
    int task_of(const Sym* s) {
        if (!s || !s->decl) return 0;
        return s->index >= 0 ? kFirstLocalTask + s->index : 0;   // sema allows local tasks only
    }

    // [SECTION] expressions

    // The register holding e: a local's own register, or a fresh temporary.
    int operand(Expr& e) {
        if (e.kind == ExprKind::Name && e.sym) {
            auto it = reg_of_.find(e.sym);
            if (it != reg_of_.end()) return it->second;
        }
        int r = alloc();
        gen(e, r);
        return r;
    }

    void gen(Expr& e, int dst) {
        at(e.line, e.col);
        if (e.konst && (e.kind != ExprKind::Call || e.builtin == Builtin::Select)) {
            li(dst, bits_of(konst(e)));
            return;
        }
        const int mark = next_;
        switch (e.kind) {
        case ExprKind::Int: case ExprKind::Float: case ExprKind::Bool: li(dst, bits_of(konst(e))); break;
        case ExprKind::Name: {
            const Sym* s = e.sym;
            auto it = reg_of_.find(s);
            if (it != reg_of_.end()) {
                if (it->second != dst) emit(Op::MOV, dst, it->second);
            } else if (s && s->kind == SymKind::Var) {
                li(dst, off_.at(s));
                emit(Op::LD, dst, dst, 0, 0, 0, 0);
            }
            break;
        }
        case ExprKind::Index: {
            uint32_t base = off_.at(e.sym);
            Expr& ix = *e.args[0];
            if (ix.konst) {
                li(dst, base + 4u * uint32_t(konst(ix).i));
                emit(Op::LD, dst, dst, 0, 0, 0, 0);
            } else if (const IvIndex* v = iv_of(ix)) {
                at(v->line, v->col);   // where the load would be without the stepped address: a bad index is its fault
                emit(Op::LD, dst, v->reg, 0, 0, 0, int32_t(v->disp));
            } else {
                const uint32_t off = scaled_index(ix, dst);   // the load keeps the index's place: a bad one is its fault
                emit(Op::LD, dst, dst, 0, 0, 0, int32_t(base + off));
            }
            break;
        }
        case ExprKind::Cast: {
            Expr& a = *e.args[0];
            int r = operand(a);
            at(e.line, e.col);
            if (e.type == Ty::F32 && a.type != Ty::F32) emit(Op::ITOF, dst, r);
            else if (e.type != Ty::F32 && a.type == Ty::F32) emit(Op::FTOI, dst, r);
            else if (r != dst) emit(Op::MOV, dst, r);
            break;
        }
        case ExprKind::Unary: {
            int r = operand(*e.args[0]);
            at(e.line, e.col);
            if (e.op == Tok::Bang) {
                int z = alloc();
                li(z, 0);
                emit(Op::IEQ, dst, r, z);
            } else if (e.type == Ty::F32) {
                emit(Op::FNEG, dst, r);
            } else {
                int z = alloc();
                li(z, 0);
                emit(Op::ISUB, dst, z, r);
            }
            break;
        }
        case ExprKind::Binary: binary(e, dst); break;
        case ExprKind::Call: call(e, dst); break;
        }
        next_ = mark;
    }

    void binary(Expr& e, int dst) {
        if (e.op == Tok::AmpAmp || e.op == Tok::PipePipe) {
            int end = label();
            gen(*e.args[0], dst);
            at(e.line, e.col);
            jump(e.op == Tok::AmpAmp ? PI::Bz : PI::Bnz, end, dst);
            gen(*e.args[1], dst);
            bind(end);
            return;
        }
        Ty t = e.args[0]->type;
        bool f = t == Ty::F32;
        if (opt_ && !f && immediate(e, dst)) return;
        int a;
        if (!named_[size_t(dst) & 63] && e.args[0]->kind != ExprKind::Name) {
            gen(*e.args[0], dst);   // a scratch destination can hold the left side: saves a register per level
            a = dst;
        } else {
            a = operand(*e.args[0]);
        }
        int b = operand(*e.args[1]);
        at(e.line, e.col);
        switch (e.op) {
        case Tok::Plus: emit(f ? Op::FADD : Op::IADD, dst, a, b); break;
        case Tok::Minus: emit(f ? Op::FSUB : Op::ISUB, dst, a, b); break;
        case Tok::Star: emit(f ? Op::FMUL : Op::IMUL, dst, a, b); break;
        case Tok::Slash: emit(f ? Op::FDIV : Op::IDIV, dst, a, b); break;
        case Tok::Percent: emit(Op::IREM, dst, a, b); break;
        case Tok::Amp: emit(Op::IAND, dst, a, b); break;
        case Tok::Pipe: emit(Op::IOR, dst, a, b); break;
        case Tok::Caret: emit(Op::IXOR, dst, a, b); break;
        case Tok::Shl: emit(Op::ISHL, dst, a, b); break;
        case Tok::Shr: emit(Op::ISHR, dst, a, b); break;
        case Tok::Lt: emit(f ? Op::FLT : Op::ILT, dst, a, b); break;
        case Tok::Le: emit(f ? Op::FLE : Op::ILE, dst, a, b); break;
        case Tok::Gt: emit(f ? Op::FLT : Op::ILT, dst, b, a); break;
        case Tok::Ge: emit(f ? Op::FLE : Op::ILE, dst, b, a); break;
        case Tok::EqEq: emit(f ? Op::FEQ : Op::IEQ, dst, a, b); break;
        case Tok::BangEq:
            if (f) {
                emit(Op::FEQ, dst, a, b);
                int one = alloc();
                li(one, 1);
                emit(Op::IXOR, dst, dst, one);
            } else {
                emit(Op::INE, dst, a, b);
            }
            break;
        default: break;
        }
    }

    // An int +, -, * or << with a constant operand, as one instruction with an immediate.
    bool immediate(Expr& e, int dst) {
        Expr& l = *e.args[0];
        Expr& r = *e.args[1];
        const bool commutes = e.op == Tok::Plus || e.op == Tok::Star;
        const bool rk = shared_konst(r);
        if (!(rk || (commutes && shared_konst(l))) || !(commutes || e.op == Tok::Minus || e.op == Tok::Shl)) return false;
        Expr& x = rk ? l : r;
        const uint32_t c = uint32_t(konst(rk ? r : l).i);
        int rx = operand(x);
        at(e.line, e.col);
        switch (e.op) {
        case Tok::Plus: emit(Op::IADDI, dst, rx, 0, 0, 0, int32_t(c)); break;
        case Tok::Minus: emit(Op::IADDI, dst, rx, 0, 0, 0, int32_t(0u - c)); break;
        case Tok::Star: muli(dst, rx, c); break;
        default: emit(Op::ISHLI, dst, rx, 0, 0, 0, int32_t(c & 31)); break;
        }
        return true;
    }

    // [SECTION] builtins and vector ops

    void call(Expr& e, int dst) {
        auto& A = e.args;
        switch (e.builtin) {
        case Builtin::None: {
            int first = next_;
            for (size_t k = 0; k < A.size(); ++k) alloc();
            for (size_t k = 0; k < A.size(); ++k) gen(*A[k], first + int(k));
            at(e.line, e.col);
            PI p;
            p.kind = PI::Call, p.a = dst < 0 ? kNoReg : dst, p.b = first, p.c = int(A.size()), p.callee = e.name, p.line = line_, p.col = col_;
            code.push_back(std::move(p));
            return;
        }
        case Builtin::Vector: vector_op(e, dst, 0, 0); return;
        default: break;
        }
        const BuiltinInfo& info = builtin_info(e.builtin);
        switch (info.sig) {
        case Sig::ColourValue: {
            int r = operand(*A[1]);
            at(e.line, e.col);
            emit(info.op, r, 0, 0, 0, 0, colour_of(*A[0]));
            return;
        }
        case Sig::Colour: {
            int r = dst < 0 ? alloc() : dst;
            emit(info.op, r, 0, 0, 0, 0, colour_of(*A[0]));
            return;
        }
        case Sig::Task: emit(info.op, 0, 0, 0, 0, 0, task_of(A[0]->sym)); return;
        case Sig::F32: case Sig::Int: {
            if (info.op == Op::NOP) {   // a reinterpretation: the same bits
                if (dst >= 0) gen(*A[0], dst);
                return;
            }
            int r = operand(*A[0]);
            at(e.line, e.col);
            if (dst >= 0) emit(info.op, dst, r);
            return;
        }
        case Sig::F32F32: {
            int a = operand(*A[0]), b = operand(*A[1]);
            at(e.line, e.col);
            if (dst >= 0) emit(info.op, dst, a, b);
            return;
        }
        default: return;   // DSDs are built by dsd(); select is a constant
        }
    }

    // Materialise a DSD expression into DSD register dreg.
    void dsd(Expr& e, int dreg) {
        if (e.kind == ExprKind::Name && e.sym && e.sym->decl && e.sym->decl->init) {
            Expr& init = *e.sym->decl->init;
            dsd(init, dreg);
            return;
        }
        at(e.line, e.col);
        auto& A = e.args;
        const int mark = next_;
        if (e.builtin == Builtin::Mem) {
            const Sym* arr = A[0]->sym;
            uint32_t base = off_.at(arr);
            int rbase = alloc();
            int rlen;
            int stride = 1;
            if (A.size() == 1) {
                li(rbase, base);
                auto it = in_.length.find(arr);
                rlen = alloc();
                li(rlen, it == in_.length.end() ? 1u : it->second);
            } else {
                if (A[1]->konst) {
                    li(rbase, base + 4u * uint32_t(konst(*A[1]).i));
                } else {   // locals are read in place: no copies
                    const uint32_t off = scaled_index(*A[1], rbase);
                    if (base + off || !opt_) emit(Op::IADDI, rbase, rbase, 0, 0, 0, int32_t(base + off));
                }
                rlen = operand(*A[2]);
                if (A.size() == 4) stride = int(konst(*A[3]).i);
            }
            at(e.line, e.col);
            emit(builtin_info(e.builtin).op, dreg, rbase, rlen, 0, 0, stride);
        } else {
            int rlen = operand(*A[1]);
            at(e.line, e.col);
            emit(builtin_info(e.builtin).op, dreg, rlen, 0, 0, 0, colour_of(*A[0]));
        }
        next_ = mark;
    }

    // Two DSD arguments that are the same memory expression share one DSD register.
    // Only mem() without calls: a fabin or fabout twice is two streams.
    static bool same_mem(const Expr& a, const Expr& b) {
        if (a.kind != b.kind || a.builtin != b.builtin || a.sym != b.sym || a.args.size() != b.args.size()) return false;
        switch (a.kind) {
        case ExprKind::Int: return a.ival == b.ival;
        case ExprKind::Name: return a.sym != nullptr;
        case ExprKind::Binary: if (a.op != b.op) return false; break;
        case ExprKind::Call: if (a.builtin != Builtin::Mem) return false; break;
        default: return false;
        }
        for (size_t k = 0; k < a.args.size(); ++k)
            if (!same_mem(*a.args[k], *b.args[k])) return false;
        return true;
    }

  public:
    void vector_op(Expr& e, int dst, int flags, int task) {
        const VectorArgs va = vector_args(op_info(e.vop).fmt);
        auto& A = e.args;
        const int mark = next_;
        if (!va.has_dst) {
            int d = hoisted_reg(*A[0]);
            if (d < 0) dsd(*A[0], d = 1);
            int r = dst < 0 ? alloc() : dst;
            at(e.line, e.col);
            emit(e.vop, 0, d, 0, r, 0, 0);
            next_ = mark;
            return;
        }
        const int ndsd = va.dsds;
        int reg[3] = {-1, -1, -1};
        for (int k = 0; k < ndsd; ++k) {
            reg[k] = hoisted_reg(*A[size_t(k)]);
            for (int j = 0; j < k && reg[k] < 0; ++j)
                if (A[size_t(k)]->kind == ExprKind::Call && same_mem(*A[size_t(k)], *A[size_t(j)])) reg[k] = reg[j];
            if (reg[k] < 0) dsd(*A[size_t(k)], reg[k] = k);
        }
        int s = 0;
        if (va.scalar) s = operand(*A[size_t(ndsd)]);
        at(e.line, e.col);
        emit(e.vop, reg[0], reg[1], ndsd == 3 ? reg[2] : 0, s, flags, task);
        next_ = mark;
    }

  private:
    // [SECTION] loop-invariant descriptors (optimising)
    // A loop's mem() operands that nothing in it can change (their arguments are constants and
    // locals it does not assign) are set once, before it, in d3 and up. Not in a loop that calls a
    // function: the callee's code uses the same DSD registers.
    std::vector<std::pair<const Expr*, int>> hoisted_;   // mem() expression -> its DSD register
    int next_dsd_ = 3;                                   // d0..d2 are each vector op's own

    int hoisted_reg(const Expr& e) const {
        const Expr& m = resolved(e);
        if (m.kind != ExprKind::Call || m.builtin != Builtin::Mem) return -1;
        for (const auto& [h, r] : hoisted_)
            if (same_mem(*h, m)) return r;
        return -1;
    }
    // Sets the invariant mem() operands of the vector ops in the body's innermost loops (the ones
    // that run most: registers are few) into free DSD registers. `inner`: this body has no loop.
    void hoist(const std::vector<StmtPtr>& body, const std::vector<const Sym*>& assigned, bool inner) {
        std::function<void(const Expr&)> visit = [&](const Expr& e) {
            for (const ExprPtr& a : e.args) visit(*a);
            if (e.kind != ExprKind::Call || e.builtin != Builtin::Vector) return;
            for (const ExprPtr& a : e.args) {
                const Expr& m = resolved(*a);
                if (m.kind != ExprKind::Call || m.builtin != Builtin::Mem || hoisted_reg(m) >= 0 || next_dsd_ >= kDsdRegs) continue;
                bool inv = true;
                for (size_t k = 1; k < m.args.size(); ++k) inv = inv && facts_.invariant(*m.args[k], assigned);
                if (!inv) continue;
                dsd(const_cast<Expr&>(m), next_dsd_);
                hoisted_.push_back({&m, next_dsd_++});
            }
        };
        for (const StmtPtr& st : body) {
            if (inner)
                for (const Expr* e : {st->e0.get(), st->e1.get(), st->target.get()})
                    if (e) visit(*e);
            const bool loop = st->kind == StmtKind::For || st->kind == StmtKind::While;
            hoist(st->body, assigned, loop ? !has_loop(st->body) : inner);
            hoist(st->else_body, assigned, inner);
        }
    }

    // [SECTION] induction variables (optimising)
    // In an innermost loop, an address whose index is c * i + (what the loop does not change), i
    // the loop's counter, is computed once before the loop and stepped by 4c bytes at the end of
    // each pass: an array element's address in a register (iaddi), a mem() operand's DSD (daddr).
    // SUMMA's inner loop: 11 instructions a pass -> 6. The same addresses (wrapping int32, as the
    // sequence it replaces), so the same results and faults, in fewer cycles.
    struct IvIndex { const Expr* ix; int reg; uint32_t disp; int line, col; };   // ld/st rX, [reg + disp], a load at line:col
    std::vector<IvIndex> iv_index_;
    struct IvStep { int dsd; int reg; uint32_t bytes; };          // dsd >= 0: daddr dsd, reg (reg holds bytes); else iaddi reg, bytes
    static constexpr size_t kMaxIvIndex = 4;                      // address registers per loop

    const IvIndex* iv_of(const Expr& ix) const {
        for (const IvIndex& v : iv_index_)
            if (v.ix == &ix) return &v;
        return nullptr;
    }
    // Sets up the loop's induction addresses (before it, with i at its first value); their steps go in *steps.
    void induction(const std::vector<StmtPtr>& body, const Sym* i, const std::vector<const Sym*>& assigned, std::vector<IvStep>* steps) {
        const int line = line_, col = col_;   // the loop's
        facts_.begin(body, assigned);
        std::function<void(const Expr&)> visit = [&](const Expr& e) {
            uint32_t c = 0;
            if (e.kind == ExprKind::Index && !e.args[0]->konst && iv_of(*e.args[0]) == nullptr && iv_index_.size() < kMaxIvIndex &&
                facts_.affine(*e.args[0], i, assigned, &c) && c != 0) {
                const int q = alloc();
                named_[size_t(q) & 63] = true;
                at(e.line, e.col);   // as gen() would for the load: its place is recorded below
                const uint32_t disp = off_.at(e.sym) + scaled_index(*e.args[0], q);
                next_ = q + 1;   // the index's temporaries are free again; q stays for the loop
                iv_index_.push_back({e.args[0].get(), q, disp, line_, col_});
                steps->push_back({-1, q, 4u * c});
                return;
            }
            for (const ExprPtr& a : e.args) visit(*a);
            if (e.kind != ExprKind::Call || e.builtin != Builtin::Vector) return;
            for (const ExprPtr& a : e.args) {
                const Expr& m = resolved(*a);
                if (m.kind != ExprKind::Call || m.builtin != Builtin::Mem || m.args.size() < 3 || hoisted_reg(m) >= 0 || next_dsd_ >= kDsdRegs) continue;
                if (m.args[1]->konst || !facts_.affine(*m.args[1], i, assigned, &c) || c == 0) continue;
                bool inv = true;
                for (size_t k = 2; k < m.args.size(); ++k) inv = inv && facts_.invariant(*m.args[k], assigned);
                if (!inv) continue;
                dsd(const_cast<Expr&>(m), next_dsd_);
                hoisted_.push_back({&m, next_dsd_});
                steps->push_back({next_dsd_++, -1, 4u * c});
            }
        };
        std::function<void(const std::vector<StmtPtr>&)> walk = [&](const std::vector<StmtPtr>& b) {
            for (const StmtPtr& st : b) {
                for (const Expr* e : {st->e0.get(), st->e1.get(), st->target.get()})
                    if (e) visit(*e);
                walk(st->body);
                walk(st->else_body);
            }
        };
        walk(body);
        facts_.end();
        for (IvStep& st : *steps) {   // a DSD's step in a register (daddr adds a register), one per distinct step
            if (st.dsd < 0) continue;
            for (const IvStep& o : *steps)
                if (o.dsd >= 0 && o.reg >= 0 && o.bytes == st.bytes) st.reg = o.reg;
            if (st.reg < 0) {
                at(line, col);
                st.reg = alloc();
                li(st.reg, st.bytes);
            }
        }
    }

    // [SECTION] map (map_rule.h)
    // The op's operands at the first pass, the steps of those that move and the scalar's address,
    // then map and the op: the map instruction issues it a pass at a time (isa.h).
    void map_loop(Stmt& s) {
        Expr& e = *s.body[0]->e0;
        const VectorArgs va = vector_args(op_info(e.vop).fmt);
        auto& A = e.args;
        const int i = bind_local(s.sym);
        gen(*s.e0, i);
        const int n = alloc();
        gen(*s.e1, n);
        at(s.line, s.col);
        emit(Op::ISUB, n, n, i);   // the passes
        const auto k32 = [&](const Expr& x) { return int32_t(konst(x).i); };
        int reg[3] = {-1, -1, -1};
        uint32_t step[3] = {0, 0, 0};   // words a pass
        for (int k = 0; k < va.dsds; ++k) {
            const Expr& m = resolved(*A[size_t(k)]);
            if (m.args.size() > 1) map_step(*m.args[1], s.sym, k32, &step[k]);
            if (step[k] == 0) reg[k] = hoisted_reg(*A[size_t(k)]);   // a hoisted operand does not move
            for (int j = 0; j < k && reg[k] < 0; ++j)
                if (A[size_t(k)]->kind == ExprKind::Call && same_mem(*A[size_t(k)], *A[size_t(j)])) reg[k] = reg[j];
            if (reg[k] < 0) dsd(*A[size_t(k)], reg[k] = k);
        }
        int sreg = 0, loaded = kNoReg, addr = kNoReg;
        uint32_t sstep = 0;
        if (va.scalar) {
            Expr& x = *A[size_t(va.dsds)];
            if (x.kind == ExprKind::Index && reads(x, s.sym)) {   // a[c * i + ...]: loaded a pass at a time
                uint32_t c = 0;
                map_step(*x.args[0], s.sym, k32, &c);
                addr = alloc();
                gen(*x.args[0], addr);
                at(x.line, x.col);
                muli(addr, addr, 4);
                emit(Op::IADDI, addr, addr, 0, 0, 0, int32_t(off_.at(x.sym)));
                sreg = loaded = alloc();
                sstep = 4u * c;
            } else {
                sreg = operand(x);
            }
        }
        at(s.line, s.col);
        for (int k = 0; k < va.dsds; ++k) {
            bool shared = false;   // a register two operands share steps once
            for (int j = 0; j < k; ++j) shared = shared || reg[j] == reg[k];
            if (step[k] == 0 || shared) continue;
            const int r = alloc();
            li(r, 4u * step[k]);
            emit(Op::DSTEP, reg[k], r);
        }
        emit(Op::MAP, loaded, n, addr, 0, 0, int32_t(sstep));
        at(e.line, e.col);
        emit(e.vop, reg[0], reg[1], va.dsds == 3 ? reg[2] : 0, sreg, 0, 0);
    }

    // [SECTION] statements

    void stmts(std::vector<StmtPtr>& b) {
        const int mark = next_;
        for (auto& s : b) stmt(*s);
        next_ = mark;
    }

    void stmt(Stmt& s) {
        at(s.line, s.col);
        const int mark = next_;
        switch (s.kind) {
        case StmtKind::Let: {
            int r = alloc();
            gen(*s.e0, r);
            if (s.sym) reg_of_[s.sym] = r;
            named_[size_t(r) & 63] = true;
            return;   // keeps its register until the block ends
        }
        case StmtKind::Assign: assign(s); break;
        case StmtKind::If: {
            if (s.e0->konst) {   // compile-time if: only the branch this instance takes
                if (konst(*s.e0).i) stmts(s.body);
                else if (s.has_else) stmts(s.else_body);
                break;
            }
            int els = label(), end = label();
            int c = operand(*s.e0);
            at(s.line, s.col);
            jump(PI::Bz, els, c);
            next_ = mark;
            stmts(s.body);
            if (s.has_else) jump(PI::Jmp, end);
            bind(els);
            if (s.has_else) {
                stmts(s.else_body);
                bind(end);
            }
            break;
        }
        case StmtKind::While: {
            int top = label(), end = label();
            bind(top);
            int c = operand(*s.e0);
            at(s.line, s.col);
            jump(PI::Bz, end, c);
            next_ = mark;
            loops_.push_back({top, end});
            stmts(s.body);
            loops_.pop_back();
            at(s.line, s.col);
            jump(PI::Jmp, top);
            bind(end);
            break;
        }
        case StmtKind::For: {
            if (s.map) {
                map_loop(s);
                break;
            }
            int i = bind_local(s.sym);
            gen(*s.e0, i);
            int hi = alloc();
            gen(*s.e1, hi);
            int top = label(), cont = label(), end = label(), test = label();
            const size_t hoisted = hoisted_.size(), ivs = iv_index_.size();
            const int dsds = next_dsd_;
            std::vector<IvStep> steps;
            if (opt_) {
                std::vector<const Sym*> assigned{s.sym};
                bool calls = false;
                LoopFacts::assigned_in(s.body, &assigned, &calls);
                if (!calls) hoist(s.body, assigned, !has_loop(s.body));
                const bool counter_kept = std::find(assigned.begin() + 1, assigned.end(), s.sym) == assigned.end();
                at(s.line, s.col);
                if (iv_ && !calls && counter_kept && !has_loop(s.body)) induction(s.body, s.sym, assigned, &steps);
            }
            // Optimising, the test is at the bottom: one branch a pass instead of a branch and a jump.
            if (opt_ && !(shared_konst(*s.e0) && shared_konst(*s.e1) && konst(*s.e0).i < konst(*s.e1).i)) {
                at(s.line, s.col);
                jump(PI::Jmp, test);   // bounds that may not run it: test first
            }
            bind(top);
            if (!opt_) {
                int c = alloc();
                at(s.line, s.col);
                emit(Op::ILT, c, i, hi);
                jump(PI::Bz, end, c);
            }
            loops_.push_back({cont, end});
            stmts(s.body);
            loops_.pop_back();
            bind(cont);
            at(s.line, s.col);
            for (const IvStep& st : steps) {
                if (st.dsd >= 0) emit(Op::DADDR, st.dsd, st.reg);
                else emit(Op::IADDI, st.reg, st.reg, 0, 0, 0, int32_t(st.bytes));
            }
            emit(Op::IADDI, i, i, 0, 0, 0, 1);
            if (opt_) {
                bind(test);
                jump(PI::Blt, top, i, hi);
            } else {
                jump(PI::Jmp, top);
            }
            bind(end);
            hoisted_.resize(hoisted);
            iv_index_.resize(ivs);
            next_dsd_ = dsds;
            break;
        }
        case StmtKind::Return:
            if (s.e0) {
                int r = operand(*s.e0);
                at(s.line, s.col);
                emit(Op::RET, r);
            } else {
                emit(Op::RET, kNoReg);
            }
            break;
        case StmtKind::Break: if (!loops_.empty()) jump(PI::Jmp, loops_.back().second); break;
        case StmtKind::Continue: if (!loops_.empty()) jump(PI::Jmp, loops_.back().first); break;
        case StmtKind::Block: stmts(s.body); break;
        case StmtKind::ExprStmt: {
            Expr& e = *s.e0;
            if (e.kind == ExprKind::Call && e.builtin == Builtin::Vector) {
                int flags = s.async ? kVecAsync : 0;
                int task = 0;
                if (s.then_sym) {
                    flags |= s.then_action == "activate" ? kVecActivate : kVecUnblock;
                    task = task_of(s.then_sym);
                }
                vector_op(e, -1, flags, task);
            } else if (e.kind == ExprKind::Call && (e.type == Ty::Void || e.builtin == Builtin::None)) {
                call(e, e.type == Ty::Void ? -1 : alloc());
            } else {
                gen(e, alloc());
            }
            break;
        }
        }
        next_ = mark;
    }

    void assign(Stmt& s) {
        Expr& t = *s.target;
        auto combine = [&](int cur, int val) {
            bool f = t.type == Ty::F32;
            at(s.line, s.col);
            Op op = s.op == Tok::PlusAssign ? (f ? Op::FADD : Op::IADD) : s.op == Tok::MinusAssign ? (f ? Op::FSUB : Op::ISUB) : (f ? Op::FMUL : Op::IMUL);
            emit(op, cur, cur, val);
        };
        if (t.kind == ExprKind::Name) {
            auto it = reg_of_.find(t.sym);
            if (it != reg_of_.end()) {
                const bool int_step = t.type != Ty::F32 && shared_konst(*s.e0) && (s.op == Tok::PlusAssign || s.op == Tok::MinusAssign);
                if (s.op == Tok::Assign) gen(*s.e0, it->second);
                else if (int_step) {   // i += c: one iaddi
                    const int32_t c = int32_t(konst(*s.e0).i);
                    at(s.line, s.col);
                    emit(Op::IADDI, it->second, it->second, 0, 0, 0, s.op == Tok::PlusAssign ? c : int32_t(0u - uint32_t(c)));
                } else combine(it->second, operand(*s.e0));
                return;
            }
            // an SRAM scalar
            int v = alloc();
            if (s.op == Tok::Assign) gen(*s.e0, v);
            else {
                gen(t, v);
                combine(v, operand(*s.e0));
            }
            int a = alloc();
            at(s.line, s.col);
            li(a, off_.at(t.sym));
            emit(Op::ST, v, a, 0, 0, 0, 0);
            return;
        }
        // an array element: address first, then the value
        uint32_t base = off_.at(t.sym);
        int a = alloc();
        Expr& ix = *t.args[0];
        uint32_t disp = 0;   // the constant part of the address, in the ld/st itself when optimising
        if (ix.konst) li(a, base + 4u * uint32_t(konst(ix).i));
        else if (const IvIndex* v = iv_of(ix)) a = v->reg, disp = v->disp;
        else if (opt_) disp = base + scaled_index(ix, a);
        else {
            gen(ix, a);
            int two = alloc();
            li(two, 2);
            emit(Op::ISHL, a, a, two);
            emit(Op::IADDI, a, a, 0, 0, 0, int32_t(base));
        }
        int v = alloc();
        if (s.op == Tok::Assign) gen(*s.e0, v);
        else {
            at(s.line, s.col);
            emit(Op::LD, v, a, 0, 0, 0, int32_t(disp));
            combine(v, operand(*s.e0));
        }
        at(s.line, s.col);
        emit(Op::ST, v, a, 0, 0, 0, int32_t(disp));
    }
};

}  // namespace

// [SECTION] the program

std::shared_ptr<wl::Program> generate(File& f, Checked& c, Instance& in, const std::string& file, Diagnostics& d, bool optimise) {
    ProgramDecl& p = f.programs[size_t(in.program)];
    ProgramBuilder b(in.name, file);
    std::unordered_map<const Sym*, uint32_t> off;
    for (Decl& dc : p.decls) {
        if (dc.kind != DeclKind::Var || !dc.sym) continue;
        Ty et = dc.type.ty == Ty::Array ? dc.type.elem : dc.type.ty;
        ElemType t = et == Ty::F32 ? ElemType::F32 : et == Ty::I32 ? ElemType::I32 : ElemType::U32;
        auto it = in.length.find(dc.sym);
        uint32_t len = it == in.length.end() ? 1 : it->second;
        uint32_t o = b.array(dc.name, len, t, dc.exported);
        off[dc.sym] = o;
        std::vector<uint32_t> words;
        auto word = [&](Expr& e) {
            Value v = eval_const(e, &in, in.first_x, in.first_y, nullptr);
            return v.ty == Ty::F32 ? fbits(v.f) : uint32_t(uint64_t(v.i));
        };
        if (dc.init) words.push_back(word(*dc.init));
        for (auto& e : dc.init_list) words.push_back(word(*e));
        if (!words.empty()) b.init_u32(o, words);
    }
    for (Decl& dc : p.decls) {
        if (dc.kind != DeclKind::Task || !dc.sym) continue;
        if (dc.colour.empty()) {
            b.local_task(kFirstLocalTask + dc.sym->index, dc.name, dc.blocked);
        } else {
            int colour = -1;
            for (size_t k = 0; k < p.params.size(); ++k)
                if (p.params[k].name == dc.colour) colour = int(in.params[k].i);
            if (colour < 0)
                for (const Sym& s : c.syms)
                    if (s.kind == SymKind::Colour && s.name == dc.colour) colour = int(s.val.i);
            b.data_task(colour, dc.name, colour, dc.blocked);
        }
    }
    for (Decl& dc : p.decls) {
        if ((dc.kind != DeclKind::Fn && dc.kind != DeclKind::Task) || !dc.sym) continue;
        auto gen = std::make_unique<FnGen>(in, off, optimise);
        gen->function(dc);
        if (optimise && gen->max_regs > kMaxFrameRegs) {   // stepped addresses hold registers: without them it may fit
            gen = std::make_unique<FnGen>(in, off, optimise, false);
            gen->function(dc);
        }
        const FnGen& g = *gen;
        if (g.max_regs > kMaxFrameRegs) {
            d.error(dc.line, dc.col, (dc.kind == DeclKind::Fn ? "function " : "task ") + quoted(dc.name) + " needs " + std::to_string(g.max_regs) +
                                         " registers; a PE function has at most " + std::to_string(kMaxFrameRegs) + " (split it into smaller functions)");
            continue;
        }
        b.func(dc.name, g.max_regs < 1 ? 1 : g.max_regs, dc.kind == DeclKind::Fn ? int(dc.params.size()) : 0, dc.exported);
        std::vector<int> labels(size_t(g.nlabels));
        for (int& l : labels) l = b.label();
        for (const PI& pi : g.code) {
            if (pi.kind == PI::Bind) { b.bind(labels[size_t(pi.label)]); continue; }
            b.at(pi.line, pi.col);
            switch (pi.kind) {
            case PI::Ins: b.emit(pi.op, pi.a, pi.b, pi.c, pi.d, pi.e, pi.imm); break;
            case PI::Jmp: b.jmp(labels[size_t(pi.label)]); break;
            case PI::Bnz: b.bnz(pi.a, labels[size_t(pi.label)]); break;
            case PI::Bz: b.bz(pi.a, labels[size_t(pi.label)]); break;
            case PI::Blt: b.blt(pi.a, pi.b, labels[size_t(pi.label)]); break;
            case PI::Call: b.call(pi.a, pi.callee, pi.b, pi.c); break;
            default: break;
            }
        }
    }
    if (b.pc() == 0) {   // a program with only data still loads: the engine wants one function
        b.at(p.line, p.col);
        b.func("_idle", 1);
        b.ret();
    }
    Program prog = b.finish();
    for (const std::string& e : b.errors()) d.error(p.line, p.col, "internal code generation error in " + shown(in.name) + ": " + e);
    return std::make_shared<wl::Program>(std::move(prog));
}

}  // namespace wl::lang
