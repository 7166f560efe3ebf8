// Shared option parsing of the subcommands.
#include "cli/Options.hpp"

#include "smt/Engine.hpp"
#include "support/Budget.hpp"
#include "support/Duration.hpp"
#include "support/Parallel.hpp"

namespace ptxmm::cli {

CLI::Option* addDurationOption(CLI::App* cmd, const std::string& name, unsigned& ms, const std::string& description) {
  CLI::Validator duration(
      [](std::string& s) -> std::string {
        if (parseDurationSeconds(s)) return "";
        return "'" + s + "' is not a duration (seconds as in herd7: 60, 1.5; or with a unit: 250ms, 2min, 1h)";
      },
      "DURATION");
  return cmd
      ->add_option_function<std::string>(
          name, [&ms](const std::string& s) { ms = durationMs(parseDurationSeconds(s).value_or(0)); }, description)
      ->check(duration);
}

CLI::Option* addMemoryOption(CLI::App* cmd, const std::string& name, uint64_t& bytes, bool& given,
                             const std::string& description) {
  CLI::Validator size(
      [](std::string& s) -> std::string {
        if (parseByteSize(s)) return "";
        return "'" + s + "' is not a memory size (bytes, or with a unit: 512M, 4G, 1.5GiB; 0 = no limit)";
      },
      "SIZE");
  return cmd
      ->add_option_function<std::string>(
          name,
          [&bytes, &given](const std::string& s) {
            bytes = parseByteSize(s).value_or(0);
            given = true;
          },
          description)
      ->check(size);
}

uint64_t BudgetArgs::memoryLimit(int jobs) const {
  return memoryGiven ? memoryBytes : defaultMemoryLimit(workerCount(SIZE_MAX, jobs));
}

void BudgetArgs::limitSolverMemory(int jobs) const {
  const uint64_t perTest = memoryLimit(jobs);
  smt::limitSolverMemory(
      perTest == 0 ? 0 : (perTest + smt::kSolverContextBytes) * static_cast<uint64_t>(workerCount(SIZE_MAX, jobs)));
}

void addBudgetOptions(CLI::App* cmd, BudgetArgs& args, const std::string& what) {
  addDurationOption(cmd, "--timeout", args.timeoutMs,
                    "per-" + what + " time budget, every phase: seconds as in herd7 (60, 1.5) or with a unit (250ms, " +
                        "2min); 0 = none");
  addMemoryOption(cmd, "--memory", args.memoryBytes, args.memoryGiven,
                  "per-" + what + " memory limit (512M, 4G; 0 = none; default: a quarter of this machine's memory, " +
                      "shared out between the workers); over it the " + what + " is reported 'memory'");
}

}  // namespace ptxmm::cli
