// Warpgroup matrix multiply-accumulate, families Wgmma and WgmmaSync: wgmma.mma_async and wgmma.fence /
// commit_group / wait_group (docs/lowering.md "Tensor cores"). wgmma.mma_async is an async operation whose
// shared-memory operand reads are performed in the async proxy (PTX ISA 9.2 §9.7.15.4); its completion is
// followed by an implicit generic-async proxy fence (same section) and observed by wgmma.wait_group
// (§9.7.15.7.3). The accumulator is a register: the litmus abstraction follows one element, d0 = a*b (+ d0
// when scale-d is 1), with a and b the values of the shared locations the descriptors name.
#include "events/lower/Lowerer.hpp"

namespace ptxmm::events::lowering {
namespace {

Flow lowerMmaAsync(Lowerer& L, PathState& st, const Instr& in, Work&) {
  auto& X = L.prog_.exprs;
  const Operand& d = L.operand(in, 0, "accumulator");
  const Operand& d0 = d.elems.at(0);
  const bool accumulate = L.operand(in, 3, "scale-d").imm != 0;
  // §9.7.15.7.1: wgmma.fence "must be issued by all warps of the warpgroup ... Before the first
  // wgmma.mma_async operation in a warpgroup [and] Between a register access by a thread in the warpgroup
  // and any wgmma.mma_async instruction that accesses the same registers ... Otherwise, the behavior is
  // undefined." (accumulator accesses across wgmma.mma_async of the same shape need none)
  if (!st.wgmmaFenced)
    st.undefinedIf.push_back({X.constant(1), "wgmma.mma_async without a prior wgmma.fence (PTX ISA 9.2 §9.7.15.7.1)"});
  else if (accumulate && st.regsSinceWgmmaFence.count(d0.name))
    st.undefinedIf.push_back(
        {X.constant(1), fmt::format("accumulator register '{}' written since the last wgmma.fence and read by "
                                    "wgmma.mma_async (PTX ISA 9.2 §9.7.15.7.1)",
                                    d0.name)});
  Access a = L.matrixOperand(st, in, 1, "descA");
  Access b = L.matrixOperand(st, in, 2, "descB");
  // The accumulator input (scale-d = 1) is read now: an access before the wait of an earlier wgmma writing
  // it is undefined unless it is the same-shape accumulation (the only shape modelled).
  ExprId old = X.constant(0);
  if (accumulate) {
    auto it = st.regs.find(d0.name);
    if (it != st.regs.end()) old = it->second;
  }
  EventId m = L.emitMarker(st, in, Builtin::WGMMA);
  int inst = L.newInstance(m);
  int op = L.newAsyncOp(inst, in.op, L.thread(L.curThread_).where.cta);
  EventId ra = L.asyncRead(st, op, in, a, Proxy::Async, Sem::Weak, Scope::None, Builtin::WGMMA);
  EventId rb = L.asyncRead(st, op, in, b, Proxy::Async, Sem::Weak, Scope::None, Builtin::WGMMA);
  L.implicitProxyFence(st, op, in, Builtin::WGMMA);
  ExprId prod = X.make(ExprOp::Mul, {X.readVal(ra), X.readVal(rb)});
  ExprId v = accumulate ? X.make(ExprOp::Add, {prod, old}) : prod;
  st.wgmmaPending.erase(d0.name);  // same-shape accumulation chains (ordered by default, §9.7.15.7.1)
  L.setReg(st, d, v);
  st.regsSinceWgmmaFence.erase(d0.name);
  st.wgmmaPending[d0.name] = op;
  st.wgmmaUncommitted.push_back(op);
  return Flow::Next;
}

Flow lowerWgmmaFence(Lowerer& L, PathState& st, const Instr& in, Work&) {
  Event f = L.fenceEvent(in, Sem::None, Scope::None);
  addTag(f, Builtin::WGMMA_FENCE);
  addTag(f, Builtin::WGMMA);
  L.emitFence(st, std::move(f), "wgmma.fence");
  st.wgmmaFenced = true;
  st.regsSinceWgmmaFence.clear();
  return Flow::Next;
}

Flow lowerWgmmaCommit(Lowerer& L, PathState& st, const Instr& in, Work&) {
  st.wgmmaGroups.push_back(st.wgmmaUncommitted);
  st.wgmmaUncommitted.clear();
  Event f = L.fenceEvent(in, Sem::None, Scope::None);
  addTag(f, Builtin::COMMIT);
  addTag(f, Builtin::WGMMA);
  L.emitFence(st, std::move(f), "wgmma.commit_group");
  return Flow::Next;
}

Flow lowerWgmmaWait(Lowerer& L, PathState& st, const Instr& in, Work&) {
  const Operand& nOp = L.operand(in, 0, "group count");
  const int64_t n = nOp.imm;
  Event f = L.fenceEvent(in, Sem::None, Scope::None);
  addTag(f, Builtin::WAIT);
  addTag(f, Builtin::WGMMA);
  EventId w = L.emitFence(st, std::move(f), fmt::format("wgmma.wait_group {}", n));
  // "wait until only N or fewer of the most recent wgmma-groups are pending and all the prior
  // wgmma-groups committed by the executing threads are complete" (§9.7.15.7.3)
  auto& groups = st.wgmmaGroups;
  const size_t covered = groups.size() > static_cast<size_t>(n) ? groups.size() - static_cast<size_t>(n) : 0;
  std::set<int> done;
  for (size_t g = 0; g < covered; ++g)
    for (int op : groups[g]) {
      L.asyncComplete(op, w, false);
      done.insert(op);
    }
  groups.erase(groups.begin(), groups.begin() + static_cast<std::ptrdiff_t>(covered));
  for (auto it = st.wgmmaPending.begin(); it != st.wgmmaPending.end();)
    it = done.count(it->second) ? st.wgmmaPending.erase(it) : std::next(it);
  return Flow::Next;
}

constexpr OpLowering kWgmma[] = {
    {OpId::WgmmaMmaAsync, lowerMmaAsync},
};
static_assert(coversFamily(kWgmma, ptx::OpFamily::Wgmma));

constexpr OpLowering kWgmmaSync[] = {
    {OpId::WgmmaFence, lowerWgmmaFence},
    {OpId::WgmmaCommit, lowerWgmmaCommit},
    {OpId::WgmmaWait, lowerWgmmaWait},
};
static_assert(coversFamily(kWgmmaSync, ptx::OpFamily::WgmmaSync));

}  // namespace

Flow lowerWgmma(Lowerer& L, PathState& st, const Instr& in, Work& work) { return lowerFrom(kWgmma, L, st, in, work); }

int mbarrierOperandWgmma(const Instr&) { return -1; }

Flow lowerWgmmaSync(Lowerer& L, PathState& st, const Instr& in, Work& work) {
  return lowerFrom(kWgmmaSync, L, st, in, work);
}

int mbarrierOperandWgmmaSync(const Instr&) { return -1; }

}  // namespace ptxmm::events::lowering
