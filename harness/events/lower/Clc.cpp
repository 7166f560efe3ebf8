// Cluster launch control, family Clc: clusterlaunchcontrol.try_cancel / query_cancel (docs/design.md
// "Values" gives the encoding of a response).
#include "events/lower/Lowerer.hpp"

namespace ptxmm::events::lowering {
namespace {

constexpr int64_t kClcSuccessBase = 0x100000;

Flow lowerTryCancel(Lowerer& L, PathState& st, const Instr& in, Work&) {
  auto& X = L.prog_.exprs;
  const Operand& respOp = L.operand(in, 0, "response address");
  const Operand& barOp = L.operand(in, 1, "mbarrier");
  const auto& me = L.thread(L.curThread_).where;
  if (!st.observedResponses.empty()) {
    ExprId anyFail = X.constant(0);
    for (ExprId v : st.observedResponses)
      anyFail = X.make(ExprOp::LOr, {anyFail, X.make(ExprOp::Eq, {v, X.constant(1)})});
    st.undefinedIf.push_back(
        {anyFail,
         fmt::format("{}: clusterlaunchcontrol.try_cancel issued after observing a failed response", in.src.str())});
  }
  EventId m = L.emitMarker(st, in, Builtin::CLC);
  int inst = L.newInstance(m);
  bool multicast = in.hasFlag("multicast::cluster::all");
  std::vector<int> targets = multicast ? L.ctasOfCluster(me.cluster) : std::vector<int>{me.cta};
  int srcOp = L.newAsyncOp(inst, in.op, me.cta, multicast ? ".src" : "");
  if (multicast) L.instances_[static_cast<size_t>(inst)].sourceOp = srcOp;
  // The launch queue: its value counts the clusters taken so far.
  Access q;
  q.loc = L.clcQueue_;
  q.vaddr = L.vaddrOfLoc(L.clcQueue_);
  q.space = Space::Global;
  auto n = static_cast<int64_t>(L.test_.clcPending.size());
  ExprId qOld = -1;
  L.emitRmw(
      st, in, q, Proxy::Generic, Sem::Relaxed, Scope::Gpu, {Builtin::CLC, Builtin::CLC_QUEUE}, ".take",
      [&](ExprId old) {
        qOld = old;
        return X.make(ExprOp::Ite,
                      {X.make(ExprOp::Lt, {old, X.constant(n)}), X.make(ExprOp::Add, {old, X.constant(1)}), old});
      },
      srcOp);
  ExprId resp = X.constant(1);
  for (int64_t k = n - 1; k >= 0; --k)
    resp = X.make(ExprOp::Ite, {X.make(ExprOp::Eq, {qOld, X.constant(k)}),
                                X.constant(kClcSuccessBase + L.test_.clcPending[static_cast<size_t>(k)]), resp});
  for (int c : targets) {
    Access dst, bar;
    if (multicast) {
      if (!respOp.baseReg.empty() || !barOp.baseReg.empty())
        L.unsupported(in, "multicast response and mbarrier operands must be named locations");
      LocRef dref = respOp.loc, bref = barOp.loc;
      dref.cta = c;
      bref.cta = c;
      dst = L.resolveRef(dref, Space::SharedCluster, respOp.src);
      bar = L.resolveRef(bref, Space::SharedCluster, barOp.src);
    } else {
      dst = L.resolve(st, respOp, in.space, in);
      bar = L.resolve(st, barOp, in.space, in);
    }
    int op = multicast ? L.newAsyncOp(inst, in.op, c, fmt::format(".cta{}", c).c_str()) : srcOp;
    L.asyncWrite(st, op, in, dst, Proxy::Async, Sem::Weak, Scope::None, resp, Builtin::CLC);
    auto [cr, cw] = L.asyncCompleteTx(st, op, in, bar, X.constant(16), Builtin::CLC);
    L.prog_.asyncOps[static_cast<size_t>(op)].completions.push_back(cr);
    if (op != srcOp) L.prog_.asyncOps[static_cast<size_t>(srcOp)].completions.push_back(cr);
  }
  return Flow::Next;
}

Flow lowerQueryCancel(Lowerer& L, PathState& st, const Instr& in, Work&) {
  auto& X = L.prog_.exprs;
  const Operand& d = L.operand(in, 0, "destination");
  ExprId h = L.value(st, L.operand(in, 1, "response"));
  if (in.hasFlag("is_canceled")) {
    L.setReg(st, d, X.make(ExprOp::Le, {X.constant(kClcSuccessBase), h}));
    return Flow::Next;
  }
  bool first = false;
  for (const auto& f : in.flags) first = first || f.rfind("get_first_ctaid", 0) == 0;
  if (!first) L.unsupported(in, "unknown query (expected is_canceled or get_first_ctaid)");
  st.undefinedIf.push_back({X.make(ExprOp::Lt, {h, X.constant(kClcSuccessBase)}),
                            fmt::format("{}: get_first_ctaid of a failed try_cancel response", in.src.str())});
  bool yz = in.hasFlag("get_first_ctaid::y") || in.hasFlag("get_first_ctaid::z");
  L.setReg(st, d, yz ? X.constant(0) : X.make(ExprOp::Sub, {h, X.constant(kClcSuccessBase)}));
  return Flow::Next;
}

constexpr OpLowering kClc[] = {
    {OpId::ClcTryCancel, lowerTryCancel},
    {OpId::ClcQueryCancel, lowerQueryCancel},
};
static_assert(coversFamily(kClc, ptx::OpFamily::Clc));

}  // namespace

Flow lowerClc(Lowerer& L, PathState& st, const Instr& in, Work& work) { return lowerFrom(kClc, L, st, in, work); }

int mbarrierOperandClc(const Instr& in) { return in.op == OpId::ClcTryCancel ? Lowerer::nthAddr(in, 1) : -1; }

}  // namespace ptxmm::events::lowering
