// Verdicts: what checking one litmus test against one cat model yields (states, Ok/No, counts,
// observation, flags, witnesses, the axioms that forbid the condition's outcome), and their
// herd7-format log and JSON forms.
//
// The plain data types of this header (StateResult, Witness, EngineResult) are header-only so that
// the engines (enum/, smt/) can fill them without linking check/; the functions are in Verdict.cpp.
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
#include "support/Budget.hpp"

namespace ptxmm::check {

/// One event of a witness execution, as shown in logs and graphs.
struct WitnessEvent {
  int id = -1;              ///< EventId in the event program
  int thread = -1;          ///< -1 for init writes
  std::string label;        ///< "W x=1", "R y=0", "F.sc.gpu"
  std::string kind;         ///< "R", "W" or "F"
  int64_t value = 0;        ///< value read or written (0 for fences)
  bool isInit = false;      ///< initial write
  bool proxyFence = false;  ///< a proxy fence (highlighted in graphs)
  int line = 0;             ///< source line of the instruction that gave rise to it (0 for init writes)
  int srcThread = -1;       ///< the litmus thread of that instruction (async operations: the issuing one)
  std::string instr;        ///< that instruction, printed ("" for init writes)
};

/// What a raised flag or undefined_unless check found in a witness execution: the value the model
/// tested, as pairs of events (a relation, e.g. the racing pairs of `data-race`) or events (a set).
struct Finding {
  std::string flag;                        ///< the flag it raises: the check's name, or "undefined"
  std::string check;                       ///< the model's name of the check
  std::vector<std::pair<int, int>> pairs;  ///< relation value (event ids)
  std::vector<int> events;                 ///< set value (event ids)
};

/// One execution: its events and the relations between them (by event id).
struct Witness {
  std::vector<WitnessEvent> events;
  /// Relations by name: "po", "rf", "co", "fr", "sc", plus static ones (issue, aso, ...) and those
  /// chosen by the model's `show`.
  std::map<std::string, std::vector<std::pair<int, int>>> relations;
  /// The non-empty values of the model's flags and undefined_unless checks in this execution.
  std::vector<Finding> findings;
};

/// One reachable final state.
struct StateResult {
  std::string key;                 ///< canonical key "0:r1=1; 1:r2=0; x=2;"
  std::vector<int64_t> values;     ///< values of the observed terms, in key order
  bool satisfies = false;          ///< whether the condition's proposition holds in this state
  uint64_t executions = 0;         ///< number of allowed executions reaching it (see countsAreExecutions)
  std::set<std::string> flags;     ///< flags raised by some allowed execution reaching it
  std::optional<Witness> witness;  ///< one allowed execution reaching it
  /// Check name -> an earlier witness whose finding of that check `witness` does not repeat (a state
  /// reached by executions with different flags keeps a finding for each, see replaceWitness).
  std::map<std::string, Witness> flagWitness;
};

/// Makes `w` the witness of `st`; the findings of the witness it replaces stay reported (flagWitness).
void replaceWitness(StateResult& st, Witness w);

/// How often the condition's proposition holds over the allowed executions (herd7 `Observation` line,
/// herdtools7 herd/top_herd.ml): Never (no execution satisfies it), Always (every one does), else
/// Sometimes, whatever the quantifier (for `forall` as for `exists`).
enum class Observation { Always, Sometimes, Never };

/// Outcome of checking one test. Only Ok carries a verdict: every other status means the test was
/// not decided, and no output format may print Ok/No, an Observation or counts for it (herd7 prints
/// no log for a test it could not finish); suites count it as failed.
enum class Status {
  Ok,           ///< all states computed: the verdict fields are valid
  Error,        ///< the test could not be checked (bad input, engine error; message says why)
  Timeout,      ///< the time budget was spent; states are partial
  MemoryLimit,  ///< the memory budget (--memory) was spent; states are partial
  Unknown       ///< could not be decided: a size cap (states, candidates), refused input, solver unknown
};

/// Name of a status as written in logs and JSON: "ok", "error", "timeout", "memory", "unknown".
[[nodiscard]] const char* statusName(Status s);

/// The status of a test whose budget is spent: Timeout or MemoryLimit.
[[nodiscard]] inline Status budgetStatus(const BudgetExceeded& e) {
  return e.kind() == BudgetExceeded::Time ? Status::Timeout : Status::MemoryLimit;
}

/// Parses a status name (inverse of statusName).
[[nodiscard]] std::optional<Status> parseStatus(const std::string& s);

/// What an engine produces for one test (before the verdict's derived fields are computed).
struct EngineResult {
  Status status = Status::Ok;
  std::string message;                   ///< for Unknown / Error
  std::vector<StateResult> states;       ///< any order; check/ sorts them by key
  bool countsAreExecutions = true;       ///< false: `executions` counts 1 per state (smt without counting)
  std::vector<std::string> forbiddenBy;  ///< axioms forbidding the condition's outcome (if unreachable)
  uint64_t candidates = 0;               ///< candidate executions examined (enum) or solver calls (smt)
};

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
  /// true: positive/negative count executions, as herd7 does (enum engine, both, smt with smtCount);
  /// false: they count final states (smt engine by default), and the log says so in a `#` line.
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

/// Text of a condition in herd7 style: `exists (0:r1=1 /\ 1:r2=0)`.
[[nodiscard]] std::string conditionText(const litmus::Condition& c);

/// Text of a proposition in herd7 style (no quantifier).
[[nodiscard]] std::string propText(const litmus::Prop& p);

/// Name of an observation: "Always", "Sometimes", "Never".
[[nodiscard]] std::string toString(Observation o);

/// Parses "Always" / "Sometimes" / "Never".
[[nodiscard]] std::optional<Observation> parseObservation(const std::string& s);

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
