// The generator's per-instruction code, internal to ptxgen/: one file per family group of
// ptx/PtxOps.def, each with three entry points per family F of the .def's family column:
//   emitF(Writer&)                     the instruction's PTX text in the stress kernel;
//   regsF(const Instr&, Regs&)         the predicate and .b128 registers it needs declared (called
//                                      for instructions with operands; collectRegs adds the guard);
//   defaultsF(const Instr&, Qualifiers&)  the PTX defaults spell() writes out for it.
// Emit.cpp dispatches an OpId to its family with switches generated from PtxOps.def (no `default:`;
// ptxgen compiles with -Werror=switch). Each emitF routes the family's ops through a table of
// OpEmitter whose coverage of the family's rows is a static_assert, so a row that the generator does
// not handle fails to compile. An op that truly has no stress-kernel form has an emitter that throws
// its reason at the instruction (DiagnosticError).
#pragma once

#include <cstddef>
#include <iterator>
#include <ostream>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "litmus/Ast.hpp"
#include "ptx/Ops.hpp"
#include "ptxgen/Kernel.hpp"

namespace ptxmm::ptxgen::emit {

using litmus::Instr;
using litmus::Operand;

// ---------------------------------------------------------------- names shared with Generator.cpp

/// `s` with every character other than a letter or digit replaced by '_'.
[[nodiscard]] std::string sanitize(std::string_view s);
/// The kernel registers of litmus register `name` of thread t: its 64-bit value (%v), its predicate
/// (%q: setp, mbarrier waits, guards) and its .b128 form (%h: ld.b128, clusterlaunchcontrol responses).
[[nodiscard]] std::string valueReg(int t, std::string_view name);
[[nodiscard]] std::string predReg(int t, std::string_view name);
[[nodiscard]] std::string wideReg(int t, std::string_view name);
/// The .f32 accumulator register i (0..3) of wgmma.mma_async whose modelled element is litmus register `name`
/// (declared by the generator as `.reg .f32 %wf<t>_<name>_<4>`).
[[nodiscard]] std::string wgmmaAccReg(int t, std::string_view name, int i);
/// The modelled accumulator of wgmma.mma_async `in`: d0 of `{d0, d1, d2, d3}`, or a lone operand (Wgmma.cpp).
[[nodiscard]] const Operand& wgmmaAccumulator(const Instr& in);

/// True for an operand that names memory (`[x]`, `[r1+4]`, or a bare location).
[[nodiscard]] inline bool isAddress(const Operand& op) {
  return op.kind == Operand::Kind::Addr || op.kind == Operand::Kind::Loc;
}

// ---------------------------------------------------------------- what the emitters are given

/// A memory operand as the kernel writes it, and the state space it is in.
struct Address {
  std::string text;  ///< "[%ga0+4]", "[%sa1]", "[%sr1_2]"
  ptx::Space space = ptx::Space::Global;
  /// The register and the signed offset: "[%ga0+4]" -> {"%ga0", "+4"}, "[%sa1]" -> {"%sa1", ""}.
  [[nodiscard]] std::pair<std::string, std::string> split() const;
};

/// A tensor map as the emitters see it (ptxgen/Kernel.hpp TensorMapSpec, namespace tmap).
struct TensorMapRef {
  const TensorMapSpec* spec = nullptr;  ///< nullptr: the location holds no tensor map
  std::string record;                   ///< register: generic address of this instance's record
  int slots = 0;                        ///< Kernel::tensorSlots (the record layout)
};

/// The kernel around a litmus thread, as bar.sync / bar.arrive need it.
struct Shape {
  int groupsPerBlock = 1;  ///< testing warp groups per CTA (each has its own named barriers)
  int ctaThreads = 1;      ///< litmus threads in this thread's CTA
  int laneStride = 32;     ///< lanes given to one litmus thread
  int lane = 0;       ///< the litmus thread's lane among its warp's litmus threads (its lanes: lane * laneStride + o)
  int warpLanes = 1;  ///< litmus threads in its warp
};

/// The generator's side of writing the code of one litmus thread (implemented in Generator.cpp).
class Thread {
 public:
  virtual ~Thread() = default;
  /// The litmus thread's number (its registers and labels are named after it).
  [[nodiscard]] virtual int index() const = 0;
  virtual std::ostream& out() = 0;
  /// The kernel address of location operand `op` of `in`; throws for a location it cannot place.
  virtual Address address(const Instr& in, const Operand& op) = 0;
  /// Source value `op` (immediate, special register or register) at `bits` (32 or 64) width. A
  /// register read at 32 bits is first converted (the cvt is written now) into the scratch register
  /// %x<tmp % 8>, and `tmp` advances.
  virtual std::string value(const Operand& op, int bits, int& tmp) = 0;
  /// The generic address of global location operand `op` (the cvta is written now): the tensor map of
  /// cp.async.bulk.tensor and the range of fence.proxy.tensormap::generic.acquire use generic addressing.
  virtual std::string genericAddress(const Instr& in, const Operand& op) = 0;
  /// The tensor map held by the location that `op` names (spec nullptr if none, Kernel::tensorMaps).
  [[nodiscard]] virtual TensorMapRef tensorMap(const Operand& op) const = 0;
  /// Index into Kernel::globals of the location that a surface / texture alias operand names.
  [[nodiscard]] virtual int globalIndex(const Operand& op) const = 0;
  /// Throws why `in`, a constant-proxy read of `loc`, cannot be run.
  [[noreturn]] virtual void failConstant(const Instr& in, const Operand& loc) = 0;
  [[nodiscard]] virtual Shape shape() const = 0;
  /// A jump to label `target` of this thread under `guard` ("@%pt " or ""); a backward jump counts
  /// against the spin bound and leaves for the thread's timeout exit once it is exceeded.
  virtual void jump(const Operand& target, const std::string& guard) = 0;
  /// The label after the thread's code (where its registers are stored).
  [[nodiscard]] virtual std::string endLabel() const = 0;
  /// The litmus thread's statements (wgmma: the accumulators a wgmma.wait_group writes back).
  [[nodiscard]] virtual const std::vector<litmus::Stmt>& statements() const = 0;
};

/// One instruction being written: the instruction, its guard and the thread it belongs to.
class Writer {
 public:
  Writer(Thread& thread, const Instr& in);

  Thread& thread;
  const Instr& in;
  const std::string guard;  ///< "@%q0_p " or "@!%q0_p " when guarded, else ""

  std::ostream& out() { return thread.out(); }
  /// Throws unless the instruction has at least `n` operands.
  void need(size_t n) const;
  Address address(const Operand& op) { return thread.address(in, op); }
  std::string genericAddress(const Operand& op) { return thread.genericAddress(in, op); }
  /// A source value (Thread::value; the scratch registers count up within the instruction).
  std::string value(const Operand& op, int bits) { return thread.value(op, bits, tmp_); }
  [[nodiscard]] std::string reg(std::string_view name) const { return valueReg(thread.index(), name); }
  [[nodiscard]] std::string pred(std::string_view name) const { return predReg(thread.index(), name); }
  [[nodiscard]] std::string wide(std::string_view name) const { return wideReg(thread.index(), name); }
  /// The instruction spelled out, without operands: "  <guard><spelling>;".
  void bare();
  /// Copies predicate register `name` into its 64-bit value register (1 or 0), under the guard.
  void mirrorPred(std::string_view name);

 private:
  int tmp_ = 0;
};

/// The registers of a litmus thread that are declared besides the .b64 value registers.
struct Regs {
  std::set<std::string>& preds;  ///< .pred (predReg)
  std::set<std::string>& wide;   ///< .b128 (wideReg)
  /// Adds `op` to `preds` / `wide` if it is a register.
  void addPred(const Operand& op) const;
  void addWide(const Operand& op) const;
};

/// The qualifiers spell() writes: the instruction's own, with the PTX defaults it leaves implicit
/// written out (the defaultsF hooks fill them in; the kernel never relies on an implicit default).
struct Qualifiers {
  ptx::Sem sem = ptx::Sem::None;             ///< None: no semantics written
  ptx::Scope scope = ptx::Scope::None;       ///< None: no scope written
  ptx::Space space = ptx::Space::Generic;    ///< the state space ("space" or "dstspace" group); Generic: none
  ptx::DataType type = ptx::DataType::None;  ///< None: no type written
  /// The qualifier written for a group when the instruction names none of it, e.g. {"cacheop", ".ca"}.
  std::vector<std::pair<std::string_view, std::string_view>> groupDefaults;
  /// The PTX ISA version (major*10+minor) these qualifiers need beyond the row's minimum (0: none).
  int minPtx = 0;

  /// Fills in the semantics and the scope where the instruction gives none.
  void defaultSemScope(ptx::Sem s, ptx::Scope sc) {
    if (sem == ptx::Sem::None) sem = s;
    if (scope == ptx::Scope::None) scope = sc;
  }
  /// The default of `group` ("" if none).
  [[nodiscard]] std::string_view groupDefault(std::string_view group) const {
    for (const auto& [g, q] : groupDefaults)
      if (g == group) return q;
    return {};
  }
};

// ---------------------------------------------------------------- dispatch (Emit.cpp, generated)

/// Writes `w.in`.
void emitInstruction(Writer& w);

/// wgmma / tcgen05: the 64-bit shared-memory matrix descriptor of operand `op` into register `dst`: an
/// immediate as is; a litmus register (holding the matrix's .shared::cta address) as (address & 0x3FFFF) >> 4
/// in bits 0-13, or-ed with `fields` (the other descriptor fields). PTX ISA 9.2 §9.7.15.5.1, §9.7.16.
void matrixDescriptor(Writer& w, const Operand& op, const char* dst, uint64_t fields);
/// Adds the predicate and .b128 registers that `in` names (its guard included) to `regs`.
void collectRegs(const Instr& in, Regs& regs);
/// The qualifiers spell() writes for `in`; `spaceOverride` replaces a generic state space.
[[nodiscard]] Qualifiers qualifiers(const Instr& in, ptx::Space spaceOverride);

// ---------------------------------------------------------------- the families

// Three entry points per PTX_FAMILY row of PtxOps.def, defined in emit/<file>.cpp.
#define PTX_FAMILY(Name, file, role, doc)       \
  void emit##Name(Writer& w);                   \
  void regs##Name(const Instr& in, Regs& regs); \
  void defaults##Name(const Instr& in, Qualifiers& q);
#include "ptx/PtxOps.def"
#undef PTX_FAMILY

// AsyncCopy.cpp
/// `[tmap, {c...}]` naming the map by its generic address (the cvta is written now; PTX ISA 9.2
/// §9.7.9.25.5.2: "tensorMap is the generic address of the opaque tensor-map object"); throws for a
/// location that holds no runner-encoded map.
[[nodiscard]] std::string tensorMapOperand(Writer& w, const Operand& map);

// Local.cpp
/// The spelling of a register-only instruction (spell() of family Local).
[[nodiscard]] std::string spellLocal(const Instr& in);

// Spelling.cpp
/// Does qualifier `flag` (without its dot) belong to qualifier group `group`?
[[nodiscard]] bool flagInGroup(std::string_view group, std::string_view flag);

// ---------------------------------------------------------------- a family's table of emitters

/// The emitter of one op in its family's table.
struct OpEmitter {
  ptx::OpId op;
  void (*emit)(Writer&);
};

/// True if `table` lists every row of `family` exactly once and no row of another family (ptx/Ops.hpp).
consteval bool coversFamily(std::span<const OpEmitter> table, ptx::OpFamily family) {
  return ptx::coversFamily<OpEmitter>(table, family);
}

/// Runs the emitter of `w.in.op` in `table` (a family's table, checked with coversFamily).
void emitFrom(std::span<const OpEmitter> table, Writer& w);

}  // namespace ptxmm::ptxgen::emit
