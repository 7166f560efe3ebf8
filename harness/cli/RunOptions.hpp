// The options of a hardware campaign that `ptxmm run` and the standalone `ptxmm-hw` share, parsed by
// this one file compiled into both: the litmus paths, --params, one option per stress parameter
// (generated from runner/StressParams.def), --json and --arch.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "report/HwReport.hpp"

namespace ptxmm::cli {

/// The help group of the stress-parameter options.
inline constexpr const char* kStressGroup = "Stress parameters (docs/hardware/README.md)";

/// What the shared options store.
struct RunOptions {
  std::vector<std::string> paths;                                 ///< litmus files or directories
  std::string paramsFile;                                         ///< --params (empty: defaults)
  std::vector<std::pair<std::string, nlohmann::json>> overrides;  ///< stress options given: key, value
  std::string json;                                               ///< --json
  std::string arch;                                               ///< --arch (empty: per test)
  std::string kernelPtx;                                          ///< --kernel-ptx (empty: the generated PTX)
};

/// Adds the shared options to `cmd`, storing into `o`. A stress option's value is checked against
/// the parameter's range when parsed (a usage error naming the option).
void addRunOptions(CLI::App* cmd, RunOptions& o);

/// The campaign that the options ask for (no model): the stress parameters are the --params file's
/// (defaults for missing keys), then the stress options given. Throws std::runtime_error with a
/// "FILE: error: message" text when the file cannot be read or its parameters are invalid.
[[nodiscard]] report::CampaignOptions campaignOptions(const RunOptions& o);

}  // namespace ptxmm::cli
