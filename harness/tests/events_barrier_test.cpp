// Execution barriers (bar.sync/bar.arrive, barrier.cluster.*): paths blocked at a barrier whose
// generation a partner may never reach, and the path choices forEachPathChoice keeps.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>

#include "EventsTestSupport.hpp"
#include "events/Lower.hpp"
#include "events/Skeleton.hpp"
#include "litmus/Parser.hpp"

using namespace ptxmm;
using namespace ptxmm::events;
using namespace ptxmm::events::testing;

namespace {

std::vector<std::vector<int>> choices(const EventProgram& p) {
  std::vector<std::vector<int>> out;
  forEachPathChoice(p, [&](const std::vector<int>& c) {
    out.push_back(c);
    return true;
  });
  return out;
}

/// Index of the path of thread `t` that satisfies `pred` (fails the test if none or several do).
template <class F>
int pathWhere(const EventProgram& p, int t, F pred) {
  int found = -1, n = 0;
  for (size_t i = 0; i < p.paths[static_cast<size_t>(t)].size(); ++i)
    if (pred(p.paths[static_cast<size_t>(t)][i])) {
      found = static_cast<int>(i);
      ++n;
    }
  INFO("thread " << t);
  REQUIRE(n == 1);
  return found;
}

bool blockedAtBarrier(const Path& q) { return q.end == PathEnd::Blocked && q.blockedAt >= 0; }
bool blockedInWait(const Path& q) { return q.end == PathEnd::Blocked && !q.readsFinal.empty(); }

int arrivals(const Path& q, int barrier) {
  for (const auto& u : q.barriers)
    if (u.barrier == barrier) return u.arrived;
  return 0;
}

bool passes(const Path& q, int barrier, int gen) {
  for (const auto& u : q.barriers)
    if (u.barrier == barrier) return std::find(u.passed.begin(), u.passed.end(), gen) != u.passed.end();
  return false;
}

}  // namespace

TEST_CASE("MP through bar.sync: no blocked alternatives, one path choice", "[events][barrier]") {
  auto l = lowerText(R"(PTX MP+bar.sync
{ x = 0 }
 P0@cta 0,cluster 0,gpu 0 | P1@cta 0,cluster 0,gpu 0 ;
 st.weak x, 1             | bar.cta.sync 0           ;
 bar.cta.sync 0           | ld.weak r0, x            ;
exists (P1:r0 == 0)
)");
  const auto& p = l->prog;
  REQUIRE(p.barriers.size() == 1);
  CHECK_FALSE(p.barriers[0].cluster);
  CHECK(p.paths[0][0].barriers.at(0).counts.empty());  // no thread count: all participants
  CHECK(p.barriers[0].participants == std::vector<int>{0, 1});
  for (int t = 0; t < 2; ++t) {
    REQUIRE(p.paths[static_cast<size_t>(t)].size() == 1);
    const Path& q = p.paths[static_cast<size_t>(t)][0];
    CHECK(q.end == PathEnd::Normal);
    CHECK(q.blockedAt == -1);
    REQUIRE(q.barriers.size() == 1);
    CHECK(q.barriers[0].arrived == 1);
    CHECK(q.barriers[0].passed == std::vector<int>{0});
    CHECK(q.barriers[0].blockedGen == -1);
  }
  CHECK(countPathChoices(p) == 1);
  CHECK(choices(p).size() == 1);
  CHECK(p.relations.at("bar-sync").size() == 2);
}

TEST_CASE("a partner blocked in an mbarrier wait blocks bar.sync", "[events][barrier]") {
  auto l = lowerText(R"(PTX bar-vs-wait
{ x = 0; .mbarrier bar = 2 }
P0@cta 0,cluster 0,gpu 0:
    st.weak.global.u32 [x], 1;
    bar.sync 0;
    st.weak.global.u32 [x], 2;
P1@cta 0,cluster 0,gpu 0:
w:
    mbarrier.try_wait.parity.shared::cta.b64 p, [bar], 0;
    @!p bra w;
    bar.sync 0;
    ld.weak.global.u32 r0, [x];
exists (1:r0 == 0)
)");
  const auto& p = l->prog;
  REQUIRE(p.paths[0].size() == 2);
  REQUIRE(p.paths[1].size() == 2);  // the wait's success and blocked paths; P0 always arrives
  int pass0 = pathWhere(p, 0, [](const Path& q) { return q.end == PathEnd::Normal; });
  int block0 = pathWhere(p, 0, blockedAtBarrier);
  const Path& b0 = p.paths[0][static_cast<size_t>(block0)];
  CHECK(b0.readsFinal.empty());
  CHECK(hasTag(p.events[static_cast<size_t>(b0.blockedAt)], "BAR_SYNC"));
  REQUIRE(b0.events.size() == 2);  // the store and the bar.sync it blocks at, not the second store
  CHECK(b0.events.back() == b0.blockedAt);
  REQUIRE(b0.barriers.size() == 1);
  CHECK(b0.barriers[0].blockedGen == 0);
  CHECK(b0.barriers[0].arrived == 1);
  CHECK(b0.barriers[0].passed.empty());
  int ok1 = pathWhere(p, 1, [](const Path& q) { return q.end == PathEnd::Normal; });
  int wait1 = pathWhere(p, 1, blockedInWait);
  // P0 passes only with P1 arriving; P0 blocks only with P1 never arriving.
  auto cs = choices(p);
  std::sort(cs.begin(), cs.end());
  std::vector<std::vector<int>> want{{pass0, ok1}, {block0, wait1}};
  std::sort(want.begin(), want.end());
  CHECK(cs == want);
  CHECK_FALSE(barriersConsistent(p, {pass0, wait1}));
  CHECK_FALSE(barriersConsistent(p, {block0, ok1}));
  // the skeleton of the deadlock: blocked, no readsFinal from P0, the bar.sync active
  Skeleton sk = buildSkeleton(p, {block0, wait1});
  CHECK(sk.blocked);
  CHECK(sk.readsFinal.size() == 1);
  CHECK(sk.indexOf(b0.blockedAt) >= 0);
}

TEST_CASE("exited partners do not block a barrier without a thread count", "[events][barrier]") {
  auto l = lowerText(R"(PTX bar-exit
{ x = 0 }
P0@cta 0,cluster 0,gpu 0:
    bar.sync 0;
    st.weak.global.u32 [x], 1;
P1@cta 0,cluster 0,gpu 0:
    ld.weak.global.u32 r0, [x];
    setp.eq.u32 p, r0, 1;
    @p bra done;
    bar.sync 0;
done:
    ret;
exists (1:r0 == 0)
)");
  const auto& p = l->prog;
  // P1 either arrives or exits: generation 0 always completes, no blocked alternative.
  CHECK(p.paths[0].size() == 1);
  CHECK(p.paths[1].size() == 2);
  CHECK(choices(p).size() == 2);
}

TEST_CASE("a partner cut by the unrolling bound blocks the barrier", "[events][barrier]") {
  auto l = lowerText(R"(PTX bar-cut
{ x = 0 }
P0@cta 0,cluster 0,gpu 0:
    bar.sync 0;
P1@cta 0,cluster 0,gpu 0:
L:
    ld.weak.global.u32 r0, [x];
    setp.eq.u32 p, r0, 0;
    @p bra L;
exists (1:r0 == 0)
)");
  const auto& p = l->prog;
  REQUIRE(p.paths[0].size() == 2);
  int pass0 = pathWhere(p, 0, [](const Path& q) { return q.end == PathEnd::Normal; });
  int block0 = pathWhere(p, 0, blockedAtBarrier);
  int cut1 = pathWhere(p, 1, [](const Path& q) { return q.end == PathEnd::Cut; });
  for (const auto& c : choices(p)) {
    bool cut = c[1] == cut1;
    CHECK(c[0] == (cut ? block0 : pass0));
  }
  CHECK(choices(p).size() == p.paths[1].size());
}

TEST_CASE("a thread count counts arrivals: an exited partner does not arrive", "[events][barrier]") {
  for (const char* count : {"2", "64"}) {
    INFO("count " << count);
    auto l = lowerText(std::string(R"(PTX bar-count
{ x = 0 }
P0@cta 0,cluster 0,gpu 0:
    bar.sync 1, )") + count +
                       R"(;
    st.weak.global.u32 [x], 2;
P1@cta 0,cluster 0,gpu 0:
    ld.weak.global.u32 r0, [x];
    setp.eq.u32 p, r0, 1;
    @p bra skip;
    bar.arrive 1, )" + count +
                       R"(;
skip:
    ret;
P2@cta 0,cluster 0,gpu 0:
    ld.weak.global.u32 r0, [x];
exists (1:r0 == 0)
)");
    const auto& p = l->prog;
    REQUIRE(p.barriers.size() == 1);
    CHECK(p.paths[1][static_cast<size_t>(pathWhere(p, 1, [](const Path& q) { return arrivals(q, 0) == 1; }))]
              .barriers.at(0)
              .counts.at(0) == 2);
    CHECK(p.barriers[0].participants.size() == 3);
    REQUIRE(p.paths[0].size() == 2);
    int pass0 = pathWhere(p, 0, [](const Path& q) { return q.end == PathEnd::Normal; });
    int block0 = pathWhere(p, 0, blockedAtBarrier);
    int arrive1 = pathWhere(p, 1, [](const Path& q) { return arrivals(q, 0) == 1; });
    int skip1 = pathWhere(p, 1, [](const Path& q) { return arrivals(q, 0) == 0; });
    auto cs = choices(p);
    std::sort(cs.begin(), cs.end());
    std::vector<std::vector<int>> want{{pass0, arrive1, 0}, {block0, skip1, 0}};
    std::sort(want.begin(), want.end());
    CHECK(cs == want);
  }
}

TEST_CASE("barrier thread counts are per generation; a register id forks over the ids", "[events][barrier]") {
  // PTX ISA §9.7.13.1: the barrier is reinitialised when it completes, so generations may use different
  // counts. A count of 3 in a CTA of 2 threads never completes: the waiting thread may block there.
  auto l = lowerText(R"(PTX bar-counts
{ x = 0 }
P0@cta 0,cluster 0,gpu 0:
    bar.sync 1, 2;
    bar.sync 1, 3;
P1@cta 0,cluster 0,gpu 0:
    bar.arrive 1, 2;
    bar.arrive 1, 3;
exists (1:r0 == 0)
)");
  const auto& p = l->prog;
  REQUIRE(p.barriers.size() == 1);
  int normal = pathWhere(p, 0, [](const Path& q) { return q.end == PathEnd::Normal; });
  REQUIRE(normal >= 0);
  const auto& counts = p.paths[0][static_cast<size_t>(normal)].barriers.at(0).counts;
  CHECK(counts == std::map<int, int>{{0, 2}, {1, 3}});
  auto cs = choices(p);
  REQUIRE(cs.size() == 1);  // the second generation never completes: P0 blocks there
  CHECK(p.paths[0][static_cast<size_t>(cs[0][0])].barriers.at(0).blockedGen == 1);

  // A loaded id: one path per id 0..15 and one with an id out of range (undefined).
  auto r = lowerText(R"(PTX bar-reg
{ x = 0 }
P0@cta 0,cluster 0,gpu 0:
    ld.weak r9, [x];
    bar.sync r9;
exists (0:r9 == 0)
)");
  size_t normalPaths = 0, undefined = 0;
  for (const auto& q : r->prog.paths[0]) {
    normalPaths += q.end == PathEnd::Normal ? 1 : 0;
    undefined += q.undefinedIf.empty() ? 0 : 1;
  }
  CHECK(normalPaths == 17);
  CHECK(undefined == 1);
}

TEST_CASE("barrier generations: the second bar.sync needs the partner's second arrival", "[events][barrier]") {
  auto l = lowerText(R"(PTX bar-gen
{ x = 0; .mbarrier bar = 1 }
P0@cta 0,cluster 0,gpu 0:
    bar.sync 0;
    bar.sync 0;
    st.weak.global.u32 [x], 1;
P1@cta 0,cluster 0,gpu 0:
    bar.sync 0;
w:
    mbarrier.try_wait.parity.shared::cta.b64 p, [bar], 0;
    @!p bra w;
    bar.sync 0;
exists (1:r0 == 0)
)");
  const auto& p = l->prog;
  // P0 can block at generation 1 (P1 may block in its wait after generation 0), never at generation 0.
  REQUIRE(p.paths[0].size() == 2);
  int block0 = pathWhere(p, 0, blockedAtBarrier);
  CHECK(p.paths[0][static_cast<size_t>(block0)].barriers[0].blockedGen == 1);
  CHECK(p.paths[0][static_cast<size_t>(block0)].barriers[0].passed == std::vector<int>{0});
  int wait1 = pathWhere(p, 1, blockedInWait);
  for (const auto& c : choices(p)) CHECK((c[0] == block0) == (c[1] == wait1));
}

TEST_CASE("selfarm CLC loop: the issuer passes the cluster barrier only after the reader arrives",
          "[events][barrier][cluster]") {
  namespace fs = std::filesystem;
  fs::path file = fs::path(PTXMM_SOURCE_DIR) / "litmus" / "clc" / "clc-cluster-loop-ptx-example-selfarm.litmus";
  auto parsed = litmus::tryParseFile(file.string());
  REQUIRE(parsed.ok());
  EventProgram p = lower(*parsed.test);
  REQUIRE(p.barriers.size() == 1);
  CHECK(p.barriers[0].cluster);
  CHECK(p.barriers[0].participants == std::vector<int>{0, 1});
  // P0: wait success (passes the cluster barrier), wait blocked, blocked at the cluster wait.
  int block0 = pathWhere(p, 0, blockedAtBarrier);
  const Path& b0 = p.paths[0][static_cast<size_t>(block0)];
  CHECK(hasTag(p.events[static_cast<size_t>(b0.blockedAt)], "CLUSTER_WAIT"));
  CHECK(b0.readsFinal.empty());
  int issues = 0;
  for (EventId e : b0.events) issues += hasTag(p.events[static_cast<size_t>(e)], "ISSUE") ? 1 : 0;
  CHECK(issues == 1);  // the second try_cancel is not on the blocked path
  int wait1 = pathWhere(p, 1, blockedInWait);
  CHECK(arrivals(p.paths[1][static_cast<size_t>(wait1)], 0) == 0);
  size_t visited = 0;
  for (const auto& c : choices(p)) {
    ++visited;
    const Path& q0 = p.paths[0][static_cast<size_t>(c[0])];
    const Path& q1 = p.paths[1][static_cast<size_t>(c[1])];
    // the formerly spurious execution: P0 past the cluster wait while P1 is stuck before arriving
    if (passes(q0, 0, 0)) CHECK(arrivals(q1, 0) == 1);
    if (c[0] == block0) CHECK(c[1] == wait1);
    if (passes(q1, 0, 0)) CHECK(arrivals(q0, 0) == 1);
  }
  CHECK(visited >= 2);
  CHECK(visited < countPathChoices(p));
}
