// Verdicts: what checking one litmus test against one cat model yields (states, Ok/No, counts,
// observation, flags, witnesses, the axioms that forbid the condition's outcome), and their
// herd7-format log and JSON forms. A verdict is assembled from an engine's per-state records
// (outcome/Result.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "litmus/Ast.hpp"
#include "outcome/Observation.hpp"
#include "outcome/Result.hpp"

namespace ptxmm::check {

// Verdicts are expressed in outcome/'s records.
using outcome::EngineResult;
using outcome::Finding;
using outcome::Observation;
using outcome::StateResult;
using outcome::Status;
using outcome::Witness;
using outcome::WitnessEvent;

/// The verdict on one test.
struct Verdict {
  std::string testName;
  std::string file;
  std::string hash;    ///< herd7's test hash (litmus::testHash)
  std::string model;   ///< model name (file stem)
  std::string engine;  ///< "enum", "smt" or "both"
  litmus::Condition::Quant quant = litmus::Condition::Quant::Exists;
  std::string condition;            ///< "exists (0:r1=1 /\ 1:r2=0)"
  std::vector<StateResult> states;  ///< sorted by key
  bool ok = false;  ///< the quantified condition is validated: exists P > 0, ~exists P = 0, forall N = 0
  /// Some allowed execution fails an undefined_unless check (flag "undefined", herd's Flag.Undef): herd
  /// prints `Undef` in place of Ok/No and `Flag *undef*`.
  bool undefined = false;
  /// Allowed executions (or final states, see countsAreExecutions) satisfying the condition's
  /// proposition (P, herd's `pos`) and not satisfying it (N, herd's `neg`), whatever the quantifier.
  /// herd's `Positive:`/`Negative:` line prints them swapped for `~exists` (witnessCounts).
  uint64_t positive = 0;
  uint64_t negative = 0;
  /// true: positive/negative count executions, as herd7 does (CheckOptions::countExecutions, `--count`);
  /// false: they count final states (the default), and the log says so in a `#` line.
  bool countsAreExecutions = true;
  Observation observation = Observation::Never;
  std::set<std::string> flags;  ///< union of the states' flags
  /// Every allowed execution deadlocks (some thread waits forever at a barrier): the test has no
  /// complete execution, its final states are those of blocked executions (log line, JSON field).
  bool noCompleteExecution = false;
  /// Forbidden outcome (the condition's proposition, negated for forall) → names of the axioms
  /// that forbid it (an unsat core); empty when the outcome is reachable.
  std::vector<std::string> forbiddenBy;
  Status status = Status::Ok;
  std::string message;
  bool internalError = false;  ///< engine disagreement or engine bug (exit code 3)
  std::string note;            ///< e.g. "not cross-checked: enum engine gave up (...)" in both mode
  double seconds = 0;
};

/// Fills the derived fields of `v` (ok, positive/negative, observation, flags) from v.states and
/// v.quant, sorting the states by key.
void finalizeVerdict(Verdict& v);

/// Builds a verdict for `test` from an engine's result (states, counts, flags, forbiddenBy).
[[nodiscard]] Verdict makeVerdict(const litmus::Test& test, EngineResult result);

/// herd7's kind of a condition (`Test X <kind>`): exists "Allowed", ~exists "Forbidden", forall
/// "Required" (herdtools7 lib/constrGen.ml, kind_of/pp_kind).
[[nodiscard]] const char* kindName(litmus::Condition::Quant q);

/// Whether the test's threads always terminate (models/ptx.cat "Progress", `ptxmm check --liveness`).
struct LivenessReport {
  /// "live": every execution ends; "bounded": no hang found, but a loop that is not a spin loop was cut at
  /// the unroll bound; "hangs": some execution deadlocks (flag deadlock) or spins forever (flag livelock).
  std::string verdict = "live";
  bool deadlock = false;
  bool livelock = false;
  std::vector<std::string> notes;  ///< where threads wait forever ("livelock: P1 l.7 ...")
  [[nodiscard]] bool hangs() const { return deadlock || livelock; }
};
[[nodiscard]] LivenessReport liveness(const Verdict& v);
/// One line for logs: "Live", "Bounded (...)", "Hangs: ...".
[[nodiscard]] std::string livenessLine(const LivenessReport& r);

/// herd7's validation line: "Undef" when some allowed execution is undefined, else "Ok" / "No".
[[nodiscard]] const char* validationText(const Verdict& v);

/// herd7's `Positive: a Negative: b` (herd/top_herd.ml, check_wit): (P, N) for exists and forall,
/// (N, P) for ~exists: the executions that witness the quantified condition come first.
[[nodiscard]] std::pair<uint64_t, uint64_t> witnessCounts(const Verdict& v);

/// Prints the verdict in herd7's log format, line for line as herd7 7.58 prints it (herd/top_herd.ml):
/// Test/States/Ok|No|Undef/Witnesses/Positive/Flag/Condition/Observation/Time/Hash, the flags as herd
/// orders them (`Flag *undef*` first, then ptxmm's flags such as `cut`, `deadlock`, `data-race` by
/// name). ptxmm's own lines follow the Hash line and start with `#` (herd's log readers skip them):
/// the undefined_unless and flag findings, "# No complete execution: ...", the note that the counts are
/// final states, and the axioms that forbid the outcome. herd7 ends each test with an empty line; the
/// caller prints it (check::Suite). A test whose status is not Ok prints nothing, as herd7 prints no
/// log for a test it could not finish (the caller reports the status and message on stderr).
/// "# Liveness: ..." is printed when a thread may hang or a loop was cut, and always with `liveness`.
void printHerdLog(const Verdict& v, std::ostream& os, bool printTime = true, bool liveness = false);

/// One finding of a verdict in the test's own terms: a raised flag (or an undefined_unless check) and
/// the instructions its witness execution names.
struct FindingReport {
  std::string flag;   ///< "data-race", "undefined", ...
  std::string check;  ///< the model's check ("data-race", "async-read-before-completion", ...)
  std::string state;  ///< the final state whose witness shows it
  /// The instructions: one group per pair of the relation ({a, b}) or per event of the set ({a}).
  std::vector<std::vector<WitnessEvent>> groups;
  /// "P0 l.4 `st.shared.u32 [buf], 1` and P1 l.9 `cp.async.bulk...`; ..." (at most three groups).
  [[nodiscard]] std::string text() const;
};

/// The findings of `v` (an Ok verdict): for each flag raised, from the first state (in key order) whose
/// witness shows it, one report per check that raised it.
[[nodiscard]] std::vector<FindingReport> findings(const Verdict& v);

/// The verdict as JSON text (one object; witnesses included when `withWitnesses`).
[[nodiscard]] std::string verdictJson(const Verdict& v, bool withWitnesses = true);

}  // namespace ptxmm::check
