// Control flow, family Branch: branches, ret and exit (docs/lowering.md "Control flow").
#include "events/lower/Lowerer.hpp"

namespace ptxmm::events::lowering {
namespace {

Flow lowerJump(Lowerer& L, PathState& st, const Instr& in, Work&) {
  int t = L.labelTarget(L.operand(in, 0, "label"));
  return L.jump(st, st.pc, t) ? Flow::Jumped : Flow::Cut;
}

/// beq / bne / bge / ble / bgt / blt a, b, L: jump when `Op(a, b)` holds (`Op(b, a)` if `Swap`).
template <ExprOp Op, bool Swap>
Flow lowerCompareBranch(Lowerer& L, PathState& st, const Instr& in, Work& work) {
  ExprId a = L.value(st, L.operand(in, 0, "source"));
  ExprId b = L.value(st, L.operand(in, 1, "source"));
  int t = L.labelTarget(L.operand(in, 2, "label"));
  ExprId c = Swap ? L.prog_.exprs.make(Op, {b, a}) : L.prog_.exprs.make(Op, {a, b});
  if (!L.decide(st, c, work, [](PathState& o) { ++o.pc; })) return Flow::Next;
  return L.jump(st, st.pc, t) ? Flow::Jumped : Flow::Cut;
}

Flow lowerEnd(Lowerer&, PathState&, const Instr&, Work&) { return Flow::Ended; }

constexpr OpLowering kBranch[] = {
    {OpId::Bra, lowerJump},
    {OpId::Goto, lowerJump},
    {OpId::Beq, lowerCompareBranch<ExprOp::Eq, false>},
    {OpId::Bne, lowerCompareBranch<ExprOp::Ne, false>},
    {OpId::Bge, lowerCompareBranch<ExprOp::Le, true>},
    {OpId::Ble, lowerCompareBranch<ExprOp::Le, false>},
    {OpId::Bgt, lowerCompareBranch<ExprOp::Lt, true>},
    {OpId::Blt, lowerCompareBranch<ExprOp::Lt, false>},
    {OpId::Ret, lowerEnd},
    {OpId::Exit, lowerEnd},
};
static_assert(coversFamily(kBranch, ptx::OpFamily::Branch));

}  // namespace

Flow lowerBranch(Lowerer& L, PathState& st, const Instr& in, Work& work) { return lowerFrom(kBranch, L, st, in, work); }

int mbarrierOperandBranch(const Instr&) { return -1; }

}  // namespace ptxmm::events::lowering
