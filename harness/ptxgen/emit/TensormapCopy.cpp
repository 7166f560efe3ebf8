// tensormap.cp_fenceproxy, family TensormapCopy: `[dst], [src], 128` with dst a global location (a 128-byte
// map cell of the runner's buffer, 128-byte aligned like tensormap.replace's) and src the CTA's shared memory.
// Into a map that a tensor copy reads, src is a shared descriptor whose cells the prologue fills with a
// runner-encoded CUtensorMap (Generator.cpp, TensorMapSpec::sharedSources).
#include "ptxgen/Kernel.hpp"
#include "ptxgen/emit/Emit.hpp"

namespace ptxmm::ptxgen::emit {
namespace {

using ptx::OpFamily;
using ptx::OpId;

/// Does every lane of the thread's warp reach `in` unconditionally? True when the litmus thread has the whole
/// kernel warp (its instances fill the 32 lanes) and `in` is unguarded with no label or branch before it.
bool wholeWarpReaches(Writer& w) {
  const Shape sh = w.thread.shape();
  if (sh.warpLanes != 1 || sh.laneStride != 32 || w.in.guard) return false;
  for (const auto& st : w.thread.statements()) {
    if (st.instr && &*st.instr == &w.in) return true;
    if (!st.label.empty() || (st.instr && (st.instr->guard || ptx::opInfo(st.instr->op).family == OpFamily::Branch)))
      return false;
  }
  return false;
}

/// `.sync.aligned`: every thread of the warp executes the same tensormap.cp_fenceproxy (PTX ISA 9.2 §9.7.13.16).
/// The lanes of a warp whose 32 instances all reach it are reconverged first with bar.warp.sync (the start
/// barrier's spin lets them leave at different iterations).
void emitCpFenceproxy(Writer& w) {
  w.need(3);
  const auto& ops = w.in.operands;
  auto d = w.address(ops[0]);
  auto s = w.address(ops[1]);
  if (wholeWarpReaches(w)) w.out() << "  bar.warp.sync -1;  // .aligned: the warp's lanes together\n";
  w.out() << "  " << w.guard << spell(w.in) << " " << d.text << ", " << s.text << ", 128;\n";
}

constexpr OpEmitter kTensormapCopy[] = {{OpId::TensormapCpFenceproxy, emitCpFenceproxy}};
static_assert(coversFamily(kTensormapCopy, OpFamily::TensormapCopy),
              "every TensormapCopy row of PtxOps.def needs its emitter in kTensormapCopy");

}  // namespace

void emitTensormapCopy(Writer& w) { emitFrom(kTensormapCopy, w); }

void regsTensormapCopy(const Instr&, Regs&) {}

void defaultsTensormapCopy(const Instr&, Qualifiers&) {}

}  // namespace ptxmm::ptxgen::emit
