// Event lowering of the rest of the async proxy: cp.reduce.async.bulk (family AsyncBulk), the tensor store
// form of cp.async.bulk.tensor, prefetches (no events) and tensormap.cp_fenceproxy (family TensormapCopy);
// the PTX rules of Validate.cpp.
#include <catch2/catch.hpp>

#include "EventsTestSupport.hpp"
#include "events/Lower.hpp"
#include "litmus/Parser.hpp"
#include "support/Diagnostic.hpp"

using namespace ptxmm;
using namespace ptxmm::events;
using namespace ptxmm::events::testing;

TEST_CASE("cp.reduce.async.bulk: async-proxy source read, .relaxed.gpu async reduction, implicit proxy fence",
          "[events][async][bulk]") {
  auto l = lowerText(R"(PTX reduce
{ .shared X = 0; .global g = 1 }
P0@cta 0,cluster 0,gpu 0:
    cp.reduce.async.bulk.global.shared::cta.bulk_group.max.u32 [g], [X], 16;
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
exists (g == 0)
)");
  auto& p = l->prog;
  REQUIRE(p.asyncOps.size() == 1);
  const AsyncOp& a = p.asyncOps[0];
  REQUIRE(a.events.size() == 4);  // R src, RMW dst (R, W), implicit proxy fence
  const Event& r = p.events[a.events[0]];
  const Event& dr = p.events[a.events[1]];
  const Event& dw = p.events[a.events[2]];
  CHECK(r.type == EventType::Read);
  CHECK(r.proxy == ptx::Proxy::Async);
  CHECK(hasTag(r, "CP_BULK"));
  CHECK_FALSE(hasTag(r, "RED"));
  CHECK(dr.proxy == ptx::Proxy::Async);
  CHECK(dr.sem == ptx::Sem::Relaxed);
  CHECK(dr.scope == ptx::Scope::Gpu);
  CHECK(hasTag(dr, "RED"));
  CHECK(hasTag(dw, "RED"));
  CHECK(hasTag(dw, "CP_BULK"));
  CHECK(hasPair(p, "rmw", dr.id, dw.id));
  CHECK(hasTag(p.events[a.events[3]], "PF_ASYNC_IMPLICIT"));
}

TEST_CASE("tensor store: tensor-map read (tensormap proxy), source read, write of <map>_tensor",
          "[events][async][bulk]") {
  auto l = lowerText(R"(PTX tstore
{ .shared X = 1; .global tmap = 1; .global tmap_tensor = 0 }
P0@cta 0,cluster 0,gpu 0:
    cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [tmap, {0}], [X];
exists (tmap_tensor == 0)
)");
  auto& p = l->prog;
  REQUIRE(p.asyncOps.size() == 1);
  const AsyncOp& a = p.asyncOps[0];
  REQUIRE(a.events.size() == 4);
  CHECK(p.events[a.events[0]].proxy == ptx::Proxy::Tensormap);
  CHECK(p.locations[p.events[a.events[0]].loc].name == "tmap");
  CHECK(p.events[a.events[2]].type == EventType::Write);
  CHECK(p.locations[p.events[a.events[2]].loc].name == "tmap_tensor");
  // a map without its tensor location is reported
  CHECK_THROWS_WITH(lowerText(R"(PTX tstore-missing
{ .shared X = 1; .global tmap = 1 }
P0@cta 0,cluster 0,gpu 0:
    cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [tmap, {0}], [X];
exists (tmap == 0)
)"),
                    Catch::Contains("tmap_tensor"));
}

TEST_CASE("prefetches lower to nothing; tensormap.cp_fenceproxy is a generic copy then a release tensormap fence",
          "[events][bulk][tensormap]") {
  auto l = lowerText(R"(PTX cpfp
{ .global g = 0; .global tmap = 1; .shared S = 2 }
P0@cta 0,cluster 0,gpu 0:
    cp.async.bulk.prefetch.L2.global [g], 16;
    cp.async.bulk.prefetch.tensor.1d.L2.global [tmap, {0}];
    tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.cluster.sync.aligned [tmap], [S], 128;
exists (tmap == 1)
)");
  auto& p = l->prog;
  auto ev = eventsOf(p, 0);
  std::vector<const Event*> real;
  for (EventId e : ev)
    if (!hasTag(p.events[e], "IW") && !hasTag(p.events[e], "EXIT")) real.push_back(&p.events[e]);
  REQUIRE(real.size() == 3);
  CHECK(real[0]->type == EventType::Read);
  CHECK(real[0]->proxy == ptx::Proxy::Generic);
  CHECK(real[1]->type == EventType::Write);
  CHECK(p.locations[real[1]->loc].name == "tmap");
  CHECK(hasTag(*real[2], "PF_TMAP_REL"));
  CHECK(real[2]->scope == ptx::Scope::Cluster);
  CHECK(p.asyncOps.empty());
}

TEST_CASE("bulk-reduction and cp_fenceproxy rules are checked at parse time", "[events][bulk][validate]") {
  auto bad = [](const std::string& instr) {
    return "PTX bad\n{ .shared X = 0; .global g = 0; .mbarrier bar = 1 }\nP0@cta 0,cluster 0,gpu 0:\n    " + instr +
           "\nexists (g == 0)\n";
  };
  CHECK_THROWS_WITH(
      litmus::parseTest(bad("cp.reduce.async.bulk.global.shared::cta.bulk_group.cas.b32 [g], [X], 16;"), "bad.litmus"),
      Catch::Contains("§9.7.9.25.4.2"));
  CHECK_THROWS_WITH(
      litmus::parseTest(
          bad("cp.reduce.async.bulk.global.shared::cta.mbarrier::complete_tx::bytes.add.u32 [g], [X], 16, [bar];"),
          "bad.litmus"),
      Catch::Contains("`.shared::cluster` destination"));
  CHECK_THROWS_WITH(
      litmus::parseTest(bad("cp.reduce.async.bulk.global.shared::cta.bulk_group.inc.s32 [g], [X], 16;"), "bad.litmus"),
      Catch::Contains(".u32"));
  CHECK_THROWS_WITH(
      litmus::parseTest(
          bad("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync [g], [X], 128;"),
          "bad.litmus"),
      Catch::Contains(".aligned"));
  CHECK_THROWS_WITH(
      litmus::parseTest(
          bad("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [g], [X], 64;"),
          "bad.litmus"),
      Catch::Contains("128"));
  CHECK_THROWS_WITH(litmus::parseTest(bad("cp.async.bulk.prefetch.L2.global [g], 20;"), "bad.litmus"),
                    Catch::Contains("multiple of 16"));
}
