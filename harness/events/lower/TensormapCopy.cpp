// tensormap.cp_fenceproxy, family TensormapCopy (docs/lowering.md "Tensor maps"). PTX ISA 9.2 §9.7.13.16:
// the instruction "perform[s] the following operations in order": a copy of the 128-byte tensor map from
// shared::cta to global "in the generic proxy" (a weak generic read of [src], a weak generic write of its
// value to [dst]), then "a uni-directional proxy release pattern on the ordering from the copy operation to
// the subsequent access performed in the tensormap proxy" (the fence.proxy.tensormap::generic.release of
// its .scope: a PF_TMAP_REL fence after the write in program order).
#include "events/lower/Lowerer.hpp"

namespace ptxmm::events::lowering {
namespace {

Flow lowerCpFenceproxy(Lowerer& L, PathState& st, const Instr& in, Work&) {
  auto& X = L.prog_.exprs;
  const Operand& dstOp = L.operand(in, 0, "destination");
  const Operand& srcOp = L.operand(in, 1, "source");
  Access dst = L.resolve(st, dstOp, Space::Global, in);
  Access src = L.resolve(st, srcOp, Space::SharedCta, in);
  if (dst.shared)
    L.fail(dstOp.src, "the destination of tensormap.cp_fenceproxy is global memory (PTX ISA 9.2 §9.7.13.16)");
  if (!src.shared || src.cta != L.thread(L.curThread_).where.cta)
    L.fail(srcOp.src,
           "the source of tensormap.cp_fenceproxy is the executing CTA's shared memory (PTX ISA 9.2 §9.7.13.16)");
  EventId r = L.emitRead(st, in, src, Proxy::Generic, Sem::Weak, Scope::None, ".cp_fenceproxy");
  L.emitWrite(st, in, dst, Proxy::Generic, Sem::Weak, Scope::None, X.readVal(r), ".cp_fenceproxy");
  Event f = L.fenceEvent(in, Sem::Release, in.scope);
  addTag(f, Builtin::PF_TMAP_REL);
  L.emitFence(st, std::move(f),
              fmt::format("F.proxy.tensormap::generic{} (cp_fenceproxy)", semLabel(Sem::Release, in.scope)));
  return Flow::Next;
}

constexpr OpLowering kTensormapCopy[] = {{OpId::TensormapCpFenceproxy, lowerCpFenceproxy}};
static_assert(coversFamily(kTensormapCopy, ptx::OpFamily::TensormapCopy));

}  // namespace

Flow lowerTensormapCopy(Lowerer& L, PathState& st, const Instr& in, Work& work) {
  return lowerFrom(kTensormapCopy, L, st, in, work);
}

int mbarrierOperandTensormapCopy(const Instr&) { return -1; }

}  // namespace ptxmm::events::lowering
