// Execution barriers, family Barrier: bar.sync / bar.arrive become barrier.sync / barrier.arrive on a
// named barrier of the instance's warp group (15 ids shared by the groups of a CTA, id 0 is the
// kernel's own), with the count in threads; the cluster barrier is written as spelled.
#include <algorithm>

#include "ptxgen/emit/Emit.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::ptxgen::emit {
namespace {

using ptx::OpFamily;
using ptx::OpId;

void emitNamedBarrier(Writer& w) {
  w.need(1);
  const auto& ops = w.in.operands;
  for (const auto& op : ops)
    if (op.kind != Operand::Kind::Imm)
      throw DiagnosticError(op.src,
                            "a register barrier id or thread count (its value decided by the execution) has no "
                            "stress-kernel encoding yet: only immediate operands are generated");
  const Shape shape = w.thread.shape();
  const int id = static_cast<int>(ops[0].imm);
  const int maxIds = std::max(1, 15 / shape.groupsPerBlock);
  if (id >= maxIds)
    throw DiagnosticError(ops[0].src, "barrier id " + std::to_string(id) + " too large for the stress kernel");
  int count = shape.ctaThreads;
  if (ops.size() > 1) {
    // Litmus threads, or warps when written as a multiple of the warp size (as the lowering reads it).
    const int64_t n = ops[1].imm;
    count = static_cast<int>(n >= 32 && n % 32 == 0 ? n / 32 : n);
  }
  w.out() << "  mad.lo.u32 %bar, %group, " << maxIds << ", " << 1 + id << ";\n";
  w.out() << "  " << w.guard << (w.in.op == OpId::BarSync ? "barrier.sync" : "barrier.arrive") << " %bar, "
          << count * shape.laneStride << ";\n";
}

void emitBare(Writer& w) { w.bare(); }

constexpr OpEmitter kBarrier[] = {{OpId::BarSync, emitNamedBarrier},
                                  {OpId::BarArrive, emitNamedBarrier},
                                  {OpId::BarrierClusterArrive, emitBare},
                                  {OpId::BarrierClusterWait, emitBare}};
static_assert(coversFamily(kBarrier, OpFamily::Barrier),
              "every Barrier row of PtxOps.def needs its emitter in kBarrier");

}  // namespace

void emitBarrier(Writer& w) { emitFrom(kBarrier, w); }

void regsBarrier(const Instr&, Regs&) {}

/// barrier.cluster.arrive is .release and barrier.cluster.wait .acquire unless relaxed; neither has a scope.
void defaultsBarrier(const Instr& in, Qualifiers& q) {
  if (in.op == OpId::BarrierClusterArrive || in.op == OpId::BarrierClusterWait) {
    if (q.sem == ptx::Sem::None) q.sem = in.op == OpId::BarrierClusterArrive ? ptx::Sem::Release : ptx::Sem::Acquire;
    q.scope = ptx::Scope::None;
  }
}

}  // namespace ptxmm::ptxgen::emit
