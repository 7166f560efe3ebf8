// Subcommand registration. Each subcommand lives in its own file (ParseCmd.cpp, CheckCmd.cpp, ...)
// and registers itself on the CLI11 app; its callback stores its exit code in `exitCode`.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "report/HwReport.hpp"

namespace ptxmm::cli {

/// Exit codes of the ptxmm tool.
enum ExitCode : int {
  kOk = 0,         ///< success; every verdict as expected
  kMismatch = 1,   ///< a verdict differs from its expectation, or forbidden-and-seen on hardware
  kUserError = 2,  ///< bad input (file, model, options)
  kInternal = 3,   ///< engine disagreement or internal bug
  kSkipped = 4,    ///< nothing could run (e.g. no GPU of the needed architecture)
};

void addParseCommand(CLI::App& app, int& exitCode);
void addCheckCommand(CLI::App& app, int& exitCode);
void addGenCommand(CLI::App& app, int& exitCode);
void addRunCommand(CLI::App& app, int& exitCode);
/// Registers `ptxmm fences` (fence-necessity analysis and model mutation check, cli/FencesCmd.cpp).
void addFencesCommand(CLI::App& app, int& exitCode);
/// The model oracle of the checker for `--model NAME` (a file or a shipped model): the allowed states
/// of a test, checked with the smt engine; null with `error` set when the model cannot be loaded.
[[nodiscard]] report::ModelOracle checkerOracle(const std::string& model, std::string& error);
/// Registers `ptxmm campaign` (hardware campaigns on a store, cli/CampaignCmd.cpp and CampaignCli.cpp).
void addCampaignCommand(CLI::App& app, int& exitCode);
/// Registers `ptxmm extract` and `ptxmm check-kernel` (PTX kernels → litmus tests, cli/KernelCmd.cpp).
void addKernelCommands(CLI::App& app, int& exitCode);

}  // namespace ptxmm::cli
