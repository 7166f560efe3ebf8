// `campaign` subcommands (harness/campaign/), shared by `ptxmm` and the standalone `ptxmm-hw` (no
// checker): each executable supplies what needs the checker through hooks.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <ostream>
#include <string>

#include "campaign/Store.hpp"
#include "report/HwReport.hpp"

namespace ptxmm::cli {

/// What the executable provides.
struct CampaignHooks {
  /// The model oracle for `--model NAME` (ptxmm: the checker); null: only --model-states.
  std::function<report::ModelOracle(const std::string& model, std::string& error)> oracle;
  /// Generates the mutants of the store's tests under the model (ptxmm: fence necessity); null: the
  /// store must already hold them. Returns an exit code.
  std::function<int(campaign::Store&, const std::string& model, std::ostream& out, std::ostream& err)> mutants;
  std::string tool = "ptxmm";  ///< for messages
};

/// Registers `campaign` with its subcommands (run, resume, worker, tune, coverage, compare, merge,
/// report) on `app`.
void addCampaignCommand(CLI::App& app, int& exitCode, const CampaignHooks& hooks);

/// The oracle of a `ptxmm check --json` JSON-lines file (allowed states by test hash).
[[nodiscard]] report::ModelOracle modelStatesOracle(const std::string& path);

}  // namespace ptxmm::cli
