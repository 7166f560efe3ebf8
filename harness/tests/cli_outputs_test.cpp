// What `ptxmm check` prints for tests it cannot decide (errors, timeouts, size caps, refused input),
// for runs without tests, and how it reads durations: run as a user runs it, stdout and stderr apart.
#include <expat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "CliTestSupport.hpp"
#include "campaign/Store.hpp"
#include "litmus/Parser.hpp"
#include "litmus/Printer.hpp"
#include "report/HwReport.hpp"

namespace fs = std::filesystem;
using cli_test::kMP;
using cli_test::Run;
using cli_test::Scratch;
using cli_test::slurp;

namespace {

const char* kCoW3x2 = R"(PTX CoW3x2
{ x = 0 }
 P0@cta 0,gpu 0       | P1@cta 1,gpu 0       | P2@cta 2,gpu 0       ;
 st.relaxed.gpu x, 1  | st.relaxed.gpu x, 3  | st.relaxed.gpu x, 5  ;
 st.relaxed.gpu x, 2  | st.relaxed.gpu x, 4  | st.relaxed.gpu x, 6  ;
 ld.relaxed.gpu r0, x | ld.relaxed.gpu r0, x | ld.relaxed.gpu r0, x ;
exists (0:r0 == 1 /\ 1:r0 == 3 /\ 2:r0 == 5)
)";

const char* kScModel = "\"SC\"\nacyclic po | rf | co | fr as sc\n";

// No line of a herd log that reads as a verdict.
void requireNoVerdict(const std::string& out) {
  CHECK(out.find("\nOk\n") == std::string::npos);
  CHECK(out.find("\nNo\n") == std::string::npos);
  CHECK(out.find("Observation") == std::string::npos);
  CHECK(out.find("States") == std::string::npos);
}

}  // namespace

TEST_CASE("check: a timeout is a failure, never a verdict, in text and JSON", "[cli][status]") {
  Scratch s("timeout");
  fs::path model = s.write("sc.cat", kScModel);
  fs::path test = s.write("CoW3x2.litmus", kCoW3x2);
  s.write("CoW3x2.expect", "sc: Never | SC forbids reading the first of two own writes after others\n");
  Run r =
      s.ptxmm("check --engine smt --max-states 100000 --timeout 1ms --model " + model.string() + " " + test.string());
  INFO(r.out << r.err);
  CHECK(r.rc != 0);
  requireNoVerdict(r.out);
  CHECK(r.err.find("CoW3x2.litmus: timeout:") != std::string::npos);
  CHECK(r.out.find("0 passed, 1 failed (1 timeout)") != std::string::npos);

  Run j = s.ptxmm("check --json --engine smt --max-states 100000 --timeout 1ms --model " + model.string() + " " +
                  test.string());
  INFO(j.out << j.err);
  CHECK(j.rc != 0);
  std::istringstream lines(j.out);
  std::string line;
  int n = 0, summaries = 0;
  while (std::getline(lines, line)) {
    nlohmann::json o = nlohmann::json::parse(line);  // throws on an invalid line
    if (o.contains("summary")) {
      ++summaries;
      CHECK(o["summary"]["failed"] == 1);
      CHECK(o["summary"]["timeouts"] == 1);
      CHECK(o["summary"]["passed"] == 0);
      continue;
    }
    ++n;
    CHECK(o["status"] == "timeout");
    CHECK(!o.contains("ok"));
    CHECK(!o.contains("observation"));
    CHECK(!o.contains("positive"));
  }
  CHECK(n == 1);
  CHECK(summaries == 1);
}

TEST_CASE("check: the state cap is an option and hitting it is status unknown", "[cli][status]") {
  Scratch s("cap");
  fs::path model = s.write("sc.cat", kScModel);
  fs::path test = s.write("CoW3x2.litmus", kCoW3x2);
  s.write("CoW3x2.expect", "sc: Never | SC forbids it\n");
  Run r = s.ptxmm("check --engine smt --max-states 3 --model " + model.string() + " " + test.string());
  INFO(r.out << r.err);
  CHECK(r.rc != 0);
  requireNoVerdict(r.out);
  CHECK(r.err.find("unknown: more than 3 distinct final states") != std::string::npos);
  CHECK(r.out.find("0 passed, 1 failed (1 unknown)") != std::string::npos);
  // Refused for size: unknown too.
  Run m = s.ptxmm("check --engine smt --max-events 3 --model " + model.string() + " " + test.string());
  INFO(m.out << m.err);
  requireNoVerdict(m.out);
  CHECK(m.out.find("0 passed, 1 failed (1 unknown)") != std::string::npos);
  // With room the same test passes.
  Run ok = s.ptxmm("check --engine smt --max-states 100000 --model " + model.string() + " " + test.string());
  INFO(ok.out << ok.err);
  CHECK(ok.rc == 0);
  CHECK(ok.out.find("\nNo\n") != std::string::npos);
  CHECK(ok.out.find("1 passed, 0 failed") != std::string::npos);
}

TEST_CASE("check: an error in the test or the model is a failure, never a verdict", "[cli][status]") {
  Scratch s("error");
  fs::path model = s.write("sc.cat", kScModel);
  // A condition on a location the test does not declare.
  std::string undeclared = kMP;
  undeclared.replace(undeclared.find("1:r1 == 0"), 9, "z == 1");
  fs::path t1 = s.write("undeclared.litmus", undeclared);
  s.write("undeclared.expect", "sc: Never | SC forbids MP\n");
  // A model that uses a name it never defines.
  fs::path bad = s.write("bad.cat", "\"bad\"\nacyclic po | rf | no-such-relation as sc\n");
  fs::path t2 = s.write("mp.litmus", kMP);
  s.write("mp.expect", "sc: Never | SC forbids MP\nbad: Never | SC forbids MP\n");
  for (const char* engine : {"smt", "enum", "both"}) {
    Run r = s.ptxmm(std::string("check --engine ") + engine + " --model " + model.string() + " " + t1.string());
    INFO(engine << "\n" << r.out << r.err);
    CHECK(r.rc == 2);
    requireNoVerdict(r.out);
    CHECK(r.err.find("undeclared.litmus") != std::string::npos);
    CHECK(r.out.find("0 passed, 1 failed (1 error)") != std::string::npos);
    Run m = s.ptxmm(std::string("check --engine ") + engine + " --model " + bad.string() + " " + t2.string());
    INFO(m.out << m.err);
    CHECK(m.rc == 2);
    requireNoVerdict(m.out);
    CHECK(m.err.find("no-such-relation") != std::string::npos);
  }
}

TEST_CASE("check: a run with no tests is an error, not 0 passed", "[cli][status]") {
  Scratch s("empty");
  fs::path model = s.write("sc.cat", kScModel);
  fs::create_directories(s.dir / "empty");
  Run r = s.ptxmm("check --model " + model.string() + " " + (s.dir / "empty").string());
  INFO(r.out << r.err);
  CHECK(r.rc == 2);
  CHECK(r.out.find("0 passed") == std::string::npos);
  CHECK(r.err.find("no litmus tests") != std::string::npos);
}

TEST_CASE("check --timeout takes seconds like herd7, or a unit", "[cli][options]") {
  Scratch s("duration");
  fs::path model = s.write("sc.cat", kScModel);
  fs::path test = s.write("mp.litmus", kMP);
  s.write("mp.expect", "sc: Never | SC forbids MP\n");
  for (const char* d : {"60", "1.5", "250ms", "2min", "0"}) {
    Run r = s.ptxmm(std::string("check --timeout ") + d + " --model " + model.string() + " " + test.string());
    INFO(d << "\n" << r.out << r.err);
    CHECK(r.rc == 0);
  }
  for (const char* d : {"abc", "-1", "5 parsecs", "1.5x"}) {
    Run r = s.ptxmm(std::string("check --timeout '") + d + "' --model " + model.string() + " " + test.string());
    INFO(d << "\n" << r.out << r.err);
    CHECK(r.rc != 0);
    CHECK(r.err.find("not a duration") != std::string::npos);
  }
}

namespace {

// A JUnit document read with expat: well-formed, and its elements with their attributes in order.
struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attrs;
};

std::vector<XmlElement> parseXml(const std::string& text) {
  std::vector<XmlElement> elems;
  XML_Parser p = XML_ParserCreate("UTF-8");
  XML_SetUserData(p, &elems);
  XML_SetStartElementHandler(p, [](void* data, const XML_Char* name, const XML_Char** atts) {
    XmlElement e{name, {}};
    for (int i = 0; atts[i]; i += 2) e.attrs[atts[i]] = atts[i + 1];
    static_cast<std::vector<XmlElement>*>(data)->push_back(e);
  });
  bool ok = XML_Parse(p, text.data(), static_cast<int>(text.size()), 1) == XML_STATUS_OK;
  std::string why = ok ? "" : XML_ErrorString(XML_GetErrorCode(p));
  XML_ParserFree(p);
  INFO(why);
  REQUIRE(ok);
  return elems;
}

}  // namespace

TEST_CASE("check --junit and --sarif: one testcase per test, one result per finding", "[cli][ci]") {
  Scratch s("ci");
  // SC plus a flag on every external read, so that findings appear.
  fs::path model =
      s.write("flagged.cat", "\"flagged\"\nacyclic po | rf | co | fr as sc\nflag ~empty (rf & ext) as data-race\n");
  s.write("t/pass.litmus", kMP);
  s.write("t/pass.expect", "flagged: Never +data-race | SC forbids MP; the reads race by construction\n");
  s.write("t/wrong.litmus", kMP);
  s.write("t/wrong.expect", "flagged: Sometimes +data-race | deliberately wrong: expected allowed\n");
  s.write("t/capped.litmus", kCoW3x2);
  s.write("t/capped.expect", "flagged: Never | not reached: more final states than --max-states\n");
  s.write("t/broken.litmus", "PTX broken\n{ x = 0 }\n P0@cta 0 ;\n frobnicate x ;\nexists (x == 1)\n");
  fs::path junit = s.dir / "out" / "r.xml";
  fs::path sarif = s.dir / "r.sarif";
  fs::create_directories(junit.parent_path());
  Run r = s.ptxmm("check --engine smt --max-states 3 --model " + model.string() + " --junit " + junit.string() +
                  " --sarif " + sarif.string() + " " + (s.dir / "t").string());
  INFO(r.out << r.err);
  CHECK(r.rc == 2);
  CHECK(r.out.find("1 passed, 3 failed (1 error, 1 unknown)") != std::string::npos);

  // JUnit: well-formed XML, one testcase per litmus test; the wrong verdict is a failure, the
  // undecided tests are errors typed by status.
  std::vector<XmlElement> xml = parseXml(slurp(junit));
  REQUIRE(!xml.empty());
  CHECK(xml[0].name == "testsuites");
  CHECK(xml[0].attrs["tests"] == "4");
  CHECK(xml[0].attrs["failures"] == "1");
  CHECK(xml[0].attrs["errors"] == "2");
  std::map<std::string, std::string> caseResult;  // testcase file -> failure/error type ("" = passed)
  std::string current;
  for (const auto& e : xml) {
    if (e.name == "testcase") {
      current = fs::path(e.attrs.at("file")).filename().string();
      caseResult[current] = "";
      CHECK(!e.attrs.at("name").empty());
      CHECK(e.attrs.count("time"));
    } else if (e.name == "failure" || e.name == "error") {
      REQUIRE(!current.empty());
      caseResult[current] = e.name + ":" + e.attrs.at("type");
      CHECK(!e.attrs.at("message").empty());
    }
  }
  CHECK(caseResult == std::map<std::string, std::string>{{"broken.litmus", "error:error"},
                                                         {"capped.litmus", "error:unknown"},
                                                         {"pass.litmus", ""},
                                                         {"wrong.litmus", "failure:verdict-mismatch"}});

  // SARIF 2.1.0: every result names a declared rule and a location in the test; findings the
  // expectation lists are suppressed notes, the rest errors.
  nlohmann::json log = nlohmann::json::parse(slurp(sarif));
  CHECK(log["version"] == "2.1.0");
  REQUIRE(log["runs"].size() == 1);
  const auto& run = log["runs"][0];
  CHECK(run["tool"]["driver"]["name"] == "ptxmm");
  std::set<std::string> ruleIds;
  for (const auto& rule : run["tool"]["driver"]["rules"]) ruleIds.insert(rule["id"].get<std::string>());
  std::multiset<std::string> found;  // "file rule level line"
  for (const auto& res : run["results"]) {
    CHECK(ruleIds.count(res["ruleId"].get<std::string>()) == 1);
    CHECK(!res["message"]["text"].get<std::string>().empty());
    const auto& loc = res["locations"][0]["physicalLocation"];
    std::string uri = loc["artifactLocation"]["uri"];
    int line = loc.contains("region") ? loc["region"]["startLine"].get<int>() : 0;
    found.insert(fs::path(uri).filename().string() + " " + res["ruleId"].get<std::string>() + " " +
                 res["level"].get<std::string>() + " " + std::to_string(line));
    if (res["level"] == "note") CHECK(res["suppressions"][0]["kind"] == "external");
  }
  CHECK(found == std::multiset<std::string>{"broken.litmus not-decided error 4", "capped.litmus not-decided error 0",
                                            "pass.litmus data-race note 5",
                                            "wrong.litmus data-race note 5",  // the racing store
                                            "wrong.litmus verdict-mismatch error 6"});
}

TEST_CASE("check shows progress on a terminal and stays quiet when piped", "[cli][progress]") {
  Scratch s("progress");
  fs::path model = s.write("sc.cat", kScModel);
  fs::path test = s.write("mp.litmus", kMP);
  s.write("mp.expect", "sc: Never | SC forbids MP\n");
  std::string args = "check --model " + model.string() + " " + test.string();
  Run piped = s.ptxmm(args);
  INFO(piped.out << piped.err);
  CHECK(piped.rc == 0);
  CHECK(piped.err.find("\033[") == std::string::npos);
  CHECK(piped.err.find("done") == std::string::npos);
  // script(1) runs the command on a pseudo-terminal.
  std::string cmd =
      "script -qec '" + std::string(PTXMM_EXE) + " " + args + "' /dev/null > " + (s.dir / "tty").string() + " 2>&1";
  int status = std::system(cmd.c_str());
  REQUIRE(WIFEXITED(status));
  std::string tty = slurp(s.dir / "tty");
  INFO(tty);
  CHECK(tty.find("[1/1 done, 0 failed,") != std::string::npos);
  CHECK(tty.find("mp.litmus") != std::string::npos);
  CHECK(tty.find("\r\033[K") != std::string::npos);
}

TEST_CASE("models are found by name, and an installed ptxmm finds its own models", "[cli][models]") {
  Scratch s("install");
  s.write("mp.litmus", kMP);
  s.write("mp.expect", "ptx: Never | relaxed MP: not observed\n");  // deliberately wrong for ptx: Sometimes
  // From the build tree: shipped models by name, and one wording for a missing model in every subcommand.
  Run byName = s.ptxmm("check --model ptx " + (s.dir / "mp.litmus").string());
  INFO(byName.out << byName.err);
  CHECK(byName.out.find("Observation MP Sometimes") != std::string::npos);
  for (const char* sub : {"check", "fences", "run"}) {
    Run r = s.ptxmm(std::string(sub) + " --model no-such-model " + (s.dir / "mp.litmus").string());
    INFO(sub << "\n" << r.out << r.err);
    CHECK(r.rc == 2);
    CHECK(r.err.find(std::string("ptxmm ") + sub + ": no-such-model: error: model 'no-such-model' not found") !=
          std::string::npos);
    CHECK(r.err.find("(shipped: ") != std::string::npos);
    CHECK(r.err.find("ptx-cta-proxy-fence") != std::string::npos);
  }
  // cmake --install into a prefix, then run the installed binary from outside the repository.
  fs::path build = fs::path(PTXMM_EXE).parent_path();
  fs::path prefix = s.dir / "prefix";
  std::string install = "cmake --install " + build.string() + " --prefix " + prefix.string() + " >" +
                        (s.dir / "install.log").string() + " 2>&1";
  REQUIRE(std::system(install.c_str()) == 0);
  fs::path exe = prefix / "bin" / "ptxmm";
  REQUIRE(fs::is_regular_file(exe));
  CHECK(fs::is_regular_file(prefix / "share" / "ptxmm" / "models" / "ptx.cat"));
  CHECK(fs::is_regular_file(prefix / "share" / "ptxmm" / "models" / "stdlib.cat"));
  auto runInstalled = [&](const std::string& args) {
    Run r;
    std::string cmd = "cd " + s.dir.string() + " && " + exe.string() + " " + args + " >stdout 2>stderr";
    int status = std::system(cmd.c_str());
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(s.dir / "stdout");
    r.err = slurp(s.dir / "stderr");
    return r;
  };
  for (const char* m : {"ptx", "ptx-cta-proxy-fence", "ptx.cat"}) {
    Run r = runInstalled(std::string("check --model ") + m + " mp.litmus");
    INFO(m << "\n" << r.out << r.err);
    CHECK(r.out.find("Observation MP Sometimes") != std::string::npos);
  }
  Run missing = runInstalled("check --model no-such-model mp.litmus");
  INFO(missing.err);
  CHECK(missing.rc == 2);
  // It looked in the installed tree, not in the source tree it was built from.
  CHECK(missing.err.find((prefix / "share" / "ptxmm" / "models").string()) != std::string::npos);
  CHECK(missing.err.find(std::string(PTXMM_SOURCE_DIR) + "/models") == std::string::npos);
}

// A file of the source tree (the tests may run from the build tree).
static std::string src(const std::string& rel) { return std::string(PTXMM_SOURCE_DIR) + "/" + rel; }

TEST_CASE("check names the instructions behind each flag and the axioms that forbid an outcome", "[cli][explain]") {
  Scratch s("explain");
  // A TMA store that reads X while another thread overwrites it without any ordering (FlashKDA #24).
  Run r = s.ptxmm("check " + src("litmus/bugs/flashkda24-tma-store-no-fence.litmus"));
  INFO(r.out << r.err);
  CHECK(r.out.find("Flag data-race\n") != std::string::npos);
  CHECK(r.out.find("# data-race: P0 l.6 `cp.async.bulk.global.shared::cta.bulk_group [g], [X], 16` and P1 l.11 "
                   "`st.weak.shared::cta.u32 [X], 1`") != std::string::npos);
  // Undefined behaviour is reported by the model's check name.
  Run u = s.ptxmm("check " + src("litmus/async/S09-tma-load-no-wait.litmus"));
  INFO(u.out << u.err);
  CHECK(u.out.find("# undefined (async-read-before-completion): P0 l.6 `cp.async.bulk.shared::cluster.global") !=
        std::string::npos);
  // A forbidden outcome names its axioms in the text log, after the herd7 block.
  Run f = s.ptxmm("check " + src("litmus/base/MP+rel+acq.gpu-in-gpu.litmus"));
  INFO(f.out << f.err);
  size_t hash = f.out.find("Hash=");
  size_t why = f.out.find("# the condition's outcome is forbidden by: ");
  CHECK(why != std::string::npos);
  CHECK(hash < why);
  // The same in JSON: one finding with its instructions.
  Run j = s.ptxmm("check --json " + src("litmus/bugs/flashkda24-tma-store-no-fence.litmus"));
  INFO(j.out << j.err);
  nlohmann::json rec = nlohmann::json::parse(j.out.substr(0, j.out.find('\n')));
  REQUIRE(rec["findings"].size() == 1);
  const auto& fd = rec["findings"][0];
  CHECK(fd["flag"] == "data-race");
  REQUIRE(fd["instructions"].size() == 1);
  std::set<int> lines;
  for (const auto& e : fd["instructions"][0]) lines.insert(e["line"].get<int>());
  CHECK(lines == std::set<int>{6, 11});
  // SARIF: the result sits on the first racing instruction, the other one is a related location.
  fs::path sarif = s.dir / "out.sarif";
  Run sr = s.ptxmm("check --sarif " + sarif.string() + " " + src("litmus/bugs/flashkda24-tma-store-no-fence.litmus"));
  nlohmann::json log = nlohmann::json::parse(slurp(sarif));
  const auto& res = log["runs"][0]["results"][0];
  CHECK(res["ruleId"] == "data-race");
  CHECK(res["locations"][0]["physicalLocation"]["region"]["startLine"] == 6);
  CHECK(res["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 11);
}

TEST_CASE("check --json feeds the hardware runner's model states: decided tests only, keyed by test hash",
          "[cli][report]") {
  cli_test::Scratch s("model-states");
  auto mp = s.write("MP.litmus", kMP);
  auto run = s.ptxmm("check --json --engine smt " + mp.string());
  REQUIRE(run.rc == 0);
  // A second line as a timed-out test writes it: it must not give the runner partial states.
  auto timedOut = nlohmann::json::parse(run.out.substr(0, run.out.find('\n')));
  timedOut["hash"] = "0123456789abcdef0123456789abcdef";
  timedOut["status"] = "timeout";
  std::istringstream in(run.out + timedOut.dump() + "\nnot json\n");
  auto table = ptxmm::report::readModelStates(in);
  REQUIRE(table.size() == 1);
  auto parsed = ptxmm::litmus::parseTest(kMP, "MP.litmus");
  const auto& ms = table.at(ptxmm::litmus::testHash(parsed));
  CHECK(ms.allowed.count("1:r0=1; 1:r1=0;") == 1);  // relaxed MP: the weak outcome is allowed
  CHECK(ms.allowed.size() == 4);
  CHECK(ms.hanging.empty());  // no execution of MP hangs
}

TEST_CASE("the model states read for a runner name the states of executions that hang", "[cli][report]") {
  cli_test::Scratch s("model-states-hang");
  auto run = s.ptxmm("check --json --engine smt litmus/bulk/B03-reduce-dsmem-wrong-parity.litmus");
  std::istringstream in(run.out);
  auto table = ptxmm::report::readModelStates(in);
  REQUIRE(table.size() == 1);
  const auto& ms = table.begin()->second;
  CHECK(ms.allowed == std::set<std::string>{"1:r0=0;", "1:r0=1;", "1:r0=6;"});
  CHECK(ms.hanging == std::set<std::string>{"1:r0=0;"});  // the wait never succeeds once phase 0 completed
}

TEST_CASE("a test whose states are cut at the unrolling bound gives no model states to compare with", "[cli][report]") {
  // The loop runs 5 times; unrolled twice, its only final state is x=3, and the H100 sees x=5: that
  // state is beyond the bound, not forbidden.
  cli_test::Scratch s("model-states-cut");
  auto run = s.ptxmm("check --json --engine smt litmus/liveness/counter-loop-bounded.litmus");
  REQUIRE(run.out.find("\"cut\"") != std::string::npos);
  std::istringstream in(run.out);
  CHECK(ptxmm::report::readModelStates(in).empty());
  const std::string db = (s.dir / "cut.db").string();
  REQUIRE(
      s.ptxmm("campaign run --db " + db + " --plan-only --iterations 1000 litmus/liveness/counter-loop-bounded.litmus")
          .rc == 0);
  ptxmm::campaign::Store store(db);
  const auto tests = store.tests("test");
  REQUIRE(tests.size() == 1);
  CHECK_FALSE(tests.front().allowed.has_value());
  CHECK(tests.front().modelError.find("cut at the loop-unrolling bound") != std::string::npos);
}
