// tensormap.cp_fenceproxy, family TensormapCopy: `[dst], [src], 128` with dst a global location (a 128-byte
// map cell of the runner's buffer, 128-byte aligned like tensormap.replace's) and src the CTA's shared memory.
#include "ptxgen/Kernel.hpp"
#include "ptxgen/emit/Emit.hpp"

namespace ptxmm::ptxgen::emit {
namespace {

using ptx::OpFamily;
using ptx::OpId;

void emitCpFenceproxy(Writer& w) {
  w.need(3);
  const auto& ops = w.in.operands;
  auto d = w.address(ops[0]);
  auto s = w.address(ops[1]);
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
