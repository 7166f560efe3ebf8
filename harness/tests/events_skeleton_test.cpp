// Skeletons: path choices, active events, built-in sets and relations as bit sets / matrices.
#include <algorithm>
#include <catch2/catch.hpp>

#include "EventsTestSupport.hpp"
#include "events/Lower.hpp"
#include "events/Skeleton.hpp"
#include "litmus/Parser.hpp"

using namespace ptxmm;
using namespace ptxmm::events;
using namespace ptxmm::events::testing;

namespace {}  // namespace

TEST_CASE("MP skeleton: sets, po, loc, int/ext, scopes", "[events][skeleton]") {
  auto l = lowerText(R"(PTX MP
{ x = 0; y = 0; }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0         ;
 st.weak x, 1        | ld.acquire.gpu r0, y   ;
 st.release.gpu y, 1 | ld.weak r1, x          ;
exists (1:r0 == 1 /\ 1:r1 == 0)
)");
  const auto& p = l->prog;
  REQUIRE(countPathChoices(p) == 1);
  Skeleton sk = buildSkeleton(p, {0, 0});
  REQUIRE(sk.size() == 6);
  CHECK(sk.numInit == 2);
  CHECK(sk.event(0).isInit);
  CHECK(sk.set("IW").count() == 2);
  CHECK(sk.set("W").count() == 4);
  CHECK(sk.set("R").count() == 2);
  CHECK(sk.set("M").count() == 6);
  CHECK(sk.set("F").none());
  CHECK(sk.set("REL").count() == 1);
  CHECK(sk.set("ACQ").count() == 1);
  CHECK(sk.sets.count("PF_ASYNC") == 1);  // every known tag is defined
  const auto& po = sk.relation("po");
  CHECK(po.count() == 2);
  CHECK(po.test(2, 3));
  CHECK(po.test(4, 5));
  CHECK_FALSE(po.test(3, 2));
  const auto& loc = sk.relation("loc");
  // x: init(0), W(2), R(5); y: init(1), W(3), R(4)
  CHECK(loc.test(0, 5));
  CHECK(loc.test(2, 5));
  CHECK_FALSE(loc.test(2, 4));
  CHECK(loc.count() == 18);
  CHECK(sk.writesByLoc[0] == std::vector<int>{0, 2});
  CHECK(sk.readsByLoc[1] == std::vector<int>{4});
  CHECK(sk.relation("id").count() == 6);
  CHECK(sk.relation("int").test(2, 3));
  CHECK_FALSE(sk.relation("int").test(2, 4));
  CHECK(sk.relation("ext").test(2, 4));
  CHECK_FALSE(sk.relation("ext").test(0, 0));
  CHECK((sk.relation("int") | sk.relation("ext")).count() == 36);
  CHECK_FALSE(sk.relation("scta").test(2, 4));
  CHECK(sk.relation("sgpu").test(2, 4));
  // sr: W.rel.gpu (P0) and R.acq.gpu (P1) are mutually in scope; weak accesses only within a thread
  const auto& sr = sk.relation("sr");
  CHECK(sr.test(3, 4));
  CHECK(sr.test(4, 3));
  CHECK_FALSE(sr.test(2, 5));
  CHECK(sr.test(2, 3));        // same thread
  CHECK_FALSE(sr.test(0, 2));  // init writes are in no thread
}

TEST_CASE("sr: scope inclusion must hold both ways", "[events][skeleton]") {
  auto l = lowerText(R"(PTX scopes
{ x = 0; }
P0@cta 0,cluster 0,gpu 0:
    st.relaxed.cta.global.u32 [x], 1;
    st.relaxed.gpu.global.u32 [x], 2;
    fence.sc.cluster;
P1@cta 1,cluster 0,gpu 0:
    ld.relaxed.gpu.global.u32 r0, [x];
    ld.relaxed.cluster.global.u32 r1, [x];
P2@cta 2,cluster 2,gpu 0:
    ld.relaxed.cluster.global.u32 r0, [x];
exists (1:r0 == 0)
)");
  Skeleton sk = buildSkeleton(l->prog, {0, 0, 0});
  // compact: 0 init, 1 st.cta, 2 st.gpu, 3 fence.sc.cluster, 4 ld.gpu (P1), 5 ld.cluster (P1), 6 ld.cluster (P2)
  REQUIRE(sk.size() == 7);
  const auto& sr = sk.relation("sr");
  CHECK_FALSE(sr.test(1, 4));  // .cta store vs other CTA
  CHECK(sr.test(2, 4));
  CHECK(sr.test(2, 5));        // gpu vs cluster, same cluster
  CHECK_FALSE(sr.test(2, 6));  // cluster scope of P2 does not contain P0
  CHECK(sr.test(3, 5));        // fences count as strong with their scope
  CHECK_FALSE(sr.test(3, 6));
  CHECK(sk.relation("scluster").test(1, 5));
  CHECK_FALSE(sk.relation("scluster").test(1, 6));
}

TEST_CASE("forEachPathChoice enumerates the product and buildSkeleton activates path events", "[events][skeleton]") {
  auto l = lowerText(R"(PTX paths
{ x = 0; y = 0; }
P0@cta 0,gpu 0:
    ld.relaxed.gpu.global.u32 r0, [x];
    setp.eq.u32 p, r0, 1;
    @p st.relaxed.gpu.global.u32 [y], 1;
P1@cta 1,gpu 0:
    ld.relaxed.gpu.global.u32 r0, [y];
    setp.eq.u32 p, r0, 1;
    @p st.relaxed.gpu.global.u32 [x], 1;
    @!p st.relaxed.gpu.global.u32 [x], 2;
P2@cta 2,gpu 0:
    st.relaxed.gpu.global.u32 [x], 1;
exists (0:r0 == 1)
)");
  const auto& p = l->prog;
  CHECK(countPathChoices(p) == 4);
  std::vector<std::vector<int>> seen;
  bool done = forEachPathChoice(p, [&](const std::vector<int>& c) {
    seen.push_back(c);
    return true;
  });
  CHECK(done);
  CHECK(seen.size() == 4);
  std::sort(seen.begin(), seen.end());
  CHECK(std::unique(seen.begin(), seen.end()) == seen.end());
  int calls = 0;
  CHECK_FALSE(forEachPathChoice(p, [&](const std::vector<int>&) { return ++calls < 2; }));
  CHECK(calls == 2);
  for (const auto& c : seen) {
    Skeleton sk = buildSkeleton(p, c);
    size_t expected = 2;
    for (size_t t = 0; t < c.size(); ++t) expected += p.paths[t][c[t]].events.size();
    CHECK(sk.size() == expected);
    CHECK(sk.guards.size() == 2);
    CHECK(sk.finalRegs.size() == 3);
    // ctrl edges only between active events, from P1's read to its store
    CHECK(sk.relation("ctrl").count() >= 1);
    sk.relation("ctrl").forEach([&](size_t a, size_t b) { CHECK(sk.event(a).type == EventType::Read); });
  }
  CHECK_THROWS(buildSkeleton(p, {0}));
}

TEST_CASE("async skeleton: issue/aso/async-complete and proxies", "[events][skeleton][async]") {
  auto l = lowerText(kTmaWait);
  const auto& p = l->prog;
  REQUIRE(p.paths[0].size() == 2);
  int blockedSeen = 0;
  forEachPathChoice(p, [&](const std::vector<int>& c) {
    Skeleton sk = buildSkeleton(p, c);
    if (sk.blocked) {
      ++blockedSeen;
      REQUIRE(sk.readsFinal.size() == 1);
      CHECK(sk.set("MB_WAIT").test(static_cast<size_t>(sk.readsFinal[0])));
    }
    CHECK(sk.set("ASYNC_OP").count() == 5);
    CHECK(sk.set("ISSUE").count() == 1);
    size_t issue = sk.set("ISSUE").elements()[0];
    CHECK(sk.relation("issue").row(issue) == sk.set("ASYNC_OP"));
    CHECK(sk.relation("aso").count() == 10);  // 5 events, total order
    CHECK(sk.relation("same-async").count() == 25);
    CHECK((sk.set("ASYNC") & sk.set("W")).count() == 1);
    CHECK((sk.set("ASYNC_OP") & sk.set("GEN") & sk.set("RMW")).count() == 2);
    // po does not reach async events
    CHECK_FALSE(sk.relation("po").range().intersects(sk.set("ASYNC_OP")));
    // the async thread is in the same CTA as the issuer: int is false, scta true
    CHECK_FALSE(sk.relation("int").test(issue, sk.set("ASYNC_OP").elements()[0]));
    CHECK(sk.relation("scta").test(issue, sk.set("ASYNC_OP").elements()[0]));
    return true;
  });
  CHECK(blockedSeen == 1);
}
