// MonotoneAlgebra: a check that fails for good on a partial execution fails on every completion; the
// directions of the operators; conditions on undecided values are errors; plainChecksOnly and the cut.
#include <catch2/catch.hpp>
#include <random>

#include "BitTestSupport.hpp"
#include "cat/BitAlgebra.hpp"
#include "cat/Interpreter.hpp"
#include "cat/MonotoneAlgebra.hpp"

using namespace ptxmm;
using namespace ptxmm::cat;

namespace {

// Checks on every operator, over a growing relation `rf`, a growing `co` and static `po`, `S`. Some are
// monotone in the growing inputs, some antitone, some neither.
const char* kModel = R"(M
let fr = rf^-1 ; co
let com = rf | co | fr
acyclic po | com as sc
irreflexive (po ; rf^-1) as no-rf-back
empty (rf & po) \ co as monotone-diff
empty po \ rf as antitone-diff
acyclic ~(rf | po) as complemented
~empty (domain(rf) * range(co)) & po as negated-grows
~acyclic po \ co as negated-shrinks
irreflexive (rf+ ; [S] ; co* ; (po \ fr)?) as mixed
let dS = [S]
acyclic (dS ; rf ; [S]) | po as restricted
irreflexive ([S \ S] ; rf) | (po ; dS ; co ; [~S]) as empty-restriction
empty (rf ; co) & (po \ (rf | co)) as both-ways
let rec t = rf | (t ; co) | po
irreflexive t ; rf as rec-closure
flag ~empty rf & po as flag-ignored
undefined_unless empty co & po as ub-ignored
)";

using bittesting::randomPart;

}  // namespace

TEST_CASE("MonotoneAlgebra: a failure for good on a partial execution is a failure on every completion",
          "[cat][monotone]") {
  Model m = parseModel(kModel, "m.cat");
  Interpreter<MonotoneAlgebra> partial(m);
  Interpreter<BitAlgebra> full(m);
  std::mt19937 rng(99);
  size_t forGood = 0, keptHolding = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const size_t n = 4 + trial % 5;
    BitMatrix po = bittesting::randomMatrix(n, rng, 25), rf = bittesting::randomMatrix(n, rng, 20),
              co = bittesting::randomMatrix(n, rng, 20);
    BitSet s(n);
    for (size_t i = 0; i < n; ++i)
      if (rng() % 2) s.set(i);
    BitMatrix rfP = randomPart(rf, rng), coP = randomPart(co, rng);
    MonotoneAlgebra pa(n);
    pa.setRel("po", po, Direction::Static);
    pa.setSet("S", s, Direction::Static);
    pa.setRel("rf", rfP, Direction::Grows);
    pa.setRel("co", coP, Direction::Grows);
    BitAlgebra fa(n);
    fa.setRel("po", po);
    fa.setSet("S", s);
    fa.setRel("rf", rf);
    fa.setRel("co", co);
    RunOptions ro;
    ro.stopAtFailedCheck = false;
    auto pr = partial.run(pa, ro);
    auto fr = full.run(fa, ro);
    REQUIRE(pr.outcomes.size() == 1);
    REQUIRE(fr.outcomes.size() == 1);
    const auto& pc = pr.outcomes[0].checks;
    const auto& fc = fr.outcomes[0].checks;
    REQUIRE(pc.size() == fc.size());
    for (size_t k = 0; k < pc.size(); ++k) {
      INFO("trial " << trial << " check " << pc[k].info->name);
      if (pc[k].value.failsForGood()) {
        ++forGood;
        CHECK(!fc[k].value);
      }
      if (pc[k].value.value && pc[k].value.keepsHolding) {
        ++keptHolding;
        CHECK(fc[k].value);
      }
    }
  }
  // The property was exercised both ways.
  CHECK(forGood > 100);
  CHECK(keptHolding > 100);
}

TEST_CASE("MonotoneAlgebra: directions of the operators", "[cat][monotone]") {
  MonotoneAlgebra a(3);
  BitMatrix r(3);
  r.set(0, 1);
  a.setRel("g", r, Direction::Grows);
  a.setRel("s", r, Direction::Static);
  MRel g = *a.builtinRel("g"), st = *a.builtinRel("s");
  CHECK(a.seq(g, st).dir == Direction::Grows);
  CHECK(a.relDiff(st, g).dir == Direction::Shrinks);
  CHECK(a.relComplement(g).dir == Direction::Shrinks);
  CHECK(a.relDiff(g, g).dir == Direction::Unknown);
  CHECK(a.plus(a.relComplement(g)).dir == Direction::Shrinks);
  CHECK(a.domain(g).dir == Direction::Grows);
  // A cycle of a growing relation stays; acyclicity of a shrinking one stays.
  BitMatrix cyc(3);
  cyc.set(0, 1);
  cyc.set(1, 0);
  a.setRel("c", cyc, Direction::Grows);
  CHECK(a.acyclic(*a.builtinRel("c")).failsForGood());
  MRel shrinking{cyc, Direction::Shrinks};
  CHECK(!a.acyclic(shrinking).value);
  CHECK(!a.acyclic(shrinking).failsForGood());
  CHECK(!a.notB(a.acyclic(*a.builtinRel("c"))).keepsFailing);
  CHECK(a.knownBool(a.acyclic(st)) == std::optional<bool>(true));
  CHECK(!a.knownBool(a.acyclic(g)));
}

TEST_CASE("An operand empty for good decides the operations it enters, on every completion", "[cat][monotone]") {
  // With E empty and static, what goes through [E] stays empty whatever rf and co grow into: the checks
  // below hold for good. With E non-empty they only hold for now (rf and co may still grow).
  Model m = parseModel(R"(E
irreflexive [E] ; rf ; co ; rf^-1 as seq
empty (rf ; co) & ([E] ; po) as inter
acyclic (([E] ; rf) | po)+ as union-plus
empty ([E] ; co) \ co as diff
)",
                       "e.cat");
  const size_t n = 3;
  BitMatrix po(n), rf(n), co(n);
  po.set(0, 1);
  po.set(2, 0);
  rf.set(0, 2);
  co.set(2, 1);
  for (bool emptyE : {true, false}) {
    MonotoneAlgebra a(n);
    BitSet e(n);
    if (!emptyE) e.set(2);
    a.setSet("E", e, Direction::Static);
    a.setRel("po", po, Direction::Static);
    a.setRel("rf", rf, Direction::Grows);
    a.setRel("co", co, Direction::Grows);
    RunOptions ro;
    ro.stopAtFailedCheck = false;
    auto r = Interpreter<MonotoneAlgebra>(m).run(a, ro);
    REQUIRE(r.outcomes.size() == 1);
    for (const auto& c : r.outcomes[0].checks) {
      INFO((emptyE ? "E empty: " : "E = {2}: ") << c.info->name);
      CHECK(c.value.value);
      CHECK(c.value.keepsHolding == emptyE);
    }
  }
  CHECK(MonotoneAlgebra(2).relEmptyForGood(MRel{BitMatrix(2), Direction::Shrinks}));
  CHECK(!MonotoneAlgebra(2).relEmptyForGood(MRel{BitMatrix(2), Direction::Grows}));
}

TEST_CASE("MonotoneAlgebra: a condition on undecided values is an error, a static one is decided", "[cat][monotone]") {
  Model dyn = parseModel("D\nlet x = if rf = 0 then po else rf\nacyclic x as a\n", "d.cat");
  Model stat = parseModel("D\nlet x = if po = 0 then rf else po\nacyclic x as a\n", "s.cat");
  MonotoneAlgebra a(2);
  a.setRel("po", BitMatrix(2), Direction::Static);
  a.setRel("rf", BitMatrix(2), Direction::Grows);
  CHECK_THROWS_WITH(Interpreter<MonotoneAlgebra>(dyn).run(a), Catch::Contains("depends on the execution"));
  auto r = Interpreter<MonotoneAlgebra>(stat).run(a);
  REQUIRE(r.outcomes.size() == 1);
  CHECK(r.outcomes[0].checks.at(0).value.value);
}

TEST_CASE("plainChecksOnly skips flags and undefined_unless; failsForGood cuts the run", "[cat][monotone]") {
  Model m = parseModel(kModel, "m.cat");
  Interpreter<MonotoneAlgebra> in(m);
  const size_t n = 3;
  MonotoneAlgebra a(n);
  BitMatrix po(n), rf(n);
  po.set(0, 1);
  rf.set(1, 0);  // po ; rf^-1 ... and po | rf has a cycle: the first check fails for good
  a.setRel("po", po, Direction::Static);
  a.setSet("S", BitSet(n), Direction::Static);
  a.setRel("rf", rf, Direction::Grows);
  a.setRel("co", BitMatrix(n), Direction::Grows);
  RunOptions ro;
  ro.stopAtFailedCheck = false;
  ro.plainChecksOnly = true;
  auto all = in.run(a, ro);
  for (const auto& c : all.outcomes.at(0).checks) {
    CHECK(c.info->kind != CheckKind::Flag);
    CHECK(c.info->kind != CheckKind::Undefined);
  }
  ro.stopAtFailedCheck = true;
  auto cut = in.run(a, ro);
  REQUIRE(cut.outcomes.size() == 1);
  CHECK(cut.outcomes[0].cut);
  REQUIRE(cut.outcomes[0].checks.size() == 1);
  CHECK(cut.outcomes[0].checks[0].info->name == "sc");
  CHECK(cut.outcomes[0].checks[0].value.failsForGood());
}
