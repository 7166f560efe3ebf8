// One thread's sequence of checks (ptxmm fences, its repair search, --axiom-coverage, check-kernel) under the
// hard deadline of --timeout, as the suite has it: a check that has not returned a grace after its time
// budget is reported as a timeout and left to finish on a thread of its own.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <thread>

#include "check/Check.hpp"

namespace ptxmm::check {

namespace detail {
struct CheckRun;  // one check on its thread (Checker.cpp)
}

/// How long after its time budget (ms) a check that has not returned is abandoned: 50 ms + 5 %. The engines
/// look at the deadline often, but Z3 taking in one large assertion does not look at its interrupt (up to
/// seconds on the largest encodings).
[[nodiscard]] std::chrono::milliseconds deadlineGrace(unsigned timeoutMs);

/// The message of a check abandoned at its deadline (`file`: the test's).
[[nodiscard]] std::string abandonedMessage(const std::string& file, unsigned timeoutMs,
                                           std::chrono::milliseconds grace);

/// How many checks of this process a Checker stopped waiting for and that are still running: abandoned at
/// their deadline (they run on until they next look at their budget), or freeing their solver and workspace
/// when the Checker was destroyed. Their threads own what they use; a command that left one running ends
/// with std::_Exit once its output is flushed, rather than wait for it or tear down what it uses.
[[nodiscard]] size_t checksLeftRunning();

/// Checks tests one after another with one smt workspace (smt::Workspace: a z3 context and its solver, made
/// when a check first needs the smt engine). Without a time budget (CheckOptions::timeoutMs 0) a check runs on
/// the calling thread. With one, it runs on a thread of its own that the caller waits for until the budget and
/// deadlineGrace() are spent; then the verdict is a timeout whose message says the check was abandoned, the
/// check goes on with its own copies of the test, model and options and its workspace until it next looks at
/// its budget, and its result is dropped. The next check gets a new workspace. A check that returns in time
/// frees its solver after handing in the verdict (CheckOptions::releaseLater), while the caller goes on; the
/// last one is left to free it, and the workspace, when the Checker is destroyed. Not thread-safe: one Checker
/// per thread.
class Checker {
 public:
  Checker();
  ~Checker();
  Checker(const Checker&) = delete;
  Checker& operator=(const Checker&) = delete;

  /// checkTest with this checker's workspace, under the deadline above.
  [[nodiscard]] Verdict check(const litmus::Test& test, const cat::Model& model, const std::string& modelName,
                              const CheckOptions& options);

 private:
  std::shared_ptr<smt::Workspace> ws_;
  std::thread last_;  // the last check's thread, freeing its solver: joined before the workspace is used again
  std::shared_ptr<detail::CheckRun> lastRun_;
};

}  // namespace ptxmm::check
