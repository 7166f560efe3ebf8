// What the family emitters share: register names, the Writer, and the dispatch of an OpId to its
// family, generated from ptx/PtxOps.def.
#include "ptxgen/emit/Emit.hpp"

#include <cctype>
#include <stdexcept>

#include "ptxgen/Kernel.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::ptxgen::emit {

std::string sanitize(std::string_view s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) != 0) ? c : '_';
  return out;
}

std::pair<std::string, std::string> Address::split() const {
  const std::string inner = text.substr(1, text.size() - 2);
  const size_t at = inner.find_first_of("+-");
  if (at == std::string::npos) return {inner, ""};
  return {inner.substr(0, at), inner.substr(at)};
}

std::string valueReg(int t, std::string_view name) { return "%v" + std::to_string(t) + "_" + sanitize(name); }
std::string predReg(int t, std::string_view name) { return "%q" + std::to_string(t) + "_" + sanitize(name); }
std::string wideReg(int t, std::string_view name) { return "%h" + std::to_string(t) + "_" + sanitize(name); }
std::string wgmmaAccReg(int t, std::string_view name, int i) {
  return "%wf" + std::to_string(t) + "_" + sanitize(name) + "_" + std::to_string(i);
}

Writer::Writer(Thread& thread, const Instr& in)
    : thread(thread),
      in(in),
      guard(in.guard ? std::string("@") + (in.guard->negated ? "!" : "") + predReg(thread.index(), in.guard->pred) + " "
                     : std::string()) {}

void Writer::need(size_t n) const {
  if (in.operands.size() < n)
    throw DiagnosticError(
        in.src, std::string(ptx::opInfo(in.op).mnemonic) + ": expected at least " + std::to_string(n) + " operands");
}

void Writer::bare() { out() << "  " << guard << spell(in) << ";\n"; }

void Writer::mirrorPred(std::string_view name) {
  out() << "  " << guard << "selp.u64 " << reg(name) << ", 1, 0, " << pred(name) << ";\n";
}

void Regs::addPred(const Operand& op) const {
  if (op.kind == Operand::Kind::Reg && !op.name.empty()) preds.insert(op.name);
}

void Regs::addWide(const Operand& op) const {
  if (op.kind == Operand::Kind::Reg && !op.name.empty()) wide.insert(op.name);
}

void matrixDescriptor(Writer& w, const Operand& op, const char* dst, uint64_t fields) {
  if (op.kind == Operand::Kind::Imm) {
    w.out() << "  " << w.guard << "mov.b64 " << dst << ", " << op.imm << ";\n";
    return;
  }
  if (op.kind != Operand::Kind::Reg)
    throw DiagnosticError(op.src, "a matrix descriptor is a register or a constant (PTX ISA 9.2 §9.7.15.5.1)");
  w.out() << "  " << w.guard << "and.b64 " << dst << ", " << w.reg(op.name) << ", 262143;\n";
  w.out() << "  " << w.guard << "shr.u64 " << dst << ", " << dst << ", 4;\n";
  if (fields != 0) w.out() << "  " << w.guard << "or.b64 " << dst << ", " << dst << ", " << fields << ";\n";
}

void emitFrom(std::span<const OpEmitter> table, Writer& w) {
  for (const OpEmitter& e : table)
    if (e.op == w.in.op) return e.emit(w);
  throw std::logic_error("ptxgen: " + std::string(ptx::opInfo(w.in.op).name) + " was dispatched to a family table " +
                         "that does not list it");
}

// One case per row of PtxOps.def, to the function of the row's family: a row of a family without
// one does not compile, and -Werror=switch rejects a switch that misses a row.

void emitInstruction(Writer& w) {
  switch (w.in.op) {
#define PTX_OP(Id, mnemonic, family, ...) \
  case ptx::OpId::Id:                     \
    return emit##family(w);
#include "ptx/PtxOps.def"
#undef PTX_OP
    case ptx::OpId::Count_: break;
  }
  throw std::logic_error("ptxgen: emitInstruction of an instruction without an op");
}

void collectRegs(const Instr& in, Regs& regs) {
  if (in.guard) regs.preds.insert(in.guard->pred);
  if (in.operands.empty()) return;
  switch (in.op) {
#define PTX_OP(Id, mnemonic, family, ...) \
  case ptx::OpId::Id:                     \
    return regs##family(in, regs);
#include "ptx/PtxOps.def"
#undef PTX_OP
    case ptx::OpId::Count_: break;
  }
  throw std::logic_error("ptxgen: collectRegs of an instruction without an op");
}

Qualifiers qualifiers(const Instr& in, ptx::Space spaceOverride) {
  Qualifiers q;
  q.sem = in.sem;
  q.scope = in.scope;
  q.space = spaceOverride != ptx::Space::Generic ? spaceOverride : in.space;
  q.type = in.type;
  switch (in.op) {
#define PTX_OP(Id, mnemonic, family, ...) \
  case ptx::OpId::Id:                     \
    defaults##family(in, q);              \
    return q;
#include "ptx/PtxOps.def"
#undef PTX_OP
    case ptx::OpId::Count_: break;
  }
  throw std::logic_error("ptxgen: qualifiers of an instruction without an op");
}

}  // namespace ptxmm::ptxgen::emit
