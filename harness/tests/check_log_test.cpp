// herd7 log format (golden), JSON, expectation files and the suite runner.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "LitmusTexts.hpp"
#include "cat/Model.hpp"
#include "check/Checker.hpp"
#include "check/Suite.hpp"
#include "check/Verdict.hpp"
#include "litmus/Parser.hpp"
#include "litmus/Printer.hpp"

using namespace ptxmm;

namespace {

check::Verdict sbVerdict() {
  check::Verdict v;
  v.testName = "SB";
  v.hash = "edd4722437d708675ed921e7607e77f0";
  v.quant = litmus::Condition::Quant::Exists;
  v.condition = "exists (0:EAX=0 /\\ 1:EAX=0)";
  for (const char* k : {"0:EAX=1; 1:EAX=1;", "0:EAX=0; 1:EAX=0;", "0:EAX=1; 1:EAX=0;", "0:EAX=0; 1:EAX=1;"}) {
    check::StateResult s;
    s.key = k;
    s.executions = 1;
    s.satisfies = std::string(k) == "0:EAX=0; 1:EAX=0;";
    v.states.push_back(s);
  }
  check::finalizeVerdict(v);
  return v;
}

// Message passing with relaxed accesses: Never under the SC model of suiteDir.
const char* const kSuiteMP = test_litmus::kRelaxedMP;

void writeFile(const std::filesystem::path& p, const std::string& s) { std::ofstream(p) << s; }

// A fresh directory for a suite run, holding model.cat (SC as one acyclicity check).
std::filesystem::path suiteDir(const std::string& tag) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("ptxmm-" + tag + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  writeFile(dir / "model.cat", "\"M\"\nacyclic po | rf | co | fr as sc\n");
  return dir;
}

}  // namespace

TEST_CASE("herd7 log format", "[check][log]") {
  check::Verdict v = sbVerdict();
  std::ostringstream os;
  check::printHerdLog(v, os, false);
  CHECK(os.str() ==
        "Test SB Allowed\n"
        "States 4\n"
        "0:EAX=0; 1:EAX=0;\n"
        "0:EAX=0; 1:EAX=1;\n"
        "0:EAX=1; 1:EAX=0;\n"
        "0:EAX=1; 1:EAX=1;\n"
        "Ok\n"
        "Witnesses\n"
        "Positive: 1 Negative: 3\n"
        "Condition exists (0:EAX=0 /\\ 1:EAX=0)\n"
        "Observation SB Sometimes 1 3\n"
        "Time SB 0.00\n"
        "Hash=edd4722437d708675ed921e7607e77f0\n");
}

TEST_CASE("flags, never, forall and not-exists", "[check][log]") {
  check::Verdict v = sbVerdict();
  v.states.erase(v.states.begin());  // drop the satisfying state (sorted first)
  v.states[0].flags = {"data-race"};
  v.states[1].flags = {"deadlock", "cut"};
  check::finalizeVerdict(v);
  CHECK(v.observation == check::Observation::Never);
  CHECK(!v.ok);
  std::ostringstream os;
  check::printHerdLog(v, os, false);
  std::string s = os.str();
  CHECK(s.find("No\nWitnesses\nPositive: 0 Negative: 3\nFlag cut\nFlag data-race\nFlag deadlock\n") !=
        std::string::npos);
  CHECK(s.find("Observation SB Never 0 3\n") != std::string::npos);

  // ~exists (herd/top_herd.ml): Forbidden, Ok when no execution satisfies the proposition, the
  // Positive/Negative line swapped (check_wit), the Observation line not.
  v.quant = litmus::Condition::Quant::NotExists;
  check::finalizeVerdict(v);
  CHECK(v.ok);
  CHECK(v.observation == check::Observation::Never);
  std::ostringstream ns;
  check::printHerdLog(v, ns, false);
  CHECK(ns.str().rfind("Test SB Forbidden\n", 0) == 0);
  CHECK(ns.str().find("Ok\nWitnesses\nPositive: 3 Negative: 0\n") != std::string::npos);
  CHECK(ns.str().find("Observation SB Never 0 3\n") != std::string::npos);

  // forall: Required, Ok when every execution satisfies the proposition; the Observation counts the
  // proposition (pos, neg) as for exists.
  check::Verdict f = sbVerdict();
  f.quant = litmus::Condition::Quant::Forall;
  check::finalizeVerdict(f);
  CHECK(!f.ok);
  CHECK(f.observation == check::Observation::Sometimes);
  for (auto& st : f.states) st.satisfies = true;
  check::finalizeVerdict(f);
  CHECK(f.ok);
  CHECK(f.observation == check::Observation::Always);
  std::ostringstream fs;
  check::printHerdLog(f, fs, false);
  CHECK(fs.str().rfind("Test SB Required\n", 0) == 0);
  CHECK(fs.str().find("Ok\nWitnesses\nPositive: 4 Negative: 0\n") != std::string::npos);
  CHECK(fs.str().find("Observation SB Always 4 0\n") != std::string::npos);

  // An undefined execution: Undef in place of Ok/No, `Flag *undef*` before the other flags.
  check::Verdict u = sbVerdict();
  u.states[1].flags = {"undefined", "data-race"};
  check::finalizeVerdict(u);
  CHECK(u.undefined);
  std::ostringstream us;
  check::printHerdLog(u, us, false);
  CHECK(us.str().find("\nUndef\nWitnesses\nPositive: 1 Negative: 3\nFlag *undef*\nFlag data-race\nCondition ") !=
        std::string::npos);

  // Counts of final states (without --count): said in a `#` line after the Hash line.
  check::Verdict c = sbVerdict();
  c.countsAreExecutions = false;
  std::ostringstream cs;
  check::printHerdLog(c, cs, false);
  CHECK(cs.str().find("Hash=edd4722437d708675ed921e7607e77f0\n# Positive/Negative and Observation count final "
                      "states, not executions; --count counts executions") != std::string::npos);
}

TEST_CASE("JSON verdicts", "[check][json]") {
  check::Verdict v = sbVerdict();
  auto j = nlohmann::json::parse(check::verdictJson(v));
  CHECK(j["test"] == "SB");
  CHECK(j["observation"] == "Sometimes");
  CHECK(j["positive"] == 1);
  CHECK(j["states"].size() == 4);
  CHECK(j["states"][0]["state"] == "0:EAX=0; 1:EAX=0;");
  CHECK(j["states"][0]["satisfies"] == true);
}

TEST_CASE("condition text in herd7 style", "[check][log]") {
  litmus::Condition c;
  c.quant = litmus::Condition::Quant::Exists;
  litmus::Prop a;
  a.kind = litmus::Prop::Kind::Eq;
  a.lhs.kind = litmus::Term::Kind::Reg;
  a.lhs.thread = 1;
  a.lhs.reg = "r0";
  a.rhs.kind = litmus::Term::Kind::Const;
  a.rhs.value = 1;
  litmus::Prop b = a;
  b.lhs.kind = litmus::Term::Kind::Loc;
  b.lhs.loc.name = "x";
  litmus::Prop o;
  o.kind = litmus::Prop::Kind::Or;
  o.kids = {a, b};
  c.prop.kind = litmus::Prop::Kind::And;
  c.prop.kids = {o, a};
  CHECK(litmus::printCondition(c, litmus::PropStyle::Herd) == "exists ((1:r0=1 \\/ x=1) /\\ 1:r0=1)");
}

TEST_CASE("suite runner: expectations, failures and the summary line", "[check][suite]") {
  namespace fs = std::filesystem;
  const fs::path dir = suiteDir("suite-test");
  fs::create_directories(dir / "sub");
  auto write = writeFile;
  const std::string mp = kSuiteMP;
  write(dir / "a-good.litmus", mp);
  write(dir / "a-good.expect", "# comment\nsc: Sometimes | x\nmodel: Never | SC forbids MP\n");
  write(dir / "sub" / "b-wrong.litmus", mp);
  write(dir / "sub" / "b-wrong.expect", "model: Sometimes | deliberately wrong\n");
  write(dir / "sub" / "c-flag.litmus", mp);
  write(dir / "sub" / "c-flag.expect", "model: Never +deadlock | flag missing\n");
  write(dir / "d-noexpect.litmus", mp);
  write(dir / "e-broken.litmus", "PTX broken\n{ x = 0 }\n P0@cta 0 ;\n frobnicate x ;\nexists (x == 1)\n");
  write(dir / "e-broken.expect", "model: Never | parse error expected\n");

  check::SuiteOptions opts;
  opts.modelPath = dir / "model.cat";
  opts.jobs = 2;
  opts.printTime = false;
  for (auto engine : {check::Engine::Enum, check::Engine::Smt, check::Engine::Both}) {
    opts.check.engine = engine;
    std::ostringstream out, err;
    check::SuiteSummary s = check::runSuite({dir.string()}, opts, out, err);
    INFO(out.str() << err.str());
    CHECK(s.passed == 1);
    CHECK(s.failed == 3);
    CHECK(s.unchecked == 1);
    CHECK(s.errors == 1);
    CHECK(s.internalErrors == 0);
    std::string o = out.str();
    CHECK(o.substr(o.rfind('\n', o.size() - 2) + 1) == "1 passed, 3 failed (1 error), 1 without expectation\n");
    CHECK(err.str().find("e-broken.litmus") != std::string::npos);
    CHECK(err.str().find("b-wrong.litmus: expected Sometimes but the model gives Never") != std::string::npos);
    CHECK(err.str().find("no expectation") != std::string::npos);
    // Deterministic order: a-good before d-noexpect before sub/b-wrong.
    CHECK(o.find("Test MP") != std::string::npos);
  }
  // A missing model file is a clear error.
  opts.modelPath = dir / "missing.cat";
  std::ostringstream out, err;
  CHECK_THROWS_AS(check::runSuite({dir.string()}, opts, out, err), DiagnosticError);
  fs::remove_all(dir);
}

TEST_CASE("suite runner: a check that does not stop at its deadline is reported as a timeout without it",
          "[check][suite]") {
  namespace fs = std::filesystem;
  const fs::path dir = suiteDir("abandon-test");
  writeFile(dir / "a-stuck.litmus", kSuiteMP);
  writeFile(dir / "b-fine.litmus", kSuiteMP);
  check::SuiteOptions opts;
  opts.modelPath = dir / "model.cat";
  opts.jobs = 1;
  opts.json = true;
  opts.check.timeoutMs = 300;
  // Stands for a phase that does not look at its deadline (Z3 taking in one large assertion): the first
  // smt result comes back long after the test's budget is spent, and would say Never.
  std::atomic<int> calls{0};
  opts.check.smtResultHook = [&](check::EngineResult&) {
    if (calls++ == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  };
  std::ostringstream out, err;
  check::SuiteSummary s = check::runSuite({dir.string()}, opts, out, err);
  INFO(out.str() << err.str());
  CHECK(s.timeouts == 1);
  CHECK(s.failed == 1);
  CHECK(s.unchecked == 1);  // the other one: decided, no expectation to compare with
  std::istringstream lines(out.str());
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  auto j = nlohmann::json::parse(first);
  CHECK(j["status"] == "timeout");
  CHECK(j["test"] == "MP");
  CHECK(j["message"].get<std::string>().find("did not stop within 65 ms after that: abandoned") != std::string::npos);
  CHECK(nlohmann::json::parse(second)["status"] == "ok");  // the worker went on once the check returned
  CHECK(err.str().find("FAIL " + (dir / "a-stuck.litmus").string() + ": timeout:") != std::string::npos);
  REQUIRE(s.workers);
  s.workers.reset();  // waits for the abandoned check, whose result is dropped
  CHECK(calls == 2);
  fs::remove_all(dir);
}

TEST_CASE("checker: a check that does not stop at its deadline is reported as a timeout without it",
          "[check][checker]") {
  // ptxmm fences, check-kernel and the repair searches check through check::Checker, with the suite's
  // deadline: the caller waits until the budget and the grace are spent, no longer.
  const litmus::Test test = litmus::parseTest(kSuiteMP, "MP.litmus");
  const cat::Model model = cat::parseModel("\"M\"\nacyclic po | rf | co | fr as sc\n", "sc.cat");
  check::CheckOptions opts;
  opts.timeoutMs = 300;
  // Stands for a phase that does not look at its deadline: the first smt result comes back long after the
  // budget is spent. The hook is copied into the abandoned check's thread, which outlives this scope.
  auto calls = std::make_shared<std::atomic<int>>(0);
  opts.smtResultHook = [calls](check::EngineResult&) {
    if ((*calls)++ == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  };
  const size_t leftBefore = check::checksLeftRunning();
  check::Checker checker;
  const auto t0 = std::chrono::steady_clock::now();
  check::Verdict v = checker.check(test, model, "sc", opts);
  const auto waited = std::chrono::steady_clock::now() - t0;
  INFO(v.message);
  CHECK(v.status == check::Status::Timeout);
  CHECK(v.testName == "MP");
  CHECK(v.message.find("did not stop within 65 ms after that: abandoned") != std::string::npos);
  CHECK(waited < std::chrono::milliseconds(1400));  // it did not wait for the hook
  CHECK(check::checksLeftRunning() == leftBefore + 1);
  // The next check runs at once, on a new context, and is decided.
  check::Verdict next = checker.check(test, model, "sc", opts);
  CHECK(next.status == check::Status::Ok);
  CHECK(next.observation == check::Observation::Never);
  CHECK(*calls == 2);
  // The abandoned check ends on its own; its result is dropped.
  for (int i = 0; i < 400 && check::checksLeftRunning() > leftBefore; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(check::checksLeftRunning() == leftBefore);
}

TEST_CASE("expectation lines", "[check][suite]") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("ptxmm-expect-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "t.expect") << "ptx: Sometimes +data-race +undefined | reason\nsc: Never | x\n";
  std::ofstream(dir / "bad.expect") << "sc: Bogus | x\n";
  auto e = check::readExpectation(dir / "t.litmus", "ptx");
  REQUIRE(e);
  CHECK(e->observation == check::Observation::Sometimes);
  CHECK(e->flags == std::vector<std::string>{"data-race", "undefined"});
  CHECK(e->reason == "reason");
  CHECK(!check::readExpectation(dir / "t.litmus", "other"));
  CHECK(check::readExpectation(dir / "t.litmus", "sc")->observation == check::Observation::Never);
  CHECK_THROWS_AS(check::readExpectation(dir / "bad.litmus", "sc"), DiagnosticError);
  CHECK(!check::readExpectation(dir / "missing.litmus", "sc"));
  fs::remove_all(dir);
}
