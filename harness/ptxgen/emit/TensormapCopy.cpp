// tensormap.cp_fenceproxy, family TensormapCopy: `[dst], [src], 128` with dst a global location (a 128-byte
// map cell of the runner's buffer, 128-byte aligned like tensormap.replace's) and src the CTA's shared memory.
// Into a map that a tensor copy reads, src is a shared descriptor whose cells the prologue fills with a
// runner-encoded CUtensorMap (Generator.cpp, TensorMapSpec::sharedSources).
#include "ptxgen/Kernel.hpp"
#include "ptxgen/emit/Emit.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::ptxgen::emit {
namespace {

using ptx::OpFamily;
using ptx::OpId;

/// The index of `w.in` among its thread's statements (their number if it is not one of them).
size_t statementIndex(Writer& w) {
  const auto& stmts = w.thread.statements();
  size_t k = 0;
  while (k < stmts.size() && !(stmts[k].instr && &*stmts[k].instr == &w.in)) ++k;
  return k;
}

/// Does every lane of the thread's warp reach `in` unconditionally? True when the litmus thread has the whole
/// kernel warp (its instances fill the 32 lanes) and `in` is unguarded with no label or branch before it.
bool wholeWarpReaches(Writer& w) {
  const Shape sh = w.thread.shape();
  if (sh.warpLanes != 1 || sh.laneStride != 32 || w.in.guard) return false;
  const auto& stmts = w.thread.statements();
  const size_t at = statementIndex(w);
  if (at == stmts.size()) return false;
  for (size_t i = 0; i < at; ++i) {
    const auto& st = stmts[i];
    if (!st.label.empty() || (st.instr && (st.instr->guard || ptx::opInfo(st.instr->op).family == OpFamily::Branch)))
      return false;
  }
  return true;
}

/// `.sync.aligned`: every thread of the warp executes the same tensormap.cp_fenceproxy (PTX ISA 9.2 §9.7.13.16),
/// and the warp copies one map with it: ptxas 13.0 has lane i copy bytes 4i..4i+3 of its operands (sm_90 SASS:
/// an LDS and an ATOMG.EXCH per lane, then the release fence), so operands that differ between lanes copy a
/// 32nd of each map (docs/hardware/README.md, the B06 diagnosis). The warp's 32 instances therefore copy their
/// maps in turn: the warp is reconverged with bar.warp.sync (the start barrier's spin lets its lanes leave at
/// different iterations), then for each lane L every lane executes the instruction with lane L's operands
/// (shfl.sync.idx). Only where the litmus thread owns the whole warp and every lane reaches the instruction.
void emitCpFenceproxy(Writer& w) {
  w.need(3);
  const auto& ops = w.in.operands;
  if (!wholeWarpReaches(w))
    throw DiagnosticError(w.in.src,
                          "tensormap.cp_fenceproxy is .sync.aligned: the stress kernel runs it only where the litmus "
                          "thread owns whole warps and every lane reaches it (no guard, label or branch before it)");
  const auto [dst, dstOff] = w.address(ops[0]).split();
  const auto [src, srcOff] = w.address(ops[1]).split();
  const std::string again = w.pred("cpfp");
  const std::string loop = "$cpfp" + std::to_string(w.thread.index()) + "_" + std::to_string(statementIndex(w));
  w.out() << "  bar.warp.sync -1;  // .aligned: the warp's lanes together\n"
          << "  // one map per execution: the warp copies each lane's map in turn, with that lane's operands\n"
          << "  mov.u32 %x0, 0;\n"
          << loop << ":\n"
          << "  shfl.sync.idx.b32 %x1, " << src << ", %x0, 31, -1;\n"
          << "  mov.b64 {%x2, %x3}, " << dst << ";\n"
          << "  shfl.sync.idx.b32 %x2, %x2, %x0, 31, -1;\n"
          << "  shfl.sync.idx.b32 %x3, %x3, %x0, 31, -1;\n"
          << "  mov.b64 %rd12, {%x2, %x3};\n"
          << "  " << spell(w.in) << " [%rd12" << dstOff << "], [%x1" << srcOff << "], 128;\n"
          << "  add.u32 %x0, %x0, 1;\n"
          << "  setp.lt.u32 " << again << ", %x0, 32;\n"
          << "  @" << again << " bra.uni " << loop << ";\n";
}

constexpr OpEmitter kTensormapCopy[] = {{OpId::TensormapCpFenceproxy, emitCpFenceproxy}};
static_assert(coversFamily(kTensormapCopy, OpFamily::TensormapCopy),
              "every TensormapCopy row of PtxOps.def needs its emitter in kTensormapCopy");

}  // namespace

void emitTensormapCopy(Writer& w) { emitFrom(kTensormapCopy, w); }

void regsTensormapCopy(const Instr&, Regs& regs) { regs.preds.insert("cpfp"); }

void defaultsTensormapCopy(const Instr&, Qualifiers&) {}

}  // namespace ptxmm::ptxgen::emit
