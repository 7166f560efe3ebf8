// `ptxmm campaign` end to end on the fake device backend (no GPU): the store, re-run as a no-op,
// kill -9 and resume, two workers with one killed (lease expiry), forbidden-and-seen, tune, compare,
// merge and the HTML report.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "CliTestSupport.hpp"
#include "campaign/Store.hpp"
#include "campaign/Tune.hpp"

using cli_test::Scratch;
namespace fs = std::filesystem;
using ptxmm::campaign::ConfigScore;
using ptxmm::campaign::RunRow;
using ptxmm::campaign::scoreOf;
using ptxmm::campaign::Store;

namespace {

const std::string kTests =
    "litmus/hw/MP+weak.litmus litmus/hw/MP+fence.acq_rel.gpu.litmus litmus/hw/SB+weak.litmus "
    "litmus/hw/SB+fence.sc.gpu.litmus litmus/hw/LB+weak.litmus litmus/hw/CoRR+weak.litmus";

/// Test name → (status, histogram) of the finished campaign runs.
std::map<std::string, std::pair<std::string, std::map<std::string, uint64_t>>> finished(const std::string& db) {
  Store s(db);
  std::map<std::string, std::pair<std::string, std::map<std::string, uint64_t>>> out;
  for (const auto& r : s.runs("campaign"))
    if (ptxmm::campaign::isFinished(r.status)) out[s.test(r.test).name] = {r.status, r.states};
  return out;
}

/// Starts ptxmm with `args` in the background (its own process group); returns its pid.
pid_t spawn(const std::string& args, const Scratch& sc) {
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    const std::string cmd = std::string(PTXMM_EXE) + " " + args + " >" + (sc.dir / "bg.out").string() + " 2>" +
                            (sc.dir / "bg.err").string();
    execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

}  // namespace

TEST_CASE("campaign run stores every run, running it again is a no-op", "[cli][campaign]") {
  Scratch sc("campaign-store");
  const std::string db = (sc.dir / "c.db").string();
  auto r = sc.ptxmm("campaign run --db " + db + " --backend fake --iterations 100000 " + kTests);
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("Suite: 6 tests") != std::string::npos);
  auto first = finished(db);
  REQUIRE(first.size() == 6);
  for (const auto& [name, e] : first) CHECK(e.first == "ok");
  double stamp = 0;
  {
    Store s(db);
    for (const auto& run : s.runs("campaign")) stamp += run.finished;
    CHECK(s.test(s.runs("campaign").front().test).text.find("PTX") != std::string::npos);
    CHECK(s.runs("campaign").front().device.value("name", "") == "fake GPU 0");
  }
  auto again = sc.ptxmm("campaign run --db " + db + " --backend fake --iterations 100000 " + kTests);
  REQUIRE(again.rc == 0);
  Store s(db);
  CHECK(s.runs("campaign").size() == 6);
  double stamp2 = 0;
  for (const auto& run : s.runs("campaign")) stamp2 += run.finished;
  CHECK(stamp2 == stamp);
}

TEST_CASE("campaign: kill -9 mid-run loses no finished run, resume completes it", "[cli][campaign]") {
  Scratch sc("campaign-kill");
  const std::string ref = (sc.dir / "ref.db").string(), db = (sc.dir / "killed.db").string();
  REQUIRE(sc.ptxmm("campaign run --db " + ref + " --backend fake --iterations 100000 " + kTests).rc == 0);
  pid_t pid = spawn("campaign run --db " + db + " --backend fake --fake slow=400 --iterations 100000 " + kTests, sc);
  // Wait until some runs have finished, then kill the process group mid-run.
  std::map<std::string, std::pair<std::string, std::map<std::string, uint64_t>>> before;
  for (int i = 0; i < 300 && before.size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (fs::exists(db)) before = finished(db);
  }
  kill(-pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(before.size() >= 2);
  auto after = finished(db);
  REQUIRE(after.size() < 6);                                        // it was killed mid-run
  for (const auto& [name, e] : before) CHECK(after.at(name) == e);  // nothing finished was lost
  auto r = sc.ptxmm("campaign resume " + db);
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  CHECK(finished(db) == finished(ref));
  auto cmp = sc.ptxmm("campaign compare " + ref + " " + db);
  CHECK(cmp.rc == 0);
  CHECK(cmp.out.find("0 state(s) seen by one store only") != std::string::npos);
}

TEST_CASE("campaign --gpus: two workers, one killed while holding a run, its lease expires and the run is retried",
          "[cli][campaign]") {
  Scratch sc("campaign-lease");
  const std::string db = (sc.dir / "c.db").string();
  auto r = sc.ptxmm("campaign run --db " + db +
                    " --backend fake --fake slow=150,die-after=1,die-gpu=1 --gpus 0,1 --lease 1 --iterations 100000 " +
                    kTests);
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.err.find("worker of GPU 1") != std::string::npos);
  Store s(db);
  auto runs = s.runs("campaign");
  REQUIRE(runs.size() == 6);
  int retried = 0;
  std::set<std::string> devices;
  for (const auto& run : runs) {
    CHECK(run.status == "ok");
    if (run.attempts == 2) ++retried;
    devices.insert(run.device.value("name", ""));
  }
  CHECK(retried == 1);
  CHECK(devices.count("fake GPU 0") == 1);
  CHECK(devices.count("fake GPU 1") == 1);  // GPU 1 finished one run before it died
}

TEST_CASE("campaign: a forbidden state seen is loud and fails, faults are recorded", "[cli][campaign]") {
  Scratch sc("campaign-forbidden");
  const std::string db = (sc.dir / "c.db").string();
  auto r =
      sc.ptxmm("campaign run --db " + db + " --backend fake --fake forbidden=SB+fence,hang=LB,error=CoRR " + kTests);
  CHECK(r.rc == 1);
  CHECK(r.err.find("FORBIDDEN by the model were SEEN") != std::string::npos);
  auto cov = sc.ptxmm("campaign coverage " + db);
  CHECK(cov.rc == 1);
  CHECK(cov.out.find("!!! FORBIDDEN & SEEN !!!") != std::string::npos);
  CHECK(cov.out.find("LB+weak: timed-out") != std::string::npos);
  CHECK(cov.out.find("CoRR+weak: error") != std::string::npos);
  CHECK(cov.out.find("[not run (refused, error or timeout)]") != std::string::npos);
}

TEST_CASE("campaign tune on the fake backend: mutants, configurations, best parameters, summary", "[cli][campaign]") {
  Scratch sc("campaign-tune");
  const std::string db = (sc.dir / "c.db").string(), best = (sc.dir / "best.json").string();
  auto r = sc.ptxmm(
      "campaign run --db " + db +
      " --backend fake --mutants --iterations 100000 litmus/hw/MP+fence.acq_rel.gpu.litmus "
      "litmus/hw/SB+fence.sc.gpu.litmus litmus/hw/MP+rel+acq.gpu.litmus litmus/hw/LB+fence.acq_rel.gpu.litmus");
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  {
    Store s(db);
    auto mutants = s.tests("mutant");
    REQUIRE(mutants.size() >= 4);
    for (const auto& m : mutants) {
      CHECK(!m.target.empty());
      CHECK(m.allowed->count(m.target) == 1);
      CHECK(m.parent > 0);
    }
  }
  auto t = sc.ptxmm("campaign tune --db " + db + " --budget 4 --iterations 20000 --out " + best);
  INFO(t.out << t.err);
  REQUIRE(t.rc == 0);
  CHECK(t.out.find("Mutation score on fake GPU 0") != std::string::npos);
  CHECK(t.out.find("generic-proxy") != std::string::npos);
  CHECK(t.out.find("Parameter importance") != std::string::npos);
  auto params = nlohmann::json::parse(cli_test::slurp(best));
  CHECK(params.contains("memStressIterations"));
  Store s(db);
  int scored = 0;
  for (const auto& c : s.configs()) scored += c.score.has_value();
  CHECK(scored >= 3);
  // The store's tuned parameters run its tests again, from the store alone.
  const size_t before = s.runs("campaign").size();
  CHECK(sc.ptxmm("campaign rerun " + db + " --tuned --iterations 1000").rc == 0);
  CHECK(s.runs("campaign").size() == 2 * before);
  // The tuned parameters run as a campaign.
  CHECK(sc.ptxmm("campaign run --db " + (sc.dir / "tuned.db").string() + " --backend fake --params " + best +
                 " litmus/hw/MP+weak.litmus")
            .rc == 0);
}

TEST_CASE("campaign compare flags states one store saw, merge joins shards, report writes HTML", "[cli][campaign]") {
  Scratch sc("campaign-report");
  const std::string a = (sc.dir / "a.db").string(), b = (sc.dir / "b.db").string();
  REQUIRE(sc.ptxmm("campaign run --db " + a + " --backend fake --iterations 1000 " + kTests).rc == 0);
  REQUIRE(sc.ptxmm("campaign run --db " + b + " --backend fake --iterations 10000000 --bank-conflict-lanes 8 " + kTests)
              .rc == 0);
  auto cmp = sc.ptxmm("campaign compare " + a + " " + b);
  INFO(cmp.out);
  CHECK(cmp.rc == 0);
  CHECK(cmp.out.find("Test MP+weak") != std::string::npos);
  CHECK(cmp.out.find("<== only B") != std::string::npos);
  // Two shards merged equal the whole.
  const std::string s0 = (sc.dir / "s0.db").string(), s1 = (sc.dir / "s1.db").string(), m = (sc.dir / "m.db").string();
  REQUIRE(sc.ptxmm("campaign run --db " + s0 + " --backend fake --iterations 1000 --shard 0/2 " + kTests).rc == 0);
  REQUIRE(sc.ptxmm("campaign run --db " + s1 + " --backend fake --iterations 1000 --shard 1/2 " + kTests).rc == 0);
  CHECK(finished(s0).size() == 3);
  REQUIRE(sc.ptxmm("campaign merge " + m + " " + s0 + " " + s1).rc == 0);
  CHECK(finished(m) == finished(a));
  // The report.
  const std::string html = (sc.dir / "r.html").string();
  auto rep = sc.ptxmm("campaign report " + b + " --html " + html);
  INFO(rep.out << rep.err);
  REQUIRE(rep.rc == 0);
  const std::string page = cli_test::slurp(html);
  CHECK(page.find("Coverage per test") != std::string::npos);
  CHECK(page.find("Forbidden and seen") != std::string::npos);
  CHECK(page.find("Mutation score") != std::string::npos);
  CHECK(page.find("http") == std::string::npos);  // self-contained: nothing fetched
  const std::string py = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  if (std::system((py + " -c 'import matplotlib' 2>/dev/null").c_str()) == 0)
    CHECK(page.find("data:image/png;base64,") != std::string::npos);
  else
    CHECK(page.find("plots not produced") != std::string::npos);
}

TEST_CASE("campaign commands that read a store refuse a missing one and create nothing", "[cli][campaign]") {
  Scratch sc("campaign-missing");
  const std::string db = (sc.dir / "missing.db").string();
  for (const std::string& cmd :
       {"campaign resume " + db, "campaign coverage " + db, "campaign tune --db " + db + " --budget 1",
        "campaign report " + db + " --html " + (sc.dir / "r.html").string(), "campaign compare " + db + " " + db}) {
    auto r = sc.ptxmm(cmd);
    INFO(cmd << "\n" << r.out << r.err);
    CHECK(r.rc == 2);
    CHECK(r.err.find("no campaign store") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(db));
  }
}

TEST_CASE("campaign tune --evaluate runs a configuration's survivors again with more instances", "[cli][campaign]") {
  Scratch sc("campaign-evaluate");
  const std::string db = (sc.dir / "c.db").string(), best = (sc.dir / "best.json").string();
  REQUIRE(sc.ptxmm("campaign run --db " + db +
                   " --backend fake --mutants --iterations 1000 litmus/hw/MP+fence.acq_rel.gpu.litmus "
                   "litmus/hw/SB+fence.sc.gpu.litmus litmus/hw/LB+fence.acq_rel.gpu.litmus")
              .rc == 0);
  const std::string start = (sc.dir / "start.json").string();
  std::ofstream(start) << R"({"memStressPct": 50})";
  auto t = sc.ptxmm("campaign tune --db " + db + " --budget 2 --iterations 200 --params " + start + " --out " + best);
  INFO(t.out << t.err);
  REQUIRE(t.rc == 0);
  CHECK(t.out.find("  start (--params) (config ") != std::string::npos);
  Store s(db);
  const int64_t config = std::stoll(*s.meta("tune.best"));
  std::set<int64_t> killedBefore, runBefore;
  for (const auto& r : s.runs("tune", config)) {
    runBefore.insert(r.test);
    if (r.targetSeen > 0) killedBefore.insert(r.test);
  }
  auto e = sc.ptxmm("campaign tune --db " + db + " --budget 60 --evaluate --params " + best + " --iterations 100000");
  INFO(e.out << e.err);
  REQUIRE(e.rc == 0);
  CHECK(e.out.find("config " + std::to_string(config) + " evaluated") != std::string::npos);
  int again = 0;
  for (const auto& r : s.runs("tune", config))
    if (r.iterations == 100000) {
      ++again;
      CHECK(killedBefore.count(r.test) == 0);  // a killed mutant is not run again
    }
  CHECK(again == static_cast<int>(s.tests("mutant").size() - killedBefore.size()));
  const ConfigScore after = scoreOf(s, config);
  CHECK(after.killed >= static_cast<int>(killedBefore.size()));
  int byClass = 0;
  for (const auto& [cls, c] : after.byClass) byClass += c.killed;
  CHECK(byClass == after.killed);  // each mutant counted once, whatever its number of runs
  // The defaults evaluated beside the tuned configuration are shown as their own column.
  auto d = sc.ptxmm("campaign tune --db " + db + " --budget 60 --evaluate --iterations 1000");
  INFO(d.out << d.err);
  REQUIRE(d.rc == 0);
  CHECK(d.out.find("  default (config ") != std::string::npos);
  CHECK(d.out.find("  tuned (config " + std::to_string(config) + ")") != std::string::npos);
  // A merged store keeps the evaluated configurations.
  const std::string merged = (sc.dir / "merged.db").string();
  REQUIRE(sc.ptxmm("campaign merge " + merged + " " + db).rc == 0);
  auto m = sc.ptxmm("campaign coverage " + merged);
  CHECK(m.out.find("  default (config ") != std::string::npos);
}
