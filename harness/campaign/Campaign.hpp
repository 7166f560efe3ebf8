// Running a campaign from the store: planning (tests, the model's allowed states, one pending run per
// test and configuration), workers that claim runs with a lease and write each result the moment it
// finishes, several workers (one process per GPU), and the terminal progress line.
#pragma once

#include <functional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "campaign/Backend.hpp"
#include "campaign/Store.hpp"
#include "report/HwReport.hpp"

namespace ptxmm::campaign {

/// What `campaign run` adds to the store.
struct PlanOptions {
  std::vector<std::string> inputs;  ///< .litmus files or directories
  runner::StressParams params;      ///< iterations included
  std::string arch;                 ///< force a target (empty: per test)
  report::ModelOracle oracle;       ///< the model's allowed states (may be empty)
  std::string modelName;
  int shard = 0, shards = 1;  ///< only tests whose index (in file order) is shard mod shards
};

/// Adds the tests and their pending runs (batch "campaign"); tests already stored keep their allowed
/// states (no model check again). Returns false when an input was bad (diagnostics on `err`); the
/// good ones are planned all the same.
bool plan(Store& store, const PlanOptions& options, std::ostream& err);

/// Adds a pending run of every stored test (kind "test") under `params` (`campaign rerun`: the
/// tests' text and allowed states come from the store; no files, no checker). Returns the runs added.
int planStored(Store& store, const runner::StressParams& params);

/// The configuration's parameters with the run's iteration count.
[[nodiscard]] runner::StressParams runParams(const ConfigRow& config, uint64_t iterations);

/// Fills `run`'s result fields from an execution of `test` (model comparison, mutant target).
void recordExecution(RunRow& run, const TestRow& test, const Execution& ex);

/// Runs one claimed run while a second connection renews its lease, and stores the result.
/// Returns the finished row (status "lost" when another worker took the claim over).
RunRow executeClaimed(Store& store, Backend& backend, RunRow run, double leaseSeconds);

/// The mutants this device cannot run: a tuning run of them ended "skipped" (the generator refused them or they
/// need another architecture) and none ran (finished otherwise; a refusal may depend on the parameters). They are
/// not killable here.
[[nodiscard]] std::set<int64_t> notRunnableMutants(Store& store);

/// A worker's options.
struct WorkerOptions {
  std::string db;
  std::string backend = "cuda";
  std::string fake;  ///< the fake backend's fault items
  int gpu = 0;
  double leaseSeconds = 600;
  int maxAttempts = 3;
  bool progress = false;  ///< print the progress line on stderr
};

/// Claims and runs the campaign's runs until none is pending or claimed by a live lease. Returns
/// the number of runs it finished.
int runWorker(const WorkerOptions& options, std::ostream& err);

/// One worker process per GPU (`exe` campaign worker ... with CUDA_VISIBLE_DEVICES set), waiting
/// for all of them and showing the progress line (when `progress`). Returns the number of workers
/// that did not exit cleanly.
int runWorkers(const WorkerOptions& options, const std::vector<int>& gpus, const std::string& exe, std::ostream& err);

/// "all", or "0,2": the GPU indexes. Throws std::runtime_error for bad text.
[[nodiscard]] std::vector<int> parseGpus(const std::string& text, const std::string& backend, const std::string& fake);

/// The progress line of a batch: "campaign: 12/40 runs, 3.1e8 instances/s, ETA 2m10s".
[[nodiscard]] std::string progressLine(Store& store, const std::string& batch, double startedAt, int64_t doneAtStart);

}  // namespace ptxmm::campaign
