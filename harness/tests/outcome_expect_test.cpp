// .expect files: one line per model, verdict, flags, mandatory reason.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "outcome/Expectations.hpp"

using namespace ptxmm;
using namespace ptxmm::outcome;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {
std::string err(const std::string& text) {
  try {
    (void)parseExpectations(text, "t.expect");
  } catch (const DiagnosticError& e) {
    return e.diagnostic().str();
  }
  return "<no error>";
}
}  // namespace

TEST_CASE("expectation lines parse", "[expect]") {
  auto es = parseExpectations(R"(# comment
ptx: Never  | PTX ISA §8.10.6 Causality: release/acquire at .gpu scope orders data before flag

  sc: Sometimes +data-race +cut | variant: proxy fences are CTA-local (reference §6.2)
ptx-cluster-fence:Always|x
)",
                              "mp.expect");
  REQUIRE(es.size() == 3);
  CHECK(es[0].model == "ptx");
  CHECK(es[0].observation == Observation::Never);
  CHECK(es[0].flags.empty());
  CHECK(es[0].reason == "PTX ISA §8.10.6 Causality: release/acquire at .gpu scope orders data before flag");
  CHECK(es[0].src.line == 2);
  CHECK(es[1].model == "sc");
  CHECK(es[1].observation == Observation::Sometimes);
  CHECK(es[1].flags == std::vector<std::string>{"data-race", "cut"});
  CHECK(es[1].src.line == 4);
  CHECK(es[1].src.col == 3);
  CHECK(es[2].model == "ptx-cluster-fence");
  CHECK(es[2].observation == Observation::Always);
  CHECK(es[2].reason == "x");
  CHECK(findExpectation(es, "sc") == &es[1]);
  CHECK(findExpectation(es, "nope") == nullptr);
  CHECK(toString(Observation::Sometimes) == "Sometimes");
  CHECK(expectationPathFor("litmus/base/MP.litmus") == "litmus/base/MP.expect");
}

TEST_CASE("expectation lines are written back in the format they are read in", "[expect][bless]") {
  Expectation e;
  e.model = "ptx";
  e.observation = Observation::Sometimes;
  e.flags = {"data-race", "cut"};
  e.reason = "PTX ISA §8.7.1: a | inside the reason";
  CHECK(formatExpectation(e) == "ptx: Sometimes +data-race +cut | PTX ISA §8.7.1: a | inside the reason");
  auto back = parseExpectations(formatExpectation(e) + "\n", "t.expect");
  REQUIRE(back.size() == 1);
  CHECK(back[0].flags == e.flags);
  CHECK(back[0].reason == e.reason);
  CHECK(isTodoReason(kTodoReason));
  CHECK_FALSE(isTodoReason("PTX ISA §8.8 (TODO: none)"));

  // Flags are a set: another order is the same verdict.
  std::string text = "ptx: Sometimes +cut +data-race | r\r\n";
  Blessed same = blessExpectations(text, "t.expect", "ptx", Observation::Sometimes, {"data-race", "cut"});
  CHECK(same.action == Blessed::Unchanged);
  CHECK(same.text == text);
  // A CRLF file keeps its line endings, on a changed line and on an added one.
  Blessed changed = blessExpectations(text, "t.expect", "ptx", Observation::Never, {});
  CHECK(changed.action == Blessed::Updated);
  CHECK(changed.was == "Sometimes +cut +data-race");
  CHECK(changed.text == "ptx: Never | " + std::string(kTodoReason) + " (was: Sometimes +cut +data-race: r)\r\n");
  Blessed added = blessExpectations(text, "t.expect", "sc", Observation::Never, {});
  CHECK(added.text == text + "sc: Never | " + std::string(kTodoReason) + "\r\n");
  Blessed created = blessExpectations(std::nullopt, "t.expect", "sc", Observation::Always, {"undefined"});
  CHECK(created.action == Blessed::Created);
  CHECK(created.text == "sc: Always +undefined | " + std::string(kTodoReason) + "\n");
  CHECK_THROWS_AS(blessExpectations(std::string("ptx: Nevr | r\n"), "t.expect", "ptx", Observation::Never, {}),
                  DiagnosticError);
}

TEST_CASE("expectation errors", "[expect]") {
  CHECK_THAT(err("ptx: Never\n"), StartsWith("t.expect:1:11: error: missing reason"));
  CHECK_THAT(err("ptx: Never |   \n"), Contains("empty reason"));
  CHECK_THAT(err("ptx: Nevr | r\n"), StartsWith("t.expect:1:6: error: bad verdict `Nevr`; did you mean `Never`?"));
  CHECK_THAT(err("ptx Never | r\n"), Contains("expected ':'"));
  CHECK_THAT(err("ptx: | r\n"), Contains("missing verdict"));
  CHECK_THAT(err("ptx: Never + | r\n"), Contains("expected a flag name"));
  CHECK_THAT(err("ptx: Never +cut +cut | r\n"), Contains("duplicate flag"));
  CHECK_THAT(err("ptx: Never | a\nptx: Always | b\n"),
             StartsWith("t.expect:2:1: error: duplicate expectation for model `ptx`"));
  CHECK_THAT(err("ptx: Never junk | r\n"), Contains("unexpected text"));
  CHECK(err("# only comments\n\n") == "<no error>");
}

TEST_CASE("every suite .expect file parses", "[expect][suite]") {
  namespace fs = std::filesystem;
  fs::path root = fs::path(PTXMM_SOURCE_DIR) / "litmus";
  if (!fs::exists(root)) return;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || e.path().extension() != ".expect") continue;
    try {
      auto es = parseExpectationFile(e.path().string());
      CHECK_FALSE(es.empty());
    } catch (const DiagnosticError& d) {
      FAIL_CHECK(d.diagnostic().str());
    }
  }
}
