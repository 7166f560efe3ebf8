// Fences, families Fence and ProxyFence: fence, membar, fence.mbarrier_init and the proxy fences
// (docs/lowering.md "Events and tags").
#include "events/lower/Lowerer.hpp"

namespace ptxmm::events::lowering {
namespace {

void addRestrictTags(Event& f, const Instr& in) {
  if (in.hasFlag("sync_restrict::shared::cta")) {
    addTag(f, Builtin::RESTRICT_SHARED_CTA);
    addTag(f, Builtin::PF_SPACE_SHARED_CTA);
  }
  if (in.hasFlag("sync_restrict::shared::cluster")) {
    addTag(f, Builtin::RESTRICT_SHARED_CLUSTER);
    addTag(f, Builtin::PF_SPACE_SHARED_CLUSTER);
  }
  if (in.hasFlag("sync_restrict::shared::cluster::read")) {
    addTag(f, Builtin::RESTRICT_SHARED_CLUSTER);
    addTag(f, Builtin::RESTRICT_READ);
    addTag(f, Builtin::PF_SPACE_SHARED_CLUSTER);
  }
}

void addSpaceTags(Event& f, Space s) {
  if (s == Space::Global || s == Space::Generic) addTag(f, Builtin::PF_SPACE_GLOBAL);
  if (s == Space::SharedCta || s == Space::Generic) addTag(f, Builtin::PF_SPACE_SHARED_CTA);
  if (s == Space::SharedCluster || s == Space::Generic) addTag(f, Builtin::PF_SPACE_SHARED_CLUSTER);
}

Flow lowerFence(Lowerer& L, PathState& st, const Instr& in, Work&) {
  Sem s = in.sem == Sem::None ? Sem::AcqRel : in.sem;
  Scope sc = in.scope == Scope::None ? Scope::Gpu : in.scope;
  Event f = L.fenceEvent(in, s, sc);
  switch (s) {
    case Sem::Sc: addTag(f, Builtin::F_SC); break;
    case Sem::AcqRel: addTag(f, Builtin::F_ACQ_REL); break;
    case Sem::Acquire: addTag(f, Builtin::F_ACQ); break;
    case Sem::Release: addTag(f, Builtin::F_REL); break;
    default: L.fail(in.src, "fence semantics must be .sc, .acq_rel, .acquire or .release");
  }
  addRestrictTags(f, in);
  L.emitFence(st, std::move(f), "F" + semLabel(s, sc));
  return Flow::Next;
}

Flow lowerMembar(Lowerer& L, PathState& st, const Instr& in, Work&) {
  Scope sc = Scope::Gpu;
  if (in.hasFlag("cta")) sc = Scope::Cta;
  if (in.hasFlag("sys")) sc = Scope::Sys;
  Event f = L.fenceEvent(in, Sem::Sc, sc);
  addTag(f, Builtin::F_SC);
  L.emitFence(st, std::move(f), "F" + semLabel(Sem::Sc, sc));
  return Flow::Next;
}

Flow lowerProxyAlias(Lowerer& L, PathState& st, const Instr& in, Work&) {
  Event f = L.fenceEvent(in, Sem::None, Scope::None);
  addTag(f, Builtin::PF_ALIAS);
  L.emitFence(st, std::move(f), "F.proxy.alias");
  return Flow::Next;
}

Flow lowerProxyKind(Lowerer& L, PathState& st, const Instr& in, Work&) {
  Event f = L.fenceEvent(in, Sem::None, Scope::None);
  std::string kind;
  for (const char* k : {"surface", "texture", "constant", "generic", "alias", "async"})
    if (in.hasFlag(k)) kind = k;
  if (kind == "surface")
    addTag(f, Builtin::PF_SURFACE);
  else if (kind == "texture")
    addTag(f, Builtin::PF_TEXTURE);
  else if (kind == "constant")
    addTag(f, Builtin::PF_CONSTANT);
  else if (kind == "generic")
    addTag(f, Builtin::PF_GENERIC);
  else if (kind == "alias")
    addTag(f, Builtin::PF_ALIAS);
  else if (kind == "async") {
    addTag(f, Builtin::PF_ASYNC);
    addSpaceTags(f, in.space);
  } else
    L.fail(in.src, "fence.proxy needs a proxy kind (.alias .async .surface .texture .constant .generic)");
  L.emitFence(st, std::move(f), "F.proxy." + kind);
  return Flow::Next;
}

Flow lowerProxyAsync(Lowerer& L, PathState& st, const Instr& in, Work&) {
  Event f = L.fenceEvent(in, Sem::None, Scope::None);
  addTag(f, Builtin::PF_ASYNC);
  addSpaceTags(f, in.space);
  L.emitFence(st, std::move(f), fmt::format("F.proxy.async{}", ptx::toString(in.space)));
  return Flow::Next;
}

Flow lowerProxyAsyncGeneric(Lowerer& L, PathState& st, const Instr& in, Work&) {
  if (in.sem != Sem::Release && in.sem != Sem::Acquire)
    L.fail(in.src, "fence.proxy.async::generic needs .release or .acquire");
  Scope sc = in.scope == Scope::None ? Scope::Cluster : in.scope;
  Event f = L.fenceEvent(in, in.sem, sc);
  addTag(f, in.sem == Sem::Release ? Builtin::PF_ASYNC_REL : Builtin::PF_ASYNC_ACQ);
  addRestrictTags(f, in);
  L.emitFence(st, std::move(f), fmt::format("F.proxy.async::generic{}", semLabel(in.sem, sc)));
  return Flow::Next;
}

Flow lowerProxyTensormap(Lowerer& L, PathState& st, const Instr& in, Work&) {
  if (in.sem != Sem::Release && in.sem != Sem::Acquire)
    L.fail(in.src, "fence.proxy.tensormap::generic needs .release or .acquire");
  Scope sc = in.scope == Scope::None ? Scope::Gpu : in.scope;
  Event f = L.fenceEvent(in, in.sem, sc);
  addTag(f, in.sem == Sem::Release ? Builtin::PF_TMAP_REL : Builtin::PF_TMAP_ACQ);
  std::string range;
  if (in.sem == Sem::Acquire && !in.operands.empty()) {
    // The acquire orders the tensormap accesses of [addr, addr+size-1] (§9.7.13.4; one litmus location
    // is one tensor-map object): the fence carries the virtual address of its operand, so `vloc`
    // relates it to those accesses (docs/lowering.md "Tensor maps").
    Access a = L.resolve(st, in.operands[0], Space::Generic, in);
    if (a.shared)
      L.fail(in.operands[0].src,
             "fence.proxy.tensormap::generic.acquire: the address must be in .global (PTX ISA 9.2 §9.7.13.4)");
    f.vloc = a.vaddr;
    range = " [" + L.vName(a.vaddr) + "]";
  }
  L.emitFence(st, std::move(f), fmt::format("F.proxy.tensormap::generic{}{}", semLabel(in.sem, sc), range));
  return Flow::Next;
}

Flow lowerMbarrierInitFence(Lowerer& L, PathState& st, const Instr& in, Work&) {
  Scope sc = in.scope == Scope::None ? Scope::Cluster : in.scope;
  Event f = L.fenceEvent(in, Sem::Release, sc);
  addTag(f, Builtin::INIT_FENCE);
  L.emitFence(st, std::move(f), "F.mbarrier_init" + semLabel(Sem::Release, sc));
  return Flow::Next;
}

constexpr OpLowering kFence[] = {
    {OpId::Fence, lowerFence},
    {OpId::Membar, lowerMembar},
    {OpId::FenceMbarrierInit, lowerMbarrierInitFence},
};
static_assert(coversFamily(kFence, ptx::OpFamily::Fence));

constexpr OpLowering kProxyFence[] = {
    {OpId::FenceProxyAlias, lowerProxyAlias},    {OpId::FenceProxyKind, lowerProxyKind},
    {OpId::FenceProxyAsync, lowerProxyAsync},    {OpId::FenceProxyAsyncGen, lowerProxyAsyncGeneric},
    {OpId::FenceProxyTmap, lowerProxyTensormap},
};
static_assert(coversFamily(kProxyFence, ptx::OpFamily::ProxyFence));

}  // namespace

Flow lowerFence(Lowerer& L, PathState& st, const Instr& in, Work& work) { return lowerFrom(kFence, L, st, in, work); }

int mbarrierOperandFence(const Instr&) { return -1; }

Flow lowerProxyFence(Lowerer& L, PathState& st, const Instr& in, Work& work) {
  return lowerFrom(kProxyFence, L, st, in, work);
}

int mbarrierOperandProxyFence(const Instr&) { return -1; }

}  // namespace ptxmm::events::lowering
