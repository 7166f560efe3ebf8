// Cluster launch control, family Clc: try_cancel writes its .b128 response into the location's
// shared cell (completion on the mbarrier operand); query_cancel decodes a response held in a .b128
// register into a predicate (is_canceled, mirrored into the litmus register) or 32-bit values.
#include "ptxgen/Kernel.hpp"
#include "ptxgen/emit/Emit.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::ptxgen::emit {
namespace {

using ptx::OpFamily;
using ptx::OpId;

void emitTryCancel(Writer& w) {
  w.need(2);
  auto a = w.address(w.in.operands[0]);
  auto m = w.address(w.in.operands[1]);
  w.out() << "  " << w.guard << spell(w.in) << " " << a.text << ", " << m.text << ";\n";
}

/// `p, resp` (is_canceled), `{x, y, z, w}, resp` (get_first_ctaid) or `x, resp` (get_first_ctaid::x ...).
void emitQueryCancel(Writer& w) {
  w.need(2);
  const auto& ops = w.in.operands;
  auto& o = w.out();
  const auto& g = w.guard;
  const auto& h = ops.back();
  if (h.kind != Operand::Kind::Reg) throw DiagnosticError(h.src, "query_cancel needs a .b128 register");
  const auto& d = ops[0];
  if (w.in.hasFlag("is_canceled")) {
    o << "  " << g << spell(w.in) << " " << w.pred(d.name) << ", " << w.wide(h.name) << ";\n";
    w.mirrorPred(d.name);
  } else if (d.kind == Operand::Kind::Vector) {
    std::string v = "{";
    for (size_t k = 0; k < 4; ++k) {
      if (k) v += ", ";
      v += (k < d.elems.size() && d.elems[k].kind == Operand::Kind::Reg) ? "%x" + std::to_string(k) : "_";
    }
    v += "}";
    o << "  " << g << spell(w.in) << " " << v << ", " << w.wide(h.name) << ";\n";
    for (size_t k = 0; k < d.elems.size() && k < 4; ++k)
      if (d.elems[k].kind == Operand::Kind::Reg)
        o << "  " << g << "cvt.u64.u32 " << w.reg(d.elems[k].name) << ", %x" << k << ";\n";
  } else {
    o << "  " << g << spell(w.in) << " %x7, " << w.wide(h.name) << ";\n  " << g << "cvt.u64.u32 " << w.reg(d.name)
      << ", %x7;\n";
  }
}

constexpr OpEmitter kClc[] = {{OpId::ClcTryCancel, emitTryCancel}, {OpId::ClcQueryCancel, emitQueryCancel}};
static_assert(coversFamily(kClc, OpFamily::Clc), "every Clc row of PtxOps.def needs its emitter in kClc");

}  // namespace

void emitClc(Writer& w) { emitFrom(kClc, w); }

void regsClc(const Instr& in, Regs& regs) {
  if (in.op != OpId::ClcQueryCancel) return;
  if (in.hasFlag("is_canceled")) regs.addPred(in.operands[0]);
  if (in.operands.size() > 1) regs.addWide(in.operands.back());
}

void defaultsClc(const Instr& in, Qualifiers& q) {
  if (in.op == OpId::ClcTryCancel) {
    if (q.type == ptx::DataType::None) q.type = ptx::DataType::B128;
    q.space = ptx::Space::SharedCta;
    q.groupDefaults = {{"async", ".async"}, {"completion", ".mbarrier::complete_tx::bytes"}};
  }
  if (in.op == OpId::ClcQueryCancel) {
    // The query decides the destination: .pred for is_canceled, .v4.b32 for get_first_ctaid, else .b32;
    // the response is always .b128.
    q.type = ptx::DataType::B128;
    q.groupDefaults = {{"vec", in.hasFlag("get_first_ctaid") ? ".v4" : ""},
                       {"dtype", in.hasFlag("is_canceled") ? ".pred" : ".b32"}};
  }
}

}  // namespace ptxmm::ptxgen::emit
