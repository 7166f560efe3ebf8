// Register-only instructions, family Local: litmus registers are 64-bit values, so arithmetic, logic,
// setp and selp are computed on the .b64 value registers (.s64 unless the litmus type is unsigned);
// setp writes a predicate that is mirrored into the litmus register, `mov r, x` takes x's address.
#include "ptxgen/Kernel.hpp"
#include "ptxgen/emit/Emit.hpp"

namespace ptxmm::ptxgen::emit {
namespace {

using ptx::DataType;
using ptx::OpFamily;
using ptx::OpId;

void emitMov(Writer& w) {
  w.need(2);
  const auto& ops = w.in.operands;
  if (isAddress(ops[1])) {
    auto a = w.address(ops[1]);
    std::string base = a.text.substr(1, a.text.find_first_of("+-]", 1) - 1);
    w.out() << "  " << w.guard << (a.space == ptx::Space::Global ? "mov.u64 " : "cvt.u64.u32 ") << w.reg(ops[0].name)
            << ", " << base << ";\n";
    return;
  }
  w.out() << "  " << w.guard << "mov.b64 " << w.reg(ops[0].name) << ", " << w.value(ops[1], 64) << ";\n";
}

/// add, sub, mul, div, and, or, xor: `d, a, b`.
void emitBinary(Writer& w) {
  w.need(3);
  const auto& ops = w.in.operands;
  w.out() << "  " << w.guard << spell(w.in) << " " << w.reg(ops[0].name) << ", " << w.value(ops[1], 64) << ", "
          << w.value(ops[2], 64) << ";\n";
}

void emitSetp(Writer& w) {
  w.need(3);
  const auto& ops = w.in.operands;
  w.out() << "  " << w.guard << spell(w.in) << " " << w.pred(ops[0].name) << ", " << w.value(ops[1], 64) << ", "
          << w.value(ops[2], 64) << ";\n";
  w.mirrorPred(ops[0].name);
}

void emitSelp(Writer& w) {
  w.need(4);
  const auto& ops = w.in.operands;
  w.out() << "  " << w.guard << "selp.b64 " << w.reg(ops[0].name) << ", " << w.value(ops[1], 64) << ", "
          << w.value(ops[2], 64) << ", " << w.pred(ops[3].name) << ";\n";
}

constexpr OpEmitter kLocal[] = {{OpId::Mov, emitMov},    {OpId::Add, emitBinary}, {OpId::Sub, emitBinary},
                                {OpId::Mul, emitBinary}, {OpId::Div, emitBinary}, {OpId::And, emitBinary},
                                {OpId::Or, emitBinary},  {OpId::Xor, emitBinary}, {OpId::Setp, emitSetp},
                                {OpId::Selp, emitSelp}};
static_assert(coversFamily(kLocal, OpFamily::Local), "every Local row of PtxOps.def needs its emitter in kLocal");

}  // namespace

void emitLocal(Writer& w) { emitFrom(kLocal, w); }

void regsLocal(const Instr& in, Regs& regs) {
  if (in.op == OpId::Setp) regs.addPred(in.operands[0]);
  if (in.op == OpId::Selp && in.operands.size() == 4) regs.addPred(in.operands[3]);
}

void defaultsLocal(const Instr&, Qualifiers&) {}

std::string spellLocal(const Instr& in) {
  std::string out(ptx::opInfo(in.op).mnemonic);
  const bool isSigned = in.type == DataType::S32 || in.type == DataType::S64 || in.type == DataType::S16 ||
                        in.type == DataType::S8 || in.type == DataType::None;
  const bool isBitwise =
      in.op == OpId::And || in.op == OpId::Or || in.op == OpId::Xor || in.op == OpId::Mov || in.op == OpId::Selp;
  if (in.op == OpId::Mul) out += ".lo";
  if (in.op == OpId::Setp) {
    for (const auto& f : in.flags)
      if (flagInGroup("cmp", f)) out += "." + f;
    out += isSigned ? ".s64" : ".u64";
    return out;
  }
  out += isBitwise ? ".b64" : isSigned ? ".s64" : ".u64";
  return out;
}

}  // namespace ptxmm::ptxgen::emit
