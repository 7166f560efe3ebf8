// Fences, families Fence and ProxyFence: written as spelled, with their defaults (fence.acq_rel.gpu,
// fence.proxy.async::generic.release.cluster, ...) written out. fence.proxy.<kind> of the mixed-proxy
// model is refused unless it is .alias: PTX has no other such fence.
#include "ptxgen/Kernel.hpp"
#include "ptxgen/emit/Emit.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::ptxgen::emit {
namespace {

using ptx::OpFamily;
using ptx::OpId;
using ptx::Scope;
using ptx::Sem;

void emitBare(Writer& w) { w.bare(); }

void emitFenceProxyKind(Writer& w) {
  if (!w.in.hasFlag("alias"))
    throw DiagnosticError(w.in.src,
                          "fence.proxy." + (w.in.flags.empty() ? std::string("?") : w.in.flags[0]) +
                              " is a proxy fence of the mixed-proxy model with no PTX encoding (PTX ISA 9.2 "
                              "§9.7.13.4: .proxykind is .alias or .async*; ptxas rejects it), so the test cannot "
                              "be run on hardware as written");
  w.out() << "  " << w.guard << "fence.proxy.alias;\n";
}

/// fence.proxy.tensormap::generic: `[addr], size` for the acquire form (generic addressing, PTX ISA 9.2
/// §9.7.13.4: "Generic Addressing is used unconditionally"), no operands for release.
void emitFenceProxyTmap(Writer& w) {
  const auto& ops = w.in.operands;
  if (ops.empty() || !isAddress(ops[0])) return w.bare();
  const std::string a = w.genericAddress(ops[0]);
  std::string rest;  // conversions of register operands go before the line
  for (size_t k = 1; k < ops.size(); ++k) rest += ", " + w.value(ops[k], 32);
  w.out() << "  " << w.guard << spell(w.in) << " " << a << rest << ";\n";
}

constexpr OpEmitter kFence[] = {{OpId::Fence, emitBare}, {OpId::Membar, emitBare}, {OpId::FenceMbarrierInit, emitBare}};
constexpr OpEmitter kProxyFence[] = {{OpId::FenceProxyAlias, emitBare},
                                     {OpId::FenceProxyKind, emitFenceProxyKind},
                                     {OpId::FenceProxyAsync, emitBare},
                                     {OpId::FenceProxyAsyncGen, emitBare},
                                     {OpId::FenceProxyTmap, emitFenceProxyTmap}};
static_assert(coversFamily(kFence, OpFamily::Fence), "every Fence row of PtxOps.def needs its emitter in kFence");
static_assert(coversFamily(kProxyFence, OpFamily::ProxyFence),
              "every ProxyFence row of PtxOps.def needs its emitter in kProxyFence");

}  // namespace

void emitFence(Writer& w) { emitFrom(kFence, w); }
void emitProxyFence(Writer& w) { emitFrom(kProxyFence, w); }

void regsFence(const Instr&, Regs&) {}
void regsProxyFence(const Instr&, Regs&) {}

void defaultsFence(const Instr& in, Qualifiers& q) {
  if (in.op == OpId::Fence) q.defaultSemScope(Sem::AcqRel, Scope::Gpu);
  if (in.op == OpId::FenceMbarrierInit) {  // the only form PTX has
    q.sem = Sem::Release;
    q.scope = Scope::Cluster;
  }
}

void defaultsProxyFence(const Instr& in, Qualifiers& q) {
  if (in.op == OpId::FenceProxyAsyncGen) q.defaultSemScope(Sem::Release, Scope::Cluster);
  if (in.op == OpId::FenceProxyTmap) q.defaultSemScope(Sem::Release, Scope::Gpu);
}

}  // namespace ptxmm::ptxgen::emit
