// 5th-generation TensorCore, families Tcgen05, Tcgen05Sync and Tcgen05Fence (PTX ISA 9.2 §9.7.16; sm_100a,
// emitted and assembled, not run: Generator.cpp marks the kernel not runnable). A `.tmem` location is a
// shared-memory cell of the kernel that stands for the tensor-memory address tcgen05.alloc would return
// there (the kernel allocates no tensor memory); each tcgen05 access loads it into %x5 and addresses
// `[%x5]`. Shared-memory descriptors are built from the litmus register holding the matrix's shared address
// as wgmma's are (emit/Wgmma.cpp); enable-input-d is the immediate 0 or 1.
#include "ptxgen/Kernel.hpp"
#include "ptxgen/emit/Emit.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::ptxgen::emit {
namespace {

using ptx::OpFamily;
using ptx::OpId;
using ptx::Space;

constexpr const char* kSec = " (PTX ISA 9.2 §9.7.16)";

/// Loads the tensor-memory address of `[D]` into %x5.
void tmemAddress(Writer& w, const Operand& op) {
  if (!isAddress(op)) throw DiagnosticError(op.src, std::string("expected the tensor-memory address `[D]`") + kSec);
  auto a = w.address(op);
  if (a.space == Space::Global)
    throw DiagnosticError(op.src, std::string("a tensor-memory location is declared `.tmem`") + kSec);
  w.out() << "  " << w.guard << "ld.shared.b32 %x5, " << a.text << ";\n";
}

/// The register of a `{r}` operand (or a lone register).
const Operand& single(const Operand& v) { return v.kind == Operand::Kind::Vector && !v.elems.empty() ? v.elems[0] : v; }

void emitMma(Writer& w) {
  w.need(5);
  const auto& ops = w.in.operands;
  if (ops[4].kind != Operand::Kind::Imm)
    throw DiagnosticError(ops[4].src, std::string("the kernel writes enable-input-d as the immediate 0 or 1") + kSec);
  matrixDescriptor(w, ops[1], "%y6", 0);
  matrixDescriptor(w, ops[2], "%y7", 0);
  const std::string idesc = w.value(ops[3], 32);
  tmemAddress(w, ops[0]);
  w.out() << "  " << w.guard << spell(w.in) << " [%x5], %y6, %y7, " << idesc << ", " << (ops[4].imm != 0 ? 1 : 0)
          << ";\n";
}

void emitCp(Writer& w) {
  w.need(2);
  matrixDescriptor(w, w.in.operands[1], "%y6", 0);
  tmemAddress(w, w.in.operands[0]);
  w.out() << "  " << w.guard << spell(w.in) << " [%x5], %y6;\n";
}

void emitLd(Writer& w) {
  w.need(2);
  const Operand& r = single(w.in.operands[0]);
  if (r.kind != Operand::Kind::Reg)
    throw DiagnosticError(r.src, std::string("the destination must be a register") + kSec);
  tmemAddress(w, w.in.operands[1]);
  w.out() << "  " << w.guard << spell(w.in) << " {%x6}, [%x5];\n";
  w.out() << "  " << w.guard << "cvt.u64.u32 " << w.reg(r.name) << ", %x6;\n";
}

void emitSt(Writer& w) {
  w.need(2);
  const std::string v = w.value(single(w.in.operands[1]), 32);
  w.out() << "  " << w.guard << "mov.b32 %x6, " << v << ";\n";
  tmemAddress(w, w.in.operands[0]);
  w.out() << "  " << w.guard << spell(w.in) << " [%x5], {%x6};\n";
}

void emitCommit(Writer& w) {
  w.need(1);
  if (!isAddress(w.in.operands[0]))
    throw DiagnosticError(w.in.operands[0].src, std::string("expected the mbarrier address `[mbar]`") + kSec);
  auto m = w.address(w.in.operands[0]);
  if (m.space == Space::Global)
    throw DiagnosticError(w.in.operands[0].src, std::string("the mbarrier must be in shared memory") + kSec);
  w.out() << "  " << w.guard << spell(w.in, Space::SharedCluster) << " " << m.text << ";\n";
}

void emitBare(Writer& w) { w.bare(); }

constexpr OpEmitter kTcgen05[] = {
    {OpId::Tcgen05Mma, emitMma}, {OpId::Tcgen05Cp, emitCp}, {OpId::Tcgen05Ld, emitLd}, {OpId::Tcgen05St, emitSt}};
static_assert(coversFamily(kTcgen05, OpFamily::Tcgen05), "every Tcgen05 row of PtxOps.def needs its emitter");
constexpr OpEmitter kTcgen05Sync[] = {
    {OpId::Tcgen05Commit, emitCommit}, {OpId::Tcgen05WaitLd, emitBare}, {OpId::Tcgen05WaitSt, emitBare}};
static_assert(coversFamily(kTcgen05Sync, OpFamily::Tcgen05Sync), "every Tcgen05Sync row needs its emitter");
constexpr OpEmitter kTcgen05Fence[] = {{OpId::Tcgen05FenceBefore, emitBare}, {OpId::Tcgen05FenceAfter, emitBare}};
static_assert(coversFamily(kTcgen05Fence, OpFamily::Tcgen05Fence), "every Tcgen05Fence row needs its emitter");

}  // namespace

void emitTcgen05(Writer& w) { emitFrom(kTcgen05, w); }
void regsTcgen05(const Instr&, Regs&) {}
void defaultsTcgen05(const Instr&, Qualifiers& q) {
  q.groupDefaults = {{"tc_cta_group", ".cta_group::1"}, {"sync", ".sync"}, {"aligned", ".aligned"}};
}

void emitTcgen05Sync(Writer& w) { emitFrom(kTcgen05Sync, w); }
void regsTcgen05Sync(const Instr&, Regs&) {}
void defaultsTcgen05Sync(const Instr& in, Qualifiers& q) {
  q.groupDefaults = {{"tc_cta_group", ".cta_group::1"},
                     {"tc_commit", ".mbarrier::arrive::one"},
                     {"sync", ".sync"},
                     {"aligned", ".aligned"}};
  if (in.op == OpId::Tcgen05Commit) {
    q.space = Space::SharedCluster;
    q.type = ptx::DataType::B64;
  }
}

void emitTcgen05Fence(Writer& w) { emitFrom(kTcgen05Fence, w); }
void regsTcgen05Fence(const Instr&, Regs&) {}
void defaultsTcgen05Fence(const Instr&, Qualifiers&) {}

}  // namespace ptxmm::ptxgen::emit
