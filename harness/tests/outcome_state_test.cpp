// Final states: the observed terms and their key order, the state key (writer and parser), the
// condition printed in both styles and evaluated over a state.
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "litmus/Parser.hpp"
#include "litmus/Printer.hpp"
#include "outcome/Observation.hpp"
#include "outcome/State.hpp"

using namespace ptxmm;

namespace {

// Registers of two threads, a global location and a shared copy in CTA 1, named out of key order.
const char* kTest = R"(PTX Terms
{ .shared s = 0; x = 0; y = 0; }
P0@cta 0,cluster 0,gpu 0:
    st.shared::cluster.u32 [s@cta1], 1;
    ld.u64 r1, [x];
    ld.u64 r0, [y];
P1@cta 1,cluster 0,gpu 0:
    ld.shared::cta.u32 r0, [s];
    ld.u64 r2, [x];
locations [y; s@cta1; 0:r0;]
exists (x == 1 /\ 1:r2 == -1 \/ 0:r1 == 1 /\ 1:r0 == 0)
)";

litmus::Test parse(const std::string& text) { return litmus::parseTest(text, "T.litmus"); }

// The lowered program's locations of kTest as the engines see them (events::findLocation).
std::optional<int> locate(const litmus::LocRef& ref) {
  static const std::map<std::string, int> ids = {{"s@cta1", 1}, {"x", 2}, {"y", 3}};
  auto it = ids.find(ref.cta >= 0 ? ref.name + "@cta" + std::to_string(ref.cta) : ref.name);
  return it == ids.end() ? std::nullopt : std::optional<int>(it->second);
}

litmus::Condition conditionOf(const std::string& text) {
  return parse("PTX C\n{ x = 0; }\n P0 ;\n ld.weak r0, x ;\n" + text + "\n").condition;
}

}  // namespace

TEST_CASE("observed terms: registers by thread and name, then locations by label, each once", "[outcome]") {
  const litmus::Test test = parse(kTest);
  std::vector<std::string> labels;
  for (const auto& t : outcome::observedTerms(test)) labels.push_back(litmus::printTerm(t));
  CHECK(labels == std::vector<std::string>{"0:r0", "0:r1", "1:r0", "1:r2", "s@cta1", "x", "y"});
  const outcome::StateSpec spec = outcome::makeStateSpec(test, locate);
  CHECK(spec.labels == labels);
  CHECK(spec.terms[4].loc == 1);
  CHECK(spec.terms[0].loc == -1);
  CHECK(outcome::makeStateSpec(test).terms[4].loc == -1);  // no locator: no lowered program
}

TEST_CASE("state keys: written and parsed back, 64-bit and negative values", "[outcome]") {
  const outcome::StateSpec spec = outcome::makeStateSpec(parse(kTest), locate);
  const std::vector<int64_t> values = {
      0, -1, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), 1, 4294967295, 2};
  const std::string key = spec.key(values);
  CHECK(key == "0:r0=0; 0:r1=-1; 1:r0=-9223372036854775808; 1:r2=9223372036854775807; s@cta1=1; x=4294967295; y=2;");
  CHECK(spec.values(key) == values);
  std::map<std::string, int64_t> items = outcome::parseStateKey(key);
  CHECK(items.size() == 7);
  CHECK(items.at("s@cta1") == 1);
  CHECK(items.at("1:r0") == std::numeric_limits<int64_t>::min());
  // A term the key does not name is 0; items that do not parse are skipped; hex is read.
  CHECK(spec.values("x=0x10; 1:r2=oops; y") == std::vector<int64_t>{0, 0, 0, 0, 0, 16, 0});
  CHECK(outcome::stateKey(std::vector<std::string>{"0:r0", "x"}, std::vector<int64_t>{5}) == "0:r0=5;");
}

TEST_CASE("state keys: the model's and the hardware's key of a state are the same", "[outcome]") {
  const litmus::Test test = parse(kTest);
  const outcome::StateSpec model = outcome::makeStateSpec(test, locate);
  // The hardware side: the generated kernel's terms (outcome::observedTerms, labelled by
  // litmus::printTerm) and the histogram line the runner writes for the same values.
  std::vector<std::string> kernelLabels;
  for (const auto& t : outcome::observedTerms(test)) kernelLabels.push_back(litmus::printTerm(t));
  const std::vector<int64_t> values = {1, 0, 0, -1, 1, 1, 0};
  const std::string hw = outcome::stateKey(kernelLabels, values);
  CHECK(hw == model.key(values));
  CHECK(model.values(hw) == values);
  CHECK(model.satisfies(model.values(hw)));
}

TEST_CASE("condition printing: canonical and herd styles", "[outcome]") {
  const litmus::Condition c = conditionOf("exists (0:r0 == 1 /\\ (x == 1 /\\ ~(0:r0 != 2 \\/ x == 3)))");
  CHECK(litmus::printCondition(c, litmus::PropStyle::Canonical) == "exists (0:r0=1 /\\ (x=1 /\\ ~(0:r0!=2 \\/ x=3)))");
  CHECK(litmus::printCondition(c, litmus::PropStyle::Herd) == "exists (0:r0=1 /\\ x=1 /\\ ~(0:r0!=2 \\/ x=3))");
  const litmus::Condition o = conditionOf("~exists (0:r0 == 1 \\/ (x == 1 \\/ x == 2) => x == 0)");
  CHECK(litmus::printCondition(o, litmus::PropStyle::Canonical) == "~exists (0:r0=1 \\/ (x=1 \\/ x=2) => x=0)");
  CHECK(litmus::printCondition(o, litmus::PropStyle::Herd) == "~exists (0:r0=1 \\/ x=1 \\/ x=2 => x=0)");
  const litmus::Condition f = conditionOf("forall ((0:r0 == 1 \\/ x == 1) /\\ 0:r0 == 1)");
  for (auto style : {litmus::PropStyle::Canonical, litmus::PropStyle::Herd})
    CHECK(litmus::printCondition(f, style) == "forall ((0:r0=1 \\/ x=1) /\\ 0:r0=1)");
}

TEST_CASE("condition evaluation: exists, ~exists and forall with and, or and not", "[outcome]") {
  const litmus::Test test = parse(kTest);
  const outcome::StateSpec spec = outcome::makeStateSpec(test);
  // exists (x == 1 /\ 1:r2 == -1 \/ 0:r1 == 1 /\ 1:r0 == 0)
  CHECK(spec.satisfies(spec.values("1:r2=-1; x=1;")));
  CHECK(spec.satisfies(spec.values("0:r1=1; 1:r0=0;")));
  CHECK_FALSE(spec.satisfies(spec.values("0:r1=1; 1:r0=1; x=1;")));
  auto holds = [](const std::string& cond, const std::string& key) {
    litmus::Test t = parse("PTX C\n{ x = 0; }\n P0 | P1 ;\n ld.weak r0, x | ld.weak r0, x ;\n" + cond + "\n");
    const outcome::StateSpec s = outcome::makeStateSpec(t);
    return s.satisfies(s.values(key));
  };
  CHECK(holds("~exists (~(0:r0 == 1) /\\ 1:r0 != 0)", "0:r0=0; 1:r0=2; x=0;"));
  CHECK_FALSE(holds("~exists (~(0:r0 == 1) /\\ 1:r0 != 0)", "0:r0=1; 1:r0=2; x=0;"));
  CHECK(holds("forall (0:r0 == 0 \\/ 1:r0 == 0 => x == 1)", "0:r0=1; 1:r0=1; x=0;"));
  CHECK_FALSE(holds("forall (0:r0 == 0 \\/ 1:r0 == 0 => x == 1)", "0:r0=0; 1:r0=1; x=0;"));
  // The quantifier decides validation from the counts; the observation ignores it.
  using Q = litmus::Condition::Quant;
  CHECK(outcome::validated(Q::Exists, 1, 3));
  CHECK_FALSE(outcome::validated(Q::NotExists, 1, 3));
  CHECK(outcome::validated(Q::NotExists, 0, 3));
  CHECK_FALSE(outcome::validated(Q::Forall, 3, 1));
  CHECK(outcome::validated(Q::Forall, 3, 0));
  CHECK(outcome::observe(0, 3) == outcome::Observation::Never);
  CHECK(outcome::observe(3, 0) == outcome::Observation::Always);
  CHECK(outcome::observe(1, 3) == outcome::Observation::Sometimes);
}

TEST_CASE("state specs name the test file for a thread or a location the test lacks", "[outcome]") {
  litmus::Test t = parse("PTX C\n{ x = 0; }\n P0 ;\n ld.weak r0, x ;\nexists (0:r0 == 1 /\\ x == 0)\n");
  t.condition.prop.kids.at(1).lhs.loc.name = "z";  // a location the lowered program lacks
  CHECK_NOTHROW(outcome::makeStateSpec(t));
  CHECK_THROWS_WITH(outcome::makeStateSpec(t, locate), Catch::Matchers::Contains("unknown location 'z'"));
  t.condition.prop.kids.at(0).lhs.thread = 3;
  CHECK_THROWS_WITH(outcome::makeStateSpec(t), Catch::Matchers::Contains("condition names thread 3"));
}
