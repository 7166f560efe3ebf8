// Value-dependent built-in sets (Event::dynamicTags: MB_PHASE_DONE, MB_WAIT_OK) in both engines: the
// membership follows the values of each execution, both engines agree, and ptx.cat's
// mbarrier-phase-misuse check fires on the phase-reuse shapes.
#include <z3++.h>

#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>

#include "cat/Model.hpp"
#include "check/Check.hpp"
#include "events/Expr.hpp"
#include "litmus/Parser.hpp"

using namespace ptxmm;

namespace {

// SC plus RMW atomicity, and flags that expose the two dynamic sets. P0's arrive is the only one at
// cluster scope, so `p0-done` says "P0's arrive completed the phase".
const char* kModel = R"("dyn-sets-test"
let com = rf | co | fr
acyclic po | com as sc
empty rmw & (fr ; co) as atomic
flag ~empty MB_PHASE_DONE as phase-done
flag ~empty (MB_PHASE_DONE & CLUSTER) as p0-done
flag ~empty ((MB_PHASE_DONE * MB_PHASE_DONE) \ id) as two-done
flag ~empty MB_WAIT_OK as wait-ok
flag ~empty (MB_WAIT_OK \ MB_WAIT) as ok-not-wait
)";

// Two arrivals complete phase 0 of a count-2 barrier; which one completes it depends on the coherence
// order of the barrier word (r0 = P0's old state: 2 pending if first, 1 if second). The parity-0
// test_wait succeeds iff it reads the phase-1 state (p = 1).
const char* kTest = R"(PTX dyn-sets
{ .mbarrier bar = 2 }
P0@cta 0,cluster 0,gpu 0:
    mbarrier.arrive.release.cluster.shared::cta.b64 r0, [bar];
P1@cta 0,cluster 0,gpu 0:
    mbarrier.arrive.release.cta.shared::cta.b64 r0, [bar];
P2@cta 0,cluster 0,gpu 0:
    mbarrier.test_wait.parity.shared::cta.b64 p, [bar], 0;
exists (0:r0 == 0 /\ 2:p == 1)
)";

const int64_t kFirst = events::mbarrierState(0, 2, 0);   // state read by the first arrive
const int64_t kSecond = events::mbarrierState(0, 1, 0);  // state read by the second arrive

check::Verdict run(check::Engine e, const litmus::Test& test, const cat::Model& model) {
  check::CheckOptions opts;
  opts.engine = e;
  return check::checkTest(test, model, "dyn-sets-test", opts);
}

// Expected flags per state (r0, p), whatever the engine.
void checkStates(const check::Verdict& v) {
  INFO(v.message);
  REQUIRE(v.status == check::Status::Ok);
  REQUIRE(v.states.size() == 4);
  for (const auto& s : v.states) {
    INFO(s.key);
    REQUIRE(s.values.size() == 2);
    int64_t r0 = s.values[0], p = s.values[1];
    REQUIRE((r0 == kFirst || r0 == kSecond));
    REQUIRE((p == 0 || p == 1));
    CHECK(s.flags.count("phase-done") == 1);  // exactly one arrive completes the phase ...
    CHECK(s.flags.count("two-done") == 0);    // ... never both
    CHECK(s.flags.count("p0-done") == (r0 == kSecond ? 1u : 0u));
    CHECK(s.flags.count("wait-ok") == (p == 1 ? 1u : 0u));
    CHECK(s.flags.count("ok-not-wait") == 0);
  }
}

}  // namespace

TEST_CASE("enum: value-dependent sets follow each execution's values", "[check][enum][dynamic]") {
  cat::Model model = cat::parseModel(kModel, "dyn-sets-test.cat");
  litmus::Test test = litmus::parseTest(kTest, "dyn-sets.litmus");
  checkStates(run(check::Engine::Enum, test, model));
}

TEST_CASE("smt: value-dependent sets follow each execution's values", "[check][smt][dynamic]") {
  cat::Model model = cat::parseModel(kModel, "dyn-sets-test.cat");
  litmus::Test test = litmus::parseTest(kTest, "dyn-sets.litmus");
  checkStates(run(check::Engine::Smt, test, model));
}

TEST_CASE("both engines agree on value-dependent sets", "[check][both][dynamic]") {
  cat::Model model = cat::parseModel(kModel, "dyn-sets-test.cat");
  litmus::Test test = litmus::parseTest(kTest, "dyn-sets.litmus");
  check::Verdict ve = run(check::Engine::Enum, test, model);
  check::Verdict vs = run(check::Engine::Smt, test, model);
  CHECK(check::compareResults(ve, vs).empty());
  REQUIRE(ve.states.size() == vs.states.size());
  for (size_t i = 0; i < ve.states.size(); ++i) {
    CHECK(ve.states[i].key == vs.states[i].key);
    CHECK(ve.states[i].flags == vs.states[i].flags);
  }
  check::Verdict vb = run(check::Engine::Both, test, model);
  CHECK(vb.status == check::Status::Ok);
  CHECK(!vb.internalError);
}

TEST_CASE("ptx.cat flags mbarrier phase reuse as undefined only without an observing wait", "[check][dynamic]") {
  cat::Model model = cat::loadModel("models/ptx.cat");
  // Count 1: P0 completes phase 0 and then arrives in phase 1. Only the blocked execution (the wait never
  // saw phase 0 complete, r0 = 5) lacks a successful wait between the two: that one is undefined.
  litmus::Test test = litmus::parseTest(R"(PTX phase-reuse
{ .mbarrier bar = 1; P1:r0 = 5 }
P0@cta 0,cluster 0,gpu 0:
    mbarrier.arrive.shared::cta.b64 state, [bar];
    mbarrier.arrive.shared::cta.b64 state, [bar];
P1@cta 0,cluster 0,gpu 0:
w0:
    mbarrier.try_wait.parity.shared::cta.b64 p, [bar], 0;
    @!p bra w0;
    mov.u32 r0, 1;
exists (1:r0 == 5)
)",
                                        "phase-reuse.litmus");
  for (auto e : {check::Engine::Enum, check::Engine::Smt}) {
    check::CheckOptions opts;
    opts.engine = e;
    check::Verdict v = check::checkTest(test, model, "ptx", opts);
    INFO(v.message);
    REQUIRE(v.status == check::Status::Ok);
    REQUIRE(v.states.size() == 2);
    for (const auto& s : v.states) {
      INFO(s.key);
      bool blocked = s.values.at(0) == 5;
      CHECK(s.flags.count("undefined") == (blocked ? 1u : 0u));
    }
  }
}
