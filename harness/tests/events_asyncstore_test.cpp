// Event lowering of st.async and red.async (family AsyncStore): a generic-proxy async pseudo-thread in
// the destination CTA, its access then the complete-tx of the access size (.release.cluster), no
// implicit proxy fence; the PTX rules of Validate.cpp.
#include <algorithm>
#include <catch2/catch.hpp>

#include "EventsTestSupport.hpp"
#include "events/Lower.hpp"
#include "litmus/Parser.hpp"
#include "support/Diagnostic.hpp"

using namespace ptxmm;
using namespace ptxmm::events;
using namespace ptxmm::events::testing;

TEST_CASE("st.async: weak generic-proxy store in the destination CTA, complete-tx of 4 bytes",
          "[events][async][st.async]") {
  auto l = lowerText(R"(PTX stasync
{ .shared X = 0; .mbarrier bar = 1 }
P0@cta 0,cluster 0,gpu 0:
    ld.shared.u32 r1, [X];
    st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [X@cta1], r1, [bar@cta1];
P1@cta 1,cluster 0,gpu 0:
    ld.shared.u32 r0, [X];
exists (1:r0 == 0)
)");
  auto& p = l->prog;
  REQUIRE(p.asyncOps.size() == 1);
  const AsyncOp& a = p.asyncOps[0];
  const ThreadInfo& t = p.threads[static_cast<size_t>(a.thread)];
  CHECK(t.isAsync);
  CHECK(t.issuer == 0);
  CHECK(t.where.cta == 1);        // placed in the destination CTA
  REQUIRE(a.events.size() == 3);  // W dst, complete-tx RMW (R, W): no implicit proxy fence
  const Event& w = p.events[a.events[0]];
  const Event& cr = p.events[a.events[1]];
  const Event& cw = p.events[a.events[2]];
  CHECK(w.type == EventType::Write);
  CHECK(w.proxy == ptx::Proxy::Generic);
  CHECK(hasTag(w, "GEN"));
  CHECK(hasTag(w, "WEAK"));
  CHECK(hasTag(w, "ASYNC_OP"));
  CHECK_FALSE(hasTag(w, "STRONG"));
  CHECK_FALSE(hasTag(w, "CP_BULK"));
  CHECK_FALSE(hasTag(w, "CP_ASYNC"));
  CHECK(p.locations[w.loc].name == "X@cta1");
  CHECK(tagged(p, "PF_ASYNC_IMPLICIT").empty());
  CHECK(cr.proxy == ptx::Proxy::Generic);
  CHECK(cr.sem == ptx::Sem::Release);
  CHECK(cr.scope == ptx::Scope::Cluster);
  CHECK(hasTag(cr, "MB_COMPLETE_TX"));
  CHECK(hasTag(cw, "MB_COMPLETE_TX"));
  CHECK(p.locations[cr.loc].name == "bar@cta1");
  CHECK(hasPair(p, "rmw", cr.id, cw.id));
  CHECK(hasPair(p, "aso", w.id, cr.id));
  CHECK(hasPair(p, "aso", w.id, cw.id));
  CHECK(std::find(a.completions.begin(), a.completions.end(), cr.id) != a.completions.end());
  // issue from the marker in the issuing thread to every event of the operation
  const Event& m = p.events[a.issuer];
  CHECK(m.type == EventType::Fence);
  CHECK(hasTag(m, "ISSUE"));
  CHECK(m.thread == 0);
  for (EventId e : a.events) CHECK(hasPair(p, "issue", a.issuer, e));
  // the stored value is the register's: a data edge from the issuing thread's load
  auto loads = std::find_if(p.events.begin(), p.events.end(),
                            [](const Event& e) { return e.type == EventType::Read && e.thread == 0 && e.asyncOp < 0; });
  REQUIRE(loads != p.events.end());
  CHECK(w.value == p.exprs.readVal(loads->id));
  CHECK(hasPair(p, "data", loads->id, w.id));
  // complete-tx of the access size: from a state expecting 4 bytes, the phase completes
  std::vector<int64_t> rv(p.events.size(), 0);
  rv[cr.id] = mbarrierState(4, 0, 0);
  CHECK(mbarrierPhase(evaluate(p.exprs, cw.value, rv)) == 1);
  rv[cr.id] = mbarrierState(8, 0, 0);
  CHECK(mbarrierPhase(evaluate(p.exprs, cw.value, rv)) == 0);
  for (const auto& [x, y] : p.relations.at("po")) {
    CHECK(p.events[x].asyncOp < 0);
    CHECK(p.events[y].asyncOp < 0);
  }
}

TEST_CASE("red.async: relaxed.cluster generic RMW then complete-tx of 8 bytes", "[events][async][red.async]") {
  auto l = lowerText(R"(PTX redasync
{ .shared C = 5; .mbarrier bar = 1 }
P0@cta 0,cluster 0,gpu 0:
    red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u64 [C@cta1], 3, [bar@cta1];
P1@cta 1,cluster 0,gpu 0:
    ld.shared.u64 r0, [C];
exists (1:r0 == 0)
)");
  auto& p = l->prog;
  REQUIRE(p.asyncOps.size() == 1);
  const AsyncOp& a = p.asyncOps[0];
  CHECK(p.threads[static_cast<size_t>(a.thread)].where.cta == 1);
  REQUIRE(a.events.size() == 4);  // RMW on C (R, W), complete-tx RMW (R, W)
  const Event& r = p.events[a.events[0]];
  const Event& w = p.events[a.events[1]];
  const Event& cr = p.events[a.events[2]];
  const Event& cw = p.events[a.events[3]];
  for (const Event* e : {&r, &w}) {
    CHECK(e->proxy == ptx::Proxy::Generic);
    CHECK(e->sem == ptx::Sem::Relaxed);
    CHECK(e->scope == ptx::Scope::Cluster);
    CHECK(hasTag(*e, "RED"));
    CHECK(hasTag(*e, "RMW"));
    CHECK(hasTag(*e, "STRONG"));
    CHECK(p.locations[e->loc].name == "C@cta1");
  }
  CHECK(hasPair(p, "rmw", r.id, w.id));
  CHECK(hasPair(p, "rmw", cr.id, cw.id));
  CHECK(hasPair(p, "aso", w.id, cr.id));
  CHECK(cr.sem == ptx::Sem::Release);
  CHECK(cr.scope == ptx::Scope::Cluster);
  CHECK(hasTag(cr, "MB_COMPLETE_TX"));
  std::vector<int64_t> rv(p.events.size(), 0);
  rv[r.id] = 5;
  CHECK(evaluate(p.exprs, w.value, rv) == 8);
  rv[cr.id] = mbarrierState(8, 0, 0);
  CHECK(mbarrierPhase(evaluate(p.exprs, cw.value, rv)) == 1);
}

TEST_CASE("st.async / red.async: PTX rules", "[events][async][st.async][red.async]") {
  auto errorOf = [](const std::string& instr) {
    try {
      lowerText("PTX e\n{ .shared X = 0; .global g = 0; .mbarrier bar = 1 }\nP0@cta 0,cluster 0,gpu 0:\n    " + instr +
                "\nP1@cta 1,cluster 0,gpu 0:\n    ld.shared.u32 r0, [X];\nexists (1:r0 == 0)\n");
    } catch (const DiagnosticError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(errorOf("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [X], 1, [bar];"),
             Catch::Contains("another CTA"));
  CHECK_THAT(errorOf("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [X@cta1], 1, [bar@cta0];"),
             Catch::Contains("destination's CTA"));
  CHECK_THAT(errorOf("st.async.release.gpu.global.u32 [g], 1;"), Catch::Contains("not modelled"));
  CHECK_THAT(errorOf("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.u32 [X@cta1], 1, [bar@cta1];"),
             Catch::Contains("one value"));
  CHECK_THAT(errorOf("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.inc.s32 [X@cta1], 1, "
                     "[bar@cta1];"),
             Catch::Contains(".u32"));
  CHECK_THAT(errorOf("st.async.shared::cluster.u32 [X@cta1], 1, [bar@cta1];"), Catch::Contains("complete_tx::bytes"));
  // red.async: the completion mechanism defaults to .mbarrier::complete_tx::bytes
  CHECK(errorOf("red.async.relaxed.cluster.shared::cluster.min.u32 [X@cta1], 1, [bar@cta1];").empty());
}
