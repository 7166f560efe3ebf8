// Register-only instructions, family Local: mov, arithmetic, setp, selp on the path's register values.
#include "events/lower/Lowerer.hpp"

namespace ptxmm::events::lowering {
namespace {

ExprId compare(Lowerer& L, const Instr& in, ExprId a, ExprId b) {
  auto& X = L.prog_.exprs;
  for (const auto& f : in.flags) {
    if (f == "eq") return X.make(ExprOp::Eq, {a, b});
    if (f == "ne") return X.make(ExprOp::Ne, {a, b});
    if (f == "lt" || f == "lo") return X.make(ExprOp::Lt, {a, b});
    if (f == "le" || f == "ls") return X.make(ExprOp::Le, {a, b});
    if (f == "gt" || f == "hi") return X.make(ExprOp::Lt, {b, a});
    if (f == "ge" || f == "hs") return X.make(ExprOp::Le, {b, a});
  }
  L.fail(in.src, "setp without a supported comparison (.eq .ne .lt .le .gt .ge .lo .ls .hi .hs)");
}

Flow lowerMov(Lowerer& L, PathState& st, const Instr& in, Work&) {
  const Operand& d = L.operand(in, 0, "destination");
  const Operand& s = L.operand(in, 1, "source");
  if (s.kind == Operand::Kind::Loc || (s.kind == Operand::Kind::Addr && s.baseReg.empty())) {
    L.resolveRef(s.loc, Space::Generic, s.src);
    if (d.kind != Operand::Kind::Reg) L.fail(d.src, "expected a destination register");
    st.addrRegs[d.name] = s.loc;
    st.regs.erase(d.name);
  } else if (s.kind == Operand::Kind::Reg && st.addrRegs.count(s.name)) {
    if (d.kind != Operand::Kind::Reg) L.fail(d.src, "expected a destination register");
    st.addrRegs[d.name] = st.addrRegs.at(s.name);
    st.regs.erase(d.name);
  } else {
    L.setReg(st, d, L.value(st, s));
  }
  return Flow::Next;
}

/// add, sub, mul, div, and, or, xor: `d = a op b` (ExprPool semantics, docs/lowering.md "Expressions").
template <ExprOp Op>
Flow lowerBinary(Lowerer& L, PathState& st, const Instr& in, Work&) {
  ExprId a = L.value(st, L.operand(in, 1, "source"));
  ExprId b = L.value(st, L.operand(in, 2, "source"));
  L.setReg(st, L.operand(in, 0, "destination"), L.prog_.exprs.make(Op, {a, b}));
  return Flow::Next;
}

Flow lowerSetp(Lowerer& L, PathState& st, const Instr& in, Work&) {
  ExprId a = L.value(st, L.operand(in, 1, "source"));
  ExprId b = L.value(st, L.operand(in, 2, "source"));
  L.setReg(st, L.operand(in, 0, "destination"), compare(L, in, a, b));
  return Flow::Next;
}

Flow lowerSelp(Lowerer& L, PathState& st, const Instr& in, Work&) {
  auto& X = L.prog_.exprs;
  ExprId a = L.value(st, L.operand(in, 1, "source"));
  ExprId b = L.value(st, L.operand(in, 2, "source"));
  ExprId c = L.value(st, L.operand(in, 3, "predicate"));
  L.setReg(st, L.operand(in, 0, "destination"), X.make(ExprOp::Ite, {c, a, b}));
  return Flow::Next;
}

constexpr OpLowering kLocal[] = {
    {OpId::Mov, lowerMov},
    {OpId::Add, lowerBinary<ExprOp::Add>},
    {OpId::Sub, lowerBinary<ExprOp::Sub>},
    {OpId::Mul, lowerBinary<ExprOp::Mul>},
    {OpId::Div, lowerBinary<ExprOp::Div>},
    {OpId::And, lowerBinary<ExprOp::And>},
    {OpId::Or, lowerBinary<ExprOp::Or>},
    {OpId::Xor, lowerBinary<ExprOp::Xor>},
    {OpId::Setp, lowerSetp},
    {OpId::Selp, lowerSelp},
};
static_assert(coversFamily(kLocal, ptx::OpFamily::Local));

}  // namespace

Flow lowerLocal(Lowerer& L, PathState& st, const Instr& in, Work& work) { return lowerFrom(kLocal, L, st, in, work); }

int mbarrierOperandLocal(const Instr&) { return -1; }

}  // namespace ptxmm::events::lowering
