// Warpgroup MMA, families Wgmma and WgmmaSync (PTX ISA 9.2 §9.7.15): wgmma.mma_async as
// `wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {acc0..3}, descA, descB, scale-d, 1, 1, 0, 0`, the only
// form Validate.cpp accepts. The kernel of such a test is a warpgroup kernel (Generator.cpp): all 128 threads
// of a warpgroup run the litmus thread and execute these instructions convergently. A litmus descriptor
// register holds the .shared::cta address of its matrix (`mov.u64 da, A` writes it), the start of the
// location's cell, which is a whole K-major no-swizzle tile (wgmma:: in Kernel.hpp): the kernel builds the
// 64-bit matrix descriptor from it in %y6 / %y7 (start address >> 4 in bits 0-13, leading byte offset 128 and
// stride byte offset 256 in bits 16-29 and 32-45, base offset 0, no swizzle: §9.7.15.5.1 "Matrix Descriptor
// Format"). The rest of each tile is 0, so the accumulator element D[0][0] (d0 of the warpgroup's thread 0)
// is the product of A[0][0] and B[0][0], the low halves of the locations' first words read as f16: a*2^-24
// times b*2^-24. The accumulator is four .f32 registers per litmus accumulator (wgmmaAccReg); d0 scaled by
// 2^48 is written back to the litmus register (cvt.rzi) after `wgmma.wait_group 0`, and read from it (cvt.rn,
// scaled by 2^-48) before a wgmma.mma_async with scale-d 1 (such kernels are not runnable: Generator.cpp).
#include <set>

#include "ptxgen/Kernel.hpp"
#include "ptxgen/emit/Emit.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::ptxgen::emit {
namespace {

using ptx::OpFamily;
using ptx::OpId;

constexpr const char* kSec = " (PTX ISA 9.2 §9.7.15.5)";
/// Leading byte offset 128 (>> 4 = 8) in bits 16-29, stride byte offset 256 (>> 4 = 16) in bits 32-45.
constexpr uint64_t kDescriptorOffsets =
    (uint64_t{wgmma::kLeadingByteOffset >> 4} << 16) | (uint64_t{wgmma::kStrideByteOffset >> 4} << 32);

void emitMmaAsync(Writer& w) {
  w.need(4);
  const auto& ops = w.in.operands;
  const Operand& d0 = wgmmaAccumulator(w.in);
  if (d0.kind != Operand::Kind::Reg)
    throw DiagnosticError(ops[0].src, std::string("the accumulator d0 must be a register") + kSec);
  if (ops[3].kind != Operand::Kind::Imm)
    throw DiagnosticError(ops[3].src, std::string("the kernel writes scale-d as the immediate 0 or 1") + kSec);
  const int t = w.thread.index();
  const bool accumulate = ops[3].imm != 0;
  if (accumulate) {
    // A chain of accumulations into d0 without a wgmma.wait_group between them would re-read d0's litmus
    // register while the earlier wgmma is in flight.
    bool pendingSame = false;
    for (const auto& st : w.thread.statements()) {
      if (!st.instr) continue;
      if (&*st.instr == &w.in) break;
      if (st.instr->op == OpId::WgmmaWait) pendingSame = false;
      if (st.instr->op == OpId::WgmmaMmaAsync && !st.instr->operands.empty() &&
          wgmmaAccumulator(*st.instr).name == d0.name)
        pendingSame = true;
    }
    if (pendingSame)
      throw DiagnosticError(w.in.src, "a wgmma.mma_async accumulating into '" + d0.name +
                                          "' without a wgmma.wait_group after the previous one is not emitted: the "
                                          "kernel reads the accumulator input from its litmus register" +
                                          kSec);
  }
  matrixDescriptor(w, ops[1], "%y6", kDescriptorOffsets);
  matrixDescriptor(w, ops[2], "%y7", kDescriptorOffsets);
  // scale-d 0: the accumulator input is not read (the generator zeroes the registers before the litmus code).
  if (accumulate) {
    const std::string a0 = wgmmaAccReg(t, d0.name, 0);
    w.out() << "  " << w.guard << "cvt.rn.f32.s64 " << a0 << ", " << w.reg(d0.name) << ";\n";
    w.out() << "  " << w.guard << "mul.f32 " << a0 << ", " << a0 << ", " << wgmma::kScaleFromInt << ";\n";
  }
  w.out() << "  " << w.guard << "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {";
  for (int i = 0; i < 4; ++i) w.out() << (i ? ", " : "") << wgmmaAccReg(t, d0.name, i);
  w.out() << "}, %y6, %y7, " << (accumulate ? 1 : 0) << ", 1, 1, 0, 0;\n";
}

/// wgmma.wait_group N; after `wgmma.wait_group 0` every accumulator of the thread is complete and written
/// back to its litmus register.
void emitWait(Writer& w) {
  w.need(1);
  const Operand& n = w.in.operands[0];
  if (n.kind != Operand::Kind::Imm) throw DiagnosticError(n.src, std::string("N is an integer constant") + kSec);
  std::set<std::string> accs;
  for (const auto& st : w.thread.statements())
    if (st.instr && st.instr->op == OpId::WgmmaMmaAsync && !st.instr->operands.empty() &&
        wgmmaAccumulator(*st.instr).kind == Operand::Kind::Reg)
      accs.insert(wgmmaAccumulator(*st.instr).name);
  if (n.imm != 0 && !accs.empty())
    throw DiagnosticError(n.src, "wgmma.wait_group " + std::to_string(n.imm) +
                                     " is not emitted: the kernel writes the accumulators back to their litmus "
                                     "registers after `wgmma.wait_group 0` only" +
                                     kSec);
  w.out() << "  " << w.guard << spell(w.in) << " " << n.imm << ";\n";
  for (const auto& a : accs) {
    w.out() << "  " << w.guard << "mul.f32 %wfs, " << wgmmaAccReg(w.thread.index(), a, 0) << ", " << wgmma::kScaleToInt
            << ";\n";
    w.out() << "  " << w.guard << "cvt.rzi.s64.f32 " << w.reg(a) << ", %wfs;\n";
  }
}

void emitBare(Writer& w) { w.bare(); }

constexpr OpEmitter kWgmma[] = {{OpId::WgmmaMmaAsync, emitMmaAsync}};
static_assert(coversFamily(kWgmma, OpFamily::Wgmma), "every Wgmma row of PtxOps.def needs its emitter in kWgmma");
constexpr OpEmitter kWgmmaSync[] = {
    {OpId::WgmmaFence, emitBare}, {OpId::WgmmaCommit, emitBare}, {OpId::WgmmaWait, emitWait}};
static_assert(coversFamily(kWgmmaSync, OpFamily::WgmmaSync),
              "every WgmmaSync row of PtxOps.def needs its emitter in kWgmmaSync");

void syncAligned(Qualifiers& q) { q.groupDefaults = {{"sync", ".sync"}, {"aligned", ".aligned"}}; }

}  // namespace

const Operand& wgmmaAccumulator(const Instr& in) {
  const Operand& d = in.operands.at(0);
  return d.kind == Operand::Kind::Vector && !d.elems.empty() ? d.elems[0] : d;
}

void emitWgmma(Writer& w) { emitFrom(kWgmma, w); }
void regsWgmma(const Instr&, Regs&) {}
void defaultsWgmma(const Instr&, Qualifiers& q) { syncAligned(q); }

void emitWgmmaSync(Writer& w) { emitFrom(kWgmmaSync, w); }
void regsWgmmaSync(const Instr&, Regs&) {}
void defaultsWgmmaSync(const Instr&, Qualifiers& q) { syncAligned(q); }

}  // namespace ptxmm::ptxgen::emit
