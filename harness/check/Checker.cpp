// Checker: a thread's checks under the hard deadline of --timeout (Checker.hpp).
#include "check/Checker.hpp"

#include <fmt/format.h>

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>

#include "smt/Engine.hpp"

namespace ptxmm::check {

namespace {

// Threads of checks that a Checker stopped waiting for and that have not finished yet.
std::atomic<size_t> gLeftRunning{0};

}  // namespace

// One check on its thread: the verdict it hands in, and whether the Checker still waits for the thread.
struct detail::CheckRun {
  std::mutex mu;
  std::condition_variable cv;
  std::optional<Verdict> verdict;
  bool finished = false;  // the thread has freed everything of the check
  bool left = false;      // counted in gLeftRunning

  // The Checker stops waiting for the thread (it will not join it).
  void leave() {
    std::lock_guard<std::mutex> lock(mu);
    if (!finished) {
      left = true;
      ++gLeftRunning;
    }
  }
};

namespace {

using Run = detail::CheckRun;

// What the check's thread owns: its copies of the inputs, and a share of the workspace.
struct Job {
  std::shared_ptr<smt::Workspace> ws;
  litmus::Test test;
  cat::Model model;
  std::string modelName;
  CheckOptions options;
};

void runJob(Run& run, std::unique_ptr<Job> job) {
  std::shared_ptr<void> later;  // the solver, freed once the verdict is handed in
  job->options.releaseLater = &later;
  Verdict v;
  try {
    v = checkTest(job->test, job->model, job->modelName, job->options, job->ws.get());
  } catch (const std::exception& e) {
    v = undecidedVerdict(job->test, job->modelName, job->options.engine, Status::Error,
                         std::string("internal error: ") + e.what());
    v.internalError = true;
  }
  {
    std::lock_guard<std::mutex> lock(run.mu);
    run.verdict = std::move(v);
  }
  run.cv.notify_all();
  later.reset();
  job.reset();  // the inputs, and the workspace if the Checker has let go of it
  std::lock_guard<std::mutex> lock(run.mu);
  run.finished = true;
  if (run.left) --gLeftRunning;
}

}  // namespace

std::chrono::milliseconds deadlineGrace(unsigned timeoutMs) { return std::chrono::milliseconds(50 + timeoutMs / 20); }

std::string abandonedMessage(const std::string& file, unsigned timeoutMs, std::chrono::milliseconds grace) {
  return fmt::format(
      "{}: the test's time budget of {} ms is spent, and its check did not stop within {} ms after that: "
      "abandoned (its result is dropped)",
      file, timeoutMs, grace.count());
}

size_t checksLeftRunning() { return gLeftRunning.load(); }

Checker::Checker() = default;

Checker::~Checker() {
  // Under a deadline the last check may still be freeing its solver (its thread shares the workspace).
  if (last_.joinable()) {
    lastRun_->leave();
    last_.detach();
  }
}

Verdict Checker::check(const litmus::Test& test, const cat::Model& model, const std::string& modelName,
                       const CheckOptions& options) {
  if (last_.joinable()) last_.join();  // the previous check is freeing its encoding in the workspace
  if (!ws_ && options.engine != Engine::Enum) ws_ = std::make_shared<smt::Workspace>();
  if (options.timeoutMs == 0) return checkTest(test, model, modelName, options, ws_.get());

  const auto start = std::chrono::steady_clock::now();
  auto run = std::make_shared<Run>();
  auto job = std::make_unique<Job>(Job{ws_, test, model, modelName, options});
  std::thread t([run, job = std::move(job)]() mutable { runJob(*run, std::move(job)); });
  const auto grace = deadlineGrace(options.timeoutMs);
  {
    std::unique_lock<std::mutex> lock(run->mu);
    if (run->cv.wait_until(lock, start + std::chrono::milliseconds(options.timeoutMs) + grace,
                           [&] { return run->verdict.has_value(); })) {
      Verdict v = std::move(*run->verdict);
      lock.unlock();
      last_ = std::move(t);
      lastRun_ = std::move(run);
      return v;
    }
  }
  run->leave();
  t.detach();
  ws_.reset();  // the abandoned check keeps its workspace; the next check gets a new one
  Verdict v = undecidedVerdict(test, modelName, options.engine, Status::Timeout,
                               abandonedMessage(test.file, options.timeoutMs, grace));
  v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return v;
}

}  // namespace ptxmm::check
