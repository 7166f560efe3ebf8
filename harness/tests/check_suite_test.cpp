// Oracles over the litmus suite (style guide §5): every state allowed by sc.cat is allowed by
// ptx.cat, on every test, and the enum and smt engines agree on every test with at most kMaxEvents
// events (the enum engine finishes each one). The three CLC seeds (80-90 events, whose enum run takes
// seconds) are compared with smt alone here; `ptxmm check --engine both` (scripts/run-suite.sh, CI)
// cross-checks them.
#include <z3++.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "cat/Model.hpp"
#include "check/Check.hpp"
#include "check/Suite.hpp"
#include "events/Lower.hpp"
#include "litmus/Parser.hpp"
#include "smt/Engine.hpp"

using namespace ptxmm;

namespace {

constexpr size_t kMaxEvents = 70;

std::filesystem::path root() { return PTXMM_SOURCE_DIR; }

// The suite's tests, each with whether the enum engine runs on it too (at most kMaxEvents events).
std::vector<std::pair<std::filesystem::path, bool>> suiteFiles() {
  std::vector<std::pair<std::filesystem::path, bool>> out;
  for (const auto& p : check::collectTests({(root() / "litmus").string()})) {
    auto parsed = litmus::tryParseFile(p.string());
    if (!parsed.ok()) continue;
    try {
      out.emplace_back(p, events::lower(*parsed.test).events.size() <= kMaxEvents);
    } catch (const std::exception&) {
    }
  }
  return out;
}

}  // namespace

TEST_CASE("suite: sc.cat states are ptx.cat states, and the engines agree", "[check][suite-oracle]") {
  if (!std::filesystem::exists(root() / "models/ptx.cat") || !std::filesystem::exists(root() / "models/sc.cat")) {
    WARN("models/ptx.cat or models/sc.cat missing: skipped");
    return;
  }
  cat::Model ptx = cat::loadModel(root() / "models/ptx.cat");
  cat::Model sc = cat::loadModel(root() / "models/sc.cat");
  auto files = suiteFiles();
  REQUIRE(files.size() > 400);
  smt::Workspace ws;
  size_t bothEngines = 0, crossChecked = 0;
  for (const auto& [f, small] : files) {
    INFO(f.string());
    litmus::Test test = litmus::parseFile(f.string());
    check::CheckOptions opts;
    opts.engine = check::Engine::Smt;
    opts.witnesses = false;
    check::Verdict vSc = check::checkTest(test, sc, "sc", opts, &ws);
    opts.engine = small ? check::Engine::Both : check::Engine::Smt;
    opts.enumBudgetMs = 5000;
    check::Verdict vPtx = check::checkTest(test, ptx, "ptx", opts, &ws);
    INFO(vSc.message << vPtx.message);
    REQUIRE(vSc.status == check::Status::Ok);
    REQUIRE(vPtx.status == check::Status::Ok);
    CHECK(!vPtx.internalError);
    if (small) ++bothEngines;
    if (small && vPtx.note.empty()) ++crossChecked;
    std::set<std::string> ptxStates;
    for (const auto& s : vPtx.states) ptxStates.insert(s.key);
    for (const auto& s : vSc.states) {
      INFO("state " << s.key);
      CHECK(ptxStates.count(s.key) == 1);
    }
  }
  CHECK(crossChecked == bothEngines);  // the enum engine finishes every one of them
  CHECK(bothEngines + 3 >= files.size());
}
