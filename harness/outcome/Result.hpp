// What an engine produces for one test: its status, and per reachable final state the key, the
// values, whether the condition's proposition holds, the number of executions, the flags raised and a
// witness execution. check/ assembles verdicts from these records; the engines (enum/, smt/) fill them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "support/Budget.hpp"

namespace ptxmm::outcome {

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

/// The flag of a final state reached by a path cut at the loop-unrolling bound: the set of final states
/// is then only those of the bounded executions, so a state outside it is not known to be forbidden.
inline constexpr const char* kCutFlag = "cut";

/// Why a verdict with the cut flag gives no set of allowed states to compare hardware outcomes with.
inline constexpr const char* kCutStatesReason =
    "the model's final states are cut at the loop-unrolling bound (flag cut): they are not the complete set of "
    "allowed states, so observed outcomes are not compared (check the test with a larger --unroll)";

/// What an engine produces for one test (before the verdict's derived fields are computed).
struct EngineResult {
  Status status = Status::Ok;
  std::string message;                   ///< for Unknown / Error
  std::vector<StateResult> states;       ///< any order; check/ sorts them by key
  bool countsAreExecutions = true;       ///< false: `executions` counts 1 per state (smt without counting)
  std::vector<std::string> forbiddenBy;  ///< axioms forbidding the condition's outcome (if unreachable)
  uint64_t candidates = 0;               ///< candidate executions examined (enum) or solver calls (smt)
};

}  // namespace ptxmm::outcome
