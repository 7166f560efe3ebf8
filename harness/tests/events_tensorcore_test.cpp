// Event lowering of wgmma (families Wgmma, WgmmaSync) and tcgen05 (Tcgen05, Tcgen05Sync, Tcgen05Fence):
// async-proxy operand reads, the implicit proxy fence of wgmma only, register results, tensor memory,
// completion edges and the undefined-behaviour rules; the PTX rules of Validate.cpp.
#include <algorithm>
#include <catch2/catch.hpp>

#include "EventsTestSupport.hpp"
#include "events/Lower.hpp"
#include "litmus/Parser.hpp"
#include "support/Diagnostic.hpp"

using namespace ptxmm;
using namespace ptxmm::events;
using namespace ptxmm::events::testing;

namespace {

constexpr const char* kWgmma =
    "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {acc, _, _, _}, da, db, 0, 1, 1, 0, 0;";

std::string wgmmaTest(const std::string& body) {
  return "PTX wg\n{ .shared A = 2; .shared B = 3 }\nP0@cta 0,cluster 0,gpu 0:\n    mov.u64 da, A;\n    mov.u64 "
         "db, B;\n" +
         body + "exists (0:acc == 0)\n";
}

bool anyUndefined(const EventProgram& p, const std::string& what) {
  for (const auto& paths : p.paths)
    for (const auto& path : paths)
      for (const auto& [e, why] : path.undefinedIf)
        if (why.find(what) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("wgmma.mma_async: async-proxy operand reads, implicit proxy fence, acc = a*b, completed by wait_group",
          "[events][async][wgmma]") {
  auto l = lowerText(wgmmaTest(std::string("    wgmma.fence.sync.aligned;\n    ") + kWgmma +
                               "\n    wgmma.commit_group.sync.aligned;\n    wgmma.wait_group.sync.aligned 0;\n"));
  auto& p = l->prog;
  REQUIRE(p.asyncOps.size() == 1);
  const AsyncOp& a = p.asyncOps[0];
  CHECK(p.threads[static_cast<size_t>(a.thread)].where.cta == 0);
  REQUIRE(a.events.size() == 3);  // R A, R B, implicit proxy fence
  const Event& ra = p.events[a.events[0]];
  const Event& rb = p.events[a.events[1]];
  const Event& f = p.events[a.events[2]];
  for (const Event* r : {&ra, &rb}) {
    CHECK(r->type == EventType::Read);
    CHECK(r->proxy == ptx::Proxy::Async);
    CHECK(hasTag(*r, "ASYNC"));
    CHECK(hasTag(*r, "WGMMA"));
    CHECK(hasTag(*r, "SHARED"));
    CHECK_FALSE(hasTag(*r, "STRONG"));
  }
  CHECK(p.locations[ra.loc].name == "A@cta0");
  CHECK(p.locations[rb.loc].name == "B@cta0");
  CHECK(hasTag(f, "PF_ASYNC_IMPLICIT"));
  CHECK(hasTag(p.events[a.issuer], "ISSUE"));
  CHECK(hasTag(p.events[a.issuer], "WGMMA"));
  REQUIRE(tagged(p, "WGMMA_FENCE").size() == 1);
  auto waits = tagged(p, "WAIT");
  REQUIRE(waits.size() == 1);
  for (EventId e : a.events) CHECK(hasPair(p, "async-complete", e, waits[0]));
  // acc = A * B from the two async reads
  const auto& path = p.paths[0].at(0);
  std::vector<int64_t> rv(p.events.size(), 0);
  rv[ra.id] = 2;
  rv[rb.id] = 3;
  CHECK(evaluate(p.exprs, path.finalRegs.at("acc"), rv) == 6);
  CHECK(path.undefinedIf.empty());
}

TEST_CASE("wgmma: undefined behaviour of the accumulator and of a missing wgmma.fence", "[events][async][wgmma]") {
  const std::string fence = "    wgmma.fence.sync.aligned;\n";
  const std::string mma = std::string("    ") + kWgmma + "\n";
  const std::string commit = "    wgmma.commit_group.sync.aligned;\n";
  const std::string wait = "    wgmma.wait_group.sync.aligned 0;\n";
  // read before the wait
  CHECK(anyUndefined(lowerText(wgmmaTest(fence + mma + commit + "    add.u64 r1, acc, 1;\n" + wait))->prog,
                     "before the wgmma.wait_group"));
  // the thread ends without the wait
  CHECK(anyUndefined(lowerText(wgmmaTest(fence + mma + commit))->prog, "thread ends"));
  // no wgmma.fence before the first wgmma
  CHECK(anyUndefined(lowerText(wgmmaTest(mma + commit + wait))->prog, "without a prior wgmma.fence"));
  // a wait that does not cover the group (N = 1 with one group) leaves the read undefined
  CHECK(anyUndefined(lowerText(wgmmaTest(fence + mma + commit + "    wgmma.wait_group.sync.aligned 1;\n" +
                                         "    add.u64 r1, acc, 1;\n" + wait))
                         ->prog,
                     "before the wgmma.wait_group"));
  // scale-d 1 after writing the accumulator without a new wgmma.fence
  const std::string acc1 = "    wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {acc, _, _, _}, da, db, 1;\n";
  CHECK(anyUndefined(lowerText(wgmmaTest(fence + "    mov.u64 acc, 1;\n" + acc1 + commit + wait))->prog,
                     "written since the last wgmma.fence"));
  CHECK_FALSE(anyUndefined(lowerText(wgmmaTest("    mov.u64 acc, 1;\n" + fence + acc1 + commit + wait))->prog, ""));
  // a same-shape accumulation chain needs no fence in between
  CHECK_FALSE(anyUndefined(lowerText(wgmmaTest(fence + mma + acc1 + commit + wait))->prog, ""));
}

TEST_CASE("wgmma: PTX rules", "[events][async][wgmma]") {
  auto errorOf = [](const std::string& instr) {
    try {
      lowerText(wgmmaTest("    wgmma.fence.sync.aligned;\n    " + instr + "\n"));
    } catch (const DiagnosticError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(errorOf("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {acc, _, _, _}, da, db, 0;"),
             Catch::Contains("m64n8k16") && Catch::Contains("t.litmus:7:34"));
  CHECK_THAT(errorOf("wgmma.mma_async.m64n8k16.f32.f16.f16 {acc, _, _, _}, da, db, 0;"),
             Catch::Contains(".sync.aligned"));
  CHECK_THAT(errorOf("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {acc, _, _, _}, da, db, 0;"),
             Catch::Contains(".f16"));
  CHECK_THAT(errorOf("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {acc, _, _, _}, {a0, a1, a2, a3}, db, 0;"),
             Catch::Contains("do not fit"));  // A from registers: not in the operand signature
  CHECK_THAT(errorOf("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {acc}, da, db, 0;"),
             Catch::Contains("4 registers"));
  CHECK_THAT(errorOf("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {acc, _, _, _}, da, db, 2;"),
             Catch::Contains("scale-d"));
  CHECK_THAT(errorOf("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {acc, _, _, _}, da, db, 0, -1, 1, 0, 0;"),
             Catch::Contains("negated"));
  CHECK_THAT(errorOf("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {acc, _, _, _}, r9, db, 0;"),
             Catch::Contains("address of a shared location"));
  CHECK_THAT(errorOf("wgmma.wait_group.sync.aligned;"), Catch::Contains("§9.7.15.7.3"));
  CHECK_THAT(errorOf("wgmma.wait_group.sync.aligned -1;"), Catch::Contains("N >= 0"));
  CHECK(errorOf(kWgmma).empty());
}

namespace {

std::string tcTest(const std::string& p0, const std::string& p1 = "") {
  std::string t =
      "PTX tc\n{ .shared A = 2; .shared B = 3; .shared S = 1; .tmem D = 0; .mbarrier bar = 1; .global g = 0 "
      "}\nP0@cta 0,cluster 0,gpu 0:\n    mov.u64 da, A;\n    mov.u64 db, B;\n    mov.u64 ds, S;\n" +
      p0;
  if (!p1.empty()) t += "P1@cta 0,cluster 0,gpu 0:\n" + p1;
  return t + "exists (0:r0 == 0)\n";
}

}  // namespace

TEST_CASE("tcgen05: async ops, tensor memory, commit arrive and waits", "[events][async][tcgen05]") {
  auto l =
      lowerText(tcTest("    tcgen05.cp.cta_group::1.128x256b [D], ds;\n"
                       "    tcgen05.mma.cta_group::1.kind::f16 [D], da, db, 0, 1;\n"
                       "    tcgen05.fence::before_thread_sync;\n"
                       "    tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [bar];\n"
                       "    tcgen05.fence::after_thread_sync;\n"
                       "    tcgen05.ld.sync.aligned.32x32b.x1.b32 {r0}, [D];\n"
                       "    tcgen05.wait::ld.sync.aligned;\n"));
  auto& p = l->prog;
  REQUIRE(p.asyncOps.size() == 4);  // cp, mma, commit, ld
  const AsyncOp& cp = p.asyncOps[0];
  const AsyncOp& mma = p.asyncOps[1];
  const AsyncOp& commit = p.asyncOps[2];
  const AsyncOp& ld = p.asyncOps[3];
  REQUIRE(cp.events.size() == 2);   // R S (async), W D
  REQUIRE(mma.events.size() == 4);  // R A, R B (async), R D, W D
  const Event& rs = p.events[cp.events[0]];
  const Event& wd = p.events[cp.events[1]];
  CHECK(rs.proxy == ptx::Proxy::Async);
  CHECK(hasTag(rs, "SHARED"));
  CHECK(wd.proxy == ptx::Proxy::Generic);
  CHECK(hasTag(wd, "TMEM"));
  CHECK_FALSE(hasTag(wd, "SHARED"));
  CHECK(p.locations[wd.loc].isTmem);
  CHECK(hasTag(p.events[mma.events[0]], "ASYNC"));
  CHECK(hasTag(p.events[mma.events[2]], "TMEM"));
  for (const auto* op : {&cp, &mma}) CHECK(hasTag(p.events[op->issuer], "TC_PIPE"));
  CHECK(hasTag(p.events[mma.issuer], "TC_MMA"));
  CHECK_FALSE(hasTag(p.events[cp.issuer], "TC_MMA"));
  CHECK(tagged(p, "PF_ASYNC_IMPLICIT").empty());  // no implicit proxy fence for tcgen05
  // the commit's arrive (release.cluster, generic) is completed after the prior mma and cp
  REQUIRE(commit.events.size() == 2);
  const Event& ar = p.events[commit.events[0]];
  CHECK(hasTag(ar, "MB_ARRIVE"));
  CHECK(hasTag(ar, "TCGEN05"));
  CHECK(ar.sem == ptx::Sem::Release);
  CHECK(ar.scope == ptx::Scope::Cluster);
  for (const auto* op : {&cp, &mma})
    for (EventId e : op->events) {
      CHECK(hasPair(p, "async-complete", e, commit.events[0]));
      CHECK(hasPair(p, "async-complete", e, commit.events[1]));
    }
  // before_thread_sync: the earlier mma/cp are ordered before it
  auto before = tagged(p, "TC_BEFORE");
  REQUIRE(before.size() == 1);
  CHECK(hasPair(p, "async-complete", mma.events[3], before[0]));
  REQUIRE(tagged(p, "TC_AFTER").size() == 1);
  // wait::ld completes the ld; the ld's register holds its read
  auto waits = tagged(p, "WAIT");
  REQUIRE(waits.size() == 1);
  REQUIRE(ld.events.size() == 1);
  CHECK(hasPair(p, "async-complete", ld.events[0], waits[0]));
  CHECK(p.paths[0].at(0).finalRegs.at("r0") == p.exprs.readVal(ld.events[0]));
  // mma: D = A*B + D
  std::vector<int64_t> rv(p.events.size(), 0);
  rv[mma.events[0]] = 2;
  rv[mma.events[1]] = 3;
  rv[mma.events[2]] = 1;
  CHECK(evaluate(p.exprs, p.events[mma.events[3]].value, rv) == 7);
}

TEST_CASE("tcgen05: PTX rules and tensor memory", "[events][async][tcgen05]") {
  auto errorOf = [](const std::string& instr) {
    try {
      lowerText(tcTest("    " + instr + "\n"));
    } catch (const DiagnosticError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(errorOf("tcgen05.mma.cta_group::2.kind::f16 [D], da, db, 0, 0;"), Catch::Contains("cta_group::2"));
  CHECK_THAT(errorOf("tcgen05.mma.cta_group::1.kind::tf32 [D], da, db, 0, 0;"), Catch::Contains("kind::f16"));
  CHECK_THAT(errorOf("tcgen05.mma.cta_group::1.kind::f16 [D], [D], db, 0, 0;"),
             Catch::Contains("do not fit"));  // A from tensor memory: not in the operand signature
  CHECK_THAT(errorOf("tcgen05.mma.cta_group::1.kind::f16 [A], da, db, 0, 0;"), Catch::Contains("not tensor memory"));
  CHECK_THAT(errorOf("tcgen05.ld.sync.aligned.32x32b.x2.b32 {r0}, [D];"), Catch::Contains(".x1"));
  CHECK_THAT(errorOf("tcgen05.ld.32x32b.x1.b32 {r0}, [D];"), Catch::Contains(".sync.aligned"));
  CHECK_THAT(errorOf("tcgen05.cp.cta_group::1.4x256b [D], ds;"), Catch::Contains("128x256b"));
  CHECK_THAT(errorOf("tcgen05.commit.cta_group::1.b64 [bar];"), Catch::Contains("mbarrier::arrive::one"));
  CHECK_THAT(errorOf("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [g];"),
             Catch::Contains("global location"));
  CHECK_THAT(errorOf("ld.shared.u32 r1, [D];"), Catch::Contains("tensor memory"));
  CHECK_THAT(errorOf("tcgen05.wait::ld;"), Catch::Contains(".sync.aligned"));
  CHECK(errorOf("tcgen05.st.sync.aligned.32x32b.x1.b32 [D], {7};").empty());
}
