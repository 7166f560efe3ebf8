// Dynamic tags (value-dependent set memberships): MB_PHASE_DONE on mbarrier RMW writes, MB_WAIT_OK on
// mbarrier waits, their conditions, and the skeleton's dynamicSets.
#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "EventsTestSupport.hpp"
#include "events/Builtins.hpp"
#include "events/Expr.hpp"
#include "events/Lower.hpp"
#include "events/Skeleton.hpp"
#include "litmus/Parser.hpp"

using namespace ptxmm;
using namespace ptxmm::events;
using namespace ptxmm::events::testing;

namespace {

// The condition of dynamic tag `name` on `e`, or -1.
ExprId dynCond(const Event& e, const std::string& name) {
  ExprId c = -1;
  int n = 0;
  for (const auto& d : e.dynamicTags)
    if (d.name == name) {
      c = d.cond;
      ++n;
    }
  REQUIRE(n <= 1);
  return c;
}

// The read of the rmw pair whose write is `w`.
EventId rmwRead(const EventProgram& p, EventId w) {
  for (const auto& [r, w2] : p.relations.at("rmw"))
    if (w2 == w) return r;
  return -1;
}

}  // namespace

TEST_CASE("MB_PHASE_DONE: mbarrier RMW writes whose phase differs from the phase read", "[events][dynamic]") {
  auto l = lowerText(R"(PTX dyn
{ .mbarrier bar = 2; x = 0; }
P0@cta 0,cluster 0,gpu 0:
    mbarrier.arrive.shared::cta.b64 r0, [bar];
    mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 8;
    mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 8;
    mbarrier.arrive_drop.shared::cta.b64 r1, [bar];
    atom.relaxed.gpu.add r2, [x], 1;
exists (0:r0 == 0)
)");
  const auto& p = l->prog;
  int tagged = 0;
  for (const auto& e : p.events) {
    ExprId c = dynCond(e, "MB_PHASE_DONE");
    CHECK(dynCond(e, "MB_WAIT_OK") == -1);
    bool mbRmwWrite = e.type == EventType::Write && hasTag(e, "MBAR") && hasTag(e, "RMW");
    INFO(e.label);
    CHECK((c >= 0) == mbRmwWrite);  // the atom on x and all reads / init writes have none
    if (c < 0) continue;
    ++tagged;
    EventId r = rmwRead(p, e.id);
    REQUIRE(r >= 0);
    std::vector<int64_t> vals(p.events.size(), 0);
    // An arrive reading "1 pending" completes the phase; reading "2 pending" does not.
    if (hasTag(e, "MB_ARRIVE") && !hasTag(e, "MB_DROP")) {
      vals[static_cast<size_t>(r)] = mbarrierState(0, 1, 0);
      CHECK(evaluate(p.exprs, c, vals) != 0);
      vals[static_cast<size_t>(r)] = mbarrierState(0, 2, 0);
      CHECK(evaluate(p.exprs, c, vals) == 0);
    }
    // complete_tx bringing the tx-count to 0 with no pending arrival completes the phase.
    if (hasTag(e, "MB_COMPLETE_TX")) {
      vals[static_cast<size_t>(r)] = mbarrierState(8, 0, 3);
      CHECK(evaluate(p.exprs, c, vals) != 0);
      vals[static_cast<size_t>(r)] = mbarrierState(16, 0, 3);
      CHECK(evaluate(p.exprs, c, vals) == 0);
    }
    // expect_tx only raises the tx-count: never completes a phase here.
    if (hasTag(e, "MB_EXPECT_TX")) {
      vals[static_cast<size_t>(r)] = mbarrierState(0, 1, 0);
      CHECK(evaluate(p.exprs, c, vals) == 0);
    }
  }
  CHECK(tagged == 4);
}

TEST_CASE("MB_WAIT_OK: the wait's success condition, blocking and not, parity and token", "[events][dynamic]") {
  auto l = lowerText(R"(PTX dynwait
{ .mbarrier bar = 1; }
P0@cta 0,cluster 0,gpu 0:
    mbarrier.arrive.shared::cta.b64 st, [bar];
    mbarrier.test_wait.shared::cta.b64 q, [bar], st;
w0:
    mbarrier.try_wait.parity.shared::cta.b64 p, [bar], 0;
    @!p bra w0;
exists (0:q == 1)
)");
  const auto& p = l->prog;
  std::vector<EventId> waits;
  for (const auto& e : p.events) {
    ExprId c = dynCond(e, "MB_WAIT_OK");
    CHECK((c >= 0) == hasTag(e, "MB_WAIT"));
    if (c >= 0) waits.push_back(e.id);
  }
  // test_wait (token), try_wait.parity: the blocking wait's read is shared by its two paths.
  REQUIRE(waits.size() == 2);
  std::vector<int64_t> vals(p.events.size(), 0);
  EventId arriveR = -1;
  for (const auto& e : p.events)
    if (e.type == EventType::Read && hasTag(e, "MB_ARRIVE")) arriveR = e.id;
  REQUIRE(arriveR >= 0);
  // Token form: success iff the phase read differs from the token's (the arrive's old state, phase 0).
  vals[static_cast<size_t>(arriveR)] = mbarrierState(0, 1, 0);
  ExprId tokenOk = dynCond(p.events[static_cast<size_t>(waits[0])], "MB_WAIT_OK");
  vals[static_cast<size_t>(waits[0])] = mbarrierState(0, 1, 1);
  CHECK(evaluate(p.exprs, tokenOk, vals) != 0);
  vals[static_cast<size_t>(waits[0])] = mbarrierState(0, 1, 0);
  CHECK(evaluate(p.exprs, tokenOk, vals) == 0);
  // Parity 0: success iff the phase read is odd.
  ExprId parOk = dynCond(p.events[static_cast<size_t>(waits[1])], "MB_WAIT_OK");
  for (int64_t ph : {0, 1, 2, 3}) {
    vals[static_cast<size_t>(waits[1])] = mbarrierState(0, 1, ph);
    CHECK((evaluate(p.exprs, parOk, vals) != 0) == (ph % 2 == 1));
  }

  // Skeletons: both names always present; members are the active events with the tag.
  REQUIRE(p.paths[0].size() == 2);
  for (int path = 0; path < 2; ++path) {
    Skeleton sk = buildSkeleton(p, {path});
    REQUIRE(sk.dynamicSets.count("MB_PHASE_DONE") == 1);
    REQUIRE(sk.dynamicSets.count("MB_WAIT_OK") == 1);
    CHECK(sk.dynamicSets.at("MB_PHASE_DONE").size() == 1);
    const auto& ok = sk.dynamicSets.at("MB_WAIT_OK");
    REQUIRE(ok.size() == 2);
    for (const auto& [i, c] : ok) {
      CHECK(sk.event(static_cast<size_t>(i)).type == EventType::Read);
      CHECK(c == dynCond(sk.event(static_cast<size_t>(i)), "MB_WAIT_OK"));
    }
  }
  // A program without mbarriers still has both (empty) sets.
  auto plain = lowerText(R"(PTX plain
{ x = 0; }
P0@cta 0,gpu 0:
    st.relaxed.gpu [x], 1;
exists (x == 1)
)");
  Skeleton sk = buildSkeleton(plain->prog, {0});
  for (const auto& name : allDynamicTags()) {
    REQUIRE(sk.dynamicSets.count(name) == 1);
    CHECK(sk.dynamicSets.at(name).empty());
  }
}
