// The text side of repairs: applying line edits and printing them as a unified diff (the search itself is
// tested end to end in cli_repair_test.cpp, on the suite's tests).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "analysis/Repair.hpp"

using namespace ptxmm::analysis;

namespace {
std::vector<std::string> numbered(int n) {
  std::vector<std::string> v;
  for (int i = 1; i <= n; ++i) v.push_back("l" + std::to_string(i));
  return v;
}
}  // namespace

TEST_CASE("applyTextEdits inserts after a line, before the first, and replaces", "[analysis][repair]") {
  auto base = numbered(3);
  std::vector<TextEdit> edits{{false, 0, {"top"}}, {false, 2, {"a", "b"}}, {true, 3, {"L3"}}, {false, 2, {"c"}}};
  CHECK(applyTextEdits(base, edits) == std::vector<std::string>{"top", "l1", "l2", "a", "b", "c", "L3"});
  CHECK(applyTextEdits(base, {}) == base);
}

TEST_CASE("unifiedDiff: hunk headers, context and merged hunks", "[analysis][repair]") {
  auto base = numbered(20);
  SECTION("one insertion in the middle") {
    std::string d = unifiedDiff(base, {{false, 10, {"new"}}}, "a/t", "b/t");
    CHECK(d == "--- a/t\n+++ b/t\n@@ -8,6 +8,7 @@\n l8\n l9\n l10\n+new\n l11\n l12\n l13\n");
  }
  SECTION("a replacement at the first line") {
    std::string d = unifiedDiff(base, {{true, 1, {"L1"}}}, "a", "b");
    CHECK(d == "--- a\n+++ b\n@@ -1,4 +1,4 @@\n-l1\n+L1\n l2\n l3\n l4\n");
  }
  SECTION("edits six lines apart share a hunk; further apart they do not") {
    std::string near = unifiedDiff(base, {{false, 5, {"x"}}, {false, 11, {"y"}}}, "a", "b");
    CHECK(near.find("@@ -3,12 +3,14 @@\n") != std::string::npos);
    std::string far = unifiedDiff(base, {{false, 2, {"x"}}, {false, 18, {"y"}}}, "a", "b");
    CHECK(far.find("@@ -1,5 +1,6 @@\n") != std::string::npos);
    CHECK(far.find("@@ -16,5 +17,6 @@\n") != std::string::npos);
  }
  SECTION("an insertion before the first line of an empty text") {
    CHECK(unifiedDiff({}, {{false, 0, {"only"}}}, "a", "b") == "--- a\n+++ b\n@@ -0,0 +1,1 @@\n+only\n");
  }
}
