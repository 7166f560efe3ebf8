// Options several subcommands share, parsed one way: durations (--timeout and budgets, in seconds
// like herd7's -timeout, or with a unit).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace ptxmm::cli {

/// Adds option `name` taking a duration ("60", "1.5", "250ms", "2min", "1h"; no unit = seconds)
/// stored in `ms` as whole milliseconds (0 = none). A malformed value is a usage error.
CLI::Option* addDurationOption(CLI::App* cmd, const std::string& name, unsigned& ms, const std::string& description);

}  // namespace ptxmm::cli
