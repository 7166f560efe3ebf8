// Options several subcommands share, parsed one way: durations (--timeout and budgets, in seconds
// like herd7's -timeout, or with a unit) and memory sizes (--memory).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace ptxmm::cli {

/// Adds option `name` taking a duration ("60", "1.5", "250ms", "2min", "1h"; no unit = seconds)
/// stored in `ms` as whole milliseconds (0 = none). A malformed value is a usage error.
CLI::Option* addDurationOption(CLI::App* cmd, const std::string& name, unsigned& ms, const std::string& description);

/// Adds option `name` taking a memory size ("4G", "512MiB", "1.5G", bytes; 0 = no limit) stored in
/// `bytes`; `given` becomes true when the option is used. A malformed value is a usage error.
CLI::Option* addMemoryOption(CLI::App* cmd, const std::string& name, uint64_t& bytes, bool& given,
                             const std::string& description);

/// The resource budget of each check, as the subcommands that check take it (--timeout, --memory).
struct BudgetArgs {
  unsigned timeoutMs = 0;
  uint64_t memoryBytes = 0;
  bool memoryGiven = false;
  /// The per-test memory limit: --memory if given, else the default for `jobs` workers.
  [[nodiscard]] uint64_t memoryLimit(int jobs) const;
  /// Bounds Z3's memory (all solvers of the process together, smt::limitSolverMemory) to the per-test
  /// limit, plus what a solver context holds before it is given a test, times the workers `jobs` asks for.
  void limitSolverMemory(int jobs) const;
};

/// Adds --timeout and --memory (`what`: "test", "check") storing into `args`.
void addBudgetOptions(CLI::App* cmd, BudgetArgs& args, const std::string& what);

}  // namespace ptxmm::cli
