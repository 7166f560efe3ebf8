// Durations on the command line, written as herd7 takes its -timeout (seconds, fractions allowed)
// or with a unit: "60", "1.5", "250ms", "2s", "5min", "1h".
#pragma once

#include <optional>
#include <string>

namespace ptxmm {

/// The duration `text` in seconds, or nullopt if it is not a non-negative number with an optional
/// unit (ms, s, min, h; no unit = seconds).
[[nodiscard]] std::optional<double> parseDurationSeconds(const std::string& text);

/// Seconds as whole milliseconds for budgets (0 stays 0 = none; a positive duration is at least 1 ms).
[[nodiscard]] unsigned durationMs(double seconds);

}  // namespace ptxmm
