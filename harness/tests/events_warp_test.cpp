// Warp-level helpers (families WarpSync, GridDep, Mapa): bar.warp.sync and elect.sync as execution barriers of
// one warp and membermask, the leader choice of elect.sync, griddepcontrol between two grids, mapa as a static
// address; their parsing (`d|p`, `grid`), PTX rules and located errors.
#include <algorithm>
#include <catch2/catch.hpp>

#include "EventsTestSupport.hpp"
#include "events/Lower.hpp"
#include "events/Skeleton.hpp"
#include "litmus/Parser.hpp"
#include "litmus/Printer.hpp"
#include "support/Diagnostic.hpp"

using namespace ptxmm;
using namespace ptxmm::events;
using namespace ptxmm::events::testing;

namespace {

/// The consistent path choices whose paths all end normally.
int completeChoices(const EventProgram& p) {
  int n = 0;
  forEachPathChoice(p, [&](const std::vector<int>& c) {
    bool all = true;
    for (size_t t = 0; t < c.size(); ++t) all = all && p.paths[t][static_cast<size_t>(c[t])].end == PathEnd::Normal;
    n += all ? 1 : 0;
    return true;
  });
  return n;
}

}  // namespace

TEST_CASE("bar.warp.sync parses (it used to be read as `bar` + `.warp`), prints back and keeps its mask",
          "[events][warp][parse]") {
  auto t = litmus::parseTest(R"(PTX w
{ .shared x = 0; }
P0@cta 0,warp 0:
    bar.warp.sync 0xffffffff;
    elect.sync r0|p, 0x3;
    elect.sync _|q, 3;
exists (0:r0 == 0))",
                             "w.litmus");
  const std::string canon = litmus::printCanonical(t);
  CHECK(canon.find("bar.warp.sync 4294967295;") != std::string::npos);
  CHECK(canon.find("elect.sync r0|p, 3;") != std::string::npos);
  CHECK(canon.find("elect.sync _|q, 3;") != std::string::npos);
  CHECK(canon.find("P0@cta 0,cluster 0,gpu 0,warp 0:") != std::string::npos);
  CHECK(litmus::printCanonical(litmus::parseTest(canon, "c.litmus")) == canon);  // a fixed point
  // '|' only where the row writes it, and nowhere else
  CHECK_THROWS_WITH(litmus::parseTest("PTX w\n{ }\nP0:\n    elect.sync r0, p, 3;\nexists (0:r0 == 0)", "a.litmus"),
                    Catch::Contains("a.litmus:4:20") && Catch::Contains("'|'"));
  CHECK_THROWS_WITH(litmus::parseTest("PTX w\n{ }\nP0:\n    add.u32 r0|r1, 3;\nexists (0:r0 == 0)", "b.litmus"),
                    Catch::Contains("b.litmus:4:16") && Catch::Contains("elect.sync"));
}

TEST_CASE("bar.warp.sync: a barrier of one warp and membermask whose generation pairs in bar-sync", "[events][warp]") {
  auto l = lowerText(R"(PTX w
{ .shared x = 0; }
P0@cta 0,warp 0:
    st.shared::cta.u32 [x], 1;
    bar.warp.sync 0xffffffff;
P1@cta 0,warp 0:
    bar.warp.sync 0xffffffff;
    ld.shared::cta.u32 r0, [x];
    mov.u32 r9, %laneid;
P2@cta 0,warp 1:
    bar.warp.sync 0xffffffff;
exists (1:r0 == 0))");
  const auto& p = l->prog;
  auto ws = tagged(p, "WARP_SYNC");
  REQUIRE(ws.size() == 3);
  for (EventId e : ws) {
    CHECK(hasTag(p.events[e], "F"));
    CHECK_FALSE(hasTag(p.events[e], "F_ACQ_REL"));  // no fence for other threads
    CHECK_FALSE(hasTag(p.events[e], "BAR_SYNC"));
  }
  REQUIRE(p.barriers.size() == 2);  // warp 0 and warp 1 of CTA 0: one barrier each
  CHECK(p.barriers[0].kind == BarrierKind::Warp);
  CHECK(p.barriers[0].participants == std::vector<int>{0, 1});
  CHECK(p.barriers[1].participants == std::vector<int>{2});
  CHECK(hasPair(p, "bar-sync", ws[0], ws[1]));
  CHECK(hasPair(p, "bar-sync", ws[1], ws[0]));
  CHECK_FALSE(hasPair(p, "bar-sync", ws[0], ws[2]));  // another warp
  CHECK(completeChoices(p) == 1);
  CHECK(constOf(p, p.paths[1][0].finalRegs.at("r9")) == 1);  // %laneid: the position in the warp
}

TEST_CASE("bar.warp.sync: a lane outside its membermask is undefined; masks are known at lowering time",
          "[events][warp]") {
  auto l = lowerText(R"(PTX w
{ }
P0@cta 0,warp 0:
    bar.warp.sync 0x2;
P1@cta 0,warp 0:
    bar.warp.sync 0x2;
exists (0:r0 == 0))");
  const auto& p = l->prog;
  REQUIRE_FALSE(p.paths[0].empty());
  REQUIRE(p.paths[0][0].undefinedIf.size() == 1);
  CHECK(p.paths[0][0].undefinedIf[0].second.find("not in membermask 0x2") != std::string::npos);
  CHECK(p.paths[1][0].undefinedIf.empty());
  CHECK(lowerError("PTX w\n{ x = 0; }\nP0:\n    ld.relaxed.gpu.global.u32 r1, [x];\n    bar.warp.sync r1;\n"
                   "exists (0:r1 == 0)",
                   "w.litmus")
            .find("w.litmus:5:19: error: the membermask of `bar.warp.sync` must be known") != std::string::npos);
}

TEST_CASE("elect.sync: one leader per membermask, explored, the same for every generation", "[events][warp]") {
  auto l = lowerText(R"(PTX w
{ }
P0@cta 0,warp 0:
    elect.sync r0|p, 0x3;
    elect.sync r1|q, 0x3;
P1@cta 0,warp 0:
    elect.sync r0|p, 0x3;
    elect.sync r1|q, 0x3;
exists (0:r0 == 0))");
  const auto& p = l->prog;
  CHECK(tagged(p, "ELECT").size() >= 4);
  REQUIRE(p.barriers.size() == 1);
  CHECK(p.barriers[0].kind == BarrierKind::Elect);
  CHECK(p.relations.at("bar-sync").empty());  // elect.sync orders no memory access
  // Two consistent complete executions: P0 or P1 elected, for both elections.
  int choices = 0;
  forEachPathChoice(p, [&](const std::vector<int>& c) {
    const Path& a = p.paths[0][static_cast<size_t>(c[0])];
    const Path& b = p.paths[1][static_cast<size_t>(c[1])];
    if (a.end != PathEnd::Normal || b.end != PathEnd::Normal) return true;
    ++choices;
    const int64_t p0 = constOf(p, a.finalRegs.at("p")), p1 = constOf(p, b.finalRegs.at("p"));
    CHECK(p0 + p1 == 1);
    CHECK(constOf(p, a.finalRegs.at("q")) == p0);
    CHECK(constOf(p, a.finalRegs.at("r0")) == constOf(p, b.finalRegs.at("r0")));
    CHECK(constOf(p, a.finalRegs.at("r0")) == (p0 == 1 ? 0 : 1));  // d: the leader's lane
    return true;
  });
  CHECK(choices == 2);
}

TEST_CASE("griddepcontrol: the primary grid's exits synchronize with the dependent grid's wait",
          "[events][warp][griddepcontrol]") {
  auto l = lowerText(R"(PTX w
{ x = 0; }
P0@cta 0:
    st.global.u32 [x], 1;
    griddepcontrol.launch_dependents;
P1@cta 1,grid 1:
    griddepcontrol.wait;
    ld.global.u32 r0, [x];
exists (1:r0 == 0))");
  const auto& p = l->prog;
  auto launch = tagged(p, "GDC_LAUNCH");
  auto wait = tagged(p, "GDC_WAIT");
  auto exits = tagged(p, "EXIT");
  REQUIRE(launch.size() == 1);
  REQUIRE(wait.size() == 1);
  REQUIRE(exits.size() == 2);
  const EventId exit0 = p.events[exits[0]].thread == 0 ? exits[0] : exits[1];
  CHECK(hasPair(p, "exit-sync", exit0, wait[0]));
  CHECK(p.relations.at("bar-sync").empty());
  for (EventId e : eventsOf(p, 1)) CHECK(hasPair(p, "grid-start", launch[0], e));
  for (EventId e : eventsOf(p, 0)) CHECK_FALSE(hasPair(p, "grid-start", launch[0], e));
  REQUIRE(p.barriers.size() == 1);
  CHECK(p.barriers[0].kind == BarrierKind::GridDep);
  CHECK(p.barriers[0].participants == std::vector<int>{0, 1});
  CHECK(completeChoices(p) == 1);
  // The grid coordinate: printed, at most 1, and the CTAs of two grids are distinct.
  CHECK(litmus::printCanonical(l->test).find("P1@cta 1,cluster 1,gpu 0,grid 1:") != std::string::npos);
  CHECK(lowerError("PTX w\n{ }\nP0@cta 0,grid 2:\n    griddepcontrol.wait;\nexists (0:r0 == 0)", "w.litmus")
            .find("w.litmus:3:15: error: grid 2") != std::string::npos);
  CHECK(lowerError("PTX w\n{ }\nP0@cta 0:\n    griddepcontrol.wait;\nP1@cta 0,grid 1:\n    griddepcontrol.wait;\n"
                   "exists (0:r0 == 0)")
            .find("distinct ids") != std::string::npos);
}

TEST_CASE("mapa: the register names the shared variable's copy in the CTA of that rank", "[events][warp][mapa]") {
  auto l = lowerText(R"(PTX w
{ .shared x = 0; }
P0@cta 0,cluster 0:
    mov.u32 r5, %cluster_ctarank;
    xor.b32 r5, r5, 1;
    mapa.shared::cluster.u32 r1, x, r5;
    st.shared::cluster.u32 [r1], 1;
    mapa.u64 r2, r1, 0;
    ld.u32 r3, [r2];
P1@cta 1,cluster 0:
    ld.shared::cta.u32 r0, [x];
exists (1:r0 == 0))");
  const auto& p = l->prog;
  REQUIRE(p.paths[0].size() == 1);  // the rank is a constant: no fork
  std::vector<std::string> locs;
  for (EventId e : eventsOf(p, 0))
    if (p.events[e].type != EventType::Fence) locs.push_back(p.locations[p.events[e].loc].name);
  CHECK(locs == std::vector<std::string>{"x@cta1", "x@cta0"});
  CHECK(lowerError("PTX w\n{ g = 0; }\nP0@cta 0,cluster 0:\n    mapa.shared::cluster.u32 r1, g, 1;\n"
                   "P1@cta 1,cluster 0:\n    ld.global.u32 r0, [g];\nexists (0:r0 == 0)",
                   "w.litmus")
            .find("w.litmus:4:34: error: `mapa` maps shared memory") != std::string::npos);
  // A rank register forks over the cluster's ranks; one outside it is undefined behaviour.
  auto f = lowerText(R"(PTX w
{ .shared x = 0; k = 0; }
P0@cta 0,cluster 0:
    ld.relaxed.gpu.global.u32 r5, [k];
    mapa.shared::cluster.u32 r1, x, r5;
    st.shared::cluster.u32 [r1], 1;
P1@cta 1,cluster 0:
    ld.shared::cta.u32 r0, [x];
exists (1:r0 == 0))");
  REQUIRE(f->prog.paths[0].size() == 3);
  int undefined = 0;
  for (const auto& path : f->prog.paths[0]) undefined += path.undefinedIf.empty() ? 0 : 1;
  CHECK(undefined == 1);
}
