// Model mutation check ("no dead rules, no untested rules"): every named check of a cat model, and
// every proxy-fence rule, must change the verdict (states, Ok/No or flags) of at least one suite test
// when it is removed from the model.
//
// Rules:
//   * named checks: `acyclic|irreflexive|empty ... as NAME` (CheckKind::Check) and
//     `undefined_unless ... as NAME` (CheckKind::Undefined); flags and asserts are not rules. Removing
//     one deletes the instruction from the parsed model (also inside included files).
//   * proxy-fence rules: top-level `let NAME = ...` definitions whose name starts with one of the rule
//     prefixes (default "pf-", the convention of models/ptx.cat: pf-proxy, pf-space, pf-covers, ...).
//     Removing one replaces its right-hand side by the empty set/relation `{}` (the rule never
//     applies); definitions that use it are kept.
// The mutation is done on the parsed model (cat::Model AST), so the model files are not touched.
//
// Verdicts are compared in the herd sense: status, the set of reachable states, each state's flags,
// Ok/No, the observation, and (when both sides count executions: CheckOptions::countExecutions)
// the number of allowed executions reaching each state (herd's Positive/Negative witnesses). A rule
// is live if removing it lets at least one more execution of some suite test through, or changes a
// state or a flag; an axiom that only excludes executions already excluded by the others is dead.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "cat/Model.hpp"
#include "check/Check.hpp"
#include "check/Verdict.hpp"

namespace ptxmm::analysis {

/// A removable rule of a model.
struct ModelRule {
  /// Kinds of rules.
  enum class Kind {
    Check,      ///< acyclic / irreflexive / empty ... as NAME
    Undefined,  ///< undefined_unless ... as NAME
    Definition  ///< let NAME = ... with a rule prefix
  };
  std::string name;  ///< check name or definition name
  Kind kind = Kind::Check;
  SourceLoc loc;  ///< where it is written
};

/// Name of a rule kind ("axiom", "undefined_unless", "definition").
[[nodiscard]] std::string toString(ModelRule::Kind k);

/// The rules of a model (main file and included files, program order, each name once): named checks
/// and undefined_unless checks, then the definitions whose names start with one of `prefixes`.
[[nodiscard]] std::vector<ModelRule> findRules(const cat::Model& model,
                                               const std::vector<std::string>& prefixes = {"pf-"});

/// The model without `rule` (see the file comment). Throws DiagnosticError if the model has no such
/// rule.
[[nodiscard]] cat::Model withoutRule(const cat::Model& model, const ModelRule& rule);

/// Why two verdicts of one test differ ("" if they agree on status, states (keys and flags), Ok/No,
/// observation and, when both count executions (Verdict::countsAreExecutions), the number of allowed
/// executions of each state and the Positive/Negative totals).
[[nodiscard]] std::string verdictDifference(const check::Verdict& before, const check::Verdict& after);

/// One test whose verdict changes when a rule is removed.
struct CoveringTest {
  std::string path;    ///< test file
  std::string name;    ///< test name
  std::string change;  ///< verdictDifference(original, mutant)
};

/// Coverage of one rule.
struct RuleCoverage {
  ModelRule rule;                   ///< the rule
  std::vector<CoveringTest> tests;  ///< tests whose verdict changes (up to the limit)
  int tried = 0;                    ///< tests checked against the mutant
  std::vector<std::string> errors;  ///< tests that could not be checked (original or mutant)
};

/// Options of ruleCoverage.
struct CoverageOptions {
  check::CheckOptions check;  ///< engine options (default smt)
  /// Compare execution counts too (herd verdicts): the engine is run with CheckOptions::countExecutions.
  /// false: states, flags and Ok/No only.
  bool countExecutions = true;
  /// With the enum engine: a test it cannot check (size or value-cycle limit, timeout) is checked
  /// with the smt engine instead (original and mutant alike; states and flags only, no counting).
  bool smtFallback = true;
  int testsPerRule = 5;                         ///< stop a rule after this many changed tests (1: first change only)
  int maxTries = 0;                             ///< stop a rule after this many tests (0: all)
  int jobs = 1;                                 ///< rules checked in parallel (one z3 context per worker)
  std::vector<std::string> prefixes = {"pf-"};  ///< definition-name prefixes of proxy-fence rules
  /// Only these rules (names); empty: all rules of findRules.
  std::vector<std::string> only;
  /// Progress callback (rule name, tests tried so far); called from worker threads, may be empty.
  std::function<void(const std::string&, int)> progress;
};

/// Orders the tests for one rule, most likely to be affected first, by a score: the .expect file or
/// litmus text names the rule (normalised: letters and digits, lower case), each word of the rule's
/// name (split at '-' and case changes, 3+ letters) they contain, and, for definition rules, the
/// use of proxy fences and async operations; smaller files first within one score.
[[nodiscard]] std::vector<std::filesystem::path> prioritiseTests(const ModelRule& rule,
                                                                 const std::vector<std::filesystem::path>& tests);

/// For every rule of `model` (named `modelName`), the suite tests whose verdict changes when it is
/// removed. Tests that fail to parse are recorded as errors of every rule and skipped. Throws
/// DiagnosticError for a bad model.
[[nodiscard]] std::vector<RuleCoverage> ruleCoverage(const cat::Model& model, const std::string& modelName,
                                                     const std::vector<std::filesystem::path>& tests,
                                                     const CoverageOptions& options = {});

/// Prints the rule → tests table as Markdown (one row per rule; uncovered rules marked **dead**).
void printCoverageMarkdown(const std::vector<RuleCoverage>& coverage, const std::string& modelPath, std::ostream& os);

/// Prints the rule → tests table as plain text.
void printCoverageText(const std::vector<RuleCoverage>& coverage, std::ostream& os);

}  // namespace ptxmm::analysis
