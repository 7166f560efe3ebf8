// The options of a hardware campaign, shared by `ptxmm run` and `ptxmm-hw` (cli/RunOptions.cpp): one
// option per row of runner/StressParams.def, checked when parsed, applied after the --params file.
#include <sys/wait.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "CliTestSupport.hpp"
#include "runner/StressParams.hpp"

namespace {

struct Run {
  int rc = -1;
  std::string out;  // stdout and stderr
};

Run exec(const std::string& exe, const std::string& args) {
  Run r;
  std::string cmd = exe + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

/// The executables that take the campaign options: ptxmm run, and ptxmm-hw where it was built.
std::vector<std::string> runners() {
  std::vector<std::string> r = {std::string(PTXMM_EXE) + " run"};
#ifdef PTXMM_HW_EXE
  r.push_back(PTXMM_HW_EXE);
#endif
  return r;
}

/// The stress-parameter block of a --help text (from its group heading to the next blank line).
std::string stressBlock(const std::string& help) {
  auto at = help.find("Stress parameters");
  if (at == std::string::npos) return "";
  auto end = help.find("\n\n", at);
  return help.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace

TEST_CASE("run options: every stress parameter is an option, the same in ptxmm run and ptxmm-hw", "[cli]") {
  const std::string block = stressBlock(exec(std::string(PTXMM_EXE), "run --help").out);
  REQUIRE(!block.empty());
  for (const auto& info : ptxmm::runner::paramTable()) {
    INFO(info.name);
    CHECK(block.find(ptxmm::runner::paramOption(info.name) + " ") != std::string::npos);
  }
#ifdef PTXMM_HW_EXE
  auto hw = exec(PTXMM_HW_EXE, "--help");
  CHECK(hw.rc == 0);
  CHECK(stressBlock(hw.out) == block);
#else
  WARN("ptxmm-hw was not built (no CUDA toolkit): only ptxmm run checked");
#endif
}

TEST_CASE("run options: bad stress values are usage errors naming the option and the key", "[cli]") {
  cli_test::Scratch s("runopts-bad");
  auto params = s.write("p.json", R"({"seed": 3, "memStresPct": 50})");
  for (const auto& exe : runners()) {
    INFO(exe);
    auto r = exec(exe, "--mem-stress-pct 200 litmus/hw/MP+weak.litmus");
    CHECK(r.rc == 2);
    CHECK_THAT(r.out, Catch::Contains("--mem-stress-pct") && Catch::Contains("'memStressPct'") &&
                          Catch::Contains("out of range 0..100"));
    r = exec(exe, "--seed x litmus/hw/MP+weak.litmus");
    CHECK(r.rc == 2);
    CHECK_THAT(r.out, Catch::Contains("--seed") && Catch::Contains("expected an integer"));
    r = exec(exe, "--params " + params.string() + " litmus/hw/MP+weak.litmus");
    CHECK(r.rc == 2);
    CHECK_THAT(r.out, Catch::Contains(params.string() + ": error:") && Catch::Contains("unknown key 'memStresPct'"));
    r = exec(exe, "--stress-line-size 100 --scratch-memory-size 64 litmus/hw/MP+weak.litmus");
    CHECK(r.rc == 2);
    CHECK_THAT(r.out, Catch::Contains("stressLineSize (100) exceeds scratchMemorySize (64)"));
  }
}

TEST_CASE("run options: stress options override the --params file (the JSON results record the result)", "[cli]") {
  cli_test::Scratch s("runopts-override");
  auto params = s.write("p.json", R"({"seed": 3, "spinBound": 5000, "iterations": 100})");
  for (const auto& exe : runners()) {
    INFO(exe);
    auto out = s.dir / "out.json";
    const bool isRun = exe.find(" run") != std::string::npos;
    auto r = exec(exe, std::string(isRun ? "--no-model " : "") + "--params " + params.string() +
                           " --seed 9 --iterations 200 --json " + out.string() + " litmus/hw/MP+weak.litmus");
    INFO(r.out);
    std::ifstream f(out);
    REQUIRE(f.good());
    auto j = nlohmann::json::parse(f);
    CHECK(j["params"]["seed"] == 9);
    CHECK(j["params"]["iterations"] == 200);
    CHECK(j["params"]["spinBound"] == 5000);
    CHECK(j["params"]["memStressPct"] == 100);
  }
}

TEST_CASE("run options: --kernel-ptx replaces one test's kernel and says so, two tests or no file are errors",
          "[cli]") {
  cli_test::Scratch s("runopts-kernel-ptx");
  auto ptx = s.write("k.ptx", "// a hand-edited kernel\n");
  for (const auto& exe : runners()) {
    INFO(exe);
    const std::string model = exe.find(" run") != std::string::npos ? "--no-model " : "";
    auto two = exec(exe, model + "--iterations 100 --kernel-ptx " + ptx.string() +
                             " litmus/hw/MP+weak.litmus litmus/hw/CoRR+rlx.litmus");
    INFO(two.out);
    CHECK(two.rc == 2);
    CHECK(two.out.find("--kernel-ptx " + ptx.string() + " replaces one test's kernel, but 2 tests were given") !=
          std::string::npos);
    auto missing = exec(exe, model + "--kernel-ptx " + (s.dir / "none.ptx").string() + " litmus/hw/MP+weak.litmus");
    INFO(missing.out);
    CHECK(missing.rc != 0);
    CHECK(missing.out.find("none.ptx") != std::string::npos);
    // One test: the log and the JSON name the replacement (the run itself needs a GPU).
    auto out = s.dir / "out.json";
    auto one = exec(exe, model + "--iterations 100 --json " + out.string() + " --kernel-ptx " + ptx.string() +
                             " litmus/hw/MP+weak.litmus");
    INFO(one.out);
    CHECK(one.out.find("% kernel replaced by " + ptx.string() + " (--kernel-ptx) %") != std::string::npos);
    std::ifstream f(out);
    REQUIRE(f.good());
    auto j = nlohmann::json::parse(f);
    REQUIRE(j["results"].size() == 1);
    CHECK(j["results"][0]["kernelPtx"] == ptx.string());
  }
}
