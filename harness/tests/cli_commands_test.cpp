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
