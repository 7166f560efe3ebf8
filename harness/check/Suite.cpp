// Parallel suite runner with ordered output and expectation comparison.
#include "check/Suite.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>
#include <thread>

#include "cat/Model.hpp"
#include "check/Checker.hpp"
#include "check/CiReport.hpp"
#include "check/Dot.hpp"
#include "litmus/Parser.hpp"
#include "smt/Engine.hpp"
#include "support/Budget.hpp"
#include "support/Parallel.hpp"

namespace ptxmm::check {

namespace {

std::string joinFlags(const std::set<std::string>& s) {
  std::string r;
  for (const auto& f : s) r += (r.empty() ? "+" : " +") + f;
  return r.empty() ? "no flags" : r;
}

// One test's outcome in the suite.
struct TestOutcome {
  std::string text;  // verdict text for stdout
  std::string diag;  // lines for stderr
  enum Kind { Pass, Fail, Unchecked } kind = Pass;
  Status status = Status::Ok;  // of the check (Error also for unreadable files and bad .expect)
  bool internal = false;
  bool done = false;
  TestRecord record;                   // for --junit / --sarif
  std::optional<Verdict> bless;        // --bless: the decided verdict to write into the .expect file
  std::optional<LivenessReport> live;  // decided tests: whether they may hang
};

}  // namespace

std::set<std::string> raisableFlags(const cat::Model& model) {
  std::set<std::string> out = cat::flagNames(model);
  out.insert({"undefined", "deadlock", "cut"});
  return out;
}

std::optional<outcome::Expectation> readExpectation(const std::filesystem::path& litmusPath,
                                                    const std::string& modelName,
                                                    const std::set<std::string>* knownFlags) {
  // The format is owned by outcome/Expectations.hpp (one parser for the suite and its tools).
  std::string path = outcome::expectationPathFor(litmusPath.string());
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) return std::nullopt;
  if (!std::filesystem::is_regular_file(path, ec))
    throw DiagnosticError(SourceLoc{path, 0, 0}, ec ? "cannot read the expectation file: " + ec.message()
                                                    : "the expectation file is not a regular file");
  std::vector<outcome::Expectation> all = outcome::parseExpectationFile(path);
  for (const auto& line : all) {
    if (line.model == modelName) continue;
    try {
      (void)cat::findModel(line.model);
    } catch (const DiagnosticError&) {
      throw DiagnosticError(line.src, fmt::format("unknown model '{}' (neither the model checked, '{}', nor a "
                                                  "shipped model)",
                                                  line.model, modelName));
    }
  }
  const outcome::Expectation* e = outcome::findExpectation(all, modelName);
  if (!e) return std::nullopt;
  if (knownFlags)
    for (const auto& f : e->flags)
      if (!knownFlags->count(f)) {
        std::vector<std::string> names(knownFlags->begin(), knownFlags->end());
        std::string hint = closestMatch(f, names);
        std::string all;
        for (const auto& n : names) all += (all.empty() ? "+" : ", +") + n;
        throw DiagnosticError(e->src, fmt::format("unknown flag '+{}' for model '{}'{} (it can raise {})", f, modelName,
                                                  hint.empty() ? "" : ": did you mean '+" + hint + "'?", all));
      }
  return *e;
}

BlessResult blessExpectation(const std::filesystem::path& litmusPath, const std::string& modelName, const Verdict& v) {
  BlessResult r;
  r.expectPath = outcome::expectationPathFor(litmusPath.string());
  std::error_code ec;
  std::optional<std::string> text;
  if (std::filesystem::exists(std::filesystem::symlink_status(r.expectPath, ec)))
    text = outcome::readExpectationText(r.expectPath);
  outcome::Blessed b = outcome::blessExpectations(text, r.expectPath, modelName, v.observation,
                                                  std::vector<std::string>(v.flags.begin(), v.flags.end()));
  r.action = b.action;
  r.was = b.was;
  if (b.action != outcome::Blessed::Unchanged) outcome::writeExpectationFile(r.expectPath, b.text);
  return r;
}

namespace {

// Depth-first walk of one directory for collectTests (no exception escapes: every problem is an entry).
void walkTests(const std::filesystem::path& dir, std::vector<std::filesystem::path>& out,
               std::vector<SkippedEntry>* skipped) {
  namespace fs = std::filesystem;
  auto skip = [&](const fs::path& p, const std::string& why, bool error) {
    if (skipped) skipped->push_back({p, why, error});
  };
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return skip(dir, "cannot read the directory: " + ec.message(), true);
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return skip(dir, "cannot read the directory: " + ec.message(), true);
    const fs::path& p = it->path();
    const bool litmus = p.extension() == ".litmus";
    std::error_code e2;
    fs::file_status own = it->symlink_status(e2);
    if (fs::is_symlink(own)) {
      fs::file_status target = fs::status(p, e2);
      if (litmus) {
        out.push_back(p);  // fails when checked, with the reason
      } else if (e2) {
        skip(p, "symbolic link that cannot be followed: " + e2.message(), false);
      } else if (fs::is_directory(target)) {
        skip(p, "symbolic link to a directory: not followed", false);
      }
      continue;
    }
    if (fs::is_directory(own))
      walkTests(p, out, skipped);
    else if (litmus)
      out.push_back(p);
  }
}

}  // namespace

std::vector<std::filesystem::path> collectTests(const std::vector<std::string>& paths,
                                                std::vector<SkippedEntry>* skipped) {
  std::vector<std::filesystem::path> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec))
      walkTests(p, out, skipped);
    else
      out.emplace_back(p);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string summaryLine(const SuiteSummary& s) {
  std::string r = fmt::format("{} passed, {} failed", s.passed, s.failed);
  std::string why;
  auto add = [&](int n, const char* one, const char* many) {
    if (n) why += fmt::format("{}{} {}", why.empty() ? "" : ", ", n, n == 1 ? one : many);
  };
  add(s.errors, "error", "errors");
  add(s.timeouts, "timeout", "timeouts");
  add(s.memory, "out of memory", "out of memory");
  add(s.unknown, "unknown", "unknown");
  if (!why.empty()) r += " (" + why + ")";
  if (s.unchecked) r += fmt::format(", {} without expectation", s.unchecked);
  if (s.hangs) r += fmt::format(", {} may hang ({} deadlock, {} livelock)", s.hangs, s.deadlocks, s.livelocks);
  if (s.bless)
    r += fmt::format(", {} blessed ({} created, {} updated, {} unchanged)",
                     s.blessCreated + s.blessUpdated + s.blessUnchanged, s.blessCreated, s.blessUpdated,
                     s.blessUnchanged);
  return r;
}

std::string summaryJson(const SuiteSummary& s) {
  nlohmann::json j = {{"passed", s.passed},
                      {"failed", s.failed},
                      {"errors", s.errors},
                      {"timeouts", s.timeouts},
                      {"memory", s.memory},
                      {"unknown", s.unknown},
                      {"withoutExpectation", s.unchecked},
                      {"internalErrors", s.internalErrors},
                      {"hangs", s.hangs},
                      {"deadlocks", s.deadlocks},
                      {"livelocks", s.livelocks},
                      {"seconds", s.seconds}};
  if (s.bless)
    j["blessed"] = {{"created", s.blessCreated}, {"updated", s.blessUpdated}, {"unchanged", s.blessUnchanged}};
  return nlohmann::json{{"summary", j}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

// Per test, what the printing thread knows of its check while a worker runs it.
struct TestProgress {
  std::optional<std::chrono::steady_clock::time_point> started;  // when a worker took it
  std::optional<Verdict> undecided;  // once it is parsed: its verdict should it be abandoned
  bool abandoned = false;            // reported as a timeout before its check returned: the result is dropped
};

// What the workers of one suite share with the thread that prints the results. It outlives runSuite
// while a worker is still busy (SuiteSummary::workers); destroying it waits for the workers.
struct SuiteWork {
  SuiteOptions options;
  cat::Model model;
  std::string modelName;
  std::set<std::string> knownFlags;
  std::vector<std::filesystem::path> files;
  std::vector<size_t> order;           // in which the workers take the tests
  std::vector<TestOutcome> results;    // by file
  std::vector<TestProgress> progress;  // by file
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::unique_ptr<smt::Workspace>> workspaces;  // one per worker, made when its first test needs one
  std::thread checking;                                     // runs the workers

  SuiteWork() = default;
  SuiteWork(const SuiteWork&) = delete;
  SuiteWork& operator=(const SuiteWork&) = delete;
  ~SuiteWork() {
    if (checking.joinable()) checking.join();
  }
};

// Fills in `o` from verdict `v` of `file`: its herd log or JSON line, its record for the reports and, when
// the test was not decided, why it fails. Returns whether it was decided.
bool describeVerdict(const Verdict& v, const std::filesystem::path& file, const SuiteOptions& options, TestOutcome& o) {
  o.record.name = v.testName;
  o.record.seconds = v.seconds;
  o.record.flags = v.flags;
  if (v.status == Status::Ok) o.record.findings = findings(v);
  o.record.conditionLine = conditionLineOf(file.string());
  std::ostringstream text;
  if (options.json)
    text << verdictJson(v) << "\n";
  else {
    printHerdLog(v, text, options.printTime, options.liveness);
    text << "\n";
  }
  o.text = text.str();
  if (!options.junitPath.empty() && v.status == Status::Ok) {
    std::ostringstream log;
    printHerdLog(v, log, options.printTime);
    o.record.log = log.str();
  }
  if (v.status != Status::Ok) {
    o.record.message = v.message;
    o.record.line = messageLine(v.message, file.string());
    o.kind = TestOutcome::Fail;
    o.status = v.status;
    o.internal = v.internalError;
    if (v.status == Status::Error)
      o.diag = fmt::format("FAIL {}: {}\n", file.string(), v.message);
    else
      o.diag = fmt::format("FAIL {}: {}: {}\n", file.string(), statusName(v.status), v.message);
    return false;
  }
  return true;
}

// Parses and checks test i of the suite on a worker, and compares its verdict with the expectation.
TestOutcome checkOne(SuiteWork& w, size_t i, smt::Workspace* ws, std::shared_ptr<void>* releaseLater) {
  const SuiteOptions& options = w.options;
  const cat::Model& model = w.model;
  const std::string& modelName = w.modelName;
  const std::set<std::string>& knownFlags = w.knownFlags;
  const std::filesystem::path& file = w.files[i];
  TestOutcome o;
  o.record.file = file.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    namespace fs = std::filesystem;
    std::error_code e2;
    const bool link = fs::is_symlink(fs::symlink_status(file, e2));
    const fs::file_status target = fs::status(file, e2);
    const bool dangling = link && (e2 == std::errc::no_such_file_or_directory || (!e2 && !fs::exists(target)));
    std::string why = dangling                       ? "dangling symbolic link"
                      : link && e2                   ? "symbolic link that cannot be followed: " + e2.message()
                      : !fs::exists(target)          ? "no such litmus file"
                      : !fs::is_regular_file(target) ? "not a regular file"
                                                     : "cannot open the litmus file: " + ec.message();
    o.kind = TestOutcome::Fail;
    o.status = Status::Error;
    o.diag = fmt::format("FAIL {}: error: {}\n", file.string(), why);
    o.record.message = "error: " + why;
    return o;
  }
  // One budget for the test's parse and check (support/Budget.hpp).
  Budget budget(options.check.timeoutMs / 1000.0, options.check.memoryBytes);
  BudgetScope scope(budget);
  litmus::ParseResult parsed;
  try {
    parsed = litmus::tryParseFile(file.string());
  } catch (const BudgetExceeded& e) {
    o.kind = TestOutcome::Fail;
    o.status = outcome::budgetStatus(e);
    o.record.message = e.what();
    o.diag = fmt::format("FAIL {}: {}: {}\n", file.string(), statusName(o.status), e.what());
    return o;
  }
  if (!parsed.ok()) {
    o.kind = TestOutcome::Fail;
    o.status = Status::Error;
    o.diag = fmt::format("FAIL {}: parse error\n", file.string());
    for (const auto& d : parsed.diagnostics) o.diag += "  " + d.str() + "\n";
    o.record.message = "parse error";
    for (const auto& d : parsed.diagnostics) o.record.message += "\n" + d.str();
    if (!parsed.diagnostics.empty()) o.record.line = parsed.diagnostics.front().loc.line;
    return o;
  }
  for (const auto& warning : parsed.test->warnings) o.diag += warning.str() + "\n";
  if (options.check.timeoutMs > 0) {
    // What the suite reports if the check does not return in time (abandonedOutcome).
    Verdict stub = undecidedVerdict(*parsed.test, modelName, options.check.engine, Status::Timeout, "");
    std::lock_guard<std::mutex> lock(w.mu);
    w.progress[i].undecided = std::move(stub);
  }
  CheckOptions co = options.check;
  co.releaseLater = releaseLater;
  // The workers no other test needs (runSuite: one per test at most) search this one's path choices.
  co.enumThreads =
      std::max(1, workerCount(SIZE_MAX, options.jobs) / static_cast<int>(std::max<size_t>(1, w.files.size())));
  Verdict v = checkTest(*parsed.test, model, modelName, co, ws);
  if (!describeVerdict(v, file, options, o)) return o;
  if (!v.note.empty()) o.diag += fmt::format("NOTE {}: {}\n", file.string(), v.note);
  o.live = liveness(v);
  if (!options.dotDir.empty()) {
    try {
      writeDotFiles(v, options.dotDir);
    } catch (const std::exception& e) {
      o.diag += fmt::format("warning: {}: {}\n", file.string(), e.what());
    }
  }
  try {
    // A bad .expect is an error even with --bless: the test is not blessed, the file stays as it is.
    auto e = readExpectation(file, modelName, &knownFlags);
    if (options.bless) {
      o.bless.emplace();  // only what the .expect line says, not the witnesses
      o.bless->observation = v.observation;
      o.bless->flags = v.flags;
    } else if (!e) {
      o.kind = TestOutcome::Unchecked;
      o.diag += fmt::format("NOEXPECT {}: no expectation for model '{}': verdict {}{} not compared\n", file.string(),
                            modelName, toString(v.observation), v.flags.empty() ? "" : " " + joinFlags(v.flags));
    } else {
      o.record.expectedFlags = std::set<std::string>(e->flags.begin(), e->flags.end());
      o.record.expectReason = e->reason;
      if (outcome::isTodoReason(e->reason))
        o.diag += fmt::format("{}:{}: warning: reason not written yet\n", e->src.file, e->src.line);
      if (std::string m = outcome::expectationMismatch(*e, v.observation, v.flags); !m.empty()) {
        o.kind = TestOutcome::Fail;
        o.diag += fmt::format("FAIL {}: {}\n", file.string(), m);
        o.record.message = m;
      }
    }
    // --liveness: a hang the expectation does not name fails the test.
    auto expects = [&](const char* flag) {
      return std::find(e->flags.begin(), e->flags.end(), flag) != e->flags.end();
    };
    const bool named = e && ((!o.live->deadlock || expects("deadlock")) && (!o.live->livelock || expects("livelock")));
    if (options.liveness && !options.bless && o.live->hangs() && !named) {
      o.kind = TestOutcome::Fail;
      const std::string m = "may hang: " + livenessLine(*o.live);
      o.diag += fmt::format("FAIL {}: {}\n", file.string(), m);
      if (o.record.message.empty()) o.record.message = m;
    }
  } catch (const DiagnosticError& e) {
    o.kind = TestOutcome::Fail;
    o.status = Status::Error;
    o.diag += fmt::format("FAIL {}: {}\n", file.string(), e.what());
    o.record.message = e.what();
    o.record.line = 0;
  }
  return o;
}

// The outcome of test i when its check has not returned `grace` after the test's deadline: a timeout, in
// every output format, while the check goes on until it next looks at its budget (Z3 taking in a large
// encoding does not look at its interrupt) and its result is dropped. The caller holds w.mu.
TestOutcome abandonedOutcome(SuiteWork& w, size_t i, std::chrono::milliseconds grace) {
  const std::filesystem::path& file = w.files[i];
  Verdict v;
  if (w.progress[i].undecided) {
    v = *w.progress[i].undecided;
  } else {  // still being parsed
    v.testName = file.stem().string();
    v.file = file.string();
    v.model = w.modelName;
    v.engine = toString(w.options.check.engine);
    v.status = Status::Timeout;
  }
  v.message = abandonedMessage(file.string(), w.options.check.timeoutMs, grace);
  v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - *w.progress[i].started).count();
  TestOutcome o;
  o.record.file = file.string();
  (void)describeVerdict(v, file, w.options, o);
  return o;
}

}  // namespace

SuiteSummary runSuite(const std::vector<std::string>& paths, const SuiteOptions& options, std::ostream& out,
                      std::ostream& err) {
  auto t0 = std::chrono::steady_clock::now();
  auto work = std::make_shared<SuiteWork>();
  SuiteWork& w = *work;
  w.options = options;
  w.model = cat::loadModel(options.modelPath);
  w.modelName = options.modelPath.stem().string();
  w.knownFlags = raisableFlags(w.model);
  const std::string& modelName = w.modelName;
  std::vector<SkippedEntry> skipped;
  w.files = collectTests(paths, &skipped);
  const std::vector<std::filesystem::path>& files = w.files;
  int unreadable = 0;
  for (const auto& s : skipped) {
    err << fmt::format("{} {}: {}\n", s.error ? "FAIL" : "SKIP", s.path.string(), s.why);
    unreadable += s.error ? 1 : 0;
  }
  if (files.empty()) {
    std::string where;
    for (const auto& p : paths) where += (where.empty() ? "'" : ", '") + p + "'";
    err << fmt::format("error: no litmus tests (*.litmus) found in {}\n", where);
    SuiteSummary sum;
    sum.noTests = true;
    return sum;
  }
  w.results.resize(files.size());
  w.progress.resize(files.size());

  // Larger files first (a cheap proxy for the cost of a test), so that the longest tests do not end up
  // alone at the end of the run; results are still printed in file order.
  w.order.resize(files.size());
  std::vector<uintmax_t> sizes(files.size(), 0);
  for (size_t i = 0; i < files.size(); ++i) {
    w.order[i] = i;
    std::error_code ec;
    sizes[i] = std::filesystem::file_size(files[i], ec);
    if (ec) sizes[i] = 0;
  }
  std::stable_sort(w.order.begin(), w.order.end(), [&](size_t a, size_t b) { return sizes[a] > sizes[b]; });

  // Workers check the tests (each with its own smt workspace, a z3 context and the solver its tests take turns
  // on, made when its first test needs the smt engine: making one costs more than checking a small test) while
  // this thread prints the results in file order as they become ready. A worker frees a test's encoding after
  // handing in its result.
  const int workers = workerCount(files.size(), options.jobs);
  w.workspaces.resize(static_cast<size_t>(workers));
  w.checking = std::thread([wp = work.get(), workers] {
    parallelFor(wp->files.size(), workers, [wp](size_t k, int wi) {
      SuiteWork& w = *wp;
      auto& ws = w.workspaces[static_cast<size_t>(wi)];
      if (!ws && w.options.check.engine != Engine::Enum) ws = std::make_unique<smt::Workspace>();
      const size_t i = w.order[k];
      {
        std::lock_guard<std::mutex> lock(w.mu);
        w.progress[i].started = std::chrono::steady_clock::now();
      }
      w.cv.notify_all();  // the printing thread may be waiting for this test: its deadline starts now
      std::shared_ptr<void> later;
      TestOutcome o;
      try {
        o = checkOne(w, i, ws.get(), &later);
      } catch (const std::exception& e) {
        o.kind = TestOutcome::Fail;
        o.status = Status::Error;
        o.internal = true;
        o.diag = fmt::format("FAIL {}: internal error: {}\n", w.files[i].string(), e.what());
        o.record.file = w.files[i].string();
        o.record.message = std::string("internal error: ") + e.what();
      }
      o.done = true;
      {
        std::lock_guard<std::mutex> lock(w.mu);
        if (!w.progress[i].abandoned) w.results[i] = std::move(o);
      }
      w.cv.notify_all();
      later.reset();
    });
  });

  // A test whose check has not returned this long after it started is reported as a timeout without
  // waiting for it (abandonedOutcome): the engines look at the deadline often, but Z3 taking in one large
  // assertion does not look at its interrupt (up to seconds on the largest encodings).
  std::optional<std::chrono::steady_clock::duration> hardLimit;
  const auto grace = deadlineGrace(options.check.timeoutMs);
  if (options.check.timeoutMs > 0) hardLimit = std::chrono::milliseconds(options.check.timeoutMs) + grace;

  SuiteSummary sum;
  sum.bless = options.bless;
  sum.failed = sum.errors = unreadable;  // directories whose tests could not be listed
  std::vector<TestRecord> records;
  for (size_t i = 0; i < files.size(); ++i) {
    TestOutcome o;
    {
      std::unique_lock<std::mutex> lock(w.mu);
      // On a terminal, redraw the progress line (tests done, the test waited for, elapsed time) about
      // twice a second while a long test runs.
      while (!w.results[i].done) {
        const auto now = std::chrono::steady_clock::now();
        auto wake = now + std::chrono::milliseconds(500);
        if (hardLimit && w.progress[i].started) {
          const auto limit = *w.progress[i].started + *hardLimit;
          if (now >= limit) {
            w.progress[i].abandoned = true;
            w.results[i] = abandonedOutcome(w, i, grace);
            break;
          }
          wake = std::min(wake, limit);
        }
        if (w.cv.wait_until(lock, wake, [&] { return w.results[i].done; })) break;
        if (options.progress && std::chrono::steady_clock::now() >= now + std::chrono::milliseconds(500)) {
          double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          err << fmt::format("\r\033[K[{}/{} done, {} failed, {:.0f} s] checking {}", i, files.size(), sum.failed,
                             elapsed, files[i].string())
              << std::flush;
        }
      }
      o = std::move(w.results[i]);
    }
    if (options.progress) err << "\r\033[K";
    // Blessing is done here, in file order, so that no two workers write one file.
    if (o.bless) {
      try {
        BlessResult b = blessExpectation(files[i], modelName, *o.bless);
        o.record.expectedFlags = o.bless->flags;
        switch (b.action) {
          case outcome::Blessed::Created:
            ++sum.blessCreated;
            o.diag += fmt::format("BLESS {}: created\n", b.expectPath);
            break;
          case outcome::Blessed::Updated:
            ++sum.blessUpdated;
            o.diag += fmt::format("BLESS {}: updated (was {})\n", b.expectPath, b.was);
            break;
          case outcome::Blessed::Unchanged:
            ++sum.blessUnchanged;
            o.diag += fmt::format("BLESS {}: unchanged\n", b.expectPath);
            break;
        }
      } catch (const DiagnosticError& e) {
        o.kind = TestOutcome::Fail;
        o.status = Status::Error;
        o.diag += fmt::format("FAIL {}: {}\n", files[i].string(), e.what());
        o.record.message = e.what();
      }
    }
    out << o.text;
    out.flush();
    err << o.diag;
    switch (o.kind) {
      case TestOutcome::Pass: ++sum.passed; break;
      case TestOutcome::Fail: ++sum.failed; break;
      case TestOutcome::Unchecked: ++sum.unchecked; break;
    }
    switch (o.status) {
      case Status::Ok: break;
      case Status::Error: ++sum.errors; break;
      case Status::Timeout: ++sum.timeouts; break;
      case Status::MemoryLimit: ++sum.memory; break;
      case Status::Unknown: ++sum.unknown; break;
    }
    sum.internalErrors += o.internal;
    if (o.live && o.live->hangs()) {
      ++sum.hangs;
      sum.deadlocks += o.live->deadlock;
      sum.livelocks += o.live->livelock;
    }
    o.record.status = o.status;
    o.record.outcome = o.kind == TestOutcome::Pass   ? TestRecord::Pass
                       : o.kind == TestOutcome::Fail ? TestRecord::Fail
                                                     : TestRecord::Unchecked;
    records.push_back(std::move(o.record));
    if (options.progress)
      err << fmt::format("[{}/{} done, {} failed, {:.0f} s] {}", i + 1, files.size(), sum.failed,
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                         files[i].string())
          << std::flush;
  }
  if (options.progress) err << "\r\033[K" << std::flush;
  sum.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto writeReport = [&](const std::filesystem::path& path, auto&& write) {
    if (path.empty()) return;
    std::ofstream f(path);
    if (f) write(f);
    if (!f) throw DiagnosticError(SourceLoc{path.string(), 0, 0}, "cannot write the report file");
  };
  writeReport(options.junitPath, [&](std::ostream& f) {
    writeJUnit(records, fmt::format("ptxmm check --model {} --engine {}", modelName, toString(options.check.engine)),
               sum.seconds, f);
  });
  writeReport(options.sarifPath, [&](std::ostream& f) { writeSarif(records, options.toolVersion, f); });
  if (options.json)
    out << summaryJson(sum) << "\n";
  else
    out << summaryLine(sum) << "\n";
  sum.workers = std::move(work);
  return sum;
}

}  // namespace ptxmm::check
