// The litmus front end: layouts, spellings, instruction decoding into Instr fields.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "litmus/Parser.hpp"
#include "litmus/Printer.hpp"

using namespace ptxmm;
using namespace ptxmm::litmus;
using ptx::DataType;
using ptx::OpId;
using ptx::Scope;
using ptx::Sem;
using ptx::Space;
using K = Operand::Kind;

namespace {
const std::vector<std::string> kLocs = {"x", "y", "addr", "mbar", "bar", "dst", "src", "s"};
Instr in(const std::string& s) { return parseInstruction(s, kLocs, "t.litmus"); }
}  // namespace

TEST_CASE("column layout, Dat3M spelling", "[parser]") {
  Test t = parseTest(R"(PTX MP+rel+acq
"doc one" "doc two"
{ x = 0; y = 2; P1:r0 = 7; }
 P0@cta 0,gpu 0      | P1@cta 1,cluster 3,gpu 1,warp 2 ;
 st.weak x, 1        | ld.acquire.gpu r0, y   ;
 st.release.gpu y, 1 | LC00:                  ;
                     | ld.weak r1, x          ;
exists (1:r0 == 1 /\ 1:r1 == 0)
)",
                     "mp.litmus");
  CHECK(t.arch == "PTX");
  CHECK(t.name == "MP+rel+acq");
  CHECK(t.docs == std::vector<std::string>{"doc one", "doc two"});
  REQUIRE(t.locations.size() == 2);
  CHECK(t.locations[1].name == "y");
  CHECK(t.locations[1].init == 2);
  CHECK(t.locations[1].space == Space::Global);
  REQUIRE(t.regInits.size() == 1);
  CHECK(t.regInits[0].thread == 1);
  CHECK(t.regInits[0].value == 7);
  REQUIRE(t.threads.size() == 2);
  CHECK(t.threads[0].where == Placement{0, 0, 0, -1});  // missing cluster = cta id
  CHECK(t.threads[1].where == Placement{1, 3, 1, 2});
  REQUIRE(t.threads[0].code.size() == 2);
  REQUIRE(t.threads[1].code.size() == 3);
  CHECK(t.threads[1].code[1].label == "LC00");
  const Instr& st = *t.threads[0].code[0].instr;
  CHECK(st.op == OpId::St);
  CHECK(st.sem == Sem::Weak);
  REQUIRE(st.operands.size() == 2);
  CHECK(st.operands[0].kind == K::Addr);  // bare location in an address position
  CHECK(st.operands[0].loc.name == "x");
  CHECK(st.operands[1].kind == K::Imm);
  CHECK(st.operands[1].imm == 1);
  const Instr& ld = *t.threads[1].code[0].instr;
  CHECK(ld.op == OpId::Ld);
  CHECK(ld.sem == Sem::Acquire);
  CHECK(ld.scope == Scope::Gpu);
  CHECK(ld.operands[0].kind == K::Reg);
  CHECK(ld.operands[0].name == "r0");
  CHECK(ld.src.line == 5);
  CHECK(ld.src.col == 24);
  CHECK(ld.src.file == "mp.litmus");
  CHECK_FALSE(t.blockLayout);
  CHECK(t.condition.quant == Condition::Quant::Exists);
  REQUIRE(t.condition.prop.kind == Prop::Kind::And);
  CHECK(t.condition.prop.kids[0].lhs.kind == Term::Kind::Reg);
  CHECK(t.condition.prop.kids[0].lhs.thread == 1);
  CHECK(t.condition.prop.kids[0].lhs.reg == "r0");
  CHECK(t.condition.prop.kids[0].rhs.value == 1);
}

TEST_CASE("block layout, PTX spelling, init items", "[parser]") {
  Test t = parseTest(R"(PTX blocks
{
  .global g = 1;
  .shared s = 0;
  .shared t@cta1 = 4;
  .mbarrier bar = 2;
  .mbarrier one@cta0 = 1;
  .clc_pending 4, 0x6;
  y @ generic aliases g;
  v @ surface aliases g;
  P0:r1 = g;
  1:r2 = t@cta1;
}
P0@cta 0,cluster 0,gpu 0:
    @p bra done;   (* forward branch *)
    st.relaxed.gpu.global.u32 [g+4], 1; ld.weak r0, [s@cta1];
done:
    @!q ret;
P1@cta 1,cluster 0,gpu 0:
back: mov.u32 r0, %cluster_ctaid.x
    bra back
~exists (0:r0 = 1 \/ s@cta1 = 2 \/ y = 1)
)",
                     "b.litmus");
  CHECK(t.blockLayout);
  REQUIRE(t.locations.size() == 7);
  CHECK(t.locations[1].space == Space::SharedCta);
  CHECK(t.locations[1].ownerCta == -1);
  CHECK(t.locations[2].ownerCta == 1);
  CHECK(t.locations[2].init == 4);
  CHECK(t.locations[3].isMbarrier);
  CHECK(t.locations[3].mbarCount == 2);
  CHECK(t.locations[4].ownerCta == 0);
  CHECK(t.locations[5].aliasOf == "g");
  CHECK(t.locations[5].aliasProxy == ptx::Proxy::Generic);
  CHECK(t.locations[6].aliasProxy == ptx::Proxy::Surface);
  CHECK(t.clcPending == std::vector<int64_t>{4, 6});
  REQUIRE(t.regInits.size() == 2);
  REQUIRE(t.regInits[0].addressOf);
  CHECK(t.regInits[0].addressOf->name == "g");
  CHECK(t.regInits[1].addressOf->cta == 1);
  REQUIRE(t.threads[0].code.size() == 5);
  const Instr& br = *t.threads[0].code[0].instr;
  CHECK(br.op == OpId::Bra);
  REQUIRE(br.guard);
  CHECK(br.guard->pred == "p");
  CHECK_FALSE(br.guard->negated);
  CHECK(br.operands[0].kind == K::Label);
  const Instr& st = *t.threads[0].code[1].instr;
  CHECK(st.space == Space::Global);
  CHECK(st.type == DataType::U32);
  CHECK(st.operands[0].imm == 4);
  const Instr& ld = *t.threads[0].code[2].instr;
  CHECK(ld.operands[1].loc == LocRef{"s", 1});
  CHECK(t.threads[0].code[4].instr->guard->negated);
  CHECK(t.threads[1].code[0].label == "back");
  CHECK(t.threads[1].code[1].instr->operands[1].kind == K::Special);
  CHECK(t.threads[1].code[1].instr->operands[1].name == "%cluster_ctaid.x");
  CHECK(t.condition.quant == Condition::Quant::NotExists);
}

TEST_CASE("instructions of the seeds decode into Instr fields", "[parser]") {
  SECTION("try_cancel multicast with guard") {
    Instr i =
        in("@p0 clusterlaunchcontrol.try_cancel.async.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 "
           "[addr], [mbar]");
    CHECK(i.op == OpId::ClcTryCancel);
    CHECK(i.type == DataType::B128);
    CHECK(i.hasFlag("async"));
    CHECK(i.hasFlag("mbarrier::complete_tx::bytes"));
    CHECK(i.hasFlag("multicast::cluster::all"));
    CHECK(i.flags == std::vector<std::string>{"async", "mbarrier::complete_tx::bytes", "multicast::cluster::all"});
    CHECK(i.guard->pred == "p0");
    CHECK(i.operands[1].loc.name == "mbar");
  }
  SECTION("try_cancel with .shared::cta") {
    Instr i =
        in("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::"
           "all.b128 [addr], [mbar]");
    CHECK(i.space == Space::SharedCta);
  }
  SECTION("query_cancel forms") {
    Instr a = in("clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, handle");
    CHECK(a.op == OpId::ClcQueryCancel);
    CHECK(a.flags == std::vector<std::string>{"is_canceled", "pred"});
    CHECK(a.type == DataType::B128);
    Instr b = in("clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {x1, _, _, _}, handle");
    CHECK(b.flags == std::vector<std::string>{"get_first_ctaid", "v4", "b32"});
    REQUIRE(b.operands[0].kind == K::Vector);
    REQUIRE(b.operands[0].elems.size() == 4);
    CHECK(b.operands[0].elems[0].name == "x1");
    CHECK(b.operands[0].elems[1].kind == K::Sink);
    Instr c = in("clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 r, handle");
    CHECK(c.hasFlag("get_first_ctaid::x"));
    CHECK(c.operands[0].kind == K::Reg);
  }
  SECTION("mbarrier") {
    Instr a = in("mbarrier.arrive.expect_tx.release.cluster.shared::cta.b64 state, [bar], 16");
    CHECK(a.op == OpId::MbarrierArrive);
    CHECK(a.sem == Sem::Release);
    CHECK(a.scope == Scope::Cluster);
    CHECK(a.space == Space::SharedCta);
    CHECK(a.type == DataType::B64);
    CHECK(a.hasFlag("expect_tx"));
    CHECK(a.operands.size() == 3);
    Instr b = in("mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [bar], 0");
    CHECK(b.op == OpId::MbarrierTryWait);
    CHECK(b.hasFlag("parity"));
    CHECK(b.sem == Sem::Acquire);
    CHECK(b.scope == Scope::Cta);
    Instr c = in("mbarrier.try_wait.cluster.acquire.shared::cta.b64 complete, [mbar], state");
    CHECK(c.scope == Scope::Cluster);
    CHECK(c.sem == Sem::Acquire);
    CHECK_FALSE(c.hasFlag("parity"));
    Instr d = in("mbarrier.arrive.shared.b64 st, [bar]");  // PTX defaults .release.cta
    CHECK(d.sem == Sem::Release);
    CHECK(d.scope == Scope::Cta);
    Instr e = in("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [bar]");
    CHECK(e.space == Space::SharedCluster);
    CHECK(e.operands[0].kind == K::Sink);
  }
  SECTION("fences") {
    Instr a = in("fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster");
    CHECK(a.op == OpId::FenceProxyAsyncGen);
    CHECK(a.sem == Sem::Release);
    CHECK(a.scope == Scope::Cluster);
    CHECK(a.hasFlag("sync_restrict::shared::cta"));
    Instr b = in("fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster");
    CHECK(b.sem == Sem::Acquire);
    CHECK(b.hasFlag("sync_restrict::shared::cluster"));
    Instr c = in("fence.proxy.async.shared::cta");
    CHECK(c.op == OpId::FenceProxyAsync);
    CHECK(c.space == Space::SharedCta);
    Instr d = in("fence.proxy.tensormap::generic.release.gpu");
    CHECK(d.op == OpId::FenceProxyTmap);
    CHECK(d.scope == Scope::Gpu);
    Instr e = in("fence.mbarrier_init.release.cluster");
    CHECK(e.op == OpId::FenceMbarrierInit);
    Instr f = in("fence.acquire.sync_restrict::shared::cluster.cluster");
    CHECK(f.op == OpId::Fence);
    CHECK(f.sem == Sem::Acquire);
    Instr g = in("fence.sc.cta");
    CHECK(g.sem == Sem::Sc);
    CHECK(g.scope == Scope::Cta);
    Instr h = in("fence.gpu");
    CHECK(h.sem == Sem::AcqRel);  // PTX default
    Instr m = in("membar.cta");
    CHECK(m.op == OpId::Membar);
    CHECK(m.flags == std::vector<std::string>{"cta"});
    Instr p = in("fence.proxy.surface");
    CHECK(p.op == OpId::FenceProxyKind);
    CHECK(p.hasFlag("surface"));
    CHECK(in("fence.proxy.alias").op == OpId::FenceProxyAlias);
  }
  SECTION("barriers and aliases") {
    CHECK(in("barrier.cluster.arrive.relaxed").sem == Sem::Relaxed);
    CHECK(in("barrier.cluster.arrive").sem == Sem::Release);
    CHECK(in("barrier.cluster.wait.acquire").op == OpId::BarrierClusterWait);
    for (const char* s : {"bar.sync 0", "bar.cta.sync 0", "barrier.sync 0", "barrier.cta.sync 0"})
      CHECK(in(s).op == OpId::BarSync);
    for (const char* s : {"bar.arrive 0, 2", "bar.cta.arrive 0, 2", "barrier.arrive 0, 2", "barrier.cta.arrive 0, 2"})
      CHECK(in(s).op == OpId::BarArrive);
  }
  SECTION("copies") {
    Instr a = in("cp.async.ca.shared.global [dst], [src], 4");
    CHECK(a.op == OpId::CpAsync);
    CHECK(a.space == Space::SharedCta);
    CHECK(a.srcSpace == Space::Global);
    CHECK(a.hasFlag("ca"));
    Instr b = in("cp.async.cg.shared::cta.global [dst], [src], 16");
    CHECK(b.hasFlag("cg"));
    Instr c =
        in("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
           "[dst], [src], 16, [mbar], 3");
    CHECK(c.op == OpId::CpAsyncBulk);
    CHECK(c.space == Space::SharedCluster);
    CHECK(c.srcSpace == Space::Global);
    CHECK(c.hasFlag("multicast::cluster"));
    CHECK(c.operands.size() == 5);
    Instr d = in("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [dst], [src], 16, [mbar]");
    CHECK(d.space == Space::SharedCta);
    Instr e = in("cp.async.bulk.global.shared::cta.bulk_group [dst], [src], 16");
    CHECK(e.space == Space::Global);
    CHECK(e.srcSpace == Space::SharedCta);
    CHECK(e.hasFlag("bulk_group"));
    Instr f = in("cp.async.bulk.wait_group.read 0");
    CHECK(f.op == OpId::CpAsyncBulkWait);
    CHECK(f.hasFlag("read"));
    CHECK(in("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar]").op == OpId::CpAsyncMbarArrive);
    CHECK(in("cp.async.commit_group").op == OpId::CpAsyncCommit);
    CHECK(in("cp.async.bulk.commit_group").op == OpId::CpAsyncBulkCommit);
  }
  SECTION("locals") {
    Instr a = in("setp.u32.eq p0, %r0, 0x0");
    Instr b = in("setp.eq.u32 p0, %r0, 0x0");
    CHECK(a.op == OpId::Setp);
    CHECK(a.flags == b.flags);
    CHECK(a.type == b.type);
    CHECK(a.operands[1].kind == K::Reg);
    CHECK(a.operands[1].name == "%r0");
    Instr m = in("mov.b32 xctaid, %ctaid.x");
    CHECK(m.operands[1].kind == K::Special);
    CHECK(m.operands[1].name == "%ctaid.x");
    Instr atom = in("atom.relaxed.gpu.cas r1, x, 0, 1");
    CHECK(atom.op == OpId::Atom);
    CHECK(atom.hasFlag("cas"));
    CHECK(atom.operands.size() == 4);
    Instr a2 = in("atom.global.add.u32 r1, [x], 1");  // PTX default: .relaxed.gpu
    CHECK(a2.sem == Sem::Relaxed);
    CHECK(a2.scope == Scope::Gpu);
    Instr neg = in("add.s32 r, r, -5");
    CHECK(neg.operands[2].imm == -5);
    Instr l = in("mov.u64 r, x");  // address of a location as a value
    CHECK(l.operands[1].kind == K::Loc);
  }
}

namespace {
// Parses and returns the error text; fails the test if there was no error.
std::string err(const std::string& text) {
  ParseResult r = tryParseTest(text, "e.litmus");
  if (r.ok()) return "<no error>";
  REQUIRE(r.diagnostics.size() == 1);
  return r.diagnostics[0].str();
}
std::string ierr(const std::string& text) {
  try {
    (void)parseInstruction(text, kLocs, "i.litmus");
  } catch (const DiagnosticError& e) {
    return e.diagnostic().str();
  }
  return "<no error>";
}
std::string block(const std::string& body, const std::string& cond = "exists (x=0)") {
  return "PTX t\n{ x = 0; .shared s = 0; .mbarrier bar = 1; }\nP0@cta 0,cluster 0,gpu 0:\n" + body + "\n" + cond + "\n";
}
}  // namespace

TEST_CASE("errors point at the offending token", "[parser][errors]") {
  using Catch::Matchers::Contains;
  using Catch::Matchers::StartsWith;
  // Unknown instruction: closest known mnemonic.
  CHECK_THAT(ierr("mbarrier.try_wiat.acquire p, [bar], 0"), StartsWith("i.litmus:1:1: error: unknown instruction"));
  CHECK_THAT(ierr("mbarrier.try_wiat.acquire p, [bar], 0"), Contains("did you mean `mbarrier.try_wait`"));
  CHECK_THAT(ierr("clusterlaunchcontrol.try_cancl.async.b128 [addr], [mbar]"),
             Contains("`clusterlaunchcontrol.try_cancel`"));
  // Unknown / duplicate / conflicting qualifier, with its column.
  CHECK_THAT(ierr("ld.aquire.gpu r0, [x]"), StartsWith("i.litmus:1:4: error: unknown qualifier `.aquire`"));
  CHECK_THAT(ierr("ld.aquire.gpu r0, [x]"), Contains("did you mean `.acquire`"));
  CHECK_THAT(ierr("ld.acquire.gpu.gpu r0, [x]"), StartsWith("i.litmus:1:16: error: duplicate qualifier `.gpu`"));
  CHECK_THAT(ierr("ld.acquire.gpu.cta r0, [x]"), Contains("conflicting qualifier `.cta`"));
  CHECK_THAT(ierr("bar.sync.acquire 0"), Contains("unknown qualifier `.acquire` for `bar.sync`"));
  // sync_restrict rules, citing the PTX ISA.
  std::string e1 = ierr("fence.proxy.async::generic.acquire.sync_restrict::shared::cta.cluster");
  CHECK_THAT(e1, StartsWith("i.litmus:1:28: error: `.acquire` cannot be combined with `.sync_restrict::shared::cta`"));
  CHECK_THAT(e1, Contains("9.7.13.4"));
  CHECK_THAT(ierr("fence.release.sync_restrict::shared::cluster.cluster"),
             Contains("`.release` cannot be combined with `.sync_restrict::shared::cluster`"));
  CHECK_THAT(ierr("fence.release.sync_restrict::shared::cta.gpu"),
             StartsWith("i.litmus:1:42: error: scope `.gpu` is invalid with `.sync_restrict`"));
  CHECK_THAT(ierr("fence.proxy.async::generic.release.cluster"), Contains("needs `.sync_restrict::shared::cta`"));
  // Scopes and semantics.
  CHECK_THAT(ierr("ld.weak.gpu r0, [x]"), StartsWith("i.litmus:1:9: error: scope `.gpu` on a .weak `ld`"));
  CHECK_THAT(ierr("ld.relaxed r0, [x]"), StartsWith("i.litmus:1:4: error: `ld.relaxed` needs a scope"));
  CHECK_THAT(ierr("st.acquire.gpu [x], 1"), StartsWith("i.litmus:1:4: error: `st.acquire` is invalid"));
  CHECK_THAT(ierr("ld.release.gpu r0, [x]"), Contains("`ld.release` is invalid: ld accepts .weak"));
  CHECK_THAT(ierr("fence.sc"), Contains("needs a scope"));
  CHECK_THAT(ierr("red.relaxed.gpu.cas [x], 1"), Contains("`red` has no `.cas`"));
  CHECK_THAT(ierr("mbarrier.try_wait.release.cta.shared::cta.b64 p, [bar], 0"),
             Contains("`mbarrier.try_wait.release` is invalid"));
  CHECK_THAT(ierr("clusterlaunchcontrol.try_cancel.mbarrier::complete_tx::bytes.b128 [addr], [mbar]"),
             Contains("mandatory `.async`"));
  // atom.cas operand count.
  CHECK_THAT(ierr("atom.relaxed.gpu.cas r1, x, 0"), Contains("`atom.cas` takes 4 operands"));
  CHECK_THAT(ierr("atom.relaxed.gpu.add r1, x, 0, 1"), Contains("`atom` takes 3 operands"));
  CHECK_THAT(ierr("ld.weak r0"), Contains("expects operands (dest, [addr])"));
  // Unknown location in an address position.
  CHECK_THAT(ierr("ld.weak r0, zz"), StartsWith("i.litmus:1:13: error: `zz` is not a declared location"));
  CHECK_THAT(ierr("ld.weak x, [y]"), Contains("`x` is a declared location; expected a register"));
}

TEST_CASE("test-level errors", "[parser][errors]") {
  using Catch::Matchers::Contains;
  using Catch::Matchers::StartsWith;
  CHECK_THAT(err(block("    bra nowhere;")), StartsWith("e.litmus:4:9: error: undefined label `nowhere` in thread P0"));
  CHECK_THAT(err(block("L:\nL:")), Contains("duplicate label `L`"));
  CHECK_THAT(err(block("    st.weak [x], 1;", "exists (3:r0=1)")),
             StartsWith("e.litmus:5:9: error: undeclared thread 3"));
  CHECK_THAT(err(block("    st.weak [x], 1;", "exists (0:r9=1)")),
             Catch::Matchers::Equals("<no error>"));  // registers default to 0
  CHECK_THAT(err(block("    st.weak [x], 1;", "exists (zz=1)")),
             StartsWith("e.litmus:5:9: error: unknown location `zz`"));
  CHECK_THAT(err(block("    st.weak [x], 1;", "exists (s@cta4=1)")), Contains("CTA 4 has no thread"));
  CHECK_THAT(err(block("    st.weak [x], 1;", "")), Contains("missing final condition"));
  CHECK_THAT(err(block("    st.weak [x], 1;", "exists (x=1) junk")),
             Contains("unexpected text after the final condition"));
  CHECK_THAT(err("PTX t\n{ x = 0; }\nP0@cta 0:\nP0@cta 1:\nexists (x=0)\n"),
             StartsWith("e.litmus:4:1: error: duplicate thread name `P0`"));
  CHECK_THAT(err("PTX t\n{ x = 0; }\n P0@cta 0 | P1@cta 1 ;\n st.weak x, 1 ;\nexists (x=0)\n"),
             StartsWith("e.litmus:4:2: error: row has 1 column(s) but the header declares 2 thread(s)"));
  CHECK_THAT(err("PTX t\n{ x = 0; x = 1; }\n P0@cta 0 ;\nexists (x=0)\n"),
             Contains("duplicate declaration of location `x`"));
  CHECK_THAT(err("PTX t\n{ x = 0; a @ generic aliases b; b @ surface aliases a; }\n P0@cta 0 ;\nexists (x=0)\n"),
             Contains("cyclic aliases"));
  CHECK_THAT(err("PTX t\n{ x = 0; y @ generic aliases z; }\n P0@cta 0 ;\nexists (x=0)\n"),
             Contains("aliases undeclared location `z`"));
  CHECK_THAT(err("PTX t\n{ 2:r0 = 1; }\n P0@cta 0 ;\nexists (true)\n"), Contains("undeclared thread 2"));
  CHECK_THAT(err("PTX t\n{ x = 0 }\n P0@cta 0 | P1@cta 0,cluster 1 ;\nexists (x=0)\n"),
             Contains("names a different cluster or gpu"));
  CHECK_THAT(err("PTX t\n{ .mbarrier b; }\n P0@cta 0 ;\nexists (true)\n"), Contains("needs an arrival count"));
  CHECK_THAT(err("PTX t\n{ (* open comment }\n"), StartsWith("e.litmus:2:3: error: unterminated comment"));
  CHECK_THAT(err(""), Contains("empty litmus file"));
  CHECK_THAT(err("PTX t\n{ .clc_pending 2, 1; }\n P0@cta 0 | P1@cta 1 ;\nexists (true)\n"),
             StartsWith("e.litmus:2:3: error: `.clc_pending` CTA id 1 is a CTA of the test"));
  CHECK_THAT(err("PTX t\n{ .clc_pending 2, 2; }\n P0@cta 0 ;\nexists (true)\n"), Contains("duplicate `.clc_pending`"));
  CHECK_THAT(err("PTX t\n{ x = 0; }\n P0@cta 0 ;\n st.weak x, 1\nexists (x=0)\n"), Contains("not terminated by ';'"));
  CHECK_THAT(err("PTX t\n{ x = 0; }\n    st.weak [x], 1;\nP0:\nexists (x=0)\n"),
             StartsWith("e.litmus:3:5: error: expected a thread header"));
}

TEST_CASE("tensor copies and tensor-map updates", "[parser][tensormap]") {
  using Catch::Matchers::Contains;
  using Catch::Matchers::StartsWith;
  // The default load mode .tile is made explicit; qualifiers in any order; coordinates in the map operand.
  Instr t =
      in("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [x, {0, r1}], "
         "[mbar]");
  CHECK(t.op == OpId::CpAsyncBulkTensor);
  CHECK(t.space == Space::SharedCluster);
  CHECK(t.srcSpace == Space::Global);
  CHECK(t.flags == std::vector<std::string>{"2d", "tile", "mbarrier::complete_tx::bytes"});
  REQUIRE(t.operands.size() == 3);
  CHECK(t.operands[1].kind == K::Addr);
  CHECK(t.operands[1].loc.name == "x");
  REQUIRE(t.operands[1].elems.size() == 2);
  CHECK(t.operands[1].elems[0].kind == K::Imm);
  CHECK(t.operands[1].elems[1].kind == K::Reg);
  const std::string canonical =
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [dst], [x, {0, r1}], [mbar]";
  CHECK(printInstr(t) == canonical);
  CHECK(printInstr(in(canonical)) == canonical);
  // PTX ISA example order (.tile after the completion mechanism), multicast with its ctaMask.
  Instr m =
      in("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.tile "
         "[dst], [x, {7}], [mbar], 3");
  CHECK(printInstr(m) ==
        "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
        "[dst], [x, {7}], [mbar], 3");
  Instr r = in("tensormap.replace.tile.global_address.global.b1024.b64 [x], 2");
  CHECK(r.op == OpId::TensormapReplace);
  CHECK(r.space == Space::Global);
  CHECK(r.type == DataType::B64);
  CHECK(printInstr(r) == "tensormap.replace.tile.global_address.global.b1024.b64 [x], 2");
  Instr r2 = in("tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [s], 1, r3");
  CHECK(r2.space == Space::SharedCta);
  CHECK(r2.operands.size() == 3);
  CHECK(in("tensormap.replace.tile.swizzle_mode.b1024.b32 [x], 3").space == Space::Generic);
  // the tensor store form (PTX ISA 9.2 §9.7.9.25.5.2): `.tile` written out, map operand first
  Instr ts = in("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [x, {0}], [s]");
  CHECK(ts.hasFlag("tile"));
  CHECK(ts.operands[0].elems.size() == 1);

  // Errors: located, citing the PTX ISA section.
  CHECK_THAT(ierr("cp.async.bulk.tensor.1d.global.shared::cta.mbarrier::complete_tx::bytes [x, {0}], [s]"),
             Contains("the tensor store (`.global.shared::cta`) completes through `.bulk_group`"));
  // the tensor store form (PTX ISA 9.2 §9.7.9.25.5.2), accepted since r13-bulk
  CHECK(ierr("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [x, {0}], [s]") == "<no error>");
  CHECK_THAT(ierr("cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes "
                  "[dst], [x, {0, 0, 0}], [mbar]"),
             StartsWith("i.litmus:1:48: error: load mode `.im2col` is not supported"));
  CHECK_THAT(ierr("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [x, {0}], "
                  "[mbar]"),
             Contains("a `.2d` `.tile` copy takes 2 tensor coordinate(s), got 1"));
  CHECK_THAT(ierr("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [x], [mbar]"),
             Contains("names its tensor map as `[tensorMap, {c0, ...}]`"));
  CHECK_THAT(ierr("cp.async.bulk.tensor.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [x, {0}], [mbar]"),
             Contains("needs a dimension"));
  CHECK_THAT(ierr("cp.async.bulk.tensor.1d.shared::cta.global.mbarrier::complete_tx::bytes.multicast::cluster "
                  "[dst], [x, {0}], [mbar], 1"),
             Contains("`.multicast::cluster` needs the `.shared::cluster` destination"));
  CHECK_THAT(ierr("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [x, {x}], "
                  "[mbar]"),
             Contains("is a location; vector elements must be registers"));
  CHECK_THAT(ierr("ld.weak r0, [x, {0}]"), StartsWith("i.litmus:1:13: error: tensor coordinates `{...}` belong only"));
  CHECK_THAT(ierr("tensormap.replace.tile.global_address.global.b1024.b32 [x], 2"),
             StartsWith("i.litmus:1:52: error: `tensormap.replace.global_address` needs the type `.b64`"));
  CHECK_THAT(ierr("tensormap.replace.tile.box_dim.global.b1024.b32 [x], 2"), Contains("takes `[addr], ord, new_val`"));
  CHECK_THAT(ierr("tensormap.replace.tile.box_dim.global.b1024.b32 [x], r, 2"),
             Contains("the ordinal of `.box_dim` is an immediate in 0..4"));
  CHECK_THAT(ierr("tensormap.replace.tile.swizzle_mode.global.b1024.b32 [x], 5"),
             Contains("`.swizzle_mode` takes an immediate new_val in 0..4 (Table 33) (PTX ISA 9.2 §9.7.9.26)"));
  CHECK_THAT(ierr("tensormap.replace.tile.rank.shared::cluster.b1024.b32 [x], 2"),
             Contains("`tensormap.replace` accepts `.global` or `.shared::cta`"));
  CHECK_THAT(ierr("tensormap.replace.tile.rank.global.b32 [x], 2"), Contains("needs the object size `.b1024`"));
  CHECK_THAT(ierr("tensormap.replace.tile.global_address.global.b1024.b64 [x], y"),
             Contains("new_val must be a register or an integer"));
}
