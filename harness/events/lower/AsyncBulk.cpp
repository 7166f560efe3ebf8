// Bulk reductions and prefetches, family AsyncBulk: cp.reduce.async.bulk{.tensor} and
// cp.async.bulk.prefetch{.tensor} (docs/lowering.md "Asynchronous operations", "Tensor maps").
// A bulk reduction is an async operation like cp.async.bulk (PTX ISA 9.2 §9.7.9.25.4.2): an async-proxy
// weak read of the shared::cta source, then an async-proxy reduction of the destination with
// "individually .relaxed.gpu memory ordering semantics", then the implicit generic-async proxy fence of
// "cp{.reduce}.async.bulk" completion (§9.7.9.25.2); completion by bulk async-group (.global) or by
// complete-tx of `size` bytes on the destination CTA's mbarrier (.shared::cluster). A prefetch is a
// cache hint with no observable effect (§9.7.9.25.4.3 "treated as a weak memory operation" whose value
// nobody reads): nothing is lowered.
#include "events/lower/Lowerer.hpp"

namespace ptxmm::events::lowering {
namespace {

/// The async-proxy .relaxed.gpu reduction of `dst` by the value `b` in async op `op` (tags CP_BULK RED).
void bulkReduction(Lowerer& L, PathState& st, const Instr& in, int op, const Access& dst, ExprId b) {
  const std::string o = reductionOp(in);
  if (o.empty()) L.fail(in.src, "cp.reduce.async.bulk without an operation (.add .min .max .inc .dec .and .or .xor)");
  L.emitRmw(
      st, in, dst, Proxy::Async, Sem::Relaxed, Scope::Gpu, {Builtin::CP_BULK, Builtin::RED}, ".reduce." + o,
      [&](ExprId old) { return reductionNext(L, o, old, b); }, op);
}

Flow lowerReduce(Lowerer& L, PathState& st, const Instr& in, Work&) {
  auto& X = L.prog_.exprs;
  const bool mb = in.hasFlag("mbarrier::complete_tx::bytes");
  EventId m = L.emitMarker(st, in, Builtin::CP_BULK);
  const Operand& dstOp = L.operand(in, 0, "destination");
  Access dst = L.resolve(st, dstOp, in.space, in);
  Access src = L.resolve(st, L.operand(in, 1, "source"), Space::SharedCta, in);
  const auto& me = L.thread(L.curThread_).where;
  if (!src.shared || src.cta != me.cta)
    L.fail(in.operands[1].src,
           "the source of cp.reduce.async.bulk must be the executing CTA's shared memory (PTX ISA "
           "9.2 §9.7.9.25.4.2: .shared::cta)");
  if (mb && !dst.shared)
    L.fail(dstOp.src,
           "the .shared::cluster destination must be shared memory of a CTA of the cluster (PTX ISA 9.2 "
           "§9.7.9.25.4.2)");
  if (!mb && dst.shared)
    L.fail(dstOp.src, "the .global destination must be a global location (PTX ISA 9.2 §9.7.9.25.4.2)");
  int inst = L.newInstance(m);
  int op = L.newAsyncOp(inst, in.op, dst.cta >= 0 ? dst.cta : me.cta);
  EventId r = L.asyncRead(st, op, in, src, Proxy::Async, Sem::Weak, Scope::None, Builtin::CP_BULK);
  bulkReduction(L, st, in, op, dst, X.readVal(r));
  L.implicitProxyFence(st, op, in, Builtin::CP_BULK);
  if (!mb) {
    st.bulkUncommitted.push_back(inst);
    return Flow::Next;
  }
  const Operand& barOp = L.operand(in, 3, "mbarrier");
  Access bar = L.resolve(st, barOp, Space::SharedCluster, in);
  if (bar.cta != dst.cta) L.fail(barOp.src, "the mbarrier must be in the destination CTA's shared memory");
  EventId cr = L.asyncCompleteTx(st, op, in, bar, L.value(st, L.operand(in, 2, "size")), Builtin::CP_BULK).first;
  L.prog_.asyncOps[static_cast<size_t>(op)].completions.push_back(cr);
  return Flow::Next;
}

/// cp.reduce.async.bulk.tensor `[tensorMap, {coords}], [srcMem]`: the tensor-map read (tensormap proxy), the
/// source read and the reduction of the tensor the map locates (tensorOfMap, docs/lowering.md "Tensor maps").
Flow lowerReduceTensor(Lowerer& L, PathState& st, const Instr& in, Work&) {
  auto& X = L.prog_.exprs;
  EventId m = L.emitMarker(st, in, Builtin::CP_BULK);
  Access map = L.tensorMapAccess(st, in, 0);
  Access tensor = L.tensorOfMap(in, 0);
  Access src = L.resolve(st, L.operand(in, 1, "source"), Space::SharedCta, in);
  int inst = L.newInstance(m);
  int op = L.newAsyncOp(inst, in.op, L.thread(L.curThread_).where.cta);
  L.asyncRead(st, op, in, map, Proxy::Tensormap, Sem::Weak, Scope::None, Builtin::CP_BULK);
  EventId r = L.asyncRead(st, op, in, src, Proxy::Async, Sem::Weak, Scope::None, Builtin::CP_BULK);
  bulkReduction(L, st, in, op, tensor, X.readVal(r));
  L.implicitProxyFence(st, op, in, Builtin::CP_BULK);
  st.bulkUncommitted.push_back(inst);
  return Flow::Next;
}

/// A prefetch: no event (its address is still resolved, so a misnamed location is an error).
Flow lowerPrefetch(Lowerer& L, PathState& st, const Instr& in, Work&) {
  if (in.op == OpId::CpAsyncBulkPrefetchTensor)
    L.tensorMapAccess(st, in, 0);
  else
    L.resolve(st, L.operand(in, 0, "source"), Space::Global, in);
  return Flow::Next;
}

constexpr OpLowering kAsyncBulk[] = {
    {OpId::CpReduceAsyncBulk, lowerReduce},
    {OpId::CpReduceAsyncBulkTensor, lowerReduceTensor},
    {OpId::CpAsyncBulkPrefetch, lowerPrefetch},
    {OpId::CpAsyncBulkPrefetchTensor, lowerPrefetch},
};
static_assert(coversFamily(kAsyncBulk, ptx::OpFamily::AsyncBulk));

}  // namespace

Flow lowerAsyncBulk(Lowerer& L, PathState& st, const Instr& in, Work& work) {
  return lowerFrom(kAsyncBulk, L, st, in, work);
}

int mbarrierOperandAsyncBulk(const Instr& in) {
  return in.op == OpId::CpReduceAsyncBulk && in.hasFlag("mbarrier::complete_tx::bytes") ? Lowerer::nthAddr(in, 2) : -1;
}

}  // namespace ptxmm::events::lowering
