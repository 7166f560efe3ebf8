// What `ptxmm check` prints for tests it cannot decide (errors, timeouts, size caps, refused input),
// for runs without tests, and how it reads durations: run as a user runs it, stdout and stderr apart.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

struct Run {
  int rc = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A scratch directory per test case, removed at the end.
struct Scratch {
  fs::path dir;
  explicit Scratch(const std::string& name)
      : dir(fs::temp_directory_path() / ("ptxmm-cli-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
  fs::path write(const std::string& name, const std::string& text) const {
    fs::path p = dir / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p;
  }
  Run ptxmm(const std::string& args) const {
    Run r;
    std::string cmd =
        std::string(PTXMM_EXE) + " " + args + " >" + (dir / "stdout").string() + " 2>" + (dir / "stderr").string();
    int status = std::system(cmd.c_str());
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(dir / "stdout");
    r.err = slurp(dir / "stderr");
    return r;
  }
};

const char* kCoW3x2 = R"(PTX CoW3x2
{ x = 0 }
 P0@cta 0,gpu 0       | P1@cta 1,gpu 0       | P2@cta 2,gpu 0       ;
 st.relaxed.gpu x, 1  | st.relaxed.gpu x, 3  | st.relaxed.gpu x, 5  ;
 st.relaxed.gpu x, 2  | st.relaxed.gpu x, 4  | st.relaxed.gpu x, 6  ;
 ld.relaxed.gpu r0, x | ld.relaxed.gpu r0, x | ld.relaxed.gpu r0, x ;
exists (0:r0 == 1 /\ 1:r0 == 3 /\ 2:r0 == 5)
)";

const char* kMP = R"(PTX MP
{ x = 0; y = 0 }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, y ;
 st.relaxed.gpu y, 1 | ld.relaxed.gpu r1, x ;
exists (1:r0 == 1 /\ 1:r1 == 0)
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
