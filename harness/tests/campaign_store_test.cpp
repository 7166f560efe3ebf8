// The campaign store: runs unique per (test, config, iterations), claims with a lease, a lost claim,
// a run whose workers keep dying marked error, the fake backend's determinism.
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <thread>

#include "campaign/Backend.hpp"
#include "campaign/Campaign.hpp"
#include "campaign/Coverage.hpp"
#include "campaign/Store.hpp"
#include "campaign/Tune.hpp"
#include "litmus/Parser.hpp"

using namespace ptxmm::campaign;
namespace fs = std::filesystem;

namespace {

struct TempDb {
  fs::path path = fs::temp_directory_path() / ("ptxmm-store-" + std::to_string(::getpid()) + ".db");
  TempDb() { fs::remove(path); }
  ~TempDb() {
    for (const char* ext : {"", "-wal", "-shm"}) fs::remove(path.string() + ext);
  }
};

TestRow mp() {
  TestRow t;
  t.name = "MP";
  t.text = "PTX MP\n";
  t.hash = "h";
  t.allowed = std::set<std::string>{"0:r0=0; 1:r0=0;", "0:r0=1; 1:r0=0;", "0:r0=1; 1:r0=1;"};
  return t;
}

}  // namespace

TEST_CASE("the same test, configuration and iteration count is one run", "[campaign]") {
  TempDb db;
  Store s(db.path.string());
  const int64_t t = s.addTest(mp());
  CHECK(s.addTest(mp()) == t);
  const int64_t c = s.addConfig(nlohmann::json{{"seed", 1}}, "run");
  const int64_t r = s.addRun(t, c, 1000, "campaign");
  CHECK(s.addRun(t, c, 1000, "campaign") == r);
  CHECK(s.addRun(t, c, 2000, "campaign") != r);
  CHECK(s.progress("campaign") == std::pair<int64_t, int64_t>{2, 0});
  REQUIRE(s.test(t).allowed == mp().allowed);
}

TEST_CASE("an expired lease lets another worker claim the run, the old claim is lost", "[campaign]") {
  TempDb db;
  Store s(db.path.string());
  const int64_t t = s.addTest(mp());
  const int64_t c = s.addConfig(nlohmann::json::object(), "run");
  s.addRun(t, c, 10, "campaign");
  auto a = s.claim("campaign", "host:1", 0.2);
  REQUIRE(a);
  CHECK(a->attempts == 1);
  CHECK_FALSE(s.claim("campaign", "host:2", 0.2));  // the lease is live
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto b = s.claim("campaign", "host:2", 60);
  REQUIRE(b);
  CHECK(b->id == a->id);
  CHECK(b->attempts == 2);
  CHECK_FALSE(s.renew(a->id, "host:1", 60));
  RunRow done = *a;
  done.status = "ok";
  done.finished = now();
  CHECK_FALSE(s.finish(done));  // host:1 no longer holds it
  done.worker = "host:2";
  CHECK(s.finish(done));
  CHECK(s.run(a->id)->status == "ok");
  CHECK_FALSE(s.claim("campaign", "host:3", 60));
}

TEST_CASE("a run whose workers die max-attempts times is marked error", "[campaign]") {
  TempDb db;
  Store s(db.path.string());
  const int64_t t = s.addTest(mp());
  const int64_t c = s.addConfig(nlohmann::json::object(), "run");
  const int64_t id = s.addRun(t, c, 10, "campaign");
  for (int i = 0; i < 2; ++i) {
    REQUIRE(s.claim("campaign", "host:" + std::to_string(i), 0.05, 2));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK_FALSE(s.claim("campaign", "host:9", 60, 2));
  CHECK(s.run(id)->status == "error");
  CHECK(s.run(id)->reason.find("died or hung 2 time(s)") != std::string::npos);
}

TEST_CASE("the fake backend is deterministic and draws only allowed states", "[campaign]") {
  auto a = makeBackend("fake", 0), b = makeBackend("fake", 1);
  ptxmm::runner::StressParams p;
  p.iterations = 100000;
  TestRow t = mp();
  auto x = a->run(t, p), y = b->run(t, p);
  REQUIRE(x.result.status == ptxmm::runner::RunResult::Status::Ok);
  CHECK(x.result.histogram.states == y.result.histogram.states);
  CHECK(x.result.histogram.total() == 100000);
  for (const auto& [k, v] : x.result.histogram.states) CHECK(t.allowed->count(k) == 1);
  p.bankConflictLanes = 8;
  auto z = a->run(t, p);
  CHECK(z.result.seconds > x.result.seconds);  // stress costs time
  CHECK_THROWS_WITH(fakeSpec("bogus=1"), Catch::Contains("bad item 'bogus=1'"));
}

TEST_CASE("a mutant the device cannot run is not killable: the score counts it apart", "[campaign]") {
  TempDb db;
  Store s(db.path.string());
  auto mutant = [&](const std::string& name, const std::string& cls) {
    TestRow m = mp();
    m.kind = "mutant";
    m.name = name;
    m.text = "PTX " + name + "\n";
    m.mclass = cls;
    m.mutation = "remove";
    return s.addTest(m);
  };
  const int64_t killedOne = mutant("killed", "generic-proxy"), survivor = mutant("survivor", "generic-proxy"),
                refused = mutant("refused", "async-proxy");
  const int64_t c = s.addConfig(nlohmann::json{{"seed", 1}}, "tune-default");
  auto finishRun = [&](int64_t test, const std::string& status, int64_t seen) {
    const int64_t id = s.addRun(test, c, 1000, "tune");
    REQUIRE(s.claimRun(id, "w", 60));
    RunRow r = *s.run(id);
    r.status = status;
    r.targetSeen = seen;
    r.seconds = 0.5;
    r.finished = now();
    REQUIRE(s.finish(r));
  };
  finishRun(killedOne, "ok", 7);
  finishRun(survivor, "ok", 0);
  finishRun(refused, "skipped", 0);
  const ConfigScore sc = scoreOf(s, c);
  CHECK(sc.killable == 2);
  CHECK(sc.killed == 1);
  CHECK(sc.score() == 0.5);
  CHECK(sc.notRunnable.at("async-proxy") == 1);
  CHECK(sc.byClass.count("async-proxy") == 0);
  CHECK(sc.byClass.at("generic-proxy").killable == 2);
  // Refused under one configuration only (too many named barriers for its testing groups): the device can run it.
  const int64_t other = s.addConfig(nlohmann::json{{"seed", 2}}, "tune-random");
  const int64_t id = s.addRun(survivor, other, 1000, "tune");
  REQUIRE(s.claimRun(id, "w", 60));
  RunRow r = *s.run(id);
  r.status = "skipped";
  r.finished = now();
  REQUIRE(s.finish(r));
  CHECK(notRunnableMutants(s) == std::set<int64_t>{refused});
  CHECK(scoreOf(s, c).killable == 2);
}

TEST_CASE("an unseen state that reverses one location's coherence order through one proxy is named so", "[campaign]") {
  auto parse = [](const std::string& text) { return ptxmm::litmus::parseTest(text, "t.litmus"); };
  const auto corr = parse(
      "PTX CoRR\n{ x = 0 }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | ld.weak r0, x ;\n"
      " st.weak x, 2 | ld.volatile r1, x ;\nexists (1:r0 == 2 /\\ 1:r1 == 1)\n");
  CHECK(coherenceReversal(corr, "1:r0=2; 1:r1=1;") == "P1 reads x=2, then reads x=1 (stored before 2 by P0)");
  CHECK(coherenceReversal(corr, "1:r0=1; 1:r1=0;") == "P1 reads x=1, then reads x=0 (its initial value)");
  CHECK(coherenceReversal(corr, "1:r0=1; 1:r1=2;").empty());  // in coherence order
  CHECK(coherenceReversal(corr, "1:r0=0; 1:r1=2;").empty());
  ptxmm::ptx::Scope narrow{}, wide{};
  const UnseenState u = staticReason(corr, "1:r0=2; 1:r1=1;", narrow, wide);
  CHECK(u.category == kCoherence);
  // Through a virtual alias the location is the same.
  const auto cowr = parse(
      "PTX CoWR\n{ x = 0; y @ generic aliases x }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\n ld.weak r1, y ;\n"
      "exists (0:r1 != 1)\n");
  CHECK(coherenceReversal(cowr, "0:r1=0;") == "P0 writes x=1, then reads x=0 (its initial value)");
  // A surface load after a generic store reads through another proxy: no order to keep.
  const auto cross = parse(
      "PTX CoWR-surface\n{ x = 0; sx @ surface aliases x }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\n"
      " suld.weak r1, sx ;\nexists (0:r1 != 1)\n");
  CHECK(coherenceReversal(cross, "0:r1=0;").empty());
  // A value written twice, or the initial value written again, does not name one write.
  const auto twice = parse(
      "PTX twice\n{ x = 0 }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | ld.weak r0, x ;\n"
      " st.weak x, 0 | ld.weak r1, x ;\nexists (1:r0 == 1 /\\ 1:r1 == 0)\n");
  CHECK(coherenceReversal(twice, "1:r0=1; 1:r1=0;").empty());
}

TEST_CASE("an unseen state of a test whose threads share one CTA is put down to the one SM", "[campaign]") {
  auto reason = [](const std::string& placement1) {
    const std::string text = "PTX MP\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@" + placement1 +
                             " ;\n st.weak x, 1 | ld.weak r0, y ;\n st.weak y, 1 | ld.weak r1, x ;\n"
                             "exists (1:r0 == 1 /\\ 1:r1 == 0)\n";
    auto test = ptxmm::litmus::parseTest(text, "MP.litmus");
    ptxmm::ptx::Scope narrow{}, wide{};
    return staticReason(test, "1:r0=1; 1:r1=0;", narrow, wide);
  };
  const UnseenState same = reason("cta 0,gpu 0");
  CHECK(same.category == kOneCta);
  CHECK(same.evidence == "all 2 threads in CTA 0");
  CHECK(reason("cta 1,gpu 0").category.empty());  // different CTAs: no reason from the test alone
  CHECK(reason("cta 1,gpu 1").category == kPlacement);
}

TEST_CASE(
    "an unseen state is put down to a hang when no instance finished, or to the test's own "
    "instructions when a test of the same threads and condition shows it",
    "[campaign]") {
  TempDb db;
  Store s(db.path.string());
  const std::string weak = "1:r0=1; 1:r1=0;", flagOnly = "1:r0=1; 1:r1=1;", none = "1:r0=0; 1:r1=0;";
  auto mpTest = [&](const std::string& name, const std::string& writer, const std::string& placement1) {
    TestRow t;
    t.name = name;
    t.text = "PTX " + name + "\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@" + placement1 + " ;\n st.weak x, 1 | " +
             "ld.relaxed.gpu r0, y ;\n " + writer + " | ld.weak r1, x ;\n exists (1:r0 == 1 /\\ 1:r1 == 0)\n";
    t.hash = name;
    t.allowed = std::set<std::string>{weak, flagOnly, none};
    return s.addTest(t);
  };
  const int64_t fenced = mpTest("MP+fence", "st.release.gpu y, 1", "cta 1,gpu 0");
  const int64_t relaxed = mpTest("MP+rlx", "st.relaxed.gpu y, 1", "cta 1,gpu 0");
  const int64_t otherPlace = mpTest("MP+rlx-elsewhere", "st.relaxed.gpu y, 1", "cta 2,gpu 0");
  const int64_t hung = mpTest("MP+hang", "st.relaxed.gpu y, 1", "cta 3,gpu 0");
  const int64_t oneCtaFenced = mpTest("MP+fence-in-cta", "st.release.gpu y, 1", "cta 0,gpu 0");
  const int64_t oneCtaRelaxed = mpTest("MP+rlx-in-cta", "st.relaxed.gpu y, 1", "cta 0,gpu 0");
  const int64_t ctaScoped = mpTest("MP+rel.cta", "st.release.cta y, 1", "cta 1,gpu 0");
  const int64_t c = s.addConfig(nlohmann::json{{"seed", 1}}, "run");
  auto finishRun = [&](int64_t test, std::map<std::string, uint64_t> states, uint64_t timedOut) {
    const int64_t id = s.addRun(test, c, 1000, "campaign");
    REQUIRE(s.claimRun(id, "w", 60));
    RunRow r = *s.run(id);
    r.status = "ok";
    r.states = std::move(states);
    r.timedOut = timedOut;
    r.instances = 1000;
    r.finished = now();
    REQUIRE(s.finish(r));
  };
  finishRun(fenced, {{none, 900}, {flagOnly, 100}}, 0);
  finishRun(relaxed, {{none, 800}, {flagOnly, 190}, {weak, 10}}, 0);
  finishRun(otherPlace, {{none, 1000}}, 0);
  finishRun(hung, {}, 1000);
  finishRun(oneCtaFenced, {{none, 900}, {flagOnly, 100}}, 0);
  finishRun(oneCtaRelaxed, {{none, 900}, {flagOnly, 90}, {weak, 10}}, 0);
  finishRun(ctaScoped, {{none, 900}, {flagOnly, 100}}, 0);
  const SuiteCoverage cov = coverage(s);
  auto unseenOf = [&](const std::string& name) {
    for (const auto& t : cov.tests)
      if (t.name == name) return t.unseen;
    FAIL("no test " << name);
    return std::vector<UnseenState>{};
  };
  const auto f = unseenOf("MP+fence");
  REQUIRE(f.size() == 1);
  CHECK(f[0].state == weak);
  CHECK(f[0].category == kSiblingSeen);
  CHECK_THAT(f[0].evidence, Catch::Contains("seen 10 times in MP+rlx (1000 instances)"));
  // Another placement is another shape: the relaxed test's weak outcome is no evidence for it.
  for (const auto& u : unseenOf("MP+rlx-elsewhere")) CHECK(u.category != kSiblingSeen);
  // One CTA is no reason when a test of the same threads in that CTA shows the state.
  const auto o = unseenOf("MP+fence-in-cta");
  REQUIRE(o.size() == 1);
  CHECK(o[0].category == kSiblingSeen);
  // Nor is a scope narrower than the placement: a test of the same threads shows the state on this device.
  const auto sc = unseenOf("MP+rel.cta");
  REQUIRE(sc.size() == 1);
  CHECK(sc[0].category == kSiblingSeen);
  CHECK_THAT(sc[0].evidence, Catch::Contains("in MP+rlx (1000 instances)"));
  // The test whose reader never saw the flag: the weak state needs 1:r0=1, which no instance had.
  const auto e = unseenOf("MP+rlx-elsewhere");
  REQUIRE(e.size() == 2);
  for (const auto& u : e) {
    CHECK(u.category == kValueNeverSeen);
    CHECK(u.evidence == "no instance had 1:r0=1 (1000 instances)");
  }
  const std::set<std::string> allowed{weak, flagOnly, none};
  CHECK(valueNeverSeen(weak, {{none, 3}, {flagOnly, 0}}, allowed) == "1:r0=1");
  CHECK(valueNeverSeen(weak, {{none, 3}, {flagOnly, 1}}, allowed).empty());  // each value appeared, in two states
  // 1:r1=2 is in no other allowed state: never seeing it is never seeing the state, not a reason.
  CHECK(valueNeverSeen("1:r0=1; 1:r1=2;", {{none, 3}, {flagOnly, 1}}, {none, flagOnly, "1:r0=1; 1:r1=2;"}).empty());
  const auto h = unseenOf("MP+hang");
  REQUIRE(h.size() == 3);
  for (const auto& u : h) {
    CHECK(u.category == kNoneFinished);
    CHECK(u.evidence == "all 1000 instances hit the spin bound");
  }
}

TEST_CASE("an unseen state the model reaches by a hanging execution is put down to the hang when instances hung",
          "[campaign]") {
  TempDb db;
  Store s(db.path.string());
  // A wait with the wrong parity: it returns at once (r0 is 1 or 6), or the phase completes first and it never
  // does; the model's hanging execution ends with r0 = 0.
  auto add = [&](const std::string& name, const std::string& place) {
    TestRow t;
    t.name = name;
    t.text = "PTX " + name + "\n{ x = 0; }\n P0@cta 0,gpu 0 | P1@" + place + " ;\n st.relaxed.gpu x, 1 | " +
             "ld.relaxed.gpu r0, x ;\n exists (1:r0 == 0)\n";
    t.hash = name;
    t.allowed = std::set<std::string>{"1:r0=0;", "1:r0=1;", "1:r0=6;"};
    t.hanging = std::set<std::string>{"1:r0=0;"};
    return s.addTest(t);
  };
  const int64_t hung = add("W+hang", "cta 1,gpu 0"), finished = add("W+nohang", "cta 2,gpu 0");
  const int64_t c = s.addConfig(nlohmann::json{{"seed", 1}}, "run");
  auto finishRun = [&](int64_t test, uint64_t timedOut) {
    const int64_t id = s.addRun(test, c, 1000, "campaign");
    REQUIRE(s.claimRun(id, "w", 60));
    RunRow r = *s.run(id);
    r.status = "ok";
    r.states = {{"1:r0=1;", 400}, {"1:r0=6;", 1000 - 400 - timedOut}};
    r.timedOut = timedOut;
    r.instances = 1000;
    r.finished = now();
    REQUIRE(s.finish(r));
  };
  finishRun(hung, 600);
  finishRun(finished, 0);
  const SuiteCoverage cov = coverage(s);
  for (const auto& t : cov.tests) {
    REQUIRE(t.unseen.size() == 1);
    CHECK(t.unseen[0].state == "1:r0=0;");
    if (t.name == "W+hang") {
      CHECK(t.unseen[0].category == kHangs);
      CHECK_THAT(t.unseen[0].evidence, Catch::Contains("600 of 1000 instances hit the spin bound"));
    } else {
      CHECK(t.unseen[0].category != kHangs);  // no instance hung: the hang explains nothing here
    }
  }
}

TEST_CASE("a store made before tests.hanging reads as unknown, unchanged, and gets the column when written",
          "[campaign]") {
  TempDb db;
  {
    sqlite3* raw = nullptr;
    REQUIRE(sqlite3_open(db.path.string().c_str(), &raw) == SQLITE_OK);
    const char* v1 =
        "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES('schema', '1');"
        "CREATE TABLE tests(id INTEGER PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL, file TEXT, hash TEXT,"
        " text TEXT NOT NULL, arch TEXT, model TEXT, allowed TEXT, model_error TEXT, parent INTEGER, site TEXT,"
        " mutation TEXT, class TEXT, target TEXT, UNIQUE(kind, name, text));"
        "INSERT INTO tests(kind, name, text, allowed) VALUES('test', 'MP', 'PTX MP', '[\"1:r0=0;\"]');";
    REQUIRE(sqlite3_exec(raw, v1, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(raw);
  }
  auto columns = [&] {
    sqlite3* raw = nullptr;
    REQUIRE(sqlite3_open(db.path.string().c_str(), &raw) == SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    REQUIRE(sqlite3_prepare_v2(raw, "SELECT count(*) FROM pragma_table_info('tests')", -1, &st, nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_step(st) == SQLITE_ROW);
    const int n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(raw);
    return n;
  };
  Store s(db.path.string());
  CHECK(s.meta("schema") == std::optional<std::string>("1"));
  auto tests = s.tests("test");
  REQUIRE(tests.size() == 1);
  CHECK(tests[0].allowed == std::optional<std::set<std::string>>(std::set<std::string>{"1:r0=0;"}));
  CHECK_FALSE(tests[0].hanging.has_value());
  CHECK(columns() == 15);  // reading added nothing
  s.setHanging(tests[0].id, {});
  CHECK(columns() == 16);
  CHECK(s.test(tests[0].id).hanging == std::optional<std::set<std::string>>(std::set<std::string>{}));
}

TEST_CASE("an unseen state no test of its shape showed says how many tried", "[campaign]") {
  TempDb db;
  Store s(db.path.string());
  const std::string weak = "1:r0=1; 1:r1=0;", flagOnly = "1:r0=1; 1:r1=1;", none = "1:r0=0; 1:r1=0;";
  auto add = [&](const std::string& name, const std::string& writer) {
    TestRow t;
    t.name = name;
    t.text = "PTX " + name + "\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n st.weak x, 1 | " +
             "ld.relaxed.gpu r0, y ;\n " + writer + " | ld.weak r1, x ;\n exists (1:r0 == 1 /\\ 1:r1 == 0)\n";
    t.hash = name;
    t.allowed = std::set<std::string>{weak, flagOnly, none};
    return s.addTest(t);
  };
  const int64_t fenced = add("MP+fence-in-cta", "st.release.gpu y, 1"),
                relaxed = add("MP+rlx-in-cta", "st.relaxed.gpu y, 1");
  const int64_t c = s.addConfig(nlohmann::json{{"seed", 1}}, "run");
  for (int64_t test : {fenced, relaxed}) {
    const int64_t id = s.addRun(test, c, 1000, "campaign");
    REQUIRE(s.claimRun(id, "w", 60));
    RunRow r = *s.run(id);
    r.status = "ok";
    r.states = {{none, 900}, {flagOnly, 100}};
    r.instances = 1000;
    r.finished = now();
    REQUIRE(s.finish(r));
  }
  for (const auto& t : coverage(s).tests) {
    REQUIRE(t.unseen.size() == 1);
    CHECK(t.unseen[0].category == kOneCta);
    CHECK_THAT(t.unseen[0].evidence,
               Catch::EndsWith("; nor did the 1 other test(s) of its threads and condition (1000 instances)"));
  }
}
