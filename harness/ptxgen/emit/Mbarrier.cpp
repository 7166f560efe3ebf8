// mbarrier, family Mbarrier: the mbarrier.* operations on the location's cell (the kernel's prologue
// has initialised it), waits into a predicate mirrored into the litmus register, and
// cp.async.mbarrier.arrive. The state is .b64; arrive defaults to .release.cta, the waits to
// .acquire.cta, expect_tx / complete_tx to .relaxed.cta.
#include <algorithm>

#include "ptxgen/Kernel.hpp"
#include "ptxgen/emit/Emit.hpp"

namespace ptxmm::ptxgen::emit {
namespace {

using ptx::OpFamily;
using ptx::OpId;
using ptx::Scope;
using ptx::Sem;

/// init, inval, expect_tx, complete_tx: `[addr]{, value}`.
void emitOnBarrier(Writer& w) {
  w.need(1);
  const auto& ops = w.in.operands;
  auto a = w.address(ops[0]);
  const std::string v = ops.size() > 1 ? ", " + w.value(ops[1], 32) : "";  // a conversion goes before the line
  w.out() << "  " << w.guard << spell(w.in, a.space) << " " << a.text << v << ";\n";
}

/// arrive, arrive_drop: `{state, }[addr]{, count}`; the state is discarded (`_`) for a remote barrier,
/// whose arrive returns none.
void emitArrive(Writer& w) {
  const auto& ops = w.in.operands;
  const size_t ai = isAddress(ops.at(0)) ? 0 : 1;
  w.need(ai + 1);
  auto a = w.address(ops[ai]);
  std::string dst = "_";
  if (ai == 1 && ops[0].kind == Operand::Kind::Reg && a.space != ptx::Space::SharedCluster) dst = w.reg(ops[0].name);
  std::string rest;
  for (size_t k = ai + 1; k < ops.size(); ++k) rest += ", " + w.value(ops[k], 32);
  w.out() << "  " << w.guard << spell(w.in, a.space) << " " << dst << ", " << a.text << rest << ";\n";
}

/// test_wait, try_wait: `p, [addr], state-or-parity{, suspend-hint}`.
void emitWait(Writer& w) {
  w.need(3);
  const auto& ops = w.in.operands;
  auto a = w.address(ops[1]);
  const bool parity = w.in.hasFlag("parity");
  std::string third = w.value(ops[2], parity ? 32 : 64);
  std::string rest;
  for (size_t k = 3; k < ops.size(); ++k) rest += ", " + w.value(ops[k], 32);
  w.out() << "  " << w.guard << spell(w.in, a.space) << " " << w.pred(ops[0].name) << ", " << a.text << ", " << third
          << rest << ";\n";
  w.mirrorPred(ops[0].name);
}

void emitCpAsyncArrive(Writer& w) {
  w.need(1);
  auto a = w.address(w.in.operands[0]);
  w.out() << "  " << w.guard << spell(w.in) << " " << a.text << ";\n";
}

constexpr OpEmitter kMbarrier[] = {
    {OpId::MbarrierInit, emitOnBarrier},         {OpId::MbarrierInval, emitOnBarrier},
    {OpId::MbarrierExpectTx, emitOnBarrier},     {OpId::MbarrierCompleteTx, emitOnBarrier},
    {OpId::MbarrierArrive, emitArrive},          {OpId::MbarrierArriveDrop, emitArrive},
    {OpId::MbarrierTestWait, emitWait},          {OpId::MbarrierTryWait, emitWait},
    {OpId::CpAsyncMbarArrive, emitCpAsyncArrive}};
static_assert(coversFamily(kMbarrier, OpFamily::Mbarrier),
              "every Mbarrier row of PtxOps.def needs its emitter in kMbarrier");

bool isWait(OpId op) { return op == OpId::MbarrierTestWait || op == OpId::MbarrierTryWait; }
bool isTx(OpId op) { return op == OpId::MbarrierExpectTx || op == OpId::MbarrierCompleteTx; }

}  // namespace

void emitMbarrier(Writer& w) { emitFrom(kMbarrier, w); }

void regsMbarrier(const Instr& in, Regs& regs) {
  if (isWait(in.op)) regs.addPred(in.operands[0]);
}

void defaultsMbarrier(const Instr& in, Qualifiers& q) {
  if (q.type == ptx::DataType::None) q.type = ptx::DataType::B64;
  if (in.op == OpId::MbarrierArrive || in.op == OpId::MbarrierArriveDrop) q.defaultSemScope(Sem::Release, Scope::Cta);
  if (isWait(in.op)) q.defaultSemScope(Sem::Acquire, Scope::Cta);
  if (isTx(in.op)) q.defaultSemScope(Sem::Relaxed, Scope::Cta);
  if (in.op == OpId::CpAsyncMbarArrive) q.space = ptx::Space::SharedCta;
  // .relaxed arrive and wait forms: PTX 8.6; .cluster scope: PTX 8.0.
  if (q.sem == Sem::Relaxed && !isTx(in.op)) q.minPtx = 86;
  if (q.scope == Scope::Cluster) q.minPtx = std::max(q.minPtx, 80);
}

}  // namespace ptxmm::ptxgen::emit
