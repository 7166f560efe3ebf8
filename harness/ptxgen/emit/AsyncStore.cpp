// Asynchronous remote stores and reductions, family AsyncStore: st.async and red.async
// `[a], b, [mbar]` into the destination CTA's shared memory through the .shared::cluster window (both
// addresses as the generator places them; a generic-addressed litmus form is written with
// .shared::cluster, and the completion mechanism is always written out). The value goes through a
// scratch register (%x6 / %y6) so that an immediate is never an operand of the store.
#include "ptxgen/Kernel.hpp"
#include "ptxgen/emit/Emit.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::ptxgen::emit {
namespace {

using ptx::OpFamily;
using ptx::OpId;
using ptx::Space;

void emitAsyncAccess(Writer& w) {
  w.need(3);
  const auto& ops = w.in.operands;
  auto a = w.address(ops[0]);
  auto m = w.address(ops[2]);
  if (a.space == Space::Global)
    throw DiagnosticError(w.in.src, std::string(ptx::opInfo(w.in.op).mnemonic) +
                                        ": the destination must be shared memory of the cluster");
  const bool wide = ptx::byteWidth(w.in.type) >= 8;
  const std::string v = w.value(ops[1], wide ? 64 : 32);  // a conversion goes before the line
  const std::string r = wide ? "%y6" : "%x6";
  w.out() << "  " << w.guard << (wide ? "mov.b64 " : "mov.b32 ") << r << ", " << v << ";\n";
  w.out() << "  " << w.guard << spell(w.in, Space::SharedCluster) << " " << a.text << ", " << r << ", " << m.text
          << ";\n";
}

constexpr OpEmitter kAsyncStore[] = {{OpId::StAsync, emitAsyncAccess}, {OpId::RedAsync, emitAsyncAccess}};
static_assert(coversFamily(kAsyncStore, OpFamily::AsyncStore),
              "every AsyncStore row of PtxOps.def needs its emitter in kAsyncStore");

}  // namespace

void emitAsyncStore(Writer& w) { emitFrom(kAsyncStore, w); }

void regsAsyncStore(const Instr&, Regs&) {}

void defaultsAsyncStore(const Instr&, Qualifiers& q) {
  q.space = Space::SharedCluster;
  q.groupDefaults = {{"completion", ".mbarrier::complete_tx::bytes"}};
}

}  // namespace ptxmm::ptxgen::emit
