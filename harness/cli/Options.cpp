// Shared option parsing of the subcommands.
#include "cli/Options.hpp"

#include "support/Duration.hpp"

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

}  // namespace ptxmm::cli
