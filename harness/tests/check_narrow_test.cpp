// The smt engine with narrow values (smt/ValueLayout.hpp) against the 64-bit encoding: same states, flags and
// verdicts; a model that does not forbid value-dependency cycles gets the 64-bit encoding.
#include <z3++.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "cat/Model.hpp"
#include "check/Check.hpp"
#include "events/Lower.hpp"
#include "litmus/Parser.hpp"
#include "outcome/State.hpp"
#include "smt/Engine.hpp"

using namespace ptxmm;

namespace {

// A one-stage TMA ring over three iterations (bench/gen-pipelines.py ring-K1-N3) with its proxy fence
// removed from the second iteration, and a counter incremented through an RMW chain.
const char* kTests[] = {
    R"(PTX ring-K1-N3-nofence
{ .shared buf0 = 0; .global g0 = 1; .global g1 = 2; .global g2 = 3; .mbarrier full0 = 1; .mbarrier empty0 = 1 }
P0@cta 0,cluster 0,gpu 0:
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [full0], 16;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf0], [g0], 16, [full0];
e1:
    mbarrier.try_wait.parity.shared::cta.b64 pe1, [empty0], 0;
    @!pe1 bra e1;
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [full0], 16;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf0], [g1], 16, [full0];
e2:
    mbarrier.try_wait.parity.shared::cta.b64 pe2, [empty0], 1;
    @!pe2 bra e2;
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [full0], 16;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf0], [g2], 16, [full0];
P1@cta 0,cluster 0,gpu 0:
f0:
    mbarrier.try_wait.parity.shared::cta.b64 pf0, [full0], 0;
    @!pf0 bra f0;
    ld.shared.u32 r0, [buf0];
    fence.proxy.async.shared::cta;
    mbarrier.arrive.shared::cta.b64 _, [empty0];
f1:
    mbarrier.try_wait.parity.shared::cta.b64 pf1, [full0], 1;
    @!pf1 bra f1;
    ld.shared.u32 r1, [buf0];
    mbarrier.arrive.shared::cta.b64 _, [empty0];
f2:
    mbarrier.try_wait.parity.shared::cta.b64 pf2, [full0], 0;
    @!pf2 bra f2;
    ld.shared.u32 r2, [buf0];
    fence.proxy.async.shared::cta;
    mbarrier.arrive.shared::cta.b64 _, [empty0];
exists (1:r0 != 1 \/ 1:r1 != 2 \/ 1:r2 != 3)
)",
    R"(PTX counter
{ x = 0; y = 0 }
 P0@cta 0,gpu 0                  | P1@cta 1,gpu 0                  | P2@cta 2,gpu 0       ;
 atom.relaxed.gpu.add r0, [x], 5 | atom.relaxed.gpu.add r0, [x], 7 | ld.relaxed.gpu r0, x ;
 st.relaxed.gpu y, r0            | ld.relaxed.gpu r1, y            | mul.lo.s32 r1, r0, r0 ;
exists (1:r1 == 5 /\ 2:r1 == 144)
)"};

// A model with no acyclic check: value-dependency cycles are allowed, so the narrow layout does not apply.
const char* kNoAcyclic = R"("atomic-only"
empty rmw & (fr ; co) as atomic
)";

check::Verdict run(const litmus::Test& test, const cat::Model& model, bool narrow) {
  events::EventProgram prog = events::lower(test);
  outcome::StateSpec spec =
      outcome::makeStateSpec(*prog.test, [&](const litmus::LocRef& r) { return events::findLocation(prog, r); });
  smt::Workspace ws;
  smt::SmtOptions so;
  so.narrowValues = narrow;
  check::EngineResult r = smt::runSmt(ws, prog, model, spec, so);
  INFO(r.message);
  REQUIRE(r.status == check::Status::Ok);
  return check::makeVerdict(test, std::move(r));
}

}  // namespace

TEST_CASE("smt: narrow values give the states and flags of the 64-bit encoding", "[check][smt][layout]") {
  const std::filesystem::path modelFile = std::filesystem::path(PTXMM_SOURCE_DIR) / "models/ptx.cat";
  if (!std::filesystem::exists(modelFile)) {
    WARN("models/ptx.cat missing: skipped");
    return;
  }
  const cat::Model ptx = cat::loadModel(modelFile);
  const cat::Model loose = cat::parseModel(kNoAcyclic, "atomic-only.cat");
  for (const char* text : kTests) {
    litmus::Test test = litmus::parseTest(text, "narrow.litmus");
    INFO(test.name);
    for (const cat::Model* m : {&ptx, &loose}) {
      check::Verdict narrow = run(test, *m, true), wide = run(test, *m, false);
      CHECK(check::compareResults(wide, narrow).empty());
      CHECK(narrow.observation == wide.observation);
      REQUIRE(narrow.states.size() == wide.states.size());
      for (size_t i = 0; i < narrow.states.size(); ++i) {
        CHECK(narrow.states[i].key == wide.states[i].key);
        CHECK(narrow.states[i].flags == wide.states[i].flags);
      }
    }
  }
  // The ring without its second fence reads stale data: the states are those of the 64-bit encoding.
  CHECK(run(litmus::parseTest(kTests[0], "ring.litmus"), ptx, true).observation == check::Observation::Sometimes);
}
