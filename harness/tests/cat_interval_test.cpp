// IntervalAlgebra: what the bounds say about a check holds on every execution between them; differences
// are bounded from above by subtracting the least value (ptx.cat's data-race shape); decided conditions.
#include <catch2/catch.hpp>
#include <random>

#include "BitTestSupport.hpp"
#include "cat/BitAlgebra.hpp"
#include "cat/Interpreter.hpp"
#include "cat/IntervalAlgebra.hpp"

using namespace ptxmm;
using namespace ptxmm::cat;

namespace {

// Checks and flags on every operator, over `rf` and `co` known between two bounds and static `po`, `S`.
const char* kModel = R"(M
let fr = rf^-1 ; co
let com = rf | co | fr
acyclic po | com as sc
irreflexive (po ; rf^-1) as no-rf-back
empty (rf & po) \ co as diff-of-both
empty po \ rf as antitone-diff
acyclic ~(rf | po) as complemented
~empty (domain(rf) * range(co)) & po as negated
irreflexive (rf+ ; [S] ; co* ; (po \ fr)?) as mixed
let rec t = rf | (t ; co) | po
irreflexive t ; rf as rec-closure
flag ~empty (po \ (rf | co | fr)) as unordered
undefined_unless empty co & po as co-with-po
)";

using bittesting::randomPart;

}  // namespace

TEST_CASE("IntervalAlgebra: a check the bounds decide is decided so on every execution between them",
          "[cat][interval]") {
  Model m = parseModel(kModel, "m.cat");
  Interpreter<IntervalAlgebra> bounds(m);
  Interpreter<BitAlgebra> exact(m);
  std::mt19937 rng(7);
  size_t neverHolds = 0, neverFails = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const size_t n = 4 + trial % 5;
    BitMatrix po = bittesting::randomMatrix(n, rng, 25), rfHi = bittesting::randomMatrix(n, rng, 30),
              coHi = bittesting::randomMatrix(n, rng, 30);
    BitMatrix rfLo = randomPart(rfHi, rng), coLo = randomPart(coHi, rng);
    BitSet s(n);
    for (size_t i = 0; i < n; ++i)
      if (rng() % 2) s.set(i);
    IntervalAlgebra ia(n);
    ia.setRel("po", po, po);
    ia.setSet("S", s, s);
    ia.setRel("rf", rfLo, rfHi);
    ia.setRel("co", coLo, coHi);
    RunOptions ro;
    ro.stopAtFailedCheck = false;
    auto br = bounds.run(ia, ro);
    REQUIRE(br.outcomes.size() == 1);
    const auto& bc = br.outcomes[0].checks;
    // Several executions between the bounds.
    for (int e = 0; e < 4; ++e) {
      BitMatrix rf = rfLo | randomPart(rfHi, rng), co = coLo | randomPart(coHi, rng);
      BitAlgebra fa(n);
      fa.setRel("po", po);
      fa.setSet("S", s);
      fa.setRel("rf", rf);
      fa.setRel("co", co);
      auto fr = exact.run(fa, ro);
      REQUIRE(fr.outcomes.size() == 1);
      const auto& fc = fr.outcomes[0].checks;
      REQUIRE(bc.size() == fc.size());
      for (size_t k = 0; k < bc.size(); ++k) {
        INFO("trial " << trial << " check " << bc[k].info->name);
        if (!bc[k].value.canHold) {
          ++neverHolds;
          CHECK(!fc[k].value);
        }
        if (!bc[k].value.canFail) {
          ++neverFails;
          CHECK(fc[k].value);
        }
      }
    }
  }
  // The property was exercised both ways.
  CHECK(neverHolds > 100);
  CHECK(neverFails > 100);
}

TEST_CASE("IntervalAlgebra: a difference is bounded above by subtracting the least value", "[cat][interval]") {
  // ptx.cat's shape: conflicting pairs minus (ms | cause), cause growing with rf. When ms covers every
  // conflicting pair the flag cannot be raised whatever rf becomes, which a single growing binding
  // (MonotoneAlgebra) cannot tell.
  Model m = parseModel("R\nlet cause = (po | rf)+\nflag ~empty conflict \\ (ms | cause | cause^-1) as race\n", "r.cat");
  const size_t n = 3;
  BitMatrix conflict(n), po(n), rfHi(n);
  conflict.set(0, 1);
  conflict.set(1, 0);
  rfHi.set(0, 2);
  rfHi.set(2, 1);
  IntervalAlgebra a(n);
  a.setRel("conflict", conflict, conflict);
  a.setRel("po", po, po);
  a.setRel("rf", BitMatrix(n), rfHi);
  a.setRel("ms", conflict, conflict);  // every conflicting pair is morally strong
  auto r = Interpreter<IntervalAlgebra>(m).run(a);
  REQUIRE(r.outcomes.size() == 1);
  CHECK(!r.outcomes[0].checks.at(0).value.canHold);
  a.setRel("ms", BitMatrix(n), BitMatrix(n));  // none is: only rf 0 -> 2 -> 1 would order them
  r = Interpreter<IntervalAlgebra>(m).run(a);
  CHECK(r.outcomes[0].checks.at(0).value.canHold);
  CHECK(r.outcomes[0].checks.at(0).value.canFail);
}

TEST_CASE("IntervalAlgebra: conditions are decided when the bounds decide them", "[cat][interval]") {
  IntervalAlgebra a(2);
  BitMatrix one(2), none(2);
  one.set(0, 1);
  a.setRel("po", one, one);
  a.setRel("rf", none, one);
  const IRel po = *a.builtinRel("po"), rf = *a.builtinRel("rf");
  CHECK(a.decidedSameRel(po, po) == std::optional<bool>(true));
  CHECK(!a.decidedSameRel(po, rf));  // rf may or may not be po
  CHECK(a.decidedSameRel(a.emptyRel(), po) == std::optional<bool>(false));
  CHECK(a.knownBool(a.isEmptyRel(po)) == std::optional<bool>(false));
  CHECK(!a.knownBool(a.isEmptyRel(rf)));
  CHECK(a.failsForGood(a.isEmptyRel(po)));
  CHECK(!a.failsForGood(a.notB(a.isEmptyRel(po))));
  Model dyn = parseModel("D\nlet x = if rf = 0 then po else rf\nacyclic x as a\n", "d.cat");
  CHECK_THROWS_WITH(Interpreter<IntervalAlgebra>(dyn).run(a), Catch::Contains("depends on the execution"));
}
