// The suite runner behind `ptxmm check`: collects litmus files, checks them in parallel (one z3
// context per worker), prints each verdict in path order (herd7 log or JSON), compares it with the
// test's `.expect` line for the model, and ends with one summary line.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "cat/Model.hpp"
#include "check/Check.hpp"
#include "check/Verdict.hpp"
#include "outcome/Expectations.hpp"

namespace ptxmm::check {

/// Options of a suite run.
struct SuiteOptions {
  CheckOptions check;
  std::filesystem::path modelPath = "models/ptx.cat";
  int jobs = 0;                     ///< worker threads; 0 = all cores
  bool json = false;                ///< JSON lines instead of herd logs
  std::filesystem::path dotDir;     ///< non-empty: write witness graphs there
  bool progress = false;            ///< progress line on `err` (caller decides: only on a terminal)
  bool printTime = true;            ///< real times in `Time` lines (false: 0.00, for golden output)
  std::filesystem::path junitPath;  ///< non-empty: write a JUnit XML report there (check/CiReport.hpp)
  std::filesystem::path sarifPath;  ///< non-empty: write a SARIF 2.1.0 log of the findings there
  std::string toolVersion;          ///< version named in the SARIF log
  bool bless = false;               ///< write each decided verdict into its `.expect` (blessExpectation)
  /// --liveness: print every test's "# Liveness:" line; a test that may hang fails unless its
  /// expectation names the hang (+deadlock / +livelock).
  bool liveness = false;
};

/// Counts of a suite run. A test whose status is not Ok (see Status) counts as failed, and in the
/// count of its status.
struct SuiteSummary {
  int passed = 0;
  int failed = 0;
  int unchecked = 0;       ///< checked, verdict printed, but no expectation for this model to compare with
  int errors = 0;          ///< subset of failed: status error (parse/lowering/engine errors, bad .expect)
  int timeouts = 0;        ///< subset of failed: status timeout
  int memory = 0;          ///< subset of failed: status memory
  int unknown = 0;         ///< subset of failed: status unknown (size caps, refused input)
  int internalErrors = 0;  ///< subset of errors: engine disagreements / internal bugs
  bool noTests = false;    ///< the paths held no test (an error; nothing was run)
  bool bless = false;      ///< a --bless run: the counts below are part of the summary
  int blessCreated = 0;    ///< .expect files written where there were none
  int blessUpdated = 0;    ///< .expect files whose line for the model was changed or added
  int blessUnchanged = 0;  ///< .expect files whose line already matched the verdict
  int hangs = 0;           ///< decided tests in which some execution deadlocks or spins forever
  int deadlocks = 0;       ///< of those, tests with a deadlock
  int livelocks = 0;       ///< of those, tests with a livelock
  double seconds = 0;      ///< wall time
  /// The workers and their solver contexts, still alive: a worker may still be freeing a solver, or running
  /// a check that was abandoned at its deadline (reported as a timeout; its result is dropped). Destroying
  /// this waits for the workers and frees the contexts; a process that is done with the suite may exit
  /// without either (ptxmm check does: freeing a large encoding takes longer than checking a small test).
  std::shared_ptr<void> workers;
};

/// The summary line: "N passed, N failed[ (N errors, N timeouts, ...)][, N without expectation]
/// [, N may hang (N deadlock, N livelock)]", and in a --bless run ", N blessed (N created, N updated, N
/// unchanged)".
[[nodiscard]] std::string summaryLine(const SuiteSummary& s);

/// The summary as one JSON object line for --json: {"summary":{"passed":N,"failed":N,"errors":N,...}}.
[[nodiscard]] std::string summaryJson(const SuiteSummary& s);

/// Expectation of the test at `litmusPath` for `modelName` from `<test>.expect` (nullopt if there is
/// no such file or no line for the model). Throws DiagnosticError, located at the line, for a malformed
/// line, an `.expect` that is not a readable file, a line naming a model that is neither `modelName`
/// nor a shipped one, and (given `knownFlags`, the flags the model and the engines can raise) a flag of
/// `modelName`'s line that cannot be raised.
[[nodiscard]] std::optional<outcome::Expectation> readExpectation(const std::filesystem::path& litmusPath,
                                                                  const std::string& modelName,
                                                                  const std::set<std::string>* knownFlags = nullptr);

/// The flags a check with `model` can raise: the model's own (cat::flagNames) and the engines'
/// (`undefined`, `deadlock`, `cut`).
[[nodiscard]] std::set<std::string> raisableFlags(const cat::Model& model);

/// What blessExpectation did to a test's `.expect` file.
struct BlessResult {
  std::string expectPath;  ///< the `.expect` file
  outcome::Blessed::Action action = outcome::Blessed::Unchanged;
  std::string was;  ///< Updated: the verdict and flags the line had
};

/// Writes the observation and flags of `v` (a decided verdict) into the `.expect` line of the test at
/// `litmusPath` for `modelName` (outcome::blessExpectations: a matching line stays byte for byte, a new or
/// changed one gets a TODO reason), atomically, and only if the text changes. Throws DiagnosticError if the
/// file cannot be read, parsed or written.
BlessResult blessExpectation(const std::filesystem::path& litmusPath, const std::string& modelName, const Verdict& v);

/// A directory entry collectTests passed over, and why.
struct SkippedEntry {
  std::filesystem::path path;
  std::string why;
  bool error = false;  ///< a directory that cannot be read (the tests in it are lost): counted as a failure
};

/// All `*.litmus` entries under the given paths (files as given, directories recursively, symbolic links
/// to directories not followed), sorted. Paths that do not exist, and `*.litmus` entries that are not
/// readable files (a dangling link, a link loop, a directory so named), are returned too: they fail
/// when checked. Every other entry passed over for a reason (a directory that cannot be read, a link
/// loop, a link to a directory) goes to `skipped` if given.
[[nodiscard]] std::vector<std::filesystem::path> collectTests(const std::vector<std::string>& paths,
                                                              std::vector<SkippedEntry>* skipped = nullptr);

/// Runs the suite: verdicts to `out`, diagnostics/progress to `err`, then the summary line (see
/// summaryLine; with `json` summaryJson, so that `out` is JSON Lines) to `out`. No test under `paths` is an error
/// (noTests, message on `err`, no summary line). Returns the summary. Throws DiagnosticError if the model cannot be
/// loaded.
SuiteSummary runSuite(const std::vector<std::string>& paths, const SuiteOptions& options, std::ostream& out,
                      std::ostream& err);

}  // namespace ptxmm::check
