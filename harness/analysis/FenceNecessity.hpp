// Fence-necessity analysis: for a litmus test whose condition names a bad outcome, remove (or weaken)
// one synchronisation instruction at a time on the AST (litmus::Test), re-check every mutant with
// check::checkTest under each model, and classify each instruction as necessary (the bad outcome
// becomes reachable, or a data race / undefined behaviour appears without it) or redundant.
//
// The "bad outcome" is the condition's proposition for `exists` and `~exists`, and its negation for
// `forall` (litmus/README.md). Mutations (one "sync site" each):
//   * every fence (fence.*, membar), proxy fence (fence.proxy.*), fence.mbarrier_init: removed;
//   * cp.async.wait_group / wait_all / cp.async.bulk.wait_group: removed;
//   * bar.sync / bar.arrive: the k-th barrier instruction with the same barrier id in every thread of
//     a CTA is removed together (removing one thread's share would only deadlock the others);
//   * barrier.cluster.arrive + wait: the k-th pair in every thread of a cluster removed together; a
//     non-relaxed barrier.cluster.arrive is also weakened to .relaxed on its own;
//   * mbarrier.arrive{_drop} (.release) and mbarrier.try_wait/test_wait (.acquire): weakened to
//     .relaxed (same scope).
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cat/Model.hpp"
#include "check/Check.hpp"
#include "check/Checker.hpp"
#include "check/Verdict.hpp"
#include "litmus/Ast.hpp"

namespace ptxmm::analysis {

/// How a sync site is mutated.
enum class MutationKind {
  Remove,          ///< the instructions are deleted from their threads
  WeakenToRelaxed  ///< the instructions' semantics become .relaxed
};

/// One instruction of the test: thread index and statement index in Thread::code.
struct StmtRef {
  int thread = 0;   ///< index into Test::threads
  size_t stmt = 0;  ///< index into Thread::code
};

/// One synchronisation site: the instructions mutated together by one mutant.
struct SyncSite {
  std::string id;     ///< short stable identifier for file names ("s3")
  std::string label;  ///< human-readable: "P0 l.12 fence.proxy.async.shared::cta"
  MutationKind kind = MutationKind::Remove;
  std::vector<StmtRef> stmts;                       ///< the instructions (at least one)
  SourceLoc src;                                    ///< location of the first instruction
  std::vector<std::pair<std::string, int>> instrs;  ///< each instruction printed, with its line (as stmts)
};

/// Finds the synchronisation sites of a test, in thread and program order (see the file comment).
[[nodiscard]] std::vector<SyncSite> findSyncSites(const litmus::Test& test);

/// The test with one site mutated. The name gets a suffix ("+no-s3"); the file stays the same.
[[nodiscard]] litmus::Test applyMutation(const litmus::Test& test, const SyncSite& site);

/// A model to analyse under, with its name (file stem, e.g. "ptx", "ptx-strict-scope").
struct NamedModel {
  std::string name;  ///< printed name
  cat::Model model;  ///< the loaded model
};

/// Loads models from files, naming each by its file stem. Throws DiagnosticError on bad models.
[[nodiscard]] std::vector<NamedModel> loadModels(const std::vector<std::filesystem::path>& paths);

/// The default model list: `dir`/ptx.cat followed by every `dir`/ptx-*.cat, sorted by name.
[[nodiscard]] std::vector<std::filesystem::path> defaultModelPaths(const std::filesystem::path& dir);

/// Whether a verdict reaches the bad outcome (a state satisfying the proposition for exists/~exists,
/// a state not satisfying it for forall).
[[nodiscard]] bool badOutcomeReachable(const check::Verdict& v);

/// The classification of one site under one model.
enum class Necessity {
  Redundant,        ///< the mutant has the same bad-outcome reachability and no new race/UB flag
  NeededOutcome,    ///< the bad outcome becomes reachable without the site
  NeededRace,       ///< a data race appears without the site (bad outcome still unreachable)
  NeededUndefined,  ///< undefined behaviour appears without the site
  OriginalFails,    ///< the original already reaches the bad outcome and removing the site adds no race/UB:
                    ///< removal cannot tell whether it is needed (never reported as redundant)
  Error             ///< the original or the mutant could not be checked (see SiteResult::note)
};

/// Whether the site was shown to be needed (one of the Needed* kinds).
[[nodiscard]] bool isNeeded(Necessity n);

/// Short name of a necessity ("redundant", "needed", "needed (race)", "needed (UB)", "n/a (original fails)",
/// "error").
[[nodiscard]] std::string toString(Necessity n);

/// Result of one mutant under one model.
struct SiteResult {
  Necessity necessity = Necessity::Redundant;
  check::Verdict mutant;          ///< the mutant's verdict
  std::optional<size_t> witness;  ///< index into mutant.states of the state showing what goes wrong
  std::string note;               ///< error message, or extra flags that appeared ("+deadlock")
};

/// The analysis of one test under one model.
struct ModelAnalysis {
  std::string model;              ///< model name
  check::Verdict original;        ///< verdict of the unmodified test
  bool badReachable = false;      ///< the original already reaches the bad outcome
  std::vector<SiteResult> sites;  ///< one per FenceReport::sites entry
};

/// The full fence-necessity report of one test.
struct FenceReport {
  std::string testName;               ///< test name
  std::string file;                   ///< test file
  std::string condition;              ///< condition text, herd style
  std::vector<SyncSite> sites;        ///< the synchronisation sites
  std::vector<ModelAnalysis> models;  ///< one per model, in the order given
};

/// Options of fenceNecessity.
struct FenceOptions {
  check::CheckOptions check;  ///< engine options for every check (default: smt)
  int jobs = 1;               ///< checks run in parallel (>1: one checker per worker; the `checker` argument is unused)
};

/// Runs the analysis of `test` under each model. Never throws for bad tests: check errors are
/// reported per site (Necessity::Error) with the checker's message. `checker`: the caller's, kept across
/// tests (null: one for this test); a check past its deadline is reported as a timeout (check::Checker).
[[nodiscard]] FenceReport fenceNecessity(const litmus::Test& test, const std::vector<NamedModel>& models,
                                         const FenceOptions& options = {}, check::Checker* checker = nullptr);

/// Short text of a verdict for tables: "Never", "Sometimes +data-race", "error: ...".
[[nodiscard]] std::string verdictSummary(const check::Verdict& v);

/// Witness files written for a report: (site index, model index) → path of the picture (SVG when
/// `dot` ran, else the .dot file), relative to the directory given to writeWitnesses.
struct WitnessFiles {
  /// One written picture.
  struct Entry {
    size_t site = 0;   ///< index into FenceReport::sites
    size_t model = 0;  ///< index into FenceReport::models
    std::string file;  ///< file name inside the directory
  };
  std::vector<Entry> entries;  ///< in site, then model order
  /// Why a picture stayed a .dot file although `dot` is installed: dot failed (its stderr) or timed
  /// out, one message per picture. A missing dot is not an error.
  std::vector<std::string> errors;

  /// The picture of (site, model), or nullptr.
  [[nodiscard]] const Entry* find(size_t site, size_t model) const;
};

/// Writes one witness graph (DIR/<test>-<site>-<model>.dot, plus .svg when `svg` and `dot` is
/// installed) for every necessary site and model with a witness (with `firstModelOnly`: only for the
/// first model under which the site is necessary, the picture the Markdown output shows). Throws
/// std::runtime_error if the directory cannot be created or a file cannot be written; a dot that fails
/// or times out (30 s) leaves the .dot file as the picture and its message in WitnessFiles::errors.
WitnessFiles writeWitnesses(const FenceReport& report, const std::filesystem::path& dir, bool svg = true,
                            bool firstModelOnly = false);

/// Prints the report as plain text: original verdicts, then one line per site with its class per
/// model, then the witness file names (if any).
void printText(const FenceReport& report, std::ostream& os, const WitnessFiles* files = nullptr);

/// Prints the report as a Markdown section ("### test"), with a table (sites × models) and, for each
/// necessary site, a link to its witness picture under `pictureBase` (a path relative to the
/// Markdown file; empty: no pictures).
void printMarkdown(const FenceReport& report, std::ostream& os, const WitnessFiles* files = nullptr,
                   const std::string& pictureBase = "");

}  // namespace ptxmm::analysis
