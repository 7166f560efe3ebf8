// Asynchronous copies, families AsyncCopy and AsyncGroup: cp.async, cp.async.bulk (.tensor) and their
// commit / wait groups (docs/lowering.md "Asynchronous operations", "Tensor maps").
#include "events/lower/Lowerer.hpp"

namespace ptxmm::events::lowering {
namespace {

// Bytes of the box of a litmus cp.async.bulk.tensor (one 16-byte cell): its complete-tx count.
constexpr int64_t kTensorBoxBytes = 16;

int64_t constValue(Lowerer& L, PathState& st, const Operand& o, const char* what) {
  ExprId v = L.value(st, o);
  if (!L.prog_.exprs.isConst(v)) L.fail(o.src, fmt::format("{} must be a constant", what));
  return L.prog_.exprs.node(v).value;
}

/// The tensor store `cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group [tensorMap, {coords}], [srcMem]`
/// (§9.7.9.25.5.2): the tensor-map read in the tensormap proxy, the async-proxy read of the source and the
/// async-proxy write of its value to the tensor the map locates (Lowerer::tensorOfMap), the implicit proxy
/// fence; bulk async-group completion (docs/lowering.md "Tensor maps").
Flow lowerTensorStore(Lowerer& L, PathState& st, const Instr& in) {
  auto& X = L.prog_.exprs;
  EventId m = L.emitMarker(st, in, Builtin::CP_BULK);
  Access map = L.tensorMapAccess(st, in, 0);
  Access tensor = L.tensorOfMap(in, 0);
  Access src = L.resolve(st, L.operand(in, 1, "source"), Space::SharedCta, in);
  int inst = L.newInstance(m);
  int op = L.newAsyncOp(inst, in.op, L.thread(L.curThread_).where.cta);
  L.asyncRead(st, op, in, map, Proxy::Tensormap, Sem::Weak, Scope::None, Builtin::CP_BULK);
  EventId r = L.asyncRead(st, op, in, src, Proxy::Async, Sem::Weak, Scope::None, Builtin::CP_BULK);
  L.asyncWrite(st, op, in, tensor, Proxy::Async, Sem::Weak, Scope::None, X.readVal(r), Builtin::CP_BULK);
  L.implicitProxyFence(st, op, in, Builtin::CP_BULK);
  st.bulkUncommitted.push_back(inst);
  return Flow::Next;
}

/// cp.async.bulk and cp.async.bulk.tensor. The tensor copy is the same async operation whose source
/// read is the read of the tensor map through the tensormap proxy (§9.7.9.25.5.2 "The tensorMap is
/// accessed in tensormap proxy"): the copied value is the map's value, the descriptor version, and the
/// box is one cell of kTensorBoxBytes (docs/lowering.md "Tensor maps").
Flow lowerBulk(Lowerer& L, PathState& st, const Instr& in, Work&) {
  auto& X = L.prog_.exprs;
  bool toShared = in.space == Space::SharedCta || in.space == Space::SharedCluster;
  const bool tensor = in.op == OpId::CpAsyncBulkTensor;
  const Proxy srcProxy = tensor ? Proxy::Tensormap : Proxy::Async;
  const size_t barIdx = tensor ? 2 : 3;  // [dst], [src], size, [bar], ctaMask / [dst], [tmap, {..}], [bar], ctaMask
  auto source = [&](Space srcSpace) {
    Access src =
        L.resolve(st, L.operand(in, 1, tensor ? "tensor map" : "source"), tensor ? Space::Generic : srcSpace, in);
    if (tensor && src.shared)
      L.fail(in.operands[1].src,
             "the tensor map of cp.async.bulk.tensor must be a global location (PTX ISA 9.2 §9.7.9.25.5.2: .param, "
             ".const or .global; .global is modelled)");
    return src;
  };
  if (in.hasFlag("bulk_group")) {
    if (tensor) return lowerTensorStore(L, st, in);
    EventId m = L.emitMarker(st, in, Builtin::CP_BULK);
    Access dst = L.resolve(st, L.operand(in, 0, "destination"), in.space, in);
    Access src = L.resolve(st, L.operand(in, 1, "source"), in.srcSpace, in);
    int inst = L.newInstance(m);
    int op = L.newAsyncOp(inst, in.op, dst.cta >= 0 ? dst.cta : L.thread(L.curThread_).where.cta);
    EventId r = L.asyncRead(st, op, in, src, Proxy::Async, Sem::Weak, Scope::None, Builtin::CP_BULK);
    L.asyncWrite(st, op, in, dst, Proxy::Async, Sem::Weak, Scope::None, X.readVal(r), Builtin::CP_BULK);
    L.implicitProxyFence(st, op, in, Builtin::CP_BULK);
    st.bulkUncommitted.push_back(inst);
    return Flow::Next;
  }
  if (!in.hasFlag("mbarrier::complete_tx::bytes"))
    L.unsupported(in, "needs .mbarrier::complete_tx::bytes or .bulk_group completion");
  if (!toShared) L.unsupported(in, "mbarrier completion needs a shared-memory destination");
  EventId m = L.emitMarker(st, in, Builtin::CP_BULK);
  ExprId bytes = tensor ? X.constant(kTensorBoxBytes) : L.value(st, L.operand(in, 2, "size"));
  const Operand& dstOp = L.operand(in, 0, "destination");
  const Operand& barOp = L.operand(in, barIdx, "mbarrier");
  Space srcSpace = in.srcSpace == Space::Generic ? Space::Global : in.srcSpace;
  if (in.hasFlag("multicast::cluster")) {
    int64_t mask = constValue(L, st, L.operand(in, barIdx + 1, "ctaMask"), "the multicast ctaMask");
    auto members = L.ctasOfCluster(L.thread(L.curThread_).where.cluster);
    std::vector<int> dests;
    for (int bit = 0; bit < 16; ++bit) {
      if (!((mask >> bit) & 1)) continue;
      if (static_cast<size_t>(bit) >= members.size())
        L.fail(in.operands[barIdx + 1].src,
               fmt::format("ctaMask bit {} names no CTA of the cluster ({} CTAs)", bit, members.size()));
      dests.push_back(members[static_cast<size_t>(bit)]);
    }
    if (dests.empty()) L.fail(in.operands[barIdx + 1].src, "empty multicast ctaMask");
    Access src = source(srcSpace);
    int inst = L.newInstance(m);
    int srcOp = L.newAsyncOp(inst, in.op, L.thread(L.curThread_).where.cta, ".src");
    L.instances_[static_cast<size_t>(inst)].sourceOp = srcOp;
    EventId r = L.asyncRead(st, srcOp, in, src, srcProxy, Sem::Weak, Scope::None, Builtin::CP_BULK);
    for (int c : dests) {
      LocRef dref = dstOp.loc, bref = barOp.loc;
      if (!dstOp.baseReg.empty() || !barOp.baseReg.empty())
        L.unsupported(in, "multicast destinations must be named locations");
      dref.cta = c;
      bref.cta = c;
      Access dst = L.resolveRef(dref, Space::SharedCluster, dstOp.src);
      Access bar = L.resolveRef(bref, Space::SharedCluster, barOp.src);
      int op = L.newAsyncOp(inst, in.op, c, fmt::format(".cta{}", c).c_str());
      L.asyncWrite(st, op, in, dst, Proxy::Async, Sem::Weak, Scope::None, X.readVal(r), Builtin::CP_BULK);
      L.implicitProxyFence(st, op, in, Builtin::CP_BULK);
      auto [cr, cw] = L.asyncCompleteTx(st, op, in, bar, bytes, Builtin::CP_BULK);
      L.prog_.asyncOps[static_cast<size_t>(op)].completions.push_back(cr);
      L.prog_.asyncOps[static_cast<size_t>(srcOp)].completions.push_back(cr);
    }
    return Flow::Next;
  }
  Access dst = L.resolve(st, dstOp, in.space, in);
  Access src = source(srcSpace);
  Access bar = L.resolve(st, barOp, in.space == Space::SharedCta ? Space::SharedCta : Space::Generic, in);
  if (bar.cta != dst.cta) L.fail(barOp.src, "the mbarrier must be in the destination CTA's shared memory");
  int inst = L.newInstance(m);
  int op = L.newAsyncOp(inst, in.op, dst.cta);
  EventId r = L.asyncRead(st, op, in, src, srcProxy, Sem::Weak, Scope::None, Builtin::CP_BULK);
  L.asyncWrite(st, op, in, dst, Proxy::Async, Sem::Weak, Scope::None, X.readVal(r), Builtin::CP_BULK);
  L.implicitProxyFence(st, op, in, Builtin::CP_BULK);
  auto [cr, cw] = L.asyncCompleteTx(st, op, in, bar, bytes, Builtin::CP_BULK);
  L.prog_.asyncOps[static_cast<size_t>(op)].completions.push_back(cr);
  return Flow::Next;
}

Flow lowerCpAsync(Lowerer& L, PathState& st, const Instr& in, Work&) {
  auto& X = L.prog_.exprs;
  EventId m = L.emitMarker(st, in, Builtin::CP_ASYNC);
  Access dst =
      L.resolve(st, L.operand(in, 0, "destination"), in.space == Space::Generic ? Space::SharedCta : in.space, in);
  Access src =
      L.resolve(st, L.operand(in, 1, "source"), in.srcSpace == Space::Generic ? Space::Global : in.srcSpace, in);
  int inst = L.newInstance(m);
  int op = L.newAsyncOp(inst, in.op, dst.cta >= 0 ? dst.cta : L.thread(L.curThread_).where.cta);
  EventId r = L.asyncRead(st, op, in, src, Proxy::Generic, Sem::Weak, Scope::None, Builtin::CP_ASYNC);
  L.asyncWrite(st, op, in, dst, Proxy::Generic, Sem::Weak, Scope::None, X.readVal(r), Builtin::CP_ASYNC);
  st.cpUncommitted.push_back(op);
  st.cpAll.push_back(op);
  return Flow::Next;
}

Flow lowerCommit(Lowerer& L, PathState& st, const Instr& in, Work&) {
  const auto& info = ptx::opInfo(in.op);
  auto& unc = in.op == OpId::CpAsyncCommit ? st.cpUncommitted : st.bulkUncommitted;
  auto& groups = in.op == OpId::CpAsyncCommit ? st.cpGroups : st.bulkGroups;
  groups.push_back(unc);
  unc.clear();
  Event f = L.fenceEvent(in, Sem::None, Scope::None);
  addTag(f, Builtin::COMMIT);
  addTag(f, in.op == OpId::CpAsyncCommit ? Builtin::CP_ASYNC : Builtin::CP_BULK);
  L.emitFence(st, std::move(f), std::string(info.mnemonic));
  return Flow::Next;
}

Flow lowerWaitGroup(Lowerer& L, PathState& st, const Instr& in, Work&) {
  const auto& info = ptx::opInfo(in.op);
  bool bulk = in.op == OpId::CpAsyncBulkWait;
  int64_t n = 0;
  if (in.op != OpId::CpAsyncWaitAll) n = constValue(L, st, L.operand(in, 0, "group count"), "the group count");
  if (n < 0) L.fail(in.src, "the group count must be >= 0");
  Event f = L.fenceEvent(in, Sem::None, Scope::None);
  addTag(f, Builtin::WAIT);
  addTag(f, bulk ? Builtin::CP_BULK : Builtin::CP_ASYNC);
  bool readsOnly = bulk && in.hasFlag("read");
  EventId w =
      L.emitFence(st, std::move(f),
                  in.op == OpId::CpAsyncWaitAll ? "cp.async.wait_all"
                                                : fmt::format("{}{} {}", info.mnemonic, readsOnly ? ".read" : "", n));
  auto& groups = bulk ? st.bulkGroups : st.cpGroups;
  if (in.op == OpId::CpAsyncWaitAll) {
    groups.push_back(st.cpUncommitted);
    st.cpUncommitted.clear();
  }
  size_t covered = groups.size() > static_cast<size_t>(n) ? groups.size() - static_cast<size_t>(n) : 0;
  for (size_t g = 0; g < covered; ++g)
    for (int x : groups[g]) {
      if (bulk) {
        for (int op : L.instances_[static_cast<size_t>(x)].ops) L.asyncComplete(op, w, readsOnly);
      } else {
        L.asyncComplete(x, w, false);
      }
    }
  if (!readsOnly) groups.erase(groups.begin(), groups.begin() + static_cast<std::ptrdiff_t>(covered));
  return Flow::Next;
}

constexpr OpLowering kAsyncCopy[] = {
    {OpId::CpAsync, lowerCpAsync},
    {OpId::CpAsyncBulk, lowerBulk},
    {OpId::CpAsyncBulkTensor, lowerBulk},
};
static_assert(coversFamily(kAsyncCopy, ptx::OpFamily::AsyncCopy));

constexpr OpLowering kAsyncGroup[] = {
    {OpId::CpAsyncCommit, lowerCommit},       {OpId::CpAsyncBulkCommit, lowerCommit},
    {OpId::CpAsyncWaitGroup, lowerWaitGroup}, {OpId::CpAsyncWaitAll, lowerWaitGroup},
    {OpId::CpAsyncBulkWait, lowerWaitGroup},
};
static_assert(coversFamily(kAsyncGroup, ptx::OpFamily::AsyncGroup));

}  // namespace

Flow lowerAsyncCopy(Lowerer& L, PathState& st, const Instr& in, Work& work) {
  return lowerFrom(kAsyncCopy, L, st, in, work);
}

int mbarrierOperandAsyncCopy(const Instr& in) {
  if (in.op == OpId::CpAsyncBulk) return in.hasFlag("mbarrier::complete_tx::bytes") ? Lowerer::nthAddr(in, 2) : -1;
  if (in.op == OpId::CpAsyncBulkTensor) return in.hasFlag("bulk_group") ? -1 : Lowerer::nthAddr(in, 2);
  return -1;
}

Flow lowerAsyncGroup(Lowerer& L, PathState& st, const Instr& in, Work& work) {
  return lowerFrom(kAsyncGroup, L, st, in, work);
}

int mbarrierOperandAsyncGroup(const Instr&) { return -1; }

}  // namespace ptxmm::events::lowering
