// Every phase of `ptxmm check` is bounded by --timeout and --memory whatever the input, and input
// problems of a suite directory are reported per entry while the rest of the suite runs. Each case is
// one of the inputs that used to run for minutes or take the machine's memory: it must now end with the
// right status (text and JSON). Times are checked only against a generous bound (10 s for a budget
// under 1 s), never measured.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "CliTestSupport.hpp"

namespace fs = std::filesystem;
using cli_test::kMP;
using cli_test::Run;
using cli_test::Scratch;

namespace {

// Threads x accesses of straight-line relaxed code over four locations (many candidate executions).
std::string manyThreads(int threads, int accesses) {
  const char* locs[] = {"x", "y", "z", "w"};
  std::string t = "PTX many\n{ x = 0; y = 0; z = 0; w = 0 }\n";
  for (int p = 0; p < threads; ++p) {
    t += "P" + std::to_string(p) + "@cta " + std::to_string(p) + ",gpu 0:\n";
    for (int a = 0; a < accesses; ++a) {
      std::string l = locs[(p + a) % 4];
      if ((p + a) % 2 == 0)
        t += "    st.relaxed.gpu.global.u32 [" + l + "], " + std::to_string(a + 1) + ";\n";
      else
        t += "    ld.relaxed.gpu.global.u32 r" + std::to_string(a) + ", [" + l + "];\n";
    }
  }
  return t + "exists (0:r1 == 1)\n";
}

// SB with `fences` fence.sc between the store and the load of each thread (fences! sc orders each).
std::string scFences(int fences) {
  std::string t = "PTX SB+manyfences\n{ x = 0; y = 0 }\n";
  for (int p = 0; p < 2; ++p) {
    t += "P" + std::to_string(p) + "@cta " + std::to_string(p) + ",gpu 0:\n";
    t += std::string("    st.relaxed.gpu.global.u32 [") + (p ? "y" : "x") + "], 1;\n";
    for (int k = 0; k < fences; ++k) t += "    fence.sc.gpu;\n";
    t += std::string("    ld.relaxed.gpu.global.u32 r0, [") + (p ? "x" : "y") + "];\n";
  }
  return t + "exists (0:r0 == 0 /\\ 1:r0 == 0)\n";
}

const char* kNestedLoops = R"(PTX nested-loops
{ x = 0; y = 0 }
P0@cta 0,gpu 0:
outer:
    ld.relaxed.gpu.global.u32 r0, [x];
inner:
    ld.relaxed.gpu.global.u32 r1, [y];
    setp.eq.u32 p, r1, 0;
    @p bra inner;
    setp.eq.u32 q, r0, 0;
    @q bra outer;
P1@cta 1,gpu 0:
    st.relaxed.gpu.global.u32 [x], 1;
    st.relaxed.gpu.global.u32 [y], 1;
exists (0:r0 == 1)
)";

const char* kTwoLoops = R"(PTX two-loops
{ x = 0; y = 0 }
P0@cta 0,gpu 0:
l1:
    ld.relaxed.gpu.global.u32 r0, [x];
    setp.eq.u32 p, r0, 0;
    @p bra l1;
l2:
    ld.relaxed.gpu.global.u32 r1, [y];
    setp.eq.u32 q, r1, 0;
    @q bra l2;
P1@cta 1,gpu 0:
    st.relaxed.gpu.global.u32 [x], 1;
    st.relaxed.gpu.global.u32 [y], 1;
exists (0:r0 == 1)
)";

// The single JSON record of a one-test --json run (and every line parses as JSON).
nlohmann::json onlyRecord(const std::string& out) {
  std::istringstream lines(out);
  std::string line;
  nlohmann::json rec;
  int n = 0;
  while (std::getline(lines, line)) {
    nlohmann::json o = nlohmann::json::parse(line);
    if (o.contains("summary")) continue;
    rec = o;
    ++n;
  }
  CHECK(n == 1);
  return rec;
}

// Runs `args` on `test` in text and JSON; both must report `status` (JSON name) and no verdict.
void requireStatus(const Scratch& s, const std::string& args, const fs::path& test, const std::string& status,
                   const std::string& phase) {
  Run r = s.ptxmm("check " + args + " " + test.string());
  INFO(r.out << r.err);
  CHECK(r.rc != 0);
  CHECK(r.out.find("Observation") == std::string::npos);
  CHECK(r.err.find("FAIL " + test.string() + ": " + (status == "memory" ? "memory" : status)) != std::string::npos);
  if (!phase.empty()) CHECK(r.err.find(phase) != std::string::npos);
  Run j = s.ptxmm("check --json " + args + " " + test.string());
  INFO(j.out << j.err);
  nlohmann::json rec = onlyRecord(j.out);
  CHECK(rec["status"] == status);
  CHECK(!rec.contains("observation"));
  CHECK(rec["time"].get<double>() < 10.0);
}

}  // namespace

TEST_CASE("bounds: the enum engine stops at --timeout on a test with very many candidates", "[cli][bounds]") {
  Scratch s("bounds-enum");
  fs::path t = s.write("many.litmus", manyThreads(32, 12));  // about 3 s with the enum engine, 20 s with smt
  requireStatus(s, "--engine enum --timeout 300ms", t, "timeout", "");
  requireStatus(s, "--engine both --timeout 300ms", t, "timeout", "");
}

TEST_CASE("bounds: fence.sc orders are generated lazily, so --timeout stops the enumeration", "[cli][bounds]") {
  Scratch s("bounds-sc");
  fs::path t = s.write("sc.litmus", scFences(10));  // 20! orders: materialised up front they took > 4 GB
  requireStatus(s, "--engine enum --timeout 300ms --memory 2G", t, "timeout", "");
  // smt decides it; in both mode it decides alone once the enum engine's share of the budget is spent.
  Run r = s.ptxmm("check --engine both --timeout 20 --enum-budget 300ms " + t.string());
  INFO(r.out << r.err);
  CHECK(r.out.find("Observation SB+manyfences Never") != std::string::npos);
  CHECK(r.err.find("not cross-checked: enum engine gave up") != std::string::npos);
}

TEST_CASE("bounds: --timeout covers the lowering and its path exploration", "[cli][bounds]") {
  Scratch s("bounds-lower");
  fs::path t = s.write("nested.litmus", kNestedLoops);
  requireStatus(s, "--unroll 64 --max-events 0 --timeout 300ms", t, "timeout", "during the lowering");
}

TEST_CASE("bounds: --max-events refuses a program while it is being lowered", "[cli][bounds]") {
  Scratch s("bounds-events");
  fs::path t = s.write("loops.litmus", kTwoLoops);
  requireStatus(s, "--unroll 64 --max-events 100", t, "unknown", "more than 100 events");
}

TEST_CASE("bounds: --memory stops the smt encoding before it allocates, and the enum engine when it has",
          "[cli][bounds]") {
  Scratch s("bounds-mem");
  fs::path t = s.write("loops.litmus", kTwoLoops);
  requireStatus(s, "--engine smt --unroll 32 --max-events 0 --memory 100M", t, "memory", "memory limit of 100 MiB");
  // A model whose `with ... from` enumerates every order of ten writes (10! relations).
  fs::path model = s.write("with.cat",
                           "\"with-from stress\"\nwith co2 from linearisations(W, 0)\n"
                           "acyclic po | rf | co2 as test\n");
  std::string w = "PTX W10\n{ x = 0 }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n";
  for (int k = 1; k <= 5; ++k)
    w += " st.relaxed.gpu x, " + std::to_string(k) + " | st.relaxed.gpu x, " + std::to_string(k + 5) + " ;\n";
  fs::path wt = s.write("W10.litmus", w + "exists (x == 1)\n");
  requireStatus(s, "--engine enum --memory 50M --model " + model.string(), wt, "memory", "linearisations");
}

TEST_CASE("bounds: --memory bounds Z3's memory too, before it takes in an encoding", "[cli][bounds]") {
  Scratch s("bounds-z3mem");
  // A one-stage TMA ring of 10 iterations (bench/gen-pipelines.py): about 300,000 terms, which Z3 needs
  // some 150 MiB to take in, while this program's own encoding stays under 60 MiB.
  const fs::path t = fs::path(PTXMM_SOURCE_DIR) / "harness/tests/data/bounds/ring-K1-N10.litmus";
  requireStatus(s, "--engine smt -j1 --memory 80M", t, "memory", "of Z3's memory");
}

TEST_CASE("bounds: fences stops its checks at --timeout and says which were not checked", "[cli][bounds]") {
  Scratch s("bounds-fences");
  // The original check runs out of its budget (the ring needs seconds): its mutants are never checked, and
  // the report must not give them a verdict of their own.
  const fs::path t = fs::path(PTXMM_SOURCE_DIR) / "harness/tests/data/bounds/ring-K1-N10.litmus";
  Run r = s.ptxmm("fences --model ptx --engine smt -j1 --timeout 300ms " + t.string());
  INFO(r.out << r.err);
  CHECK(r.out.find("Original ptx") != std::string::npos);
  CHECK(r.out.find("timeout: ") != std::string::npos);
  CHECK(r.out.find("mutant unknown: not checked: the original could not be decided") != std::string::npos);
  CHECK(r.out.find("mutant Never") == std::string::npos);
  CHECK(r.rc == 1);  // an analysis left undecided fails
}

TEST_CASE("bounds: a suite continues past tests over their budget", "[cli][bounds]") {
  Scratch s("bounds-suite");
  s.write("a/nested.litmus", kNestedLoops);
  s.write("a/MP.litmus", kMP);
  s.write("a/MP.expect", "ptx: Sometimes | relaxed accesses: no order (PTX ISA 8.10)\n");
  Run r = s.ptxmm("check --unroll 64 --max-events 0 --timeout 300ms " + (s.dir / "a").string());
  INFO(r.out << r.err);
  CHECK(r.out.find("Observation MP Sometimes") != std::string::npos);
  CHECK(r.out.find("1 passed, 1 failed (1 timeout)") != std::string::npos);
}

TEST_CASE("input: a byte that is not UTF-8 gives valid JSON and JUnit, not an internal error", "[cli][input]") {
  Scratch s("utf8");
  fs::path t = s.write("bad\xff.litmus", std::string("PTX MP\xff\n") + (kMP + 7));
  Run j = s.ptxmm("check --json --junit " + (s.dir / "junit.xml").string() + " " + t.string());
  INFO(j.out << j.err);
  CHECK(j.rc != 3);
  CHECK(j.err.find("internal error") == std::string::npos);
  std::istringstream lines(j.out);
  std::string line;
  while (std::getline(lines, line)) CHECK_NOTHROW(nlohmann::json::parse(line));
  std::string xml = cli_test::slurp(s.dir / "junit.xml");
  CHECK(xml.find('\xff') == std::string::npos);
  CHECK(xml.find("\xEF\xBF\xBD") != std::string::npos);  // U+FFFD in place of the byte
}

TEST_CASE("input: link loops, dangling links and odd entries of a suite directory are reported", "[cli][input]") {
  Scratch s("entries");
  s.write("d/MP.litmus", kMP);
  s.write("d/MP.expect", "ptx: Sometimes | relaxed accesses: no order (PTX ISA 8.10)\n");
  s.write("d/other.litmus", kMP);
  fs::create_directories(s.dir / "d" / "other.expect");  // a directory where the expectation should be
  fs::create_symlink("loop", s.dir / "d" / "loop");      // a link to itself
  fs::create_symlink("missing.litmus", s.dir / "d" / "dangling.litmus");
  Run r = s.ptxmm("check " + (s.dir / "d").string());
  INFO(r.out << r.err);
  CHECK(r.err.find("internal error") == std::string::npos);
  CHECK(r.err.find("SKIP " + (s.dir / "d" / "loop").string()) != std::string::npos);
  CHECK(r.err.find("FAIL " + (s.dir / "d" / "dangling.litmus").string() + ": error: dangling symbolic link") !=
        std::string::npos);
  CHECK(r.err.find("other.expect: error: the expectation file is not a regular file") != std::string::npos);
  CHECK(r.out.find("1 passed, 2 failed (2 errors)") != std::string::npos);
}

TEST_CASE("input: an unknown flag or model in a .expect file is a located error", "[cli][input]") {
  Scratch s("expect");
  fs::path t = s.write("MP.litmus", kMP);
  s.write("MP.expect", "sc: Never | SC\nptx: Sometimes +data_race | typo of data-race\n");
  Run r = s.ptxmm("check " + t.string());
  INFO(r.out << r.err);
  CHECK(r.rc != 0);
  CHECK(r.err.find("MP.expect:2:") != std::string::npos);
  CHECK(r.err.find("unknown flag '+data_race'") != std::string::npos);
  CHECK(r.err.find("did you mean '+data-race'?") != std::string::npos);
  s.write("MP.expect", "ptx: Sometimes | ok\nptx-no-such-variant: Never | typo\n");
  Run m = s.ptxmm("check " + t.string());
  INFO(m.out << m.err);
  CHECK(m.rc != 0);
  CHECK(m.err.find("MP.expect:2:") != std::string::npos);
  CHECK(m.err.find("unknown model 'ptx-no-such-variant'") != std::string::npos);
}

TEST_CASE("input: -j far beyond the machine is capped at its hardware threads", "[cli][input]") {
  Scratch s("jobs");
  s.write("MP.litmus", kMP);
  s.write("MP.expect", "ptx: Sometimes | relaxed accesses: no order (PTX ISA 8.10)\n");
  Run r = s.ptxmm("check -j 1024 " + s.dir.string());
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(r.out.find("1 passed, 0 failed") != std::string::npos);
}
