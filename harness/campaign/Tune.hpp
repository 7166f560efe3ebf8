// Mutation-score tuning of the stress parameters (the MC Mutants / GPUHarbor method): the store's
// mutants (tests with one synchronisation removed or weakened, whose bad outcome the model then
// allows) are run under stress configurations drawn from a search space over StressParams.def;
// a configuration's mutation score is killed / killable (a mutant is killed when its target state is
// seen), its death rate the target states seen per second. Random search, then refinement around
// the best configuration (one parameter moved at a time), with confidence-based early stopping of
// configurations that cannot beat the best; every configuration tried and every run is stored.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "campaign/Backend.hpp"
#include "campaign/Store.hpp"

namespace ptxmm::campaign {

/// One tunable parameter and the values the search draws from.
struct TuneDim {
  const char* name;
  std::vector<int64_t> values;
};

/// The search space (every name is a row of StressParams.def).
[[nodiscard]] const std::vector<TuneDim>& tuneSpace();

/// Options of tune().
struct TuneOptions {
  double budgetSeconds = 60;     ///< max(wall time, device time of the runs)
  uint64_t iterations = 100000;  ///< instances per mutant run
  uint64_t seed = 1;
  std::string out;            ///< write the best parameters here (JSON)
  runner::StressParams base;  ///< the defaults the search starts from
  /// No search: run, at `iterations` instances, every mutant that `base` has not killed yet (in any earlier
  /// run of that configuration; one whose earlier run timed out or mostly hit the spin bound is left out), within the
  /// budget and without early stopping. The configuration's score
  /// then counts a mutant killed by any of its runs: more instances for the survivors of a tuning run.
  bool evaluateOnly = false;
};

/// Per mutant class (generic-proxy, async-proxy, mbarrier, cluster) and mutation kind.
struct ClassScore {
  int killable = 0, killed = 0;
  uint64_t targetInstances = 0;
  double seconds = 0;
};

/// A configuration's evaluation.
struct ConfigScore {
  int64_t config = 0;
  int killable = 0, killed = 0, evaluated = 0;
  uint64_t targetInstances = 0;
  double seconds = 0;
  bool stoppedEarly = false;
  std::map<std::string, ClassScore> byClass;     ///< mutant class
  std::map<std::string, ClassScore> byMutation;  ///< "remove" / "weaken"
  std::map<std::string, int> notRunnable;        ///< per class: mutants whose runs this device skips
  [[nodiscard]] double score() const { return killable == 0 ? 0 : static_cast<double>(killed) / killable; }
  [[nodiscard]] double deathRate() const { return seconds > 0 ? static_cast<double>(targetInstances) / seconds : 0; }
};

/// The evaluation of a configuration from its stored tune runs.
[[nodiscard]] ConfigScore scoreOf(Store& store, int64_t config);

/// How much each parameter moves the score: for each, the spread (max - min) of the mean score of
/// the configurations grouped by its value, largest first.
[[nodiscard]] std::vector<std::pair<std::string, double>> parameterImportance(Store& store);

/// Runs the search on `backend` within the budget. Returns the ptxmm exit code (2: no mutants).
int tune(Store& store, Backend& backend, const TuneOptions& options, std::ostream& out, std::ostream& err);

/// Prints the mutants `config` did not kill, grouped by mutation kind and the reason category their
/// target state was never seen (Coverage.hpp staticReason), with examples.
void printSurvivors(Store& store, int64_t config, std::ostream& out);

/// Prints the tuning summary: default vs best, per class and mutation kind, parameter importance.
void printTuneSummary(Store& store, std::ostream& out);

/// The configurations evaluated on their own (`tune --evaluate`, meta "tune.evaluated"), and setting them.
[[nodiscard]] std::set<int64_t> evaluatedConfigs(Store& store);
void setEvaluatedConfigs(Store& store, const std::set<int64_t>& ids);

}  // namespace ptxmm::campaign
