// Warp-level helpers: family WarpSync (bar.warp.sync, elect.sync), GridDep (griddepcontrol) and Mapa.
// The litmus threads of one warp share a kernel warp: litmus lane s of an instance runs on kernel lane
// s * laneStride + o, o = %lane mod laneStride naming the instance (Generator.cpp), so a litmus
// membermask is spread to the instance's kernel lanes at run time, and an elected kernel lane is mapped
// back to its litmus lane (>> log2 laneStride).
#include "ptxgen/Kernel.hpp"
#include "ptxgen/emit/Emit.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::ptxgen::emit {
namespace {

using ptx::OpFamily;
using ptx::OpId;
using ptx::Space;

/// Writes the instance's kernel membermask into %x7 (scratch %x6) from the litmus mask operand.
void kernelMask(Writer& w, const Operand& m) {
  if (m.kind != Operand::Kind::Imm)
    throw DiagnosticError(
        m.src, std::string(ptx::opInfo(w.in.op).mnemonic) + ": the stress kernel needs the membermask as an integer");
  const Shape sh = w.thread.shape();
  uint64_t spread = 0;  // bit s * laneStride for each litmus lane s of the mask that has a thread
  for (int s = 0; s < sh.warpLanes && s < 32; ++s)
    if ((static_cast<uint64_t>(m.imm) >> s) & 1) spread |= 1ULL << (s * sh.laneStride);
  w.out() << "  and.b32 %x6, %lane, " << sh.laneStride - 1 << ";\n  mov.b32 %x7, " << (spread & 0xffffffffULL)
          << ";\n  shl.b32 %x7, %x7, %x6;\n";
}

void emitBarWarpSync(Writer& w) {
  w.need(1);
  kernelMask(w, w.in.operands[0]);
  w.out() << "  " << w.guard << "bar.warp.sync %x7;\n";
}

/// `elect.sync d|p, mask`: the elected kernel lane, mapped back to its litmus lane, into d; p mirrored.
void emitElect(Writer& w) {
  w.need(3);
  const auto& ops = w.in.operands;
  kernelMask(w, ops[2]);
  const Shape sh = w.thread.shape();
  int shift = 0;
  while ((1 << shift) < sh.laneStride) ++shift;
  const std::string p = ops[1].kind == Operand::Kind::Reg ? w.pred(ops[1].name) : "%pt";
  w.out() << "  " << w.guard << "elect.sync %x5|" << p << ", %x7;\n";
  if (ops[0].kind == Operand::Kind::Reg)
    w.out() << "  " << w.guard << "shr.b32 %x5, %x5, " << shift << ";\n  " << w.guard << "cvt.u64.u32 "
            << w.reg(ops[0].name) << ", %x5;\n";
  if (ops[1].kind == Operand::Kind::Reg) w.mirrorPred(ops[1].name);
}

constexpr OpEmitter kWarpSync[] = {{OpId::BarWarpSync, emitBarWarpSync}, {OpId::ElectSync, emitElect}};
static_assert(coversFamily(kWarpSync, OpFamily::WarpSync),
              "every WarpSync row of PtxOps.def needs its emitter in kWarpSync");

/// griddepcontrol.launch_dependents / .wait as spelled (PTX ISA 9.2 §9.7.13.13). The threads of `grid 1` run
/// in the dependent kernel (Kernel::dependentEntry), which the runner launches after the primary kernel
/// with programmatic stream serialization: launch_dependents in the primary kernel lets it be scheduled
/// (one instance per CTA, Generator.cpp), wait in it waits for the primary grid's completion and memory.
/// In a kernel without a dependent, launch_dependents has no effect and wait returns at once.
void emitGridDepOp(Writer& w) { w.bare(); }

constexpr OpEmitter kGridDep[] = {{OpId::GriddepLaunch, emitGridDepOp}, {OpId::GriddepWait, emitGridDepOp}};
static_assert(coversFamily(kGridDep, OpFamily::GridDep), "every GridDep row of PtxOps.def needs its emitter");

/// `mapa d, a, b`: the real instruction on the instance's own copy of a's variable, with the rank's value at
/// run time. Later accesses through d use the generator's static mapping (the same address) when the rank is
/// an integer or a special register, and d's value itself when it is a register (Generator::mapaAddresses).
void emitMapaOp(Writer& w) {
  w.need(3);
  const auto& ops = w.in.operands;
  Operand own = ops[1];
  if (own.kind == Operand::Kind::Loc) own.loc.cta = -1;  // the executing CTA's copy
  const Address a = w.address(own);
  if (a.space == Space::Global)
    throw DiagnosticError(ops[1].src, "mapa: the source must be a shared variable (PTX ISA 9.2 §9.7.9.23)");
  const std::string base = a.text.substr(1, a.text.find_first_of("+-]", 1) - 1);
  const std::string rank = w.value(ops[2], 32);
  if (w.in.space == Space::SharedCluster) {
    w.out() << "  " << w.guard << "mapa.shared::cluster.u32 %x5, " << base << ", " << rank << ";\n  " << w.guard
            << "cvt.u64.u32 " << w.reg(ops[0].name) << ", %x5;\n";
  } else {
    w.out() << "  " << w.guard << "cvt.u64.u32 %y5, " << base << ";\n  " << w.guard << "cvta.shared.u64 %y5, %y5;\n  "
            << w.guard << "mapa.u64 " << w.reg(ops[0].name) << ", %y5, " << rank << ";\n";
  }
}

constexpr OpEmitter kMapa[] = {{OpId::Mapa, emitMapaOp}};
static_assert(coversFamily(kMapa, OpFamily::Mapa), "every Mapa row of PtxOps.def needs its emitter in kMapa");

}  // namespace

void emitWarpSync(Writer& w) { emitFrom(kWarpSync, w); }
void regsWarpSync(const Instr& in, Regs& regs) {
  if (in.op == OpId::ElectSync && in.operands.size() > 1) regs.addPred(in.operands[1]);
}
void defaultsWarpSync(const Instr&, Qualifiers&) {}

void emitGridDep(Writer& w) { emitFrom(kGridDep, w); }
void regsGridDep(const Instr&, Regs&) {}
void defaultsGridDep(const Instr&, Qualifiers&) {}

void emitMapa(Writer& w) { emitFrom(kMapa, w); }
void regsMapa(const Instr&, Regs&) {}
void defaultsMapa(const Instr&, Qualifiers&) {}

}  // namespace ptxmm::ptxgen::emit
