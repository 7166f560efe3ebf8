// Memory accesses, families Read, Write and Rmw: ld / st / atom / red in the generic proxy (values
// narrower than 64 bits go through the scratch registers %x), sust / suld on the location's 2D surface
// array and tld as tex.1d on its linear texture (coordinates from Generator.cpp's emitGlobalAddr),
// tensormap.replace. Constant-proxy reads and the Dat3M surface atomics are refused.
#include "ptxgen/Kernel.hpp"
#include "ptxgen/emit/Emit.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::ptxgen::emit {
namespace {

using ptx::DataType;
using ptx::OpFamily;
using ptx::OpId;

/// Bytes accessed (.b32 unless typed), and the width of the value registers that carry them.
int accessBytes(const Instr& in) { return ptx::byteWidth(in.type == DataType::None ? DataType::B32 : in.type); }
int valueBits(const Instr& in) { return accessBytes(in) >= 8 ? 64 : 32; }

void emitLd(Writer& w) {
  w.need(2);
  const auto& ops = w.in.operands;
  auto& o = w.out();
  const auto& g = w.guard;
  auto a = w.address(ops[1]);
  std::string sp = spell(w.in, a.space);
  const auto& d = ops[0];
  if (accessBytes(w.in) == 16) {
    o << "  " << g << sp << " " << w.wide(d.name) << ", " << a.text << ";\n";
    o << "  " << g << "mov.b128 {" << w.reg(d.name) << ", %y7}, " << w.wide(d.name) << ";\n";
  } else if (valueBits(w.in) == 64) {
    o << "  " << g << sp << " " << w.reg(d.name) << ", " << a.text << ";\n";
  } else {
    o << "  " << g << sp << " %x7, " << a.text << ";\n  " << g << "cvt.u64.u32 " << w.reg(d.name) << ", %x7;\n";
  }
}

/// Texture fetch of element %ti<l> (linear-memory texture of 32-bit unsigned elements).
void emitTld(Writer& w) {
  w.need(2);
  const auto& ops = w.in.operands;
  const int l = w.thread.globalIndex(ops[1]);
  w.out() << "  " << w.guard << "tex.1d.v4.u32.s32 {%x7, %x4, %x5, %x6}, [%ht" << l << ", {%ti" << l << "}];\n";
  w.out() << "  " << w.guard << "cvt.u64.u32 " << w.reg(ops[0].name) << ", %x7;\n";
}

void emitSuld(Writer& w) {
  w.need(2);
  const auto& ops = w.in.operands;
  const int l = w.thread.globalIndex(ops[1]);
  w.out() << "  " << w.guard << "suld.b.2d.b32.trap {%x7}, [%hs" << l << ", {%sx" << l << ", %sy" << l << "}];\n";
  w.out() << "  " << w.guard << "cvt.u64.u32 " << w.reg(ops[0].name) << ", %x7;\n";
}

void emitCold(Writer& w) { w.thread.failConstant(w.in, w.in.operands.at(1)); }

/// `st [map], v` to a location holding a tensor map (Kernel::tensorMaps): installs descriptor version
/// v, the 128-byte CUtensorMap of v that the runner encoded for this cell, copied with weak generic
/// stores (as the host or an earlier kernel writes a descriptor; the generator allows only a weak st).
void emitDescriptorStore(Writer& w, const TensorMapRef& map, const Address& cell) {
  const int slot = map.spec->slotOf(w.in.operands[1].imm);
  if (slot < 0) throw DiagnosticError(w.in.operands[1].src, "descriptor version not among the tensor map's versions");
  auto& o = w.out();
  const std::string base = cell.text.substr(1, cell.text.size() - 2);
  o << "  add.u64 %y6, " << map.record << ", " << tmap::mapOffset(slot) << ";\n";
  for (int b = 0; b < tmap::kMapBytes; b += 16)
    o << "  " << w.guard << "ld.v2.u64 {%y1, %y2}, [%y6+" << b << "];\n  " << w.guard << "st.global.v2.u64 [" << base
      << "+" << b << "], {%y1, %y2};\n";
}

void emitSt(Writer& w) {
  w.need(2);
  const auto& ops = w.in.operands;
  auto a = w.address(ops[0]);
  if (const TensorMapRef map = w.thread.tensorMap(ops[0]); map.spec != nullptr) return emitDescriptorStore(w, map, a);
  if (accessBytes(w.in) == 16) throw DiagnosticError(w.in.src, "st.b128 is not supported by the stress kernel");
  std::string v = w.value(ops[1], valueBits(w.in));
  w.out() << "  " << w.guard << spell(w.in, a.space) << " " << a.text << ", " << v << ";\n";
}

/// Surface store of the cell (2D array element at the surface-map coordinates; .trap: a coordinate
/// out of the array is a fault, never a silent clamp).
void emitSust(Writer& w) {
  w.need(2);
  const auto& ops = w.in.operands;
  const int l = w.thread.globalIndex(ops[0]);
  std::string v = w.value(ops[1], 32);
  if (ops[1].kind != Operand::Kind::Reg) {
    w.out() << "  mov.b32 %x6, " << v << ";\n";
    v = "%x6";
  }
  w.out() << "  " << w.guard << "sust.b.2d.b32.trap [%hs" << l << ", {%sx" << l << ", %sy" << l << "}], {" << v
          << "};\n";
}

/// §9.7.9.26: `[addr], {ord,} new_val`, new_val .b64 for global_address/global_stride, else .b32 (an
/// immediate for the field3 forms); the map cell is 128 bytes, and 128-byte aligned (the runner's
/// stride is a multiple of the cell and its regions are page-aligned). On a location holding a tensor
/// map (Kernel::tensorMaps), `.global_address [map], v` installs descriptor version v: new_val is the
/// generic address of version v's box in this instance's record.
void emitTensormapReplace(Writer& w) {
  w.need(2);
  const auto& ops = w.in.operands;
  auto a = w.address(ops[0]);
  const bool wide = w.in.type == DataType::B64;
  if (const TensorMapRef map = w.thread.tensorMap(ops[0]); map.spec != nullptr) {
    const int slot = map.spec->slotOf(ops.back().imm);
    if (ops.back().kind != Operand::Kind::Imm || !w.in.hasFlag("global_address") || slot < 0)
      throw DiagnosticError(w.in.src,
                            "tensormap.replace on a tensor map installs an integer descriptor version "
                            "through .global_address");
    w.out() << "  add.u64 %y6, " << map.record << ", " << tmap::boxOffset(map.slots, slot) << ";\n";
    w.out() << "  " << w.guard << spell(w.in, a.space) << " " << a.text << ", %y6;\n";
    return;
  }
  std::string rest;
  for (size_t k = 1; k < ops.size(); ++k) rest += ", " + w.value(ops[k], k + 1 == ops.size() && wide ? 64 : 32);
  w.out() << "  " << w.guard << spell(w.in, a.space) << " " << a.text << rest << ";\n";
}

void emitAtom(Writer& w) {
  w.need(3);
  const auto& ops = w.in.operands;
  auto& o = w.out();
  const auto& g = w.guard;
  const int bits = valueBits(w.in);
  auto a = w.address(ops[1]);
  std::string v1 = w.value(ops[2], bits);
  std::string v2 = ops.size() > 3 ? ", " + w.value(ops[3], bits) : "";
  if (bits == 64) {
    o << "  " << g << spell(w.in, a.space) << " " << w.reg(ops[0].name) << ", " << a.text << ", " << v1 << v2 << ";\n";
  } else {
    o << "  " << g << spell(w.in, a.space) << " %x7, " << a.text << ", " << v1 << v2 << ";\n";
    o << "  " << g << "cvt.u64.u32 " << w.reg(ops[0].name) << ", %x7;\n";
  }
}

void emitRed(Writer& w) {
  w.need(2);
  const auto& ops = w.in.operands;
  auto a = w.address(ops[0]);
  const std::string v = w.value(ops[1], valueBits(w.in));  // a conversion goes before the line
  w.out() << "  " << w.guard << spell(w.in, a.space) << " " << a.text << ", " << v << ";\n";
}

/// suatom / sured: Dat3M's surface atomics; PTX has no atomic through a surface (the parser marks
/// them as dialect forms, which Generator.cpp refuses before any code is written).
void refuseSurfaceAtomic(Writer& w) {
  throw DiagnosticError(w.in.src, std::string(ptx::opInfo(w.in.op).mnemonic) +
                                      ": a Dat3M surface atomic has no PTX counterpart, so the stress kernel "
                                      "cannot run it (litmus/README.md)");
}

constexpr OpEmitter kRead[] = {
    {OpId::Ld, emitLd}, {OpId::Tld, emitTld}, {OpId::Suld, emitSuld}, {OpId::Cold, emitCold}};
constexpr OpEmitter kWrite[] = {
    {OpId::St, emitSt}, {OpId::Sust, emitSust}, {OpId::TensormapReplace, emitTensormapReplace}};
constexpr OpEmitter kRmw[] = {{OpId::Atom, emitAtom},
                              {OpId::Red, emitRed},
                              {OpId::Suatom, refuseSurfaceAtomic},
                              {OpId::Sured, refuseSurfaceAtomic}};
static_assert(coversFamily(kRead, OpFamily::Read), "every Read row of PtxOps.def needs its emitter in kRead");
static_assert(coversFamily(kWrite, OpFamily::Write), "every Write row of PtxOps.def needs its emitter in kWrite");
static_assert(coversFamily(kRmw, OpFamily::Rmw), "every Rmw row of PtxOps.def needs its emitter in kRmw");

/// ld and st: weak without a scope, relaxed with one; a strong access without a scope is .gpu; .b32.
void accessDefaults(Qualifiers& q) {
  using ptx::Scope;
  using ptx::Sem;
  if (q.sem == Sem::None) q.sem = q.scope == Scope::None ? Sem::Weak : Sem::Relaxed;
  if (q.sem == Sem::Weak || q.sem == Sem::Volatile)
    q.scope = Scope::None;
  else if (q.sem == Sem::Mmio)
    q.scope = Scope::Sys;
  else if (q.scope == Scope::None)
    q.scope = Scope::Gpu;
  if (q.type == DataType::None) q.type = DataType::B32;
}

}  // namespace

void emitRead(Writer& w) { emitFrom(kRead, w); }
void emitWrite(Writer& w) { emitFrom(kWrite, w); }
void emitRmw(Writer& w) { emitFrom(kRmw, w); }

void regsRead(const Instr& in, Regs& regs) {
  if (in.op == OpId::Ld && in.type == DataType::B128) regs.addWide(in.operands[0]);
}
void regsWrite(const Instr&, Regs&) {}
void regsRmw(const Instr&, Regs&) {}

void defaultsRead(const Instr& in, Qualifiers& q) {
  if (in.op == OpId::Ld) accessDefaults(q);
}

void defaultsWrite(const Instr& in, Qualifiers& q) {
  if (in.op == OpId::St) accessDefaults(q);
  if (in.op == OpId::TensormapReplace && in.hasFlag("swizzle_atomicity")) q.minPtx = 86;
}

/// atom and red: relaxed (a weak Dat3M form too) at .gpu; .u32 for arithmetic operations, else .b32.
void defaultsRmw(const Instr& in, Qualifiers& q) {
  if (in.op != OpId::Atom && in.op != OpId::Red) return;
  if (q.sem == ptx::Sem::None || q.sem == ptx::Sem::Weak) q.sem = ptx::Sem::Relaxed;
  if (q.scope == ptx::Scope::None) q.scope = ptx::Scope::Gpu;
  if (q.type == DataType::None) {
    const bool arithmetic =
        in.hasFlag("add") || in.hasFlag("inc") || in.hasFlag("dec") || in.hasFlag("min") || in.hasFlag("max");
    q.type = arithmetic ? DataType::U32 : DataType::B32;
  }
}

}  // namespace ptxmm::ptxgen::emit
