// Event lowering of tensor maps (docs/lowering.md "Tensor maps"): cp.async.bulk.tensor (tensormap-proxy read of
// the map, first in the async order, then the cp.async.bulk destination write / implicit fence / complete-tx),
// tensormap.replace (weak generic write) and the address of fence.proxy.tensormap::generic.acquire.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "EventsTestSupport.hpp"
#include "events/Lower.hpp"

using namespace ptxmm;
using namespace ptxmm::events;
using namespace ptxmm::events::testing;

namespace {}  // namespace

TEST_CASE("cp.async.bulk.tensor: tensormap-proxy map read, then the copy of the descriptor version",
          "[events][async][tensormap]") {
  auto l = lowerText(R"(PTX tma
{ .global tmap = 1; .global other = 5; .shared X = 0; .mbarrier bar = 1; }
P0@cta 0,cluster 0,gpu 0:
    tensormap.replace.tile.global_address.global.b1024.b64 [tmap], 2;
    fence.proxy.tensormap::generic.release.gpu;
    fence.proxy.tensormap::generic.acquire.gpu [tmap], 128;
    fence.proxy.tensormap::generic.acquire.gpu [other], 128;
    mbarrier.arrive.expect_tx.shared::cta.b64 state, [bar], 16;
    cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [X], [tmap, {0}], [bar];
exists (X == 1)
)");
  auto& p = l->prog;
  // tensormap.replace: a weak generic-proxy write of the map with the new version.
  auto evs = eventsOf(p, 0);
  REQUIRE(evs.size() >= 7);
  const Event& repl = p.events[evs[0]];
  CHECK(repl.type == EventType::Write);
  CHECK(repl.proxy == ptx::Proxy::Generic);
  CHECK(hasTag(repl, "GEN"));
  CHECK(hasTag(repl, "WEAK"));
  CHECK_FALSE(hasTag(repl, "STRONG"));
  CHECK(p.locations[repl.loc].name == "tmap");
  CHECK(constOf(p, repl.value) == 2);
  // the fences: release has no address, each acquire the virtual address of its operand (and no location)
  const Event& rel = p.events[evs[1]];
  const Event& acq = p.events[evs[2]];
  const Event& acqOther = p.events[evs[3]];
  CHECK(hasTag(rel, "PF_TMAP_REL"));
  CHECK(rel.vloc == -1);
  CHECK(hasTag(acq, "PF_TMAP_ACQ"));
  CHECK(acq.type == EventType::Fence);
  CHECK(acq.loc == -1);
  CHECK(acq.vloc == repl.vloc);
  CHECK(acqOther.vloc != repl.vloc);
  CHECK(p.vaddrs[acqOther.vloc].name == "other");
  // the async op: R tmap (tensormap proxy) -> W X (async proxy, value = the map value) -> F implicit -> RMW
  REQUIRE(p.asyncOps.size() == 1);
  const AsyncOp& a = p.asyncOps[0];
  CHECK(a.op == ptx::OpId::CpAsyncBulkTensor);
  CHECK(p.threads[a.thread].where.cta == 0);
  REQUIRE(a.events.size() == 5);
  const Event& mapRead = p.events[a.events[0]];
  const Event& copy = p.events[a.events[1]];
  CHECK(mapRead.type == EventType::Read);
  CHECK(mapRead.proxy == ptx::Proxy::Tensormap);
  CHECK(hasTag(mapRead, "TMAP"));
  CHECK_FALSE(hasTag(mapRead, "ASYNC"));
  CHECK(hasTag(mapRead, "CP_BULK"));
  CHECK(hasTag(mapRead, "WEAK"));
  CHECK(p.locations[mapRead.loc].name == "tmap");
  CHECK(mapRead.vloc == acq.vloc);
  CHECK(copy.type == EventType::Write);
  CHECK(copy.proxy == ptx::Proxy::Async);
  CHECK(p.locations[copy.loc].name == "X@cta0");
  CHECK(copy.value == p.exprs.readVal(mapRead.id));
  CHECK(hasTag(p.events[a.events[2]], "PF_ASYNC_IMPLICIT"));
  const Event& ctxR = p.events[a.events[3]];
  const Event& ctxW = p.events[a.events[4]];
  CHECK(hasTag(ctxR, "MB_COMPLETE_TX"));
  CHECK(ctxW.sem == ptx::Sem::Release);
  CHECK(ctxW.scope == ptx::Scope::Cluster);
  CHECK(p.locations[ctxW.loc].name == "bar@cta0");
  // complete-tx of the one-cell box: 16 bytes, matching the expect_tx of 16 (the phase completes)
  CHECK(hasPair(p, "rmw", ctxR.id, ctxW.id));
  CHECK(hasPair(p, "aso", mapRead.id, copy.id));
  CHECK(hasPair(p, "issue", a.issuer, mapRead.id));
  CHECK(hasTag(p.events[a.issuer], "ISSUE"));
  CHECK(hasTag(p.events[a.issuer], "CP_BULK"));
  CHECK(a.completions == std::vector<EventId>{ctxR.id});
  CHECK(p.locations[ctxW.loc].isMbarrier);
}

TEST_CASE("cp.async.bulk.tensor multicast: one map read, one copy per destination", "[events][async][tensormap]") {
  auto l = lowerText(R"(PTX tmamc
{ .global tmap = 3; .shared X = 0; .mbarrier bar = 1; }
P0@cta 0,cluster 0,gpu 0:
    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [X], [tmap, {0, 0}], [bar], 3;
P1@cta 1,cluster 0,gpu 0:
    mov.u32 r0, 0;
exists (X@cta1 == 3)
)");
  auto& p = l->prog;
  auto reads = tagged(p, "TMAP");
  REQUIRE(reads.size() == 1);
  std::vector<std::string> dst;
  for (EventId e : tagged(p, "CP_BULK")) {
    const Event& ev = p.events[e];
    if (ev.type == EventType::Write && !hasTag(ev, "MBAR")) {
      dst.push_back(p.locations[ev.loc].name);
      CHECK(ev.value == p.exprs.readVal(reads[0]));
      CHECK(hasPair(p, "aso", reads[0], e));
    }
  }
  CHECK(dst == std::vector<std::string>{"X@cta0", "X@cta1"});
  CHECK(tagged(p, "MB_COMPLETE_TX").size() == 4);  // read + write per destination
}

TEST_CASE("tensor-map lowering errors are located", "[events][tensormap][errors]") {
  const std::string sharedMap = R"(PTX e
{ .shared smap = 1; .shared X = 0; .mbarrier bar = 1; }
P0@cta 0,cluster 0,gpu 0:
    cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [X], [smap, {0}], [bar];
exists (X == 1)
)";
  std::string e1 = lowerError(sharedMap, "tm.litmus");
  CHECK(e1.find("tm.litmus:4:") != std::string::npos);
  CHECK(e1.find("must be a global location") != std::string::npos);
  std::string e2 = lowerError(R"(PTX e
{ .shared smap = 1; }
P0@cta 0,cluster 0,gpu 0:
    fence.proxy.tensormap::generic.acquire.gpu [smap], 128;
exists (smap == 1)
)",
                              "tm.litmus");
  CHECK(e2.find("tm.litmus:4:") != std::string::npos);
  CHECK(e2.find("the address must be in .global") != std::string::npos);
  std::string e3 = lowerError(R"(PTX e
{ .shared smap = 1; }
P0@cta 0,cluster 0,gpu 0:
    tensormap.replace.tile.rank.b1024.b32 [smap@cta1], 2;
P1@cta 1,cluster 0,gpu 0:
    mov.u32 r0, 0;
exists (smap@cta1 == 2)
)",
                              "tm.litmus");
  CHECK(e3.find("tm.litmus:4:") != std::string::npos);
  CHECK(e3.find("shared::cta") != std::string::npos);
  // tensormap.replace on a .shared::cta map: a generic write of the CTA's own copy
  auto l = lowerText(R"(PTX s
{ .shared smap = 1; }
P0@cta 0,cluster 0,gpu 0:
    tensormap.replace.tile.rank.shared::cta.b1024.b32 [smap], 2;
exists (smap == 2)
)");
  auto w = eventsOf(l->prog, 0);
  REQUIRE(w.size() == 1);
  CHECK(l->prog.locations[l->prog.events[w[0]].loc].name == "smap@cta0");
  CHECK(hasTag(l->prog.events[w[0]], "SHARED"));
}
