// ptxgen/emit: every row of ptx/PtxOps.def is either written in its own form or refused with a
// located reason (never written as something else, e.g. as a fence), and the per-family dispatch of
// register collection and spelling handles every row. The instructions are built from each row's
// operand signature and written against a stand-in for the generator's thread.
#include <catch2/catch.hpp>
#include <map>
#include <sstream>

#include "ptx/Ops.hpp"
#include "ptxgen/Kernel.hpp"
#include "ptxgen/emit/Emit.hpp"
#include "support/Diagnostic.hpp"

using namespace ptxmm;
using litmus::Instr;
using litmus::Operand;
using ptx::OpId;

namespace {

const SourceLoc kAt{"T.litmus", 3, 5};

/// The generator's side, reduced to fixed answers: location `s` is a shared::cta cell, any other a
/// global one, and `g` holds a tensor map (one version, record register %tr0); values are written as
/// they are.
class StandInThread final : public ptxgen::emit::Thread {
 public:
  std::ostringstream text;

  [[nodiscard]] int index() const override { return 0; }
  std::ostream& out() override { return text; }
  ptxgen::emit::Address address(const Instr&, const Operand& op) override {
    if (op.loc.name == "s") return {"[%sa0]", ptx::Space::SharedCta};
    return {"[%ga0]", ptx::Space::Global};
  }
  std::string value(const Operand& op, int, int&) override {
    return op.kind == Operand::Kind::Imm ? std::to_string(op.imm) : ptxgen::emit::valueReg(0, op.name);
  }
  [[nodiscard]] int globalIndex(const Operand&) const override { return 0; }
  std::string genericAddress(const Instr& in, const Operand& op) override {
    if (op.loc.name == "s") throw DiagnosticError(in.src, "'s' must be a global location here");
    text << "  cvta.global.u64 %y6, %ga0;\n";
    return "[%y6]";
  }
  [[nodiscard]] ptxgen::emit::TensorMapRef tensorMap(const Operand& op) const override {
    static const ptxgen::TensorMapSpec spec{0, 1, {1}, 0, -1, {}};
    if (op.loc.name != "g") return {};
    return {&spec, "%tr0", 1};
  }
  [[noreturn]] void failConstant(const Instr& in, const Operand&) override {
    throw DiagnosticError(in.src, "the constant proxy is read-only");
  }
  [[nodiscard]] ptxgen::emit::Shape shape() const override { return {}; }
  void jump(const Operand& target, const std::string& guard) override {
    text << "  " << guard << "bra $L0_" << target.name << ";\n";
  }
  [[nodiscard]] std::string endLabel() const override { return "$T0_end"; }
  [[nodiscard]] const std::vector<litmus::Stmt>& statements() const override { return code; }
  std::vector<litmus::Stmt> code;
};

/// An instruction of `op` with operands after its signature: registers r0 / p for destinations,
/// locations s (shared) then g (global) for addresses, `registerValues` ? r1 : 1 for source values;
/// optional operands only `withOptional`.
Instr instrOf(const ptx::OpInfo& op, bool withOptional, bool registerValues, std::vector<std::string> flags = {}) {
  Instr in;
  in.src = kAt;
  in.op = op.id;
  in.flags = std::move(flags);
  int addresses = 0;
  for (std::string_view code : ptx::operandSignature(op)) {
    if (code.ends_with('?') && !withOptional) continue;
    Operand o;
    o.src = kAt;
    switch (code[0]) {
      case 'd':
      case 'v':
        o.kind = Operand::Kind::Reg;
        o.name = "r0";
        break;
      case 'p':
        o.kind = Operand::Kind::Reg;
        o.name = "p";
        break;
      case 'a':
        o.kind = Operand::Kind::Addr;
        o.loc.name = addresses++ == 1 ? "g" : "s";
        break;
      case 'l':
        o.kind = Operand::Kind::Label;
        o.name = "L";
        break;
      case 's':
        if (registerValues) {
          o.kind = Operand::Kind::Reg;
          o.name = "r1";
        } else {
          o.imm = 1;
        }
        break;
      default: o.imm = 0;  // 'i'
    }
    in.operands.push_back(o);
  }
  // The forms that read shared memory into global memory (or prefetch global memory): `[g], [s]`.
  if (op.id == OpId::CpReduceAsyncBulk || op.id == OpId::TensormapCpFenceproxy || op.id == OpId::CpAsyncBulkPrefetch) {
    in.operands.at(0).loc.name = "g";
    if (op.id != OpId::CpAsyncBulkPrefetch) in.operands.at(1).loc.name = "s";
  }
  // The tensor forms name their map `[g, {0}]`: the load's second operand, the others' first.
  if (op.id == OpId::CpAsyncBulkTensor || op.id == OpId::CpReduceAsyncBulkTensor ||
      op.id == OpId::CpAsyncBulkPrefetchTensor) {
    Operand& map = in.operands.at(op.id == OpId::CpAsyncBulkTensor ? 1 : 0);
    map.loc.name = "g";
    Operand c;
    c.src = kAt;
    map.elems.push_back(c);
  }
  return in;
}

/// Rows that have no stress-kernel form at all.
bool alwaysRefused(OpId op) { return op == OpId::Cold || op == OpId::Suatom || op == OpId::Sured; }

/// Text that the form of `op` contains: the mnemonic, except where the kernel writes another instruction.
std::string expectedText(const ptx::OpInfo& op) {
  static const std::map<OpId, std::string> translated = {{OpId::Tld, "  tex.1d."},
                                                         {OpId::Suld, "  suld.b.2d."},
                                                         {OpId::Sust, "  sust.b.2d."},
                                                         {OpId::BarSync, "  barrier.sync %bar"},
                                                         {OpId::BarArrive, "  barrier.arrive %bar"},
                                                         {OpId::FenceProxyKind, "  fence.proxy.alias;"},
                                                         {OpId::Ret, "  bra $T0_end;"},
                                                         {OpId::Exit, "  bra $T0_end;"}};
  if (auto it = translated.find(op.id); it != translated.end()) return it->second;
  if (op.family == ptx::OpFamily::Branch) return "bra $L0_L;";  // beq ...: under @%pt
  return "  " + std::string(op.mnemonic);
}

bool isFence(const ptx::OpInfo& op) {
  // tensormap.cp_fenceproxy: a copy fused with a release proxy fence (its mnemonic says so)
  return op.family == ptx::OpFamily::Fence || op.family == ptx::OpFamily::ProxyFence ||
         op.family == ptx::OpFamily::TensormapCopy || op.family == ptx::OpFamily::Tcgen05Fence ||
         op.id == OpId::WgmmaFence;
}

}  // namespace

TEST_CASE("every row of PtxOps.def is written in its own form or refused at the instruction", "[ptxgen][emit]") {
  for (const ptx::OpInfo& op : ptx::allOps()) {
    INFO("op " << op.name);
    std::vector<Instr> variants;
    for (bool withOptional : {true, false})
      for (bool registerValues : {false, true}) variants.push_back(instrOf(op, withOptional, registerValues));
    if (op.id == OpId::FenceProxyKind) variants.push_back(instrOf(op, true, false, {"alias"}));
    if (op.id == OpId::Mapa) {  // mapa d, s, 1: its source is a shared variable
      Instr in = instrOf(op, true, false);
      in.operands[1].kind = Operand::Kind::Loc;
      in.operands[1].loc.name = "s";
      variants.push_back(in);
    }
    int written = 0;
    for (const Instr& variant : variants) {
      // The thread's code is this one instruction (the .aligned forms look for it there).
      StandInThread thread;
      thread.code.push_back(litmus::Stmt{"", variant, kAt});
      const Instr& in = *thread.code.back().instr;
      ptxgen::emit::Writer w(thread, in);
      try {
        ptxgen::emit::emitInstruction(w);
      } catch (const DiagnosticError& e) {
        INFO(e.what());
        CHECK(e.diagnostic().loc == kAt);
        continue;
      }
      ++written;
      const std::string text = thread.text.str();
      INFO(text);
      CHECK(text.find(expectedText(op)) != std::string::npos);
      if (!isFence(op)) {
        CHECK(text.find("fence") == std::string::npos);
        CHECK(text.find("membar") == std::string::npos);
      }
    }
    if (alwaysRefused(op.id))
      CHECK(written == 0);
    else
      CHECK(written > 0);
  }
}

TEST_CASE("register collection and spelling dispatch every row", "[ptxgen][emit]") {
  for (const ptx::OpInfo& op : ptx::allOps()) {
    INFO("op " << op.name);
    const Instr in = instrOf(op, true, true);
    std::set<std::string> preds, wide;
    ptxgen::emit::Regs regs{preds, wide};
    CHECK_NOTHROW(ptxgen::emit::collectRegs(in, regs));
    CHECK(ptxgen::spell(in).rfind(op.mnemonic, 0) == 0);
    CHECK(ptxgen::minPtxVersion(in) >= op.minTarget.ptx);
  }
}

TEST_CASE("a proxy fence PTX cannot encode is refused with the reason", "[ptxgen][emit]") {
  const Instr in = instrOf(ptx::opInfo(OpId::FenceProxyKind), true, false, {"surface"});
  StandInThread thread;
  ptxgen::emit::Writer w(thread, in);
  CHECK_THROWS_WITH(ptxgen::emit::emitInstruction(w), Catch::Contains("T.litmus:3:5") &&
                                                          Catch::Contains("fence.proxy.surface") &&
                                                          Catch::Contains("no PTX encoding"));
  CHECK(thread.text.str().empty());
}

TEST_CASE("tensor copies name their map by its generic address; the store form is ready for its parser rows",
          "[ptxgen][emit][tensormap]") {
  auto addr = [](const std::string& loc, std::vector<int64_t> coords = {}) {
    Operand o;
    o.kind = Operand::Kind::Addr;
    o.loc.name = loc;
    o.src = kAt;
    for (int64_t c : coords) {
      Operand e;
      e.imm = c;
      e.src = kAt;
      o.elems.push_back(e);
    }
    return o;
  };
  Instr load;
  load.src = kAt;
  load.op = OpId::CpAsyncBulkTensor;
  load.flags = {"2d", "tile", "mbarrier::complete_tx::bytes"};
  load.space = ptx::Space::SharedCluster;
  load.srcSpace = ptx::Space::Global;
  load.operands = {addr("s"), addr("g", {0, 0}), addr("s")};
  {
    StandInThread thread;
    ptxgen::emit::Writer w(thread, load);
    ptxgen::emit::emitInstruction(w);
    CHECK(thread.text.str() ==
          "  cvta.global.u64 %y6, %ga0;\n"
          "  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%sa0], [%y6, {0, 0}], "
          "[%sa0];\n");
  }
  // `cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [tmap, {c}], [srcMem]` (PTX ISA 9.2
  // §9.7.9.25.5.2), as the parser will give it once its rows accept the store direction.
  Instr store;
  store.src = kAt;
  store.op = OpId::CpAsyncBulkTensor;
  store.flags = {"1d", "tile", "bulk_group"};
  store.space = ptx::Space::Global;
  store.srcSpace = ptx::Space::SharedCta;
  store.operands = {addr("g", {0}), addr("s")};
  {
    StandInThread thread;
    ptxgen::emit::Writer w(thread, store);
    ptxgen::emit::emitInstruction(w);
    CHECK(thread.text.str() ==
          "  cvta.global.u64 %y6, %ga0;\n"
          "  cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%y6, {0}], [%sa0];\n");
  }
  // A location that holds no tensor map is refused at the instruction.
  load.operands[1] = addr("h", {0, 0});
  StandInThread thread;
  ptxgen::emit::Writer w(thread, load);
  CHECK_THROWS_WITH(ptxgen::emit::emitInstruction(w),
                    Catch::Contains("T.litmus:3:5") && Catch::Contains("holds no tensor map"));
}
