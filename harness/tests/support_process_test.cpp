// Running external programs without a shell: argv passed verbatim, stdin fed, stdout and stderr apart,
// exit statuses and signals, missing programs, timeouts that kill the process group, large output on
// both pipes.
#include <signal.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/Process.hpp"

using namespace ptxmm;
using namespace std::chrono_literals;

namespace {

/// A limit no healthy test comes near: a deadlock fails the test instead of hanging ctest.
ProcessOptions guarded(std::optional<std::string> input = std::nullopt) {
  ProcessOptions o;
  o.input = std::move(input);
  o.timeout = 60s;
  return o;
}

}  // namespace

TEST_CASE("runProcess captures the output of a program found on PATH", "[support][process]") {
  auto r = runProcess({"echo", "hello world"}, guarded());
  CHECK(r.ok());
  CHECK(r.exitCode == 0);
  CHECK(r.signal == 0);
  CHECK_FALSE(r.timedOut);
  CHECK(r.spawnError.empty());
  CHECK(r.out == "hello world\n");
  CHECK(r.err.empty());
  CHECK(r.error().empty());
}

TEST_CASE("runProcess feeds stdin and closes it; without input stdin is empty", "[support][process]") {
  auto r = runProcess({"cat"}, guarded(std::string("line one\nline two")));
  CHECK(r.ok());
  CHECK(r.out == "line one\nline two");

  auto empty = runProcess({"cat"}, guarded(std::string()));
  CHECK(empty.ok());
  CHECK(empty.out.empty());

  auto none = runProcess({"cat"}, guarded());  // /dev/null, never the terminal
  CHECK(none.ok());
  CHECK_FALSE(none.timedOut);
  CHECK(none.out.empty());
}

TEST_CASE("runProcess keeps stdout and stderr apart", "[support][process]") {
  auto r = runProcess({"sh", "-c", "echo to-out; echo to-err >&2; echo more-out"}, guarded());
  CHECK(r.ok());
  CHECK(r.out == "to-out\nmore-out\n");
  CHECK(r.err == "to-err\n");
}

TEST_CASE("runProcess reports a non-zero exit with the program's stderr", "[support][process]") {
  auto r = runProcess({"sh", "-c", "echo partial; echo 'bad input at line 3' >&2; exit 3"}, guarded());
  CHECK_FALSE(r.ok());
  CHECK(r.exitCode == 3);
  CHECK(r.signal == 0);
  CHECK(r.out == "partial\n");
  CHECK(r.error() == "sh exited with status 3: bad input at line 3");

  // Tools that print their errors on stdout: the message shows stdout when stderr is empty.
  auto quiet = runProcess({"sh", "-c", "echo 'error on stdout'; exit 1"}, guarded());
  CHECK(quiet.error() == "sh exited with status 1: error on stdout");
}

TEST_CASE("runProcess reports a program killed by a signal", "[support][process]") {
  auto r = runProcess({"sh", "-c", "kill -SEGV $$"}, guarded());
  CHECK_FALSE(r.ok());
  CHECK(r.signal == SIGSEGV);
  CHECK(r.exitCode == -1);
  CHECK(r.error() == "sh was killed by signal " + std::to_string(SIGSEGV) + " (SIGSEGV)");
}

TEST_CASE("runProcess and findProgram on a program that is not installed", "[support][process]") {
  auto r = runProcess({"ptxmm-no-such-program", "--version"}, guarded());
  CHECK_FALSE(r.ok());
  CHECK(r.spawnError == "not found on $PATH");
  CHECK(r.error() == "cannot run ptxmm-no-such-program: not found on $PATH");
  CHECK(r.out.empty());
  CHECK(r.err.empty());
  CHECK_FALSE(findProgram("ptxmm-no-such-program"));

  auto path = runProcess({"/nonexistent/dir/tool"}, guarded());
  CHECK(path.error() == "cannot run /nonexistent/dir/tool: No such file or directory");
  CHECK_FALSE(findProgram("/nonexistent/dir/tool"));

  CHECK(runProcess({}).spawnError == "no program given");
}

TEST_CASE("findProgram looks a name up on PATH like the shell's command -v", "[support][process]") {
  auto sh = findProgram("sh");
  REQUIRE(sh);
  CHECK(sh->size() > 3);
  CHECK(sh->substr(sh->size() - 3) == "/sh");
  CHECK(findProgram(*sh) == sh);  // a path is taken as it is
  CHECK_FALSE(findProgram(""));
  CHECK_FALSE(findProgram("/"));  // a directory is not a program
  auto r = runProcess({*sh, "-c", "exit 0"}, guarded());
  CHECK(r.ok());
}

TEST_CASE("runProcess kills a program that runs past its timeout, children included", "[support][process]") {
  ProcessOptions o;
  o.timeout = 300ms;
  auto start = std::chrono::steady_clock::now();
  auto r = runProcess({"sleep", "20"}, o);
  auto took = std::chrono::steady_clock::now() - start;
  CHECK(r.timedOut);
  CHECK_FALSE(r.ok());
  CHECK(r.signal == SIGKILL);
  CHECK(took >= 300ms);
  CHECK(took < 10s);
  CHECK(r.error() == "sleep timed out after 0.3 s");

  // A grandchild that keeps the output pipes open must not keep us waiting: the whole process group dies.
  start = std::chrono::steady_clock::now();
  auto g = runProcess({"sh", "-c", "sleep 20 & echo started; wait"}, o);
  took = std::chrono::steady_clock::now() - start;
  CHECK(g.timedOut);
  CHECK(g.out == "started\n");
  CHECK(took < 10s);

  // A program that closes its output and keeps running is killed at the deadline too.
  start = std::chrono::steady_clock::now();
  auto c = runProcess({"sh", "-c", "exec >/dev/null 2>&1; sleep 20"}, o);
  took = std::chrono::steady_clock::now() - start;
  CHECK(c.timedOut);
  CHECK(took < 10s);

  // Finishing in time is not a timeout.
  o.timeout = 20s;
  auto quick = runProcess({"sh", "-c", "echo fast"}, o);
  CHECK(quick.ok());
  CHECK_FALSE(quick.timedOut);
}

TEST_CASE("runProcess reads more than a pipe holds on both streams without deadlock", "[support][process]") {
  const size_t big = 3u << 20;  // 3 MiB each, far beyond a 64 KiB pipe buffer
  // stdout first, then stderr: reading stdout to its end before stderr would block both sides.
  auto r = runProcess({"sh", "-c", "head -c 3145728 /dev/zero; head -c 3145728 /dev/zero >&2"}, guarded());
  CHECK(r.ok());
  CHECK_FALSE(r.timedOut);
  CHECK(r.out.size() == big);
  CHECK(r.err.size() == big);
  // And the other way round.
  auto s = runProcess({"sh", "-c", "head -c 3145728 /dev/zero >&2; head -c 3145728 /dev/zero"}, guarded());
  CHECK(s.ok());
  CHECK(s.out.size() == big);
  CHECK(s.err.size() == big);

  // A large stdin while stdout fills: feeding and reading go on together.
  std::string input;
  for (size_t i = 0; input.size() < big; ++i) input += std::to_string(i) + "\n";
  auto c = runProcess({"cat"}, guarded(input));
  CHECK(c.ok());
  CHECK(c.out == input);
  auto e = runProcess({"sh", "-c", "cat >&2"}, guarded(input));
  CHECK(e.ok());
  CHECK(e.err == input);
}

TEST_CASE("runProcess survives a program that does not read its stdin", "[support][process]") {
  // Writing to a closed pipe raises SIGPIPE, which must not kill the caller.
  auto r = runProcess({"true"}, guarded(std::string(4u << 20, 'x')));
  CHECK(r.ok());
  auto h = runProcess({"head", "-c", "5"}, guarded(std::string(4u << 20, 'y')));
  CHECK(h.ok());
  CHECK(h.out == "yyyyy");
}

TEST_CASE("runProcess passes arguments verbatim, with no shell in between", "[support][process]") {
  std::vector<std::string> words = {"with space", "it's", "\"double\"", "$HOME", "`id`", "a;b|c&d", "*", "", "x\ny"};
  std::vector<std::string> argv = {"printf", "[%s]\\n"};
  argv.insert(argv.end(), words.begin(), words.end());
  auto r = runProcess(argv, guarded());
  CHECK(r.ok());
  std::string want;
  for (const auto& w : words) want += "[" + w + "]\n";
  CHECK(r.out == want);
}

TEST_CASE("commandLine quotes words for display", "[support][process]") {
  CHECK(commandLine({"ptxas", "-arch=sm_90a", "-O3", "/tmp/a b.ptx", "-o", "it's"}) ==
        "ptxas -arch=sm_90a -O3 '/tmp/a b.ptx' -o 'it'\\''s'");
  CHECK(commandLine({"dot", ""}) == "dot ''");
}

TEST_CASE("runProcess can be called from several threads at once", "[support][process]") {
  std::vector<ProcessResult> results(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < results.size(); ++i)
    threads.emplace_back([&results, i] {
      results[i] = runProcess({"sh", "-c", "echo $0; echo err$0 >&2", std::to_string(i)}, guarded());
    });
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < results.size(); ++i) {
    CHECK(results[i].ok());
    CHECK(results[i].out == std::to_string(i) + "\n");
    CHECK(results[i].err == "err" + std::to_string(i) + "\n");
  }
}
