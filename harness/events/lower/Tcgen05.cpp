// 5th-generation TensorCore, families Tcgen05, Tcgen05Sync and Tcgen05Fence (docs/lowering.md "Tensor
// cores"). The asynchronous tcgen05 instructions (PTX ISA 9.2 §9.7.16.6.1: mma, cp, ld, st) are async
// operations in the executing CTA: tcgen05.mma / tcgen05.cp read shared memory through the async proxy
// (§9.7.16.6.5), and every tcgen05 op accesses tensor memory (`.tmem` locations, tag TMEM, generic proxy:
// the ISA names a proxy only for their shared-memory accesses). Completion: tcgen05.commit makes an
// mbarrier arrive once the prior mma/cp complete (§9.7.16.6.2.1.1), tcgen05.wait::ld / ::st wait for the
// prior ld / st (§9.7.16.6.2.1.2); both are `async-complete` edges, as is the ordering of the prior mma/cp
// before a tcgen05.fence::before_thread_sync (§9.7.16.6.3). What orders the issue of an async tcgen05 op
// after earlier instructions is the model's (models/ptx.cat "Tensor cores").
#include "events/lower/Lowerer.hpp"

namespace ptxmm::events::lowering {
namespace {

constexpr const char* kSec = "PTX ISA 9.2 §9.7.16";

/// The tensor-memory location `[D]` of the executing CTA.
Access tmem(Lowerer& L, PathState& st, const Instr& in, size_t i) {
  const Operand& o = L.operand(in, i, "tensor-memory address");
  Access a = L.resolve(st, o, Space::SharedCta, in);
  if (!L.prog_.locations[static_cast<size_t>(a.loc)].isTmem)
    L.fail(o.src, fmt::format("'{}' is not tensor memory: declare it `.tmem {}` ({})", L.vName(a.vaddr),
                              L.vName(a.vaddr), kSec));
  if (a.cta != L.thread(L.curThread_).where.cta)
    L.fail(o.src, fmt::format("'{}' is another CTA's tensor memory: `.cta_group::1` accesses the executing CTA's "
                              "({})",
                              L.vName(a.vaddr), kSec));
  return a;
}

/// The ISSUE marker (tags ISSUE, TCGEN05 and `extra`) and the async op of one instruction.
int issue(Lowerer& L, PathState& st, const Instr& in, std::initializer_list<Builtin> extra) {
  EventId m = L.emitMarker(st, in, Builtin::TCGEN05);
  for (Builtin t : extra) addTag(L.prog_.events[static_cast<size_t>(m)], t);
  return L.newAsyncOp(L.newInstance(m), in.op, L.thread(L.curThread_).where.cta);
}

/// tcgen05.mma `[d], adesc, bdesc, idesc, enable-input-d`: d = a*b (+ d).
Flow lowerMma(Lowerer& L, PathState& st, const Instr& in, Work&) {
  auto& X = L.prog_.exprs;
  Access d = tmem(L, st, in, 0);
  Access a = L.matrixOperand(st, in, 1, "a-desc");
  Access b = L.matrixOperand(st, in, 2, "b-desc");
  const bool accumulate = L.operand(in, 4, "enable-input-d").imm != 0;
  int op = issue(L, st, in, {Builtin::TC_PIPE, Builtin::TC_MMA});
  EventId ra = L.asyncRead(st, op, in, a, Proxy::Async, Sem::Weak, Scope::None, Builtin::TCGEN05);
  EventId rb = L.asyncRead(st, op, in, b, Proxy::Async, Sem::Weak, Scope::None, Builtin::TCGEN05);
  ExprId v = X.make(ExprOp::Mul, {X.readVal(ra), X.readVal(rb)});
  if (accumulate) {
    EventId rd = L.asyncRead(st, op, in, d, Proxy::Generic, Sem::Weak, Scope::None, Builtin::TCGEN05);
    v = X.make(ExprOp::Add, {v, X.readVal(rd)});
  }
  L.asyncWrite(st, op, in, d, Proxy::Generic, Sem::Weak, Scope::None, v, Builtin::TCGEN05);
  st.tcMbarOps.push_back(op);
  return Flow::Next;
}

/// tcgen05.cp `[d], sdesc`: shared memory (async proxy) to tensor memory.
Flow lowerCp(Lowerer& L, PathState& st, const Instr& in, Work&) {
  auto& X = L.prog_.exprs;
  Access d = tmem(L, st, in, 0);
  Access s = L.matrixOperand(st, in, 1, "s-desc");
  int op = issue(L, st, in, {Builtin::TC_PIPE});
  EventId r = L.asyncRead(st, op, in, s, Proxy::Async, Sem::Weak, Scope::None, Builtin::TCGEN05);
  L.asyncWrite(st, op, in, d, Proxy::Generic, Sem::Weak, Scope::None, X.readVal(r), Builtin::TCGEN05);
  st.tcMbarOps.push_back(op);
  return Flow::Next;
}

/// tcgen05.ld `{r}, [d]` / tcgen05.st `[d], {v}`. The register of a tcgen05.ld holds the value read: a true
/// register dependency is respected without tcgen05.wait::ld (§9.7.16.6.4.5).
Flow lowerLdSt(Lowerer& L, PathState& st, const Instr& in, Work&) {
  auto& X = L.prog_.exprs;
  const bool ld = in.op == OpId::Tcgen05Ld;
  Access d = tmem(L, st, in, ld ? 1 : 0);
  ExprId v = ld ? X.constant(0) : L.value(st, L.operand(in, 1, "source"));
  int op = issue(L, st, in, {});
  if (ld) {
    EventId r = L.asyncRead(st, op, in, d, Proxy::Generic, Sem::Weak, Scope::None, Builtin::TCGEN05);
    L.setReg(st, in.operands[0], X.readVal(r));
    st.tcLdOps.push_back(op);
  } else {
    EventId w = L.asyncWrite(st, op, in, d, Proxy::Generic, Sem::Weak, Scope::None, v, Builtin::TCGEN05);
    L.dataDeps(w, v);
    st.tcStOps.push_back(op);
  }
  return Flow::Next;
}

/// tcgen05.commit `[mbar]`: an arrive-on (count 1) of the mbarrier, performed once every prior tcgen05.mma
/// / tcgen05.cp of the thread completes (§9.7.16.6.2.1.1), generic proxy, .release.cluster (the mbarrier
/// may be another CTA's, `.shared::cluster`); it "implicitly performs" tcgen05.fence::before_thread_sync
/// (§9.7.16.6.4.2).
Flow lowerCommit(Lowerer& L, PathState& st, const Instr& in, Work&) {
  auto& X = L.prog_.exprs;
  const Operand& barOp = L.operand(in, 0, "mbarrier");
  Access bar = L.resolve(st, barOp, in.space, in);
  if (!bar.shared || !L.prog_.locations[static_cast<size_t>(bar.loc)].isMbarrier)
    L.fail(barOp.src, fmt::format("the mbarrier operand must be an mbarrier object in shared memory ({})", kSec));
  if (L.ctaPlace_.at(bar.cta).cluster != L.thread(L.curThread_).where.cluster)
    L.fail(barOp.src, fmt::format("the mbarrier must be in the executing thread's cluster ({})", kSec));
  ExprId exp = X.constant(L.expectedCount(bar.loc));
  EventId m = L.emitMarker(st, in, Builtin::TCGEN05);
  int op = L.newAsyncOp(L.newInstance(m), in.op, bar.cta);
  auto [r, w] = L.emitRmw(
      st, in, bar, Proxy::Generic, Sem::Release, Scope::Cluster, {Builtin::MB_ARRIVE, Builtin::TCGEN05}, ".arrive",
      [&](ExprId old) {
        return X.make(ExprOp::MbArrive, {old, X.constant(1), X.constant(0), exp});
      },
      op);
  for (int prior : st.tcMbarOps) {
    L.asyncComplete(prior, r, false);
    L.asyncComplete(prior, w, false);
  }
  return Flow::Next;
}

/// tcgen05.wait::ld / ::st: completion of the prior tcgen05.ld / tcgen05.st of the thread.
Flow lowerWait(Lowerer& L, PathState& st, const Instr& in, Work&) {
  const bool ld = in.op == OpId::Tcgen05WaitLd;
  Event f = L.fenceEvent(in, Sem::None, Scope::None);
  addTag(f, Builtin::WAIT);
  addTag(f, Builtin::TCGEN05);
  EventId w = L.emitFence(st, std::move(f), ld ? "tcgen05.wait::ld" : "tcgen05.wait::st");
  auto& ops = ld ? st.tcLdOps : st.tcStOps;
  for (int op : ops) L.asyncComplete(op, w, false);
  ops.clear();
  return Flow::Next;
}

/// tcgen05.fence::before_thread_sync / ::after_thread_sync (§9.7.16.6.3). Before: the prior tcgen05.mma /
/// tcgen05.cp of the thread are ordered before it (async-complete edges); tcgen05.ld / .st are not (they
/// need their wait, §9.7.16.6.4.4). After: what it orders is the model's (TC_AFTER).
Flow lowerFence(Lowerer& L, PathState& st, const Instr& in, Work&) {
  const bool before = in.op == OpId::Tcgen05FenceBefore;
  Event f = L.fenceEvent(in, Sem::None, Scope::None);
  addTag(f, before ? Builtin::TC_BEFORE : Builtin::TC_AFTER);
  addTag(f, Builtin::TCGEN05);
  EventId e =
      L.emitFence(st, std::move(f), before ? "tcgen05.fence::before_thread_sync" : "tcgen05.fence::after_thread_sync");
  if (before)
    for (int op : st.tcMbarOps) L.asyncComplete(op, e, false);
  return Flow::Next;
}

constexpr OpLowering kTcgen05[] = {
    {OpId::Tcgen05Mma, lowerMma},
    {OpId::Tcgen05Cp, lowerCp},
    {OpId::Tcgen05Ld, lowerLdSt},
    {OpId::Tcgen05St, lowerLdSt},
};
static_assert(coversFamily(kTcgen05, ptx::OpFamily::Tcgen05));

constexpr OpLowering kTcgen05Sync[] = {
    {OpId::Tcgen05Commit, lowerCommit},
    {OpId::Tcgen05WaitLd, lowerWait},
    {OpId::Tcgen05WaitSt, lowerWait},
};
static_assert(coversFamily(kTcgen05Sync, ptx::OpFamily::Tcgen05Sync));

constexpr OpLowering kTcgen05Fence[] = {
    {OpId::Tcgen05FenceBefore, lowerFence},
    {OpId::Tcgen05FenceAfter, lowerFence},
};
static_assert(coversFamily(kTcgen05Fence, ptx::OpFamily::Tcgen05Fence));

}  // namespace

Flow lowerTcgen05(Lowerer& L, PathState& st, const Instr& in, Work& work) {
  return lowerFrom(kTcgen05, L, st, in, work);
}

int mbarrierOperandTcgen05(const Instr&) { return -1; }

Flow lowerTcgen05Sync(Lowerer& L, PathState& st, const Instr& in, Work& work) {
  return lowerFrom(kTcgen05Sync, L, st, in, work);
}

int mbarrierOperandTcgen05Sync(const Instr& in) { return in.op == OpId::Tcgen05Commit ? Lowerer::firstAddr(in) : -1; }

Flow lowerTcgen05Fence(Lowerer& L, PathState& st, const Instr& in, Work& work) {
  return lowerFrom(kTcgen05Fence, L, st, in, work);
}

int mbarrierOperandTcgen05Fence(const Instr&) { return -1; }

}  // namespace ptxmm::events::lowering
