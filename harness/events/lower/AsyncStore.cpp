// Asynchronous remote stores and reductions, family AsyncStore: st.async and red.async with mbarrier
// completion (docs/lowering.md "Asynchronous stores and reductions"). Both are performed in the generic
// proxy (PTX ISA 9.2 §9.7.9.12, §9.7.13.7): an async pseudo-thread in the destination CTA does the
// access and then the complete-tx of the access size on the mbarrier of that CTA (generic proxy,
// .release.cluster), with no implicit proxy fence (that fence belongs to the async-proxy bulk copies).
#include "events/lower/Lowerer.hpp"

namespace ptxmm::events::lowering {
namespace {

/// `[a], b, [mbar]`: the destination and the mbarrier, both shared memory of one CTA of the issuing
/// thread's cluster (for red.async another CTA than the issuer's), in a cluster of more than one CTA.
std::pair<Access, Access> operands(Lowerer& L, PathState& st, const Instr& in) {
  const bool red = in.op == OpId::RedAsync;
  const std::string sec = red ? "PTX ISA 9.2 §9.7.13.7" : "PTX ISA 9.2 §9.7.9.12";
  const Operand& dstOp = L.operand(in, 0, "destination");
  const Operand& barOp = L.operand(in, 2, "mbarrier");
  Access dst = L.resolve(st, dstOp, in.space, in);
  Access bar = L.resolve(st, barOp, in.space, in);
  if (!dst.shared)
    L.fail(dstOp.src, "the destination must be shared memory of a CTA of the cluster (" + sec +
                          ": outside the .shared::cluster window the behavior is undefined)");
  if (!bar.shared || !L.prog_.locations[static_cast<size_t>(bar.loc)].isMbarrier)
    L.fail(barOp.src, "the mbarrier operand must be an mbarrier object in shared memory (" + sec + ")");
  if (bar.cta != dst.cta)
    L.fail(barOp.src, fmt::format("the mbarrier must be in the destination's CTA (CTA {}), not CTA {} ({}: otherwise "
                                  "the behavior is undefined)",
                                  dst.cta, bar.cta, sec));
  const auto& me = L.thread(L.curThread_).where;
  if (red && dst.cta == me.cta)
    L.fail(dstOp.src, "red.async: the destination must be in another CTA of the cluster than the executing thread's (" +
                          sec + ": otherwise the behavior is undefined)");
  if (L.ctasOfCluster(me.cluster).size() < 2)
    L.fail(in.src, "the cluster must have more than one CTA (" + sec +
                       ": %cluster_nctarank > 1, otherwise the behavior is undefined)");
  return {dst, bar};
}

Flow lowerAsyncAccess(Lowerer& L, PathState& st, const Instr& in, Work&) {
  auto& X = L.prog_.exprs;
  if (!in.hasFlag("mbarrier::complete_tx::bytes") || in.operands.size() != 3)
    L.unsupported(in, "only the .shared::cluster forms with mbarrier completion are modelled");
  auto [dst, bar] = operands(L, st, in);
  EventId m = L.emitMarker(st, in, Builtin::ISSUE);
  int inst = L.newInstance(m);
  int op = L.newAsyncOp(inst, in.op, dst.cta);
  ExprId b = L.value(st, L.operand(in, 1, "source"));
  ExprId bytes = X.constant(ptx::byteWidth(in.type));
  if (in.op == OpId::StAsync) {
    // A weak store in the generic proxy (§9.7.9.12 "treated as a weak memory operation").
    EventId w = L.asyncWrite(st, op, in, dst, Proxy::Generic, Sem::Weak, Scope::None, b, Builtin::ASYNC_OP);
    L.dataDeps(w, b);
  } else {
    // A relaxed.cluster reduction in the generic proxy (§9.7.13.7 "a relaxed memory operation").
    const std::string o = reductionOp(in);
    if (o.empty()) L.fail(in.src, "red.async without an operation (.add, .inc, .dec, .min, .max, .and, .or, .xor)");
    auto [r, w] = L.emitRmw(
        st, in, dst, Proxy::Generic, Sem::Relaxed, Scope::Cluster, {Builtin::RED}, ".async." + o,
        [&](ExprId old) { return reductionNext(L, o, old, b); }, op);
    L.dataDeps(w, L.prog_.events[static_cast<size_t>(w)].value, r);
  }
  auto [cr, cw] = L.asyncCompleteTx(st, op, in, bar, bytes, Builtin::ASYNC_OP);
  L.prog_.asyncOps[static_cast<size_t>(op)].completions.push_back(cr);
  return Flow::Next;
}

constexpr OpLowering kAsyncStore[] = {
    {OpId::StAsync, lowerAsyncAccess},
    {OpId::RedAsync, lowerAsyncAccess},
};
static_assert(coversFamily(kAsyncStore, ptx::OpFamily::AsyncStore));

}  // namespace

Flow lowerAsyncStore(Lowerer& L, PathState& st, const Instr& in, Work& work) {
  return lowerFrom(kAsyncStore, L, st, in, work);
}

int mbarrierOperandAsyncStore(const Instr& in) { return in.operands.size() == 3 ? Lowerer::nthAddr(in, 1) : -1; }

}  // namespace ptxmm::events::lowering
