// isa.h: the compute engine's instruction set — ONE table drives the
// interpreter (core.cpp), the disassembler and the cost-model docs (isa.cpp),
// the builder (program_builder.h) and the kernel compiler (engine/lang).
//
// Legend for operands: rX = register (relative to the frame), dX = DSD register,
// imm = 32-bit immediate, L = code label (pc), T = task id, C = colour (0..23).
// Costs are compute-engine cycles. A vector op over n elements costs
//   base + ceil(n * per_elem / simd_fp32)   (simd_fp32 is MachineConfig, default 1)
// and is ONE host loop in the emulator. Reasons for each number: docs/cost-model.md.
#pragma once
#include <cstdint>
#include <string>

namespace wl {

// Operand formats: how an Instr's fields a,b,c,d,e,imm are read and printed.
enum class Fmt : uint8_t {
    None,     //
    R,        // rA
    RR,       // rA, rB
    RRR,      // rA, rB, rC
    RI,       // rA, imm
    RRI,      // rA, rB, imm
    Load,     // rA, [rB + imm]
    Store,    // [rB + imm], rA
    Jump,     // L=imm
    Branch,   // rA, L=imm
    Branch2,  // rA, rB, L=imm
    Call,     // rA(dest, 255 = none) = fn#imm(args rB .. rB+C-1)
    Ret,      // rA (255 = no value)
    Task,     // T=imm
    Colour,   // rA, C=imm
    DsdMem,   // dA = mem1d(base rB bytes, length rC, stride imm elements)
    DsdFab,   // dA = fabin/fabout(length rB, C=imm)
    DsdReg,   // dA, rB
    Vec1,     // dA = op(dB)
    Vec2,     // dA = op(dB, dC)
    Vec1S,    // dA = op(dB, rD)
    Vec2S,    // dA = op(dB, dC, rD)
    VecR,     // rD = op(dB)
    Map,      // rA = [rC] a pass, stepped by imm bytes; rB passes of the next instruction
};

// What an op may touch, which decides what may run without a check between instructions.
enum class OpKind : uint8_t {
    Straight,   // registers, constants and DSD set-up: it cannot branch, touch SRAM or the fabric, or fault
    Plain,      // also SRAM, the pc, scalar floats and fabric DSDs: this PE's own state alone (core_exec.h)
    Control,    // calls, tasks, sends and receives: the CE's time or the fabric decide what it does
    Vector,     // a DSD vector op (a Vec* format)
};

// The register fields of an Instr an op reads or writes, as a mask (regs_read, program.h).
namespace op_regs {
constexpr uint8_t None = 0, A = 1, B = 2, C = 4, D = 8, AB = A | B, BC = B | C;
constexpr uint8_t Args = 16;   // a call's arguments: rB .. rB+C-1
}  // namespace op_regs

// X(NAME, "mnemonic", Fmt, base cycles, per-element cycles, kind, registers read, registers written, "one-line doc")
// The registers are the fields that name one (OpRegs: A = rA, BC = rB and rC, Args = a call's rB.. rB+C-1).
// clang-format off
#define WL_ISA(X) \
    X(NOP,     "nop",     None,   1,  0,  Straight, None, None, "do nothing for one cycle") \
    X(LI,      "li",      RI,     1,  0,  Straight, None, A,    "rA = imm (32 raw bits: int or float)") \
    X(MOV,     "mov",     RR,     1,  0,  Straight, B,    A,    "rA = rB") \
    X(IADD,    "iadd",    RRR,    1,  0,  Straight, BC,   A,    "rA = rB + rC (int32, wraps)") \
    X(ISUB,    "isub",    RRR,    1,  0,  Straight, BC,   A,    "rA = rB - rC (int32, wraps)") \
    X(IMUL,    "imul",    RRR,    1,  0,  Straight, BC,   A,    "rA = rB * rC (int32, low 32 bits)") \
    X(IDIV,    "idiv",    RRR,    8,  0,  Straight, BC,   A,    "rA = rB / rC (int32; /0 gives 0, INT_MIN/-1 gives INT_MIN)") \
    X(IREM,    "irem",    RRR,    8,  0,  Straight, BC,   A,    "rA = rB % rC (int32; %0 gives rB)") \
    X(IAND,    "iand",    RRR,    1,  0,  Straight, BC,   A,    "rA = rB & rC") \
    X(IOR,     "ior",     RRR,    1,  0,  Straight, BC,   A,    "rA = rB | rC") \
    X(IXOR,    "ixor",    RRR,    1,  0,  Straight, BC,   A,    "rA = rB ^ rC") \
    X(ISHL,    "ishl",    RRR,    1,  0,  Straight, BC,   A,    "rA = rB << (rC & 31)") \
    X(ISHR,    "ishr",    RRR,    1,  0,  Straight, BC,   A,    "rA = rB >> (rC & 31), arithmetic") \
    X(IADDI,   "iaddi",   RRI,    1,  0,  Straight, B,    A,    "rA = rB + imm") \
    X(ISHLI,   "ishli",   RRI,    1,  0,  Straight, B,    A,    "rA = rB << (imm & 31) (the optimising compiler's index scaling)") \
    X(IMULI,   "imuli",   RRI,    1,  0,  Straight, B,    A,    "rA = rB * imm (int32, low 32 bits)") \
    X(ILT,     "ilt",     RRR,    1,  0,  Straight, BC,   A,    "rA = rB < rC (signed) ? 1 : 0") \
    X(ILE,     "ile",     RRR,    1,  0,  Straight, BC,   A,    "rA = rB <= rC (signed) ? 1 : 0") \
    X(IEQ,     "ieq",     RRR,    1,  0,  Straight, BC,   A,    "rA = rB == rC ? 1 : 0") \
    X(INE,     "ine",     RRR,    1,  0,  Straight, BC,   A,    "rA = rB != rC ? 1 : 0") \
    X(FADD,    "fadd",    RRR,    1,  0,  Plain,    BC,   A,    "rA = rB + rC (fp32)") \
    X(FSUB,    "fsub",    RRR,    1,  0,  Plain,    BC,   A,    "rA = rB - rC (fp32)") \
    X(FMUL,    "fmul",    RRR,    1,  0,  Plain,    BC,   A,    "rA = rB * rC (fp32)") \
    X(FDIV,    "fdiv",    RRR,    8,  0,  Plain,    BC,   A,    "rA = rB / rC (fp32, IEEE)") \
    X(FMIN,    "fmin",    RRR,    1,  0,  Plain,    BC,   A,    "rA = min(rB, rC) (fp32)") \
    X(FMAX,    "fmax",    RRR,    1,  0,  Plain,    BC,   A,    "rA = max(rB, rC) (fp32)") \
    X(FLT,     "flt",     RRR,    1,  0,  Plain,    BC,   A,    "rA = rB < rC (fp32) ? 1 : 0") \
    X(FLE,     "fle",     RRR,    1,  0,  Plain,    BC,   A,    "rA = rB <= rC (fp32) ? 1 : 0") \
    X(FEQ,     "feq",     RRR,    1,  0,  Plain,    BC,   A,    "rA = rB == rC (fp32) ? 1 : 0") \
    X(FNEG,    "fneg",    RR,     1,  0,  Plain,    B,    A,    "rA = -rB (fp32)") \
    X(FABS,    "fabs",    RR,     1,  0,  Plain,    B,    A,    "rA = |rB| (fp32)") \
    X(FSQRT,   "fsqrt",   RR,     8,  0,  Plain,    B,    A,    "rA = sqrt(rB) (fp32, IEEE)") \
    X(FEXP,    "fexp",    RR,     20, 0,  Plain,    B,    A,    "rA = exp(rB) (wl_math, bit-exact everywhere)") \
    X(FRSQRT,  "frsqrt",  RR,     10, 0,  Plain,    B,    A,    "rA = 1/sqrt(rB) (wl_math)") \
    X(FTANH,   "ftanh",   RR,     24, 0,  Plain,    B,    A,    "rA = tanh(rB) (wl_math)") \
    X(FLOG,    "flog",    RR,     24, 0,  Plain,    B,    A,    "rA = log(rB), natural (wl_math; log 0 = -inf, log of a negative = NaN)") \
    X(ITOF,    "itof",    RR,     1,  0,  Plain,    B,    A,    "rA = float(int rB)") \
    X(FTOI,    "ftoi",    RR,     1,  0,  Plain,    B,    A,    "rA = int(rB), truncating; NaN gives 0, saturates") \
    X(LD,      "ld",      Load,   1,  0,  Plain,    B,    A,    "rA = SRAM word at byte address rB + imm (4-aligned, bounds-checked)") \
    X(ST,      "st",      Store,  1,  0,  Plain,    AB,   None, "SRAM word at byte address rB + imm = rA") \
    X(JMP,     "jmp",     Jump,   1,  0,  Plain,    None, None, "pc = L") \
    X(BNZ,     "bnz",     Branch, 1,  0,  Plain,    A,    None, "if rA != 0: pc = L") \
    X(BZ,      "bz",      Branch, 1,  0,  Plain,    A,    None, "if rA == 0: pc = L") \
    X(BLT,     "blt",     Branch2,1,  0,  Plain,    AB,   None, "if rA < rB (signed): pc = L (a loop's test and branch in one)") \
    X(CALL,    "call",    Call,   2,  0,  Control,  Args, A,    "push a frame, copy C args from rB.. to callee r0.., jump to fn imm") \
    X(RET,     "ret",     Ret,    2,  0,  Control,  A,    None, "pop the frame, caller's dest = rA; returning from a task ends it") \
    X(ACTIVATE,"activate",Task,   1,  0,  Control,  None, None, "mark task T active; the picker runs it when the CE is free") \
    X(BLOCK,   "block",   Task,   1,  0,  Control,  None, None, "block task T: it will not be picked (data stays queued)") \
    X(UNBLOCK, "unblock", Task,   1,  0,  Control,  None, None, "unblock task T") \
    X(PEID,    "peid",    RI,     1,  0,  Straight, None, A,    "rA = this PE's x (imm 0), y (1) in its rectangle, rect width (2), height (3)") \
    X(LDP,     "ldp",     RI,     1,  0,  Straight, None, A,    "rA = this PE's constant imm (a `place ... with` value: PEs that differ only in these share one program)") \
    X(SEND,    "send",    Colour, 1,  0,  Control,  A,    None, "send rA as one data wavelet on colour C (stalls while the ramp queue is full)") \
    X(SENDC,   "sendc",   Colour, 1,  0,  Control,  A,    None, "send rA as a control wavelet on C: each router it crosses advances C's switch position") \
    X(RECV,    "recv",    Colour, 1,  0,  Control,  None, A,    "rA = next wavelet on colour C (stalls while none is queued)") \
    X(DMEM,    "dmem",    DsdMem, 1,  0,  Straight, BC,   None, "dA = mem1d DSD: base byte address rB, length rC, stride imm elements") \
    X(DFABIN,  "dfabin",  DsdFab, 1,  0,  Plain,    B,    None, "dA = fabin DSD: length rB wavelets from colour C") \
    X(DFABOUT, "dfabout", DsdFab, 1,  0,  Plain,    B,    None, "dA = fabout DSD: length rB wavelets to colour C") \
    X(DSETLEN, "dsetlen", DsdReg, 1,  0,  Straight, B,    None, "dA.length = rB") \
    X(DADDR,   "daddr",   DsdReg, 1,  0,  Straight, B,    None, "dA.base += rB bytes (mem1d)") \
    X(FMACS,   "fmacs",   Vec2S,  1,  1,  Vector,   D,    None, "dA[i] = dB[i] + dC[i] * rD") \
    X(FADDS,   "fadds",   Vec2,   1,  1,  Vector,   None, None, "dA[i] = dB[i] + dC[i]") \
    X(FSUBS,   "fsubs",   Vec2,   1,  1,  Vector,   None, None, "dA[i] = dB[i] - dC[i]") \
    X(FMULS,   "fmuls",   Vec2,   1,  1,  Vector,   None, None, "dA[i] = dB[i] * dC[i]") \
    X(FMAXS,   "fmaxs",   Vec2,   1,  1,  Vector,   None, None, "dA[i] = max(dB[i], dC[i])") \
    X(FMOVS,   "fmovs",   Vec1,   1,  1,  Vector,   None, None, "dA[i] = dB[i] (copy; fabin/fabout make it a receive/send)") \
    X(FNEGS,   "fnegs",   Vec1,   1,  1,  Vector,   None, None, "dA[i] = -dB[i]") \
    X(FSCALES, "fscales", Vec1S,  1,  1,  Vector,   D,    None, "dA[i] = dB[i] * rD") \
    X(FSHIFTS, "fshifts", Vec1S,  1,  1,  Vector,   D,    None, "dA[i] = dB[i] + rD") \
    X(FEXPS,   "fexps",   Vec1,   1,  20, Vector,   None, None, "dA[i] = exp(dB[i]) (wl_math)") \
    X(FRSQRTS, "frsqrts", Vec1,   1,  10, Vector,   None, None, "dA[i] = 1/sqrt(dB[i]) (wl_math)") \
    X(FTANHS,  "ftanhs",  Vec1,   1,  24, Vector,   None, None, "dA[i] = tanh(dB[i]) (wl_math)") \
    X(FLOGS,   "flogs",   Vec1,   1,  24, Vector,   None, None, "dA[i] = log(dB[i]), natural (wl_math)") \
    X(FSQRTS,  "fsqrts",  Vec1,   1,  8,  Vector,   None, None, "dA[i] = sqrt(dB[i]) (fp32, IEEE)") \
    X(FDIVS,   "fdivs",   Vec2,   1,  8,  Vector,   None, None, "dA[i] = dB[i] / dC[i] (fp32, IEEE)") \
    X(FSUMS,   "fsums",   VecR,   1,  1,  Vector,   None, D,    "rD = sum of dB[i], left to right (fp32)") \
    X(DSTEP,   "dstep",   DsdReg, 1,  0,  Straight, B,    None, "dA's map step = rB bytes: the next map adds it to dA's base after each pass, then sets it to 0") \
    X(MAP,     "map",     Map,    1,  0,  Control,  BC,   A,    "issue the next instruction, a vector op on memory, rB times (none if rB <= 0); before each pass rA = the SRAM word at rC, rC's copy + imm bytes (rA = _: no scalar); after each pass its DSDs' bases += their dstep. Costs 1 + passes x (1 + the op's cost)")
// clang-format on

enum class Op : uint8_t {
#define WL_X(name, mn, fmt, base, per, kind, rd, wr, doc) name,
    WL_ISA(WL_X)
#undef WL_X
    kCount
};

struct OpInfo {
    const char* name;       // enum name, e.g. "FMACS"
    const char* mnemonic;   // assembly, e.g. "fmacs"
    Fmt fmt;
    uint8_t base_cycles;    // issue cost
    uint8_t per_elem;       // vector ops: cycles per element before dividing by SIMD width
    const char* doc;
};

const OpInfo& op_info(Op op);               // the table row

// The same columns at compile time, as plain arrays: the interpreter's hot loop and templates read these.
inline constexpr Fmt kOpFmt[] = {
#define WL_X(name, mn, fmt, base, per, kind, rd, wr, doc) Fmt::fmt,
    WL_ISA(WL_X)
#undef WL_X
};
inline constexpr uint8_t kOpBaseCycles[] = {
#define WL_X(name, mn, fmt, base, per, kind, rd, wr, doc) base,
    WL_ISA(WL_X)
#undef WL_X
};
inline constexpr uint8_t kOpPerElem[] = {
#define WL_X(name, mn, fmt, base, per, kind, rd, wr, doc) per,
    WL_ISA(WL_X)
#undef WL_X
};
inline constexpr OpKind kOpKind[] = {
#define WL_X(name, mn, fmt, base, per, kind, rd, wr, doc) OpKind::kind,
    WL_ISA(WL_X)
#undef WL_X
};
inline constexpr uint8_t kOpReads[] = {
#define WL_X(name, mn, fmt, base, per, kind, rd, wr, doc) op_regs::rd,
    WL_ISA(WL_X)
#undef WL_X
};
inline constexpr uint8_t kOpWrites[] = {
#define WL_X(name, mn, fmt, base, per, kind, rd, wr, doc) op_regs::wr,
    WL_ISA(WL_X)
#undef WL_X
};
constexpr Fmt op_fmt(Op op) { return size_t(op) < size_t(Op::kCount) ? kOpFmt[size_t(op)] : Fmt::None; }
constexpr uint8_t op_base_cycles(Op op) { return size_t(op) < size_t(Op::kCount) ? kOpBaseCycles[size_t(op)] : 1; }
constexpr uint8_t op_per_elem(Op op) { return size_t(op) < size_t(Op::kCount) ? kOpPerElem[size_t(op)] : 0; }
constexpr bool op_is_vector_fmt(Fmt f) { return f == Fmt::Vec1 || f == Fmt::Vec2 || f == Fmt::Vec1S || f == Fmt::Vec2S || f == Fmt::VecR; }
constexpr bool op_kinds_agree() {
    for (size_t k = 0; k < size_t(Op::kCount); ++k)
        if ((kOpKind[k] == OpKind::Vector) != op_is_vector_fmt(kOpFmt[k])) return false;
    return true;
}
static_assert(op_kinds_agree(), "an op is of kind Vector exactly when its format is a Vec* one");
constexpr OpKind op_kind(Op op) { return size_t(op) < size_t(Op::kCount) ? kOpKind[size_t(op)] : OpKind::Control; }
constexpr bool op_is_straight(Op op) { return op_kind(op) == OpKind::Straight; }
constexpr bool op_is_branch(Op op) { return op == Op::JMP || op == Op::BNZ || op == Op::BZ || op == Op::BLT; }
// Straight ops whose effect is affine in the registers (words mod 2^32), or sets up a DSD from
// them: an affine nest's (fmacs_loop.h) lead and tail are made of these.
constexpr bool op_is_linear(Op op) {
    switch (op) {
    case Op::NOP: case Op::LI: case Op::LDP: case Op::PEID: case Op::MOV: case Op::IADD: case Op::ISUB:
    case Op::IADDI: case Op::ISHLI: case Op::IMULI: case Op::DMEM: case Op::DSETLEN: case Op::DADDR:
        return true;
    default:
        return false;
    }
}
// Plain ops change only this PE's registers, SRAM, DSD registers and pc: neither the CE's time nor
// the fabric changes what they do, so a run of them needs no checks between (core_exec.h).
constexpr bool op_is_plain(Op op) { return op_kind(op) == OpKind::Straight || op_kind(op) == OpKind::Plain; }
constexpr uint8_t op_reads(Op op) { return size_t(op) < size_t(Op::kCount) ? kOpReads[size_t(op)] : op_regs::None; }
constexpr uint8_t op_writes(Op op) { return size_t(op) < size_t(Op::kCount) ? kOpWrites[size_t(op)] : op_regs::None; }
constexpr bool op_writes_dsd(Op op) { return op_fmt(op) == Fmt::DsdMem || op_fmt(op) == Fmt::DsdFab || op_fmt(op) == Fmt::DsdReg; }
int op_count();
bool op_is_vector(Op op);                   // Vec* formats
bool op_from_mnemonic(const std::string& mn, Op* out);

// Vector-op flags (Instr::e).
enum VecFlags : uint8_t {
    kVecAsync = 1,          // run on a microthread; the main thread goes on
    kVecActivate = 2,       // on completion: activate task imm
    kVecUnblock = 4,        // on completion: unblock task imm
};

// The instruction table as Markdown (docs/cost-model.md is this text; a test keeps it current).
std::string isa_markdown();

}  // namespace wl
