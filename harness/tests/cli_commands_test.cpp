// The ptxmm command line as a user calls it (the binary, run from the repository root).
#include <sys/wait.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

namespace {

struct Run {
  int rc = -1;
  std::string out;  // stdout and stderr
};

Run ptxmm(const std::string& args) {
  Run r;
  std::string cmd = std::string(PTXMM_EXE) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace

TEST_CASE("fences --axiom-coverage --rule takes one rule and leaves the test paths alone", "[cli]") {
  // Regression: the repeatable --rule option swallowed the paths after it (0 tests tried).
  Run r = ptxmm(
      "fences --axiom-coverage --rule NoThinAir --model models/ptx.cat litmus/base/LB+ctrls.rlx.gpu.litmus "
      "litmus/base/MP+rel+acq+guard.cluster-in-cluster.litmus");
  INFO(r.out);
  CHECK(r.rc == 0);
  CHECK(r.out.find("NoThinAir (axiom") != std::string::npos);
  CHECK(r.out.find("1 changed (of 2 tried)") != std::string::npos);
  CHECK(r.out.find("LB+ctrls.rlx.gpu: state '0:r0=1; 1:r1=1;' becomes reachable") != std::string::npos);
}

TEST_CASE("fences --axiom-coverage: a repeated --rule keeps each rule", "[cli]") {
  Run r = ptxmm(
      "fences --axiom-coverage --rule NoThinAir --rule Causality --model models/ptx.cat "
      "litmus/base/LB+ctrls.rlx.gpu.litmus litmus/base/MP+rel+acq+guard.cluster-in-cluster.litmus");
  INFO(r.out);
  CHECK(r.rc == 0);
  CHECK(r.out.find("NoThinAir (axiom") != std::string::npos);
  CHECK(r.out.find("Causality (axiom") != std::string::npos);
}

TEST_CASE("check: an unknown model file is a clear error, not a crash", "[cli]") {
  Run r = ptxmm("check --model models/no-such-model.cat litmus/base/LB+ctrls.rlx.gpu.litmus");
  INFO(r.out);
  CHECK(r.rc != 0);
  CHECK(r.rc < 128);
  CHECK(r.out.find("no-such-model.cat") != std::string::npos);
}

namespace {

// The verdict lines of a herd7-format log: what must not depend on the smt engine's seed.
std::string verdictLines(const std::string& log) {
  std::string out, line;
  for (size_t i = 0; i <= log.size(); ++i) {
    if (i < log.size() && log[i] != '\n') {
      line += log[i];
      continue;
    }
    for (const char* p : {"Test ", "States ", "Ok", "No", "Observation ", "Flag ", "PASS ", "FAIL "})
      if (line.rfind(p, 0) == 0) out += line + "\n";
    line.clear();
  }
  return out;
}

}  // namespace

TEST_CASE("check --smt-seed: another seed of the solver gives the same verdicts, and a bad seed is refused", "[cli]") {
  const std::string tests = "litmus/hw litmus/base/LB+ctrls.rlx.gpu.litmus";
  Run plain = ptxmm("check -j1 --no-time " + tests);
  Run seeded = ptxmm("check -j1 --no-time --smt-seed 7 " + tests);
  INFO(plain.out);
  REQUIRE(plain.rc == 0);
  CHECK(seeded.rc == 0);
  CHECK(verdictLines(plain.out).find("Observation ") != std::string::npos);
  CHECK(verdictLines(seeded.out) == verdictLines(plain.out));
  for (const char* bad : {"-1", "x", "1000001"}) {
    Run r = ptxmm(std::string("check --smt-seed ") + bad + " litmus/base/LB+ctrls.rlx.gpu.litmus");
    INFO(bad << ": " << r.out);
    CHECK(r.rc == 2);
    CHECK(r.out.find("--smt-seed") != std::string::npos);
  }
}
