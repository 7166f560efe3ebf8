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

}  // namespace ptxmm::cli
