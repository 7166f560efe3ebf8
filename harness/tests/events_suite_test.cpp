// Every litmus file of the suite (litmus/**/*.litmus) must lower, and its skeletons must build.
#include <catch2/catch.hpp>
#include <filesystem>

#include "events/Lower.hpp"
#include "events/Skeleton.hpp"
#include "litmus/Parser.hpp"

using namespace ptxmm;
namespace fs = std::filesystem;

TEST_CASE("the litmus suite lowers without errors", "[events][suite]") {
  fs::path root = fs::path(PTXMM_SOURCE_DIR) / "litmus";
  REQUIRE(fs::exists(root));
  size_t files = 0, lowered = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".litmus") continue;
    ++files;
    auto parsed = litmus::tryParseFile(entry.path().string());
    if (!parsed.ok()) continue;  // parse errors are the parser's tests' business
    INFO(entry.path().string());
    events::EventProgram prog;
    try {
      prog = events::lower(*parsed.test);
    } catch (const DiagnosticError& e) {
      FAIL_CHECK(e.what());
      continue;
    }
    ++lowered;
    CHECK(prog.paths.size() == parsed.test->threads.size());
    size_t skeletons = 0;
    events::forEachPathChoice(prog, [&](const std::vector<int>& c) {
      events::Skeleton sk = events::buildSkeleton(prog, c);
      CHECK(sk.numInit == prog.initWrites.size());
      return ++skeletons < 64;
    });
    CHECK(skeletons >= 1);
  }
  WARN("lowered " << lowered << " of " << files << " suite files");
}
