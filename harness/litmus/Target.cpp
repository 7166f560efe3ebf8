#include "litmus/Target.hpp"

#include <map>

#include "ptx/Ops.hpp"

namespace ptxmm::litmus {

using ptx::OpId;
using ptx::Scope;
using ptx::Sem;
using ptx::Space;
using ptx::Target;

ptx::Target requiredTarget(const Instr& in) {
  const ptx::OpInfo& op = ptx::opInfo(in.op);
  Target t = op.minTarget;
  auto need = [&t](int sm, int ptxVersion, bool a = false) { t = ptx::combine(t, Target{sm, ptxVersion, a}); };
  // State spaces spelled `::cta` / `::cluster` (the canonical spelling always writes `::cta`).
  if (in.space == Space::SharedCta || in.srcSpace == Space::SharedCta) need(0, 78);
  if (in.space == Space::SharedCluster || in.srcSpace == Space::SharedCluster) need(90, 78);
  if (in.scope == Scope::Cluster) need(90, 78);
  switch (in.op) {
    case OpId::Ld:
    case OpId::St:
      if (in.sem == Sem::Mmio) need(70, 82);
      if (in.type == ptx::DataType::B128) need(70, 83);
      break;
    case OpId::Fence:
      if (in.hasFlag("sync_restrict::shared::cta") || in.hasFlag("sync_restrict::shared::cluster") ||
          in.sem == Sem::Acquire || in.sem == Sem::Release)
        need(90, 86);
      break;
    case OpId::MbarrierArrive:
    case OpId::MbarrierArriveDrop:
    case OpId::MbarrierTestWait:
    case OpId::MbarrierTryWait:
      // The canonical spelling writes .sem and .scope (PTX 8.0, sm_90); .relaxed needs PTX 8.6.
      need(90, 80);
      if (in.sem == Sem::Relaxed) need(90, 86);
      break;
    case OpId::MbarrierExpectTx:
    case OpId::MbarrierCompleteTx: need(90, 80); break;
    case OpId::BarrierClusterArrive:
    case OpId::BarrierClusterWait: need(90, 80); break;  // explicit .sem
    case OpId::CpAsyncBulk:
      if (in.space == Space::SharedCta && in.srcSpace == Space::Global) need(90, 86);
      break;
    case OpId::CpAsyncBulkTensor:
      // PTX ISA 9.2 §9.7.9.25.5.2: `.shared::cta` destination from PTX 8.6.
      if (in.space == Space::SharedCta) need(90, 86);
      break;
    case OpId::TensormapReplace:
      // §9.7.9.26: sm_90a (architecture-specific) from PTX 8.3; `.swizzle_atomicity` PTX 8.6, sm_100a;
      // `.elemtype` 13..15 PTX 8.7, sm_100a; `.swizzle_mode` 4 PTX 8.8, sm_103a.
      need(90, 83, true);
      if (in.hasFlag("swizzle_atomicity")) need(100, 86, true);
      if (in.hasFlag("elemtype") && !in.operands.empty() && in.operands.back().imm >= 13) need(100, 87, true);
      if (in.hasFlag("swizzle_mode") && !in.operands.empty() && in.operands.back().imm == 4) need(103, 88, true);
      break;
    case OpId::ClcTryCancel:
      if (in.hasFlag("multicast::cluster::all")) need(100, 86, true);
      break;
    // No qualifier-specific minimum beyond the row's own (PtxOps.def).
    case OpId::Atom:
    case OpId::Red:
    case OpId::Tld:
    case OpId::Suld:
    case OpId::Sust:
    case OpId::Cold:
    case OpId::Suatom:
    case OpId::Sured:
    case OpId::Membar:
    case OpId::FenceProxyAlias:
    case OpId::FenceProxyKind:
    case OpId::FenceProxyAsync:
    case OpId::FenceProxyAsyncGen:
    case OpId::FenceProxyTmap:
    case OpId::FenceMbarrierInit:
    case OpId::BarSync:
    case OpId::BarArrive:
    case OpId::MbarrierInit:
    case OpId::MbarrierInval:
    case OpId::CpAsync:
    case OpId::CpAsyncCommit:
    case OpId::CpAsyncWaitGroup:
    case OpId::CpAsyncWaitAll:
    case OpId::CpAsyncMbarArrive:
    case OpId::CpAsyncBulkCommit:
    case OpId::CpAsyncBulkWait:
    case OpId::StAsync:  // the modelled forms are PTX 8.1 / sm_90 (Validate.cpp rejects the 8.7 ones)
    case OpId::RedAsync:
    case OpId::ClcQueryCancel:
    case OpId::Mov:
    case OpId::Add:
    case OpId::Sub:
    case OpId::Mul:
    case OpId::Div:
    case OpId::And:
    case OpId::Or:
    case OpId::Xor:
    case OpId::Setp:
    case OpId::Selp:
    case OpId::Bra:
    case OpId::Beq:
    case OpId::Bne:
    case OpId::Bge:
    case OpId::Ble:
    case OpId::Bgt:
    case OpId::Blt:
    case OpId::Goto:
    case OpId::Ret:
    case OpId::Exit:
    case OpId::Count_: break;
  }
  return t;
}

ptx::Target requiredTarget(const Test& test) {
  Target t{70, 60, false};
  for (const auto& th : test.threads)
    for (const auto& s : th.code)
      if (s.instr) t = ptx::combine(t, requiredTarget(*s.instr));
  std::map<int, int> ctasPerCluster;
  for (const auto& th : test.threads) ctasPerCluster[th.where.cluster] += 0;
  std::map<int, int> clusterOfCta;
  for (const auto& th : test.threads) clusterOfCta[th.where.cta] = th.where.cluster;
  for (const auto& [cta, cluster] : clusterOfCta) ++ctasPerCluster[cluster];
  for (const auto& [cluster, n] : ctasPerCluster)
    if (n > 1) t = ptx::combine(t, Target{90, 78, false});
  if (!test.clcPending.empty()) t = ptx::combine(t, Target{100, 86, false});
  return t;
}

}  // namespace ptxmm::litmus
