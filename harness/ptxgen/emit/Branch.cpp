// Control flow, family Branch: bra / goto jump to the thread's label, the litmus compare-and-branch
// forms (beq, bne, ...) set %pt from a signed 64-bit comparison first, ret / exit leave for the end of
// the thread's code (its registers are still stored). Backward jumps are bounded (Thread::jump).
#include "ptxgen/emit/Emit.hpp"

namespace ptxmm::ptxgen::emit {
namespace {

using ptx::OpFamily;
using ptx::OpId;

void emitJump(Writer& w) {
  w.need(1);
  w.thread.jump(w.in.operands.back(), w.guard);
}

/// beq / bne / bge / ble / bgt / blt `a, b, label`.
void emitCompareJump(Writer& w) {
  w.need(3);
  const auto& ops = w.in.operands;
  const OpId op = w.in.op;
  const char* cmp = op == OpId::Beq   ? "eq"
                    : op == OpId::Bne ? "ne"
                    : op == OpId::Bge ? "ge"
                    : op == OpId::Ble ? "le"
                    : op == OpId::Bgt ? "gt"
                                      : "lt";
  w.out() << "  setp." << cmp << ".s64 %pt, " << w.value(ops[0], 64) << ", " << w.value(ops[1], 64) << ";\n";
  w.thread.jump(ops[2], "@%pt ");
}

void emitLeave(Writer& w) { w.out() << "  " << w.guard << "bra " << w.thread.endLabel() << ";\n"; }

constexpr OpEmitter kBranch[] = {{OpId::Bra, emitJump},        {OpId::Beq, emitCompareJump},
                                 {OpId::Bne, emitCompareJump}, {OpId::Bge, emitCompareJump},
                                 {OpId::Ble, emitCompareJump}, {OpId::Bgt, emitCompareJump},
                                 {OpId::Blt, emitCompareJump}, {OpId::Goto, emitJump},
                                 {OpId::Ret, emitLeave},       {OpId::Exit, emitLeave}};
static_assert(coversFamily(kBranch, OpFamily::Branch), "every Branch row of PtxOps.def needs its emitter in kBranch");

}  // namespace

void emitBranch(Writer& w) { emitFrom(kBranch, w); }

void regsBranch(const Instr&, Regs&) {}

void defaultsBranch(const Instr&, Qualifiers&) {}

}  // namespace ptxmm::ptxgen::emit
