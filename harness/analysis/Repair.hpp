// Repair synthesis: for a litmus test whose bad outcome is reachable, or which races or has undefined
// behaviour, search the smallest sets of edits — inserted proxy fences, fences, waits and barriers,
// strengthened or widened synchronisation, a flipped wait parity — that make it clean under the model,
// and print each as a unified diff of the litmus file, cheapest first.
//
// Every repair is verified by re-parsing the patched text and re-checking it (check::checkTest), never
// by pattern. "Clean" means: checked (Status::Ok), the bad outcome (FenceNecessity.hpp: the condition's
// proposition for exists/~exists, its negation for forall) unreachable, and no flag raised in any state
// (no data race, no undefined behaviour, no deadlock). When no clean repair exists within the limits,
// the repairs that make the bad outcome unreachable without raising a flag the original did not raise are
// reported instead, marked "outcome only", with the flags that remain.
//
// The search is breadth-first by cost (a proxy fence or a parity flip 1, a strengthened or widened
// instruction or an acq_rel fence 2, an sc fence 3, an inserted wait 3, a barrier 4; a set costs the sum),
// so the first repairs found are the cheapest; the level they are found at is completed, which gives every
// alternative of that cost. Each edit is inserted at its strongest useful form (the widest scope of the
// test, the proxy fence of every state space) and then weakened while the repair still verifies (the
// narrowest scope, one state space), so the diff shows the weakest instruction that suffices.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/FenceNecessity.hpp"
#include "check/Check.hpp"
#include "check/Verdict.hpp"
#include "litmus/Ast.hpp"

namespace ptxmm::analysis {

/// What an edit does, in increasing cost.
enum class EditClass {
  ProxyFence,  ///< insert a proxy fence (fence.proxy.async, ...)
  Parity,      ///< flip the parity a mbarrier wait waits for
  Strengthen,  ///< relaxed/weak → release/acquire
  Widen,       ///< a wider scope
  Fence,       ///< insert fence.acq_rel.<scope>
  FenceSc,     ///< insert fence.sc.<scope>
  Wait,        ///< insert a wait: cp.async.wait_all, cp.async.bulk.wait_group, an mbarrier try_wait loop
  Barrier      ///< insert bar.sync (every thread of a CTA) or a cluster barrier (every thread of a cluster)
};

/// Cost of one edit of a class (a repair costs the sum over its edits).
[[nodiscard]] int editCost(EditClass c);

/// Short name of a class ("proxy fence", "parity", ...).
[[nodiscard]] std::string toString(EditClass c);

/// A change to the test's text: insert `lines` after line `after` (0 = before the first line), or replace
/// line `line` with `lines`.
struct TextEdit {
  bool replace = false;
  int line = 0;                    ///< replace: the 1-based line replaced; insert: lines go after this one
  std::vector<std::string> lines;  ///< new lines, indented
};

/// One edit of a repair, as applied.
struct RepairEdit {
  EditClass cls = EditClass::ProxyFence;
  std::string what;            ///< "insert `fence.proxy.async.shared::cta;` in P1 before l.12"
  std::vector<TextEdit> text;  ///< one per thread changed
};

/// The result of checking a repaired test under one model.
struct ModelCheck {
  std::string model;
  bool clean = false;
  std::string summary;  ///< verdictSummary of the patched test
};

/// What a patched test achieves.
enum class RepairGrade {
  None,     ///< not repaired
  Outcome,  ///< the bad outcome is unreachable, but flags the original raised remain (e.g. the unconditional
            ///< data read of a message-passing test races whenever the flag is not seen)
  Clean     ///< the bad outcome is unreachable and no flag is raised
};

/// One verified repair.
struct Repair {
  RepairGrade grade = RepairGrade::Clean;  ///< Outcome only when no clean repair exists within the limits
  std::string remaining;                   ///< Outcome: the flags that remain, in the test's terms
  int cost = 0;
  std::vector<RepairEdit> edits;
  std::string text;                ///< the patched test
  std::string diff;                ///< unified diff from the original text to `text`
  std::vector<ModelCheck> models;  ///< the patched test under every model (`clean`: reaches `grade`)
};

/// Options of repairTest.
struct RepairOptions {
  check::CheckOptions check;  ///< engine options for every check
  int jobs = 1;               ///< candidate checks run in parallel
  int maxEdits = 2;           ///< most edits in one repair
  int maxCost = 8;            ///< most total cost searched
  size_t maxChecks = 5000;    ///< most candidate checks; the search stops and says so beyond
};

/// The repair report of one test.
struct RepairReport {
  std::string testName;
  std::string file;
  std::string model;           ///< the model repairs are searched under (the first one given)
  check::Verdict original;     ///< the original under that model
  bool clean = false;          ///< the original is already clean: nothing to repair
  bool canonicalText = false;  ///< the diffs are against the test's canonical form (several instructions
                               ///< share a line in its own text, or its text could not be read)
  std::string problem;         ///< what is wrong with the original, in the test's own terms
  size_t candidates = 0;       ///< distinct edits considered
  size_t checks = 0;           ///< candidate sets checked
  double seconds = 0;
  std::string stopped;          ///< non-empty: why the search ended before finding a repair / completing
  std::vector<Repair> repairs;  ///< cheapest first
  std::string error;            ///< the original could not be checked (then no search)
};

/// Searches the repairs of `test` under `models.front()` and re-checks each one found under every model.
/// `text` is the test's source text (empty: read test.file; unreadable: the canonical form is used).
/// Never throws for bad tests: errors go to RepairReport::error.
[[nodiscard]] RepairReport repairTest(const litmus::Test& test, const std::vector<NamedModel>& models,
                                      const RepairOptions& options, const std::string& text = "");

/// Prints the report: the problem, then each repair with its cost, the models it holds under, and its diff.
void printRepairText(const RepairReport& report, std::ostream& os);

/// The lines of `base` with `edits` applied (insertions after the same line keep their order; at most one
/// replacement per line).
[[nodiscard]] std::vector<std::string> applyTextEdits(const std::vector<std::string>& base,
                                                      const std::vector<TextEdit>& edits);

/// The lines of a blocking wait on mbarrier `mbar` for `parity` that a repair inserts before line `beforeLine`
/// of its thread: the retry label, the try_wait and the branch back (`indent` before the last two). Its names
/// are unique in the thread: the barrier, the parity and the line.
[[nodiscard]] std::vector<std::string> mbarrierWaitLoop(const std::string& mbar, int parity, int beforeLine,
                                                        const std::string& indent = "");

/// Unified diff (3 lines of context) of `edits` applied to `base`; names are the ---/+++ headers.
[[nodiscard]] std::string unifiedDiff(const std::vector<std::string>& base, const std::vector<TextEdit>& edits,
                                      const std::string& fromName, const std::string& toName);

}  // namespace ptxmm::analysis
