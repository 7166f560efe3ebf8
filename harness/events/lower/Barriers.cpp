// Execution barriers, family Barrier: bar.sync / bar.arrive and the cluster barrier (docs/lowering.md
// "Execution barriers"; the blocking of paths at their waits is in lower/Paths.cpp).
#include "events/lower/Lowerer.hpp"

namespace ptxmm::events::lowering {
namespace {

size_t threadsOfCta(Lowerer& L, int cta) {
  size_t n = 0;
  for (const auto& th : L.test_.threads) n += th.where.cta == cta ? 1 : 0;
  return n;
}

std::string printInstrShort(const Instr& in) { return std::string(ptx::opInfo(in.op).mnemonic); }

Flow lowerBar(Lowerer& L, PathState& st, const Instr& in, Work& work) {
  auto& X = L.prog_.exprs;
  // The barrier id and the thread count may be registers whose value the execution decides: the
  // path forks over their possible values (ids 0..15; counts 1..the CTA's threads), so barriers
  // pair only when their runtime ids are equal (PTX ISA 9.2 §9.7.13.1).
  const int cta = L.thread(L.curThread_).where.cta;
  const ExprId idv = L.value(st, L.operand(in, 0, "barrier id"));
  std::optional<int64_t> idk = L.pickValue(
      st, idv, work,
      [&](int64_t k) {
        return X.make(ExprOp::Eq, {idv, X.constant(k)});
      },
      0, 15);
  if (!idk) {
    st.undefinedIf.push_back(
        {X.constant(1), fmt::format("{}: barrier id outside 0..15 (PTX ISA 9.2 §9.7.13.1)", printInstrShort(in))});
    return Flow::Next;
  }
  const int64_t id = *idk;
  bool sync = in.op == OpId::BarSync;
  int count = -1;
  if (in.operands.size() > 1) {
    // A litmus thread stands for a warp: a PTX count (a multiple of the warp size) counts warps;
    // a smaller count is read as litmus threads directly (`bar.sync 1, 2`).
    const ExprId nv = L.value(st, in.operands[1]);
    const int ctaThreads = static_cast<int>(threadsOfCta(L, cta));
    std::optional<int64_t> nk = L.pickValue(
        st, nv, work,
        [&](int64_t k) {
          return X.make(ExprOp::LOr,
                        {X.make(ExprOp::Eq, {nv, X.constant(k)}), X.make(ExprOp::Eq, {nv, X.constant(32 * k)})});
        },
        1, ctaThreads);
    if (!nk) {
      ExprId nonPositive = X.make(ExprOp::Le, {nv, X.constant(0)});
      if (L.decide(st, nonPositive, work, [](PathState&) {})) {
        if (L.prog_.exprs.isConst(nv)) L.fail(in.operands[1].src, "the thread count must be positive");
        st.undefinedIf.push_back(
            {X.constant(1), fmt::format("{}: thread count not positive (PTX ISA 9.2 §9.7.13.1)", printInstrShort(in))});
        return Flow::Next;
      }
      nk = ctaThreads + 1;  // more threads than the CTA has: the barrier never completes
    }
    count = static_cast<int>(*nk);
  }
  int b = L.barrierOf(false, cta, id);
  Event f = L.fenceEvent(in, sync ? Sem::AcqRel : Sem::Release, Scope::Cta);
  addTag(f, sync ? Builtin::BAR_SYNC : Builtin::BAR_ARRIVE);
  addTag(f, sync ? Builtin::F_ACQ_REL : Builtin::F_REL);
  int gen = L.barrierUse(st, b).arrived++;
  if (count >= 0) L.barrierUse(st, b).counts[gen] = count;
  EventId e = L.emitFence(st, std::move(f), fmt::format("{} {}", sync ? "bar.sync" : "bar.arrive", id));
  L.bars_.push_back({e, L.curThread_, cta, id, gen, sync, count, b});
  if (sync) L.waitAtBarrier(st, b, gen, e);
  return Flow::Next;
}

Flow lowerClusterArrive(Lowerer& L, PathState& st, const Instr& in, Work&) {
  bool relaxed = in.sem == Sem::Relaxed;
  if (in.sem != Sem::None && in.sem != Sem::Relaxed && in.sem != Sem::Release)
    L.fail(in.src, "barrier.cluster.arrive semantics must be .release or .relaxed");
  Event f = L.fenceEvent(in, relaxed ? Sem::Relaxed : Sem::Release, Scope::Cluster);
  addTag(f, Builtin::CLUSTER_ARRIVE);
  if (!relaxed) addTag(f, Builtin::F_REL);
  EventId e = L.emitFence(st, std::move(f), relaxed ? "barrier.cluster.arrive.relaxed" : "barrier.cluster.arrive");
  const int cluster = L.thread(L.curThread_).where.cluster;
  const int b = L.barrierOf(true, cluster, 0);
  ++L.barrierUse(st, b).arrived;
  L.clusterArrives_.push_back({e, L.curThread_, cluster, 0, st.clusterArriveGen++, false, -1, b});
  return Flow::Next;
}

Flow lowerClusterWait(Lowerer& L, PathState& st, const Instr& in, Work&) {
  Event f = L.fenceEvent(in, Sem::Acquire, Scope::Cluster);
  addTag(f, Builtin::CLUSTER_WAIT);
  addTag(f, Builtin::F_ACQ);
  EventId e = L.emitFence(st, std::move(f), "barrier.cluster.wait");
  const int cluster = L.thread(L.curThread_).where.cluster;
  int gen = st.clusterWaitGen++;
  const int b = L.barrierOf(true, cluster, 0);
  L.clusterWaits_.push_back({e, L.curThread_, cluster, 0, gen, true, -1, b});
  L.waitAtBarrier(st, b, gen, e);
  return Flow::Next;
}

constexpr OpLowering kBarrier[] = {
    {OpId::BarSync, lowerBar},
    {OpId::BarArrive, lowerBar},
    {OpId::BarrierClusterArrive, lowerClusterArrive},
    {OpId::BarrierClusterWait, lowerClusterWait},
};
static_assert(coversFamily(kBarrier, ptx::OpFamily::Barrier));

}  // namespace

Flow lowerBarrier(Lowerer& L, PathState& st, const Instr& in, Work& work) {
  return lowerFrom(kBarrier, L, st, in, work);
}

int mbarrierOperandBarrier(const Instr&) { return -1; }

}  // namespace ptxmm::events::lowering
