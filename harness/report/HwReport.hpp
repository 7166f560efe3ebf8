// Hardware campaign reports: litmus7-style logs of GPU histograms, the model-vs-hardware
// comparison (behind a small oracle interface so that report/ needs no solver), JSON results, and
// the campaign driver used by `ptxmm run` and the standalone device runner.
#pragma once

#include <functional>
#include <istream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "litmus/Ast.hpp"
#include "ptxgen/Kernel.hpp"
#include "runner/Runner.hpp"

namespace ptxmm::report {

/// What the model allows for a test: its final-state keys (outcome::StateSpec::key).
struct ModelStates {
  std::string model;              ///< model name, e.g. "ptx"
  std::set<std::string> allowed;  ///< allowed final states
  std::set<std::string> hanging;  ///< those some execution of which hangs (flag deadlock or livelock)
};

/// Does a state with these flags belong to an execution that hangs (the model's deadlock or livelock flag)?
[[nodiscard]] bool hangs(const std::set<std::string>& stateFlags);

/// Supplies the model's allowed states for a test, or nullopt (no model / checker unavailable).
/// `error` receives why a model verdict could not be computed.
using ModelOracle = std::function<std::optional<ModelStates>(const litmus::Test&, std::string& error)>;

/// The model's allowed states by test hash, read from the JSON lines of `ptxmm check --json` (for a
/// runner without the checker, e.g. ptxmm-hw on a GPU machine). Only decided checks (status "ok") count: a
/// test that timed out, errored or was undecided has no model states, so the runner reports "no model
/// verdict" for it instead of comparing with partial states. Lines that are not JSON objects are skipped.
[[nodiscard]] std::map<std::string, ModelStates> readModelStates(std::istream& in);
/// readModelStates of a file; a file that cannot be read is a std::runtime_error naming it.
[[nodiscard]] std::map<std::string, ModelStates> readModelStatesFile(const std::string& path);

/// One line of the model-vs-hardware comparison.
struct StateComparison {
  std::string state;
  bool allowed = false;
  uint64_t seen = 0;
};

/// Model-vs-hardware comparison of one test.
struct Comparison {
  std::vector<StateComparison> rows;  ///< union of allowed and seen states, sorted
  uint64_t forbiddenSeen = 0;         ///< states seen on hardware that the model forbids
  uint64_t allowedNeverSeen = 0;
};

/// Compare a hardware histogram with the model's allowed states.
[[nodiscard]] Comparison compare(const runner::Histogram& hist, const std::set<std::string>& allowed);

/// Does the state `key` ("0:r0=1; x=2;") satisfy the test's proposition (outcome::StateSpec)? Terms not
/// in the key are 0.
[[nodiscard]] bool satisfies(const litmus::Test& test, const std::string& key);

/// Condition counts of a histogram: positive = instances whose state satisfies the proposition.
struct ConditionCounts {
  uint64_t positive = 0, negative = 0;
  bool ok = false;          ///< litmus7 "Ok": the condition is validated
  std::string observation;  ///< Never / Sometimes / Always
};

/// Counts for `hist` against `test`'s condition (litmus7 semantics for exists / ~exists / forall).
[[nodiscard]] ConditionCounts conditionCounts(const litmus::Test& test, const runner::Histogram& hist);

/// Print a litmus7-style log of one run.
void printLog(std::ostream& os, const litmus::Test& test, const runner::RunResult& result);

/// Print the model comparison (allowed & seen / allowed & never seen / FORBIDDEN & SEEN).
void printComparison(std::ostream& os, const std::string& testName, const std::string& model, const Comparison& c);

/// Options of a hardware campaign.
struct CampaignOptions {
  std::vector<std::string> inputs;  ///< .litmus files or directories (searched recursively)
  runner::StressParams params;
  std::string jsonOut;        ///< write JSON results here (empty: none)
  std::string archOverride;   ///< force a target (empty: per test)
  std::string kernelPtx;      ///< run this PTX module instead of the generated one (one test only; diagnostics)
  std::string kernelPtxFile;  ///< where kernelPtx came from, for the log and the JSON
  ModelOracle oracle;         ///< optional model
  std::string modelName;      ///< for messages when no oracle is given
};

/// Run every test, printing logs to `out` and problems to `err`. Returns the ptxmm exit code:
/// 0 ok, 1 a FORBIDDEN state was seen, 2 bad input, 4 nothing could run.
int runCampaign(const CampaignOptions& options, std::ostream& out, std::ostream& err);

/// Collect the .litmus files named by `inputs` (directories recursively, sorted).
[[nodiscard]] std::vector<std::string> collectLitmusFiles(const std::vector<std::string>& inputs);

}  // namespace ptxmm::report
