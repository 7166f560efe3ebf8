// `ptxmm check --liveness`: spin loops, livelocks and deadlocks, as a user sees them in the herd log,
// --json and the summary (models/README.md "Liveness").
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "CliTestSupport.hpp"

using cli_test::Run;
using cli_test::Scratch;

namespace {

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// P1 polls a flag; `write` is what P0 does after publishing the data, `poll` how P1 reads the flag.
std::string spinTest(const std::string& write, const std::string& poll) {
  return "PTX spin\n{ x = 0; flag = 0; }\n"
         " P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
         " st.weak x, 1   | LC00: ;\n"
         " " +
         write + " | " + poll +
         " r0, flag ;\n"
         "                | beq r0, 0, LC00 ;\n"
         "                | ld.weak r1, x ;\n"
         "exists (P1:r1 == 0)\n";
}

nlohmann::json testObject(const std::string& out) {
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] != '{') continue;
    auto j = nlohmann::json::parse(line);
    if (j.contains("test")) return j;
  }
  return {};
}

}  // namespace

TEST_CASE("a flag poll that sees the release is live; one that never can spins forever", "[cli][liveness]") {
  Scratch s("liveness-spin");
  for (const char* engine : {"smt", "enum", "both"}) {
    INFO(engine);
    auto live = s.write("live.litmus", spinTest("st.release.gpu flag, 1", "ld.acquire.gpu"));
    Run r = s.ptxmm(std::string("check --liveness --engine ") + engine + " " + live.string());
    INFO(r.out << r.err);
    CHECK(has(r.out, "Observation spin Never"));
    CHECK(has(r.out, "# Liveness: Live"));
    if (std::string(engine) == "smt")  // the stale read needs a loop that never exits
      CHECK(has(r.out, "forbidden by: Causality, Fairness"));
    CHECK_FALSE(has(r.out, "Flag livelock"));
    CHECK(r.rc == 0);

    // No one sets the flag: every execution spins, and --liveness fails the test (it has no expectation).
    auto never = s.write("never.litmus", spinTest("st.weak x, 2", "ld.acquire.gpu"));
    r = s.ptxmm(std::string("check --liveness --engine ") + engine + " " + never.string());
    INFO(r.out << r.err);
    CHECK(has(r.out, "Flag livelock"));
    CHECK(has(r.out, "# No complete execution: every execution deadlocks or spins forever"));
    CHECK(has(r.out, "# livelock: P1 l.6 `beq r0, 0, LC00` and P1 l.5 `ld.acquire.gpu r0, [flag]`"));
    CHECK(has(r.err, "FAIL " + never.string() + ": may hang: Hangs: some execution spins forever (livelock)"));
    CHECK(has(r.out, "0 passed, 1 failed, 1 may hang (0 deadlock, 1 livelock)"));
    CHECK(r.rc != 0);
  }
}

TEST_CASE("weak and narrow-scope polls may spin forever; --json says so", "[cli][liveness]") {
  Scratch s("liveness-json");
  auto weak = s.write("weak.litmus", spinTest("st.release.gpu flag, 1", "ld.weak"));
  Run r = s.ptxmm("check --json " + weak.string());
  INFO(r.out << r.err);
  nlohmann::json j = testObject(r.out);
  REQUIRE(j.contains("liveness"));
  CHECK(j["liveness"]["verdict"] == "hangs");
  CHECK(j["liveness"]["livelock"] == true);
  CHECK(j["liveness"]["deadlock"] == false);
  CHECK(j["noCompleteExecution"] == false);  // the poll may also see the flag and finish
  REQUIRE(j["liveness"]["notes"].size() == 1);
  CHECK(j["liveness"]["notes"][0] == "livelock: P1 l.6 `beq r0, 0, LC00` and P1 l.5 `ld.weak r0, [flag]`");
  CHECK(has(r.out, "\"hangs\":1"));

  auto cta = s.write("cta.litmus", spinTest("st.release.gpu flag, 1", "ld.acquire.cta"));
  r = s.ptxmm("check --json " + cta.string());
  CHECK(testObject(r.out)["liveness"]["verdict"] == "hangs");
  // Without --liveness a hang is reported but does not fail a test without expectation.
  CHECK(r.rc == 0);
}

TEST_CASE("deadlocks name where each thread waits; a counting loop is only bounded", "[cli][liveness]") {
  Scratch s("liveness-deadlock");
  auto dl = s.write("dl.litmus", R"(PTX dl
{ x = 0; }
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;
 st.weak x, 1   | bar.cta.sync 2 ;
 bar.cta.sync 1 | ld.weak r0, x  ;
exists (P1:r0 == 0)
)");
  Run r = s.ptxmm("check --liveness " + dl.string());
  INFO(r.out << r.err);
  CHECK(has(r.out,
            "# Liveness: Hangs: some execution deadlocks (a wait that never completes); deadlock: P0 l.5 "
            "`bar.sync 1`; P1 l.4 `bar.sync 2`"));
  // An expectation that names the deadlock makes it the expected verdict, also with --liveness.
  s.write("dl.expect", "ptx: Always +deadlock | the threads wait at different barriers\n");
  r = s.ptxmm("check --liveness " + dl.string());
  CHECK(has(r.out, "1 passed, 0 failed, 1 may hang (1 deadlock, 0 livelock)"));
  CHECK(r.rc == 0);

  auto count = s.write("count.litmus", R"(PTX count
{ x = 0; }
 P0@cta 0,gpu 0       ;
 LC00:                ;
 add r1, r1, 1        ;
 st.relaxed.gpu x, r1 ;
 bne r1, 5, LC00      ;
exists (x == 5)
)");
  r = s.ptxmm("check --liveness " + count.string());
  INFO(r.out << r.err);
  CHECK(has(r.out, "Flag cut"));
  CHECK(has(r.out, "# Liveness: Bounded"));
  CHECK(r.rc == 0);
  r = s.ptxmm("check --liveness --unroll 5 " + count.string());
  CHECK(has(r.out, "# Liveness: Live"));
  CHECK(has(r.out, "Observation count Always"));
}
